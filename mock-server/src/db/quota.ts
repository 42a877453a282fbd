// Capacity of a space (a user's, a group's or a department's). Usage counts files, history versions and the
// recycle bin; upload reservations count as used too, until the session's expiry: that of an open session, or of
// an ended one whose signed PUT could still store its bytes (uploads-repo endSession). Storage never holds more for
// a session than it reserved, so staged bytes are always counted.
//
// Every check-and-charge runs inside one transaction and locks the space's row first (lockedSpaceUsage): on
// PostgreSQL two uploads or copies into one space on any nodes then queue on that row, and the second sees what
// the first reserved or charged, so they can never both pass the check and overshoot. (SQLite's IMMEDIATE
// transaction already serialises every writer.)
//
// Department quotas nest (issue #14): a department's used bytes include its sub-departments', so a charge goes up
// the chain of departments in the same statement, and a check holds against every limited department of the chain,
// each with the reservations of uploads anywhere in its subtree. The chain's rows are locked root first, so two
// uploads into sibling departments queue on their common parent and can never both take its last bytes.
import { sql } from 'kysely';
import type { Db } from './sql/tx.ts';
import { forUpdate } from './sql/tx.ts';
import { AppError } from '../http/errors.ts';

export type SpaceKind = 'user' | 'group' | 'dept';
export interface Space {
  kind: SpaceKind;
  id: string;
}

export interface SpaceUsage {
  /** null = unlimited. */
  quotaBytes: number | null;
  usedBytes: number;
  reservedBytes: number;
}

/** The table holding each kind of space; all three have quota_bytes and used_bytes. */
const TABLE = { user: 'users', group: 'groups', dept: 'departments' } as const;

/** Ids from the root down to the department (itself last); [id] for a department without a path. */
async function deptChain(db: Db, id: string): Promise<string[]> {
  const r = await db.selectFrom('departments').select('path').where('id', '=', id).executeTakeFirst();
  if (!r) throw new AppError('NOT_FOUND', 'the dept space does not exist');
  const chain = r.path.split('/').filter((x) => x !== '');
  return chain.length > 0 ? chain : [id];
}

/** Reservations of uploads in flight into each department's subtree, for the departments `ids`. */
export async function subtreeReservations(db: Db, ids: readonly string[], now: number): Promise<Map<string, number>> {
  if (ids.length === 0) return new Map();
  const rows = await sql<{ id: string; r: number | string | null }>`
    select a.id as id, coalesce(sum(s.reserved_bytes), 0) as r
    from departments a
    join departments d on d.id = a.id or (a.path <> '' and substr(d.path, 1, length(a.path)) = a.path)
    join upload_sessions s on s.space_kind = 'dept' and s.space_id = d.id and s.expires_at > ${now}
    where a.id in (${sql.join([...ids])})
    group by a.id`.execute(db);
  return new Map(rows.rows.map((r) => [r.id, Number(r.r ?? 0)]));
}

/**
 * A department's usage. For display, its own quota against its subtree's use. For a check (lock), the chain's
 * binding department: the one with the fewest bytes free, after locking every department of the chain root first.
 */
async function deptUsage(db: Db, id: string, now: number, lock: boolean): Promise<SpaceUsage> {
  const chain = lock ? await deptChain(db, id) : [id];
  const q = db.selectFrom('departments').select(['id', 'quota_bytes', 'used_bytes']).where('id', 'in', chain).orderBy('path');
  const rows = await (lock ? forUpdate(db, q) : q).execute();
  const self = rows.find((r) => r.id === id);
  if (!self) throw new AppError('NOT_FOUND', 'the dept space does not exist');
  const limited = rows.filter((r) => r.quota_bytes !== null);
  const reserved = await subtreeReservations(db, lock ? limited.map((r) => r.id) : [id], now);
  const of = (r: (typeof rows)[number]): SpaceUsage => ({ quotaBytes: r.quota_bytes, usedBytes: r.used_bytes, reservedBytes: reserved.get(r.id) ?? 0 });
  if (!lock) return of(self);
  let binding = of(self);
  for (const r of limited) if (freeBytes(of(r)) < freeBytes(binding)) binding = of(r);
  return binding;
}

