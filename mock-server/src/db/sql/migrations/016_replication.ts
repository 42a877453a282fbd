// 016: cross-site replication (issue #20 part 3).
// - sync_configs: a library (optionally one folder of it) replicated from a source site to target sites. Targets are
//   a JSON array of site ids: a config is edited as one, and replicas are keyed by site, not by config.
// - blob_replicas: one row per blob and target site, the truth about a copy. The primary key is what makes
//   replication free of duplicates: a blob is queued for a site once, whatever number of configs or sweeps name it.
//   gone_at is set in the transaction that purges the blob itself; the replica's object is deleted once gone_at is
//   HCS_REPLICA_DELETE_DELAY_SECONDS old (a purge is followed, but not at once, so a mistake can still be undone).
import { sql, type Kysely } from 'kysely';
import type { Migration } from 'kysely/migration';
import type { SqlDialect } from '../tx.ts';
import { columnTypes } from './column-types.ts';

export function replicationMigration(dialect: SqlDialect): Migration {
  return {
    async up(db: Kysely<unknown>) {
      const t = columnTypes(dialect);
      await db.schema
        .createTable('sync_configs')
        .addColumn('id', t.text, (c) => c.primaryKey())
        .addColumn('lib_code', t.text, (c) => c.notNull())
        .addColumn('folder_id', t.text)
        .addColumn('source_site', t.text, (c) => c.notNull())
        .addColumn('target_sites', t.text, (c) => c.notNull())
        .addColumn('created_at', t.time, (c) => c.notNull())
        .addColumn('updated_at', t.time, (c) => c.notNull())
        .execute();
      await db.schema
        .createTable('blob_replicas')
        .addColumn('blob_id', t.text, (c) => c.notNull())
        .addColumn('site_id', t.text, (c) => c.notNull())
        .addColumn('state', t.text, (c) => c.notNull().check(sql`state in ('pending', 'synced', 'failed')`))
        .addColumn('object_key', t.text, (c) => c.notNull())
        .addColumn('size', t.bytes, (c) => c.notNull())
        .addColumn('error', t.text)
        .addColumn('queued_at', t.time, (c) => c.notNull())
        .addColumn('synced_at', t.time)
        .addColumn('gone_at', t.time)
        .addColumn('updated_at', t.time, (c) => c.notNull())
        .addPrimaryKeyConstraint('blob_replicas_pk', ['blob_id', 'site_id'])
        .execute();
      // Progress per site and the failure list read by state; the delete sweep reads purged blobs' replicas.
      await db.schema.createIndex('blob_replicas_state').on('blob_replicas').columns(['site_id', 'state']).execute();
      await db.schema.createIndex('blob_replicas_gone').on('blob_replicas').column('gone_at').execute();
    },
  };
}
