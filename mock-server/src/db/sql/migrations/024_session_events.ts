// 024: session events (issue #12). Each node keeps a short-lived cache of the sessions it has checked
// (auth/session-cache.ts); these triggers tell every node when a cached answer may have gone stale. A NOTIFY is sent
// by the transaction that made the change and delivered only if it commits, so no code path can change a session or
// its user's rights without the nodes hearing of it, including ones written later or SQL run by hand. The payload is
// the user's id: a node drops every session of that user it holds. A session's last_seen_at moving forward (the
// idle-expiry bookkeeping) is not news: a node that holds an older value only checks the database sooner.
// PostgreSQL only: SQLite runs on one node, which installs the same triggers on its connection at start
// (db/session-events.ts), calling an in-process function instead of pg_notify.
import { sql, type Kysely } from 'kysely';
import type { Migration } from 'kysely/migration';
import type { SqlDialect } from '../tx.ts';

/** The LISTEN channel; db/session-events.ts listens on it. */
export const SESSION_EVENTS_CHANNEL = 'hcs_session_events';

/** Columns of a user whose change may alter what a cached session lets its holder do (auth/index.ts). */
export const USER_RIGHTS_COLUMNS = [
  'user_name', 'real_name', 'dept_id', 'is_enabled', 'expired_time', 'is_admin', 'language_id', 'platform_id',
  'must_change_password', 'password_hash', 'password_changed_at', 'deleted_at',
] as const;

/** Columns of a session besides last_seen_at whose change may end it or change what it is. */
export const SESSION_COLUMNS = ['user_id', 'kind', 'expires_at', 'idle_ms', 'revoked_at'] as const;

export function sessionEventsMigration(dialect: SqlDialect): Migration {
  return {
    async up(db: Kysely<unknown>) {
      if (dialect !== 'postgres') return;
      const changed = (cols: readonly string[]) => sql.raw(`(${cols.map((c) => `old.${c}`).join(', ')}) is distinct from (${cols.map((c) => `new.${c}`).join(', ')})`);
      await sql`
        create or replace function hcs_user_event() returns trigger language plpgsql as $$
        begin
          if tg_op = 'DELETE' then
            perform pg_notify(${sql.lit(SESSION_EVENTS_CHANNEL)}, 'u:' || old.id);
          else
            perform pg_notify(${sql.lit(SESSION_EVENTS_CHANNEL)}, 'u:' || new.id);
          end if;
          return null;
        end $$`.execute(db);
      await sql`
        create or replace function hcs_session_row_event() returns trigger language plpgsql as $$
        begin
          -- Both owners when a session changes hands (nothing does that today; the trigger should not care).
          perform pg_notify(${sql.lit(SESSION_EVENTS_CHANNEL)}, 'u:' || old.user_id);
          if tg_op = 'UPDATE' and old.user_id is distinct from new.user_id then
            perform pg_notify(${sql.lit(SESSION_EVENTS_CHANNEL)}, 'u:' || new.user_id);
          end if;
          return null;
        end $$`.execute(db);
      await sql`create trigger hcs_users_changed after update on users for each row when (${changed(USER_RIGHTS_COLUMNS)}) execute function hcs_user_event()`.execute(db);
      await sql`create trigger hcs_users_deleted after delete on users for each row execute function hcs_user_event()`.execute(db);
      await sql`
        create trigger hcs_sessions_changed after update on sessions for each row
        when (${changed(SESSION_COLUMNS)} or new.last_seen_at < old.last_seen_at) execute function hcs_session_row_event()`.execute(db);
      await sql`create trigger hcs_sessions_deleted after delete on sessions for each row execute function hcs_session_row_event()`.execute(db);
    },
  };
}
