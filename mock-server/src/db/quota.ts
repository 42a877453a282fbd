// Capacity of a space (a user's, a group's or a department's). Usage counts files, history versions and the
// recycle bin; upload reservations count as used too, until the session's expiry: that of an open session, or of
// an ended one whose signed PUT could still store its bytes (uploads-repo endSession). Storage never holds more for
// a session than it reserved, so staged bytes are always counted. Every check-and-charge runs inside one
// transaction (BEGIN IMMEDIATE), so two uploads or copies can never both pass the check and overshoot.
import type { Db } from './database.ts';
import { transaction } from './database.ts';
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

const TABLE: Record<SpaceKind, string> = { user: 'users', group: 'groups', dept: 'departments' };

export function spaceUsage(db: Db, space: Space, now = Date.now()): SpaceUsage {
  const row = db.prepare(`SELECT quota_bytes AS q, used_bytes AS u FROM ${TABLE[space.kind]} WHERE id = ?`).get(space.id) as
    | { q: number | null; u: number }
    | undefined;
  if (!row) throw new AppError('NOT_FOUND', `the ${space.kind} space does not exist`);
  const r = db
    .prepare('SELECT COALESCE(SUM(reserved_bytes), 0) AS r FROM upload_sessions WHERE space_kind = ? AND space_id = ? AND expires_at > ?')
    .get(space.kind, space.id, now) as { r: number };
  return { quotaBytes: row.q, usedBytes: row.u, reservedBytes: r.r };
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
 * Throws SPACE_NOT_ENOUGH unless `bytes` more fit. Call inside the transaction that then records the
 * reservation or the charge, or the check is worthless.
 */
export function assertFits(db: Db, space: Space, bytes: number, now = Date.now()): void {
  const u = spaceUsage(db, space, now);
  const free = freeBytes(u);
  if (bytes > free) throw spaceError(space, bytes, free === Infinity ? -1 : free);
}

/** Check and charge in one transaction. */
export function charge(db: Db, space: Space, bytes: number): void {
  if (bytes <= 0) return;
  transaction(db, () => {
    assertFits(db, space, bytes);
    addUsage(db, space, bytes);
  });
}

/** Records usage without a check (a reservation that was already checked becomes usage). */
export function addUsage(db: Db, space: Space, bytes: number): void {
  if (bytes === 0) return;
  db.prepare(`UPDATE ${TABLE[space.kind]} SET used_bytes = MAX(0, used_bytes + ?) WHERE id = ?`).run(bytes, space.id);
}

export function release(db: Db, space: Space, bytes: number): void {
  addUsage(db, space, -Math.abs(bytes));
}
