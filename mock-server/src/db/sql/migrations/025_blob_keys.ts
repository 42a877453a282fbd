// 025: content is named to storage by bucket and key (a client signs `/{bucket}/{key}`), and the server finds the blob
// behind a signed read by its key (storage/routing.ts keyLocation). Without an index that lookup read every row of
// `blobs` on each ranged part of every download: a scan of the whole table per signature. The replication sweep asks
// the same of a site's copies before deleting a purged blob's object there (replication-repo.ts keyInUse), which read
// every copy at that site for each deletion.
import type { Kysely } from 'kysely';
import type { Migration } from 'kysely/migration';

export function blobKeysMigration(): Migration {
  return {
    async up(db: Kysely<unknown>) {
      await db.schema.createIndex('blobs_object_key').on('blobs').columns(['object_key', 'bucket']).execute();
      await db.schema.createIndex('blob_replicas_key').on('blob_replicas').columns(['site_id', 'object_key']).execute();
    },
  };
}
