// 023: sync status where users see files (issue #20). A folder's replication state is rolled up from the copies that
// are behind (replication/status.ts), which says nothing about blobs no sweep has recorded yet. A sweep that found
// every blob under a config recorded stamps caught_up_at; a sweep that filled its batch (more may be missing) and
// an edit of the config clear it, so a folder under a config not caught up is shown pending, never synced.
import type { Kysely } from 'kysely';
import type { Migration } from 'kysely/migration';
import type { SqlDialect } from '../tx.ts';
import { columnTypes } from './column-types.ts';

export function syncStatusMigration(dialect: SqlDialect): Migration {
  return {
    async up(db: Kysely<unknown>) {
      await db.schema.alterTable('sync_configs').addColumn('caught_up_at', columnTypes(dialect).time).execute();
    },
  };
}
