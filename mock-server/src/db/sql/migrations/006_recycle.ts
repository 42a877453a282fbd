// 006: the recycle bins and version retention (issue #16 items 1 and 4).
// - recycle_entries.original_path: the names of the folders the entry was deleted from, kept as text because those
//   folders may be deleted (even for good) before the entry is restored, and restore then recreates them by name.
// - recycle_entries.purged_at: when the entry left the user's bin for the administrators' second-level bin (level 2);
//   that bin's retention counts from then.
// - business_libs.version_max_count / version_max_days: how many history versions, and for how long, files of the
//   library keep; null = the server's defaults (HCS_VERSION_MAX_COUNT, HCS_VERSION_MAX_DAYS).
import type { Kysely } from 'kysely';
import type { Migration } from 'kysely/migration';
import type { SqlDialect } from '../tx.ts';
import { columnTypes } from './column-types.ts';

export function recycleMigration(dialect: SqlDialect): Migration {
  return {
    async up(db: Kysely<unknown>) {
      const t = columnTypes(dialect);
      await db.schema.alterTable('recycle_entries').addColumn('original_path', t.text, (c) => c.notNull().defaultTo('')).execute();
      await db.schema.alterTable('recycle_entries').addColumn('purged_at', t.time).execute();
      // The second-level bin is listed across every space, and its retention reads the oldest first.
      await db.schema.createIndex('recycle_level_purged').on('recycle_entries').columns(['level', 'purged_at']).execute();
      // Retention of the first-level bin reads the oldest entries of every space.
      await db.schema.createIndex('recycle_level_deleted').on('recycle_entries').columns(['level', 'deleted_at']).execute();
      await db.schema.createIndex('recycle_instance').on('recycle_entries').column('instance_id').execute();
      await db.schema.alterTable('business_libs').addColumn('version_max_count', t.int).execute();
      await db.schema.alterTable('business_libs').addColumn('version_max_days', t.int).execute();
      // Version retention reads a file's versions newest first, and the oldest ones across all files.
      await db.schema.createIndex('file_versions_created').on('file_versions').column('created_at').execute();
    },
  };
}
