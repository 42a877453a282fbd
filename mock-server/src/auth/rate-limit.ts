// Fixed-window failure counters in the rate_limits table, keyed by a caller-chosen string
// (login:user:<name>, login:ip:<ip>, later share:ip:<ip>...). Kept in the database so a restart does not
// hand an attacker a fresh budget and several processes on one database share the counts.
// Sign-in does not refuse past the budget (that would lock the owner out with the attacker): it holds attempts
// back by a delay that doubles with every failure past it (throttleDelayMs), with a bound on how many attempts
// one address may have waiting (createDelaySlots).
import type { Db } from '../db/database.ts';
import { transaction } from '../db/database.ts';
import { AppError } from '../http/errors.ts';

export interface RateLimitRule {
  /** Failures allowed within one window; the next attempt is refused until the window ends. */
  limit: number;
  windowMs: number;
}

export interface RateLimiter {
  /** Throws RATE_LIMITED (429, Retry-After) when any key has used up its budget. */
  check(keys: { key: string; rule: RateLimitRule }[], now?: number): void;
  /**
   * How many attempts past the most used budget the next attempt is: 0 while every key is within its budget,
   * 1 for the first attempt after a budget is used up, and so on.
   */
  excess(keys: { key: string; rule: RateLimitRule }[], now?: number): number;
  /** Counts one failure against each key. */
  hit(keys: { key: string; rule: RateLimitRule }[], now?: number): void;
  /** Takes back one hit (an attempt counted up front that turned out to succeed). */
  undo(keys: { key: string; rule: RateLimitRule }[], now?: number): void;
  /** Forgets a key (e.g. the account after a successful sign-in). */
  reset(key: string): void;
  /** Drops windows that ended before `now`; returns how many rows went. */
  prune(maxWindowMs: number, now?: number): number;
}

interface Row {
  count: number;
  window_start: number;
}

export function createRateLimiter(db: Db, message = 'too many attempts, try again later'): RateLimiter {
  const get = db.prepare('SELECT count, window_start FROM rate_limits WHERE key = ?');
  const upsert = db.prepare(
    'INSERT INTO rate_limits (key, count, window_start) VALUES (?, ?, ?) ON CONFLICT(key) DO UPDATE SET count = excluded.count, window_start = excluded.window_start',
  );
  const del = db.prepare('DELETE FROM rate_limits WHERE key = ?');
  const dec = db.prepare('UPDATE rate_limits SET count = count - 1 WHERE key = ? AND count > 0 AND window_start > ?');
  const prune = db.prepare('DELETE FROM rate_limits WHERE window_start < ?');

  return {
    check(keys, now = Date.now()) {
      let retryAfterMs = 0;
      for (const { key, rule } of keys) {
        const row = get.get(key) as Row | undefined;
        if (!row || now - row.window_start >= rule.windowMs) continue;
        if (row.count >= rule.limit) retryAfterMs = Math.max(retryAfterMs, row.window_start + rule.windowMs - now);
      }
      if (retryAfterMs > 0) {
        throw new AppError('RATE_LIMITED', message, { retryAfterSeconds: Math.max(1, Math.ceil(retryAfterMs / 1000)) });
      }
    },
    excess(keys, now = Date.now()) {
      let over = 0;
      for (const { key, rule } of keys) {
        const row = get.get(key) as Row | undefined;
        if (row && now - row.window_start < rule.windowMs) over = Math.max(over, row.count - rule.limit + 1);
      }
      return over;
    },
    hit(keys, now = Date.now()) {
      transaction(db, () => {
        for (const { key, rule } of keys) {
          const row = get.get(key) as Row | undefined;
          if (!row || now - row.window_start >= rule.windowMs) upsert.run(key, 1, now);
          else upsert.run(key, row.count + 1, row.window_start);
        }
      });
    },
    undo(keys, now = Date.now()) {
      for (const { key, rule } of keys) dec.run(key, now - rule.windowMs);
    },
    reset(key) {
      del.run(key);
    },
    prune(maxWindowMs, now = Date.now()) {
      return Number(prune.run(now - maxWindowMs).changes);
    },
  };
}

export interface DelaySchedule {
  /** Delay of the first attempt past the budget; each further one doubles it. */
  baseMs: number;
  maxMs: number;
}

/** The hold for an attempt `excess` past its budget (RateLimiter.excess): 0, base, 2 base, 4 base ... up to max. */
export function throttleDelayMs(excess: number, schedule: DelaySchedule): number {
  if (excess < 1 || schedule.baseMs <= 0) return 0;
  // 2^52 already exceeds any cap; a bigger exponent would only reach Infinity the long way.
  return Math.min(schedule.maxMs, schedule.baseMs * 2 ** Math.min(excess - 1, 52));
}

export interface DelaySlots {
  /** Takes a slot for `key`; the release function (idempotent), or null when the key holds all of its slots. */
  acquire(key: string): (() => void) | null;
  held(key: string): number;
}

/**
 * In-process bound on attempts held back at once per key (address): a delay must not let one client park
 * an unbounded number of open requests on the server.
 */
export function createDelaySlots(perKey: number): DelaySlots {
  const held = new Map<string, number>();
  return {
    acquire(key) {
      const n = held.get(key) ?? 0;
      if (n >= perKey) return null;
      held.set(key, n + 1);
      let released = false;
      return () => {
        if (released) return;
        released = true;
        const left = (held.get(key) ?? 1) - 1;
        if (left > 0) held.set(key, left);
        else held.delete(key);
      };
    },
    held(key) {
      return held.get(key) ?? 0;
    },
  };
}
