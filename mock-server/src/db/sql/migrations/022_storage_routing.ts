// 022: per-library storage routing (issue #20 parts 1 and 5).
// - upload_sessions.connection_id: the connection a session's bytes go to, fixed when the session is made (with its
//   bucket, a column since 001), so a policy changed mid-upload never splits one upload across two places. Sessions
//   from before are on connection '0', where every upload went.
// - storage_policies.kms_key_id: the KMS key an sse-kms policy asks the external S3 for ('' = the bucket's default).
// Blobs already record their connection (015) and bucket (001): reads, copies and deletes follow those.
import type { Kysely } from 'kysely';
import type { Migration } from 'kysely/migration';
import type { SqlDialect } from '../tx.ts';
import { columnTypes } from './column-types.ts';

export function storageRoutingMigration(dialect: SqlDialect): Migration {
  return {
    async up(db: Kysely<unknown>) {
      const t = columnTypes(dialect);
      await db.schema.alterTable('upload_sessions').addColumn('connection_id', t.text, (c) => c.notNull().defaultTo('0')).execute();
      await db.schema.alterTable('storage_policies').addColumn('kms_key_id', t.text, (c) => c.notNull().defaultTo('')).execute();
    },
  };
}
