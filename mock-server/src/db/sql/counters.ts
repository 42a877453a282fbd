// Fixed-window counters in the database (table rate_limits), shared by every node: a rate limit counted on
// node A holds on node B, and a restart does not hand out a fresh budget. Each change is one atomic statement.
import type { Db } from './tx.ts';

export interface CounterWindow {
  count: number;
  /** Epoch ms the current window started. */
  windowStart: number;
}

/**
 * Adds one to the key's count in its current window, starting a new window at `now` when the last one ended,
 * and returns the new count. One INSERT ... ON CONFLICT DO UPDATE ... RETURNING, so concurrent hits on any
 * number of nodes each see a distinct count and none is lost.
 */
export async function hitCounter(db: Db, key: string, windowMs: number, now = Date.now()): Promise<CounterWindow> {
  const windowOver = now - windowMs;
  const row = await db
    .insertInto('rate_limits')
    .values({ key, count: 1, window_start: now })
    .onConflict((oc) =>
      oc.column('key').doUpdateSet((eb) => ({
        // Both right-hand sides read the row as it was before this update, on both databases.
        count: eb.case().when('rate_limits.window_start', '<=', windowOver).then(1).else(eb('rate_limits.count', '+', 1)).end(),
        window_start: eb.case().when('rate_limits.window_start', '<=', windowOver).then(now).else(eb.ref('rate_limits.window_start')).end(),
      })),
    )
    .returning(['count', 'window_start'])
    .executeTakeFirstOrThrow();
  return { count: row.count, windowStart: row.window_start };
}

/** The key's count in its current window (0 when none or the window ended). */
export async function readCounter(db: Db, key: string, windowMs: number, now = Date.now()): Promise<CounterWindow> {
  const row = await db.selectFrom('rate_limits').select(['count', 'window_start']).where('key', '=', key).executeTakeFirst();
  if (!row || row.window_start <= now - windowMs) return { count: 0, windowStart: now };
  return { count: row.count, windowStart: row.window_start };
}

/** Takes one hit back within the current window (an attempt counted up front that turned out fine). */
export async function undoHit(db: Db, key: string, windowMs: number, now = Date.now()): Promise<void> {
  await db
    .updateTable('rate_limits')
    .set((eb) => ({ count: eb('count', '-', 1) }))
    .where('key', '=', key)
    .where('count', '>', 0)
    .where('window_start', '>', now - windowMs)
    .execute();
}

export async function resetCounter(db: Db, key: string): Promise<void> {
  await db.deleteFrom('rate_limits').where('key', '=', key).execute();
}

/** Drops counters whose window started before now - maxWindowMs; returns how many. */
export async function pruneCounters(db: Db, maxWindowMs: number, now = Date.now()): Promise<number> {
  const r = await db.deleteFrom('rate_limits').where('window_start', '<', now - maxWindowMs).executeTakeFirst();
  return Number(r.numDeletedRows);
}

export interface LimitDecision extends CounterWindow {
  allowed: boolean;
  /** When refused: ms until the window ends. */
  retryAfterMs: number;
}

/** Counts an attempt and says whether it is within `limit` per window (the hit counts even when refused). */
export async function consume(db: Db, key: string, limit: number, windowMs: number, now = Date.now()): Promise<LimitDecision> {
  const w = await hitCounter(db, key, windowMs, now);
  const allowed = w.count <= limit;
  return { ...w, allowed, retryAfterMs: allowed ? 0 : Math.max(0, w.windowStart + windowMs - now) };
}
