// Fixed-window failure counters in the rate_limits table, keyed by a caller-chosen string
// (login:user:<name>, login:ip:<ip>, later share:ip:<ip>...). Kept in the database so a restart does not
// hand an attacker a fresh budget and several processes on one database share the counts.
// Sign-in does not refuse past the budget (that would lock the owner out with the attacker): it holds attempts
// back by a delay that doubles with every failure past it (throttleDelayMs), with a bound on how many attempts
// one address may have waiting (createDelaySlots).
import type { Db } from '../db/sql/tx.ts';
import { hitCounter, pruneCounters, readCounter, resetCounter, undoHit } from '../db/sql/counters.ts';
import { AppError } from '../http/errors.ts';

export interface RateLimitRule {
  /** Failures allowed within one window; the next attempt is refused until the window ends. */
  limit: number;
  windowMs: number;
}

export type RateLimitKeys = { key: string; rule: RateLimitRule }[];

export interface RateLimiter {
  /** Throws RATE_LIMITED (429, Retry-After) when any key has used up its budget. */
  check(keys: RateLimitKeys, now?: number): Promise<void>;
  /**
   * How many attempts past the most used budget the next attempt is: 0 while every key is within its budget,
   * 1 for the first attempt after a budget is used up, and so on.
   */
  excess(keys: RateLimitKeys, now?: number): Promise<number>;
  /**
   * Counts one failure against each key (one atomic statement per key, so parallel attempts on any nodes each see
   * a distinct count) and returns the excess this attempt had before it was counted, and has now.
   */
  hit(keys: RateLimitKeys, now?: number): Promise<{ before: number; after: number }>;
  /** Takes back one hit (an attempt counted up front that turned out to succeed). */
  undo(keys: RateLimitKeys, now?: number): Promise<void>;
  /** Forgets a key (e.g. the account after a successful sign-in). */
  reset(key: string): Promise<void>;
  /** Drops windows that ended before `now`; returns how many rows went. */
  prune(maxWindowMs: number, now?: number): Promise<number>;
}

export function createRateLimiter(db: Db, message = 'too many attempts, try again later'): RateLimiter {
  return {
    async check(keys, now = Date.now()) {
      let retryAfterMs = 0;
      for (const { key, rule } of keys) {
        const w = await readCounter(db, key, rule.windowMs, now);
        if (w.count >= rule.limit && w.count > 0) retryAfterMs = Math.max(retryAfterMs, w.windowStart + rule.windowMs - now);
      }
      if (retryAfterMs > 0) {
        throw new AppError('RATE_LIMITED', message, { retryAfterSeconds: Math.max(1, Math.ceil(retryAfterMs / 1000)) });
      }
    },
    async excess(keys, now = Date.now()) {
      let over = 0;
      for (const { key, rule } of keys) {
        const w = await readCounter(db, key, rule.windowMs, now);
        if (w.count > 0) over = Math.max(over, w.count - rule.limit + 1);
      }
      return over;
    },
    async hit(keys, now = Date.now()) {
      let before = 0;
      let after = 0;
      for (const { key, rule } of keys) {
        const w = await hitCounter(db, key, rule.windowMs, now);
        before = Math.max(before, w.count - rule.limit);
        after = Math.max(after, w.count - rule.limit + 1);
      }
      return { before, after };
    },
    async undo(keys, now = Date.now()) {
      for (const { key, rule } of keys) await undoHit(db, key, rule.windowMs, now);
    },
    async reset(key) {
      await resetCounter(db, key);
    },
    prune: (maxWindowMs, now = Date.now()) => pruneCounters(db, maxWindowMs, now),
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
 * an unbounded number of open requests on the server. Deliberately per node: what it protects is this
 * process's open requests (sockets, memory), and N nodes hold N times as many, as they can.
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
