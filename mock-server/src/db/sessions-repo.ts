// Sessions. A row is keyed by the SHA-256 of the token, so a copy of the database does not let anyone sign in.
import { sql, type Selectable } from 'kysely';
import type { Db } from './sql/tx.ts';
import type { SessionsTable } from './sql/schema.ts';
import { USER_COLUMNS, toUser, type User, type UserRow } from './users-repo.ts';

export type SessionKind = 'cookie' | 'token';

export interface Session {
  /** SHA-256 (hex) of the token. */
  id: string;
  userId: string;
  kind: SessionKind;
  createdAt: number;
  lastSeenAt: number;
  /** Absolute expiry, epoch ms. */
  expiresAt: number;
  idleMs: number;
  ip: string;
  userAgent: string;
  revokedAt: number | null;
}

function toSession(r: Selectable<SessionsTable>): Session {
  return {
    id: r.id,
    userId: r.user_id,
    kind: r.kind,
    createdAt: r.created_at,
    lastSeenAt: r.last_seen_at,
    expiresAt: r.expires_at,
    idleMs: r.idle_ms,
    ip: r.ip,
    userAgent: r.user_agent,
    revokedAt: r.revoked_at,
  };
}

export async function insertSession(db: Db, s: Omit<Session, 'revokedAt'>): Promise<void> {
  await db
    .insertInto('sessions')
    .values({
      id: s.id,
      user_id: s.userId,
      kind: s.kind,
      created_at: s.createdAt,
      last_seen_at: s.lastSeenAt,
      expires_at: s.expiresAt,
      idle_ms: s.idleMs,
      ip: s.ip.slice(0, 64),
      user_agent: s.userAgent.slice(0, 300),
    })
    .execute();
}

export async function getSession(db: Db, id: string): Promise<Session | null> {
  const r = await db.selectFrom('sessions').selectAll().where('id', '=', id).executeTakeFirst();
  return r ? toSession(r) : null;
}

/** The user's columns in the joined query, prefixed so they cannot clash with the session's. */
const JOINED_USER = sql.raw(USER_COLUMNS.map((c) => `u.${c} as u_${c}`).join(', '));

/**
 * A session with its (live) user, in one query: every authenticated request asks this first, and on PostgreSQL
 * each query is a round trip. The user is null when the account was deleted. SQL text rather than the query
 * builder: it runs on every request, and compiling a builder query costs more than running this one on SQLite.
 */
export async function getSessionWithUser(db: Db, id: string): Promise<{ session: Session; user: User | null } | null> {
  const r = await sql<Selectable<SessionsTable> & Record<string, unknown>>`
    select s.*, ${JOINED_USER} from sessions s left join users u on u.id = s.user_id and u.deleted_at is null where s.id = ${id}`.execute(db);
  const row = r.rows[0];
  if (!row) return null;
  const user = row.u_id === null ? null : toUser(Object.fromEntries(USER_COLUMNS.map((c) => [c, row[`u_${c}`]])) as unknown as UserRow);
  return { session: toSession(row), user };
}

/** Records activity; the caller throttles how often. */
export async function touchSession(db: Db, id: string, now = Date.now()): Promise<void> {
  await db.updateTable('sessions').set({ last_seen_at: now }).where('id', '=', id).where('revoked_at', 'is', null).execute();
}

export async function revokeSession(db: Db, id: string, now = Date.now()): Promise<void> {
  await db.updateTable('sessions').set({ revoked_at: now }).where('id', '=', id).where('revoked_at', 'is', null).execute();
}

/** Ends every live session of a user except `keepId`; returns how many ended. */
export async function revokeUserSessions(db: Db, userId: string, keepId: string | null = null, now = Date.now()): Promise<number> {
  let q = db.updateTable('sessions').set({ revoked_at: now }).where('user_id', '=', userId).where('revoked_at', 'is', null);
  if (keepId !== null) q = q.where('id', '<>', keepId);
  const res = await q.executeTakeFirst();
  return Number(res.numUpdatedRows);
}

export async function listUserSessions(db: Db, userId: string): Promise<Session[]> {
  return (await db.selectFrom('sessions').selectAll().where('user_id', '=', userId).orderBy('created_at').execute()).map(toSession);
}

/**
 * Deletes sessions that can never be used again (revoked, past absolute expiry, or idle too long), older
 * than `keepMs` so recent ones stay visible for audit.
 */
export async function pruneSessions(db: Db, keepMs: number, now = Date.now()): Promise<number> {
  const before = now - keepMs;
  const res = await db
    .deleteFrom('sessions')
    .where((eb) =>
      eb.or([
        eb.and([eb('revoked_at', 'is not', null), eb('revoked_at', '<', before)]),
        eb('expires_at', '<', before),
        eb(eb('last_seen_at', '+', eb.ref('idle_ms')), '<', before),
      ]),
    )
    .executeTakeFirst();
  return Number(res.numDeletedRows);
}