async function usage(db: Db, space: Space, now: number, lock: boolean): Promise<SpaceUsage> {
  if (space.kind === 'dept') return deptUsage(db, space.id, now, lock);
  // The three tables share the columns read here; the query is typed against one of them.
  const table = TABLE[space.kind] as 'users';
  const q = db.selectFrom(table).select(['quota_bytes', 'used_bytes']).where('id', '=', space.id);
  const row = await (lock ? forUpdate(db, q) : q).executeTakeFirst();
  if (!row) throw new AppError('NOT_FOUND', `the ${space.kind} space does not exist`);
  const r = await db
    .selectFrom('upload_sessions')
    .select((eb) => eb.fn.coalesce(eb.fn.sum<number>('reserved_bytes'), sql<number>`0`).as('r'))
    .where('space_kind', '=', space.kind)
    .where('space_id', '=', space.id)
    .where('expires_at', '>', now)
    .executeTakeFirstOrThrow();
  return { quotaBytes: row.quota_bytes, usedBytes: row.used_bytes, reservedBytes: Number(r.r) };
}

/** What the space holds and may hold (for display: nothing is locked). */
export function spaceUsage(db: Db, space: Space, now = Date.now()): Promise<SpaceUsage> {
  return usage(db, space, now, false);
}

/**
 * The same, with the space's row locked until the transaction `db` ends: the check of a check-and-charge. Call it
 * first in the transaction that then records the reservation or the charge, or the check is worthless.
 */
export function lockedSpaceUsage(db: Db, space: Space, now = Date.now()): Promise<SpaceUsage> {
  return usage(db, space, now, true);
}

/** Bytes still free (Infinity when unlimited). */
export function freeBytes(u: SpaceUsage): number {
  return u.quotaBytes === null ? Infinity : Math.max(0, u.quotaBytes - u.usedBytes - u.reservedBytes);
}

// The spec's [002] for group files carries the group prefix: the message says so, and fields names the space kind
// (clients pick their "group space not enough" text from it).
function spaceError(space: Space, need: number, free: number): AppError {
  return new AppError('SPACE_NOT_ENOUGH', `${space.kind === 'group' ? 'group space: ' : ''}not enough space: ${need} bytes needed, ${free} free`, {
    fields: [{ field: 'space', message: space.kind }],
  });
}

/**
 * Throws SPACE_NOT_ENOUGH unless `bytes` more fit, with the space's row locked (lockedSpaceUsage). Call inside the
 * transaction that then records the reservation or the charge.
 */
export async function assertFits(db: Db, space: Space, bytes: number, now = Date.now()): Promise<void> {
  const free = freeBytes(await lockedSpaceUsage(db, space, now));
  if (bytes > free) throw spaceError(space, bytes, free === Infinity ? -1 : free);
}

/** Records usage without a check (a reservation that was already checked becomes usage); never below 0. */
export async function addUsage(db: Db, space: Space, bytes: number): Promise<void> {
  if (bytes === 0) return;
  const table = TABLE[space.kind] as 'users';
  // A department's bytes count for every department above it too.
  const ids = space.kind === 'dept' ? await deptChain(db, space.id) : [space.id];
  // Locked root first like every check does, so a charge and a check in two transactions cannot deadlock.
  if (ids.length > 1) await forUpdate(db, db.selectFrom('departments').select('id').where('id', 'in', ids).orderBy('path')).execute();
  await db
    .updateTable(table)
    .set({ used_bytes: sql<number>`case when used_bytes + ${bytes} < 0 then 0 else used_bytes + ${bytes} end` })
    .where('id', 'in', ids)
    .execute();
}

export function release(db: Db, space: Space, bytes: number): Promise<void> {
  return addUsage(db, space, -Math.abs(bytes));
}
