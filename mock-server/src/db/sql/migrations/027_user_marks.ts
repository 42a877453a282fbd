// 027: whether a user has ever marked an item (a favourite or a label of their own). Every listing asks, for each of
// its rows, whether the caller marked it: two index probes per row inside the page's statement, or a query of its
// own. Most users never mark anything, and for them the answer is known before any row is read. The flag rides on
// the session's user row, which each node caches (auth/session-cache.ts), so it costs no query; it is set in the
// transaction that adds the first mark and never cleared (a user who took every mark off is only asked again).
// The node caches drop a user's sessions when a cached column changes: the users trigger of 024 is made again with
// this column among the ones it watches (PostgreSQL; SQLite's TEMP triggers are made at start from the same list).
import { sql, type Kysely } from 'kysely';
import type { Migration } from 'kysely/migration';
import type { SqlDialect } from '../tx.ts';
import { columnTypes } from './column-types.ts';
import { USER_RIGHTS_COLUMNS } from './024_session_events.ts';

/** Columns of a user whose change a node's session cache must hear of: 024's and has_marks. */
export const USER_CACHED_COLUMNS = [...USER_RIGHTS_COLUMNS, 'has_marks'] as const;

export function userMarksMigration(dialect: SqlDialect): Migration {
  const t = columnTypes(dialect);
  return {
    async up(db: Kysely<unknown>) {
      await db.schema.alterTable('users').addColumn('has_marks', t.flag, (c) => c.notNull().defaultTo(0)).execute();
      await sql`update users set has_marks = 1
        where exists (select 1 from favourites f where f.user_id = users.id)
           or exists (select 1 from instance_labels il where il.user_id = users.id)`.execute(db);
      if (dialect !== 'postgres') return;
      const changed = (cols: readonly string[]) => sql.raw(`(${cols.map((c) => `old.${c}`).join(', ')}) is distinct from (${cols.map((c) => `new.${c}`).join(', ')})`);
      await sql`drop trigger hcs_users_changed on users`.execute(db);
      await sql`create trigger hcs_users_changed after update on users for each row when (${changed(USER_CACHED_COLUMNS)}) execute function hcs_user_event()`.execute(db);
    },
  };
}
