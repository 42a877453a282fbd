// Capacity of a space (a user's, a group's or a department's). Usage counts files, history versions and the
// recycle bin; upload reservations count as used too, until the session's expiry: that of an open session, or of
// an ended one whose signed PUT could still store its bytes (uploads-repo endSession). Storage never holds more for
// a session than it reserved, so staged bytes are always counted.
//
// Every check-and-charge runs inside one transaction and locks the space's row first (lockedSpaceUsage): on
// PostgreSQL two uploads or copies into one space on any nodes then queue on that row, and the second sees what
// the first reserved or charged, so they can never both pass the check and overshoot. (SQLite's IMMEDIATE
// transaction already serialises every writer.)
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

async function usage(db: Db, space: Space, now: number, lock: boolean): Promise<SpaceUsage> {
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

function spaceError(space: Space, need: number, free: number): AppError {
  return new AppError('SPACE_NOT_ENOUGH', `not enough space: ${need} bytes needed, ${free} free`, {
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
  await db
    .updateTable(table)
    .set({ used_bytes: sql<number>`case when used_bytes + ${bytes} < 0 then 0 else used_bytes + ${bytes} end` })
    .where('id', '=', space.id)
    .execute();
}

export function release(db: Db, space: Space, bytes: number): Promise<void> {
  return addUsage(db, space, -Math.abs(bytes));
}
