// 017: pull sync (issue #20 part 2): one row per pull of a user's files from another drive server (pullsync/).
// - token_enc: the remote session token, sealed under the master key; the password itself is never stored. The token
//   is kept only while the job may still run (a restart resumes with it) and is cleared when the job ends.
// - At most one pull per user runs at a time (partial unique index), so two clicks cannot start two jobs.
// Files already imported are found by path and SHA-256 in the target library itself, not recorded here: a resumed
// or repeated pull skips them whatever happened between the filing and a progress update.
import { sql, type Kysely, type SqlBool } from 'kysely';
import type { Migration } from 'kysely/migration';
import type { SqlDialect } from '../tx.ts';
import { columnTypes } from './column-types.ts';

export function pullSyncMigration(dialect: SqlDialect): Migration {
  return {
    async up(db: Kysely<unknown>) {
      const t = columnTypes(dialect);
      await db.schema
        .createTable('pull_syncs')
        .addColumn('id', t.text, (c) => c.primaryKey())
        .addColumn('user_id', t.text, (c) => c.notNull().references('users.id').onDelete('cascade'))
        .addColumn('sync_type', t.text, (c) => c.notNull().check(sql`sync_type in ('personal', 'group')`))
        .addColumn('server_url', t.text, (c) => c.notNull())
        .addColumn('remote_user', t.text, (c) => c.notNull())
        .addColumn('group_name', t.text)
        .addColumn('token_enc', t.text)
        .addColumn('state', t.text, (c) => c.notNull().check(sql`state in ('running', 'done', 'failed')`))
        .addColumn('files', t.int, (c) => c.notNull().defaultTo(0))
        .addColumn('skipped', t.int, (c) => c.notNull().defaultTo(0))
        .addColumn('failed_files', t.int, (c) => c.notNull().defaultTo(0))
        .addColumn('bytes', t.bytes, (c) => c.notNull().defaultTo(0))
        .addColumn('error', t.text)
        .addColumn('created_at', t.time, (c) => c.notNull())
        .addColumn('updated_at', t.time, (c) => c.notNull())
        .addColumn('finished_at', t.time)
        .execute();
      await db.schema.createIndex('pull_syncs_user').on('pull_syncs').columns(['user_id', 'created_at']).execute();
      await db.schema
        .createIndex('pull_syncs_running')
        .unique()
        .on('pull_syncs')
        .column('user_id')
        .where(sql<SqlBool>`state = 'running'`)
        .execute();
    },
  };
}
