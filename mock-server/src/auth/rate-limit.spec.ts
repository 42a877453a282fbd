import { describe, it, expect, beforeEach, afterEach } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openDatabase, type Db } from '../db/database.ts';
import { createDelaySlots, createRateLimiter, throttleDelayMs } from './rate-limit.ts';
import type { AppError } from '../http/errors.ts';

describe('rate limiter', () => {
  let dir: string;
  let db: Db;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'hcs-rl-'));
    db = openDatabase(dir);
  });
  afterEach(() => {
    db.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const rule = { limit: 3, windowMs: 60_000 };
  const keys = [{ key: 'login:user:alice', rule }, { key: 'login:ip:10.0.0.1', rule: { limit: 5, windowMs: 60_000 } }];
  const refusal = (fn: () => void): AppError | null => {
    try {
      fn();
      return null;
    } catch (e) {
      return e as AppError;
    }
  };

  it('allows the budget, then refuses with Retry-After until the window ends', () => {
    const rl = createRateLimiter(db);
    const t0 = 1_000_000;
    for (let i = 0; i < 3; i++) {
      expect(refusal(() => rl.check(keys, t0 + i))).toBeNull();
      rl.hit(keys, t0 + i);
    }
    const e = refusal(() => rl.check(keys, t0 + 10_000));
    expect(e?.code).toBe('RATE_LIMITED');
    expect(e?.status).toBe(429);
    expect(e?.retryAfterSeconds).toBe(50);
    expect(refusal(() => rl.check(keys, t0 + 60_000))).toBeNull();
  });

  it('counts per key: another account from the same IP is still allowed until the IP budget is used', () => {
    const rl = createRateLimiter(db);
    const t = 5_000_000;
    for (let i = 0; i < 3; i++) rl.hit(keys, t);
    const bob = [{ key: 'login:user:bob', rule }, keys[1]!];
    expect(refusal(() => rl.check(bob, t))).toBeNull();
    rl.hit(bob, t);
    rl.hit(bob, t);
    expect(refusal(() => rl.check(bob, t))?.code).toBe('RATE_LIMITED');
  });

  it('reset clears one key; a new window starts counting from 1', () => {
    const rl = createRateLimiter(db);
    const t = 9_000_000;
    for (let i = 0; i < 3; i++) rl.hit([keys[0]!], t);
    rl.reset('login:user:alice');
    expect(refusal(() => rl.check([keys[0]!], t))).toBeNull();
    for (let i = 0; i < 3; i++) rl.hit([keys[0]!], t);
    rl.hit([keys[0]!], t + 60_000);
    expect(refusal(() => rl.check([keys[0]!], t + 60_001))).toBeNull();
  });

  it('survives a reopen of the database (counts are persistent)', () => {
    const t = Date.now();
    const rl = createRateLimiter(db);
    for (let i = 0; i < 3; i++) rl.hit([keys[0]!], t);
    db.close();
    db = openDatabase(dir);
    expect(refusal(() => createRateLimiter(db).check([keys[0]!], t + 1))?.code).toBe('RATE_LIMITED');
  });
});

describe('rate limiter undo', () => {
  it('takes back one hit within the window and never goes below zero', () => {
    const dir = mkdtempSync(join(tmpdir(), 'hcs-rl-'));
    const db = openDatabase(dir);
    try {
      const rl = createRateLimiter(db);
      const k = [{ key: 'login:ip:1.2.3.4', rule: { limit: 2, windowMs: 60_000 } }];
      const t = 1_000_000;
      rl.hit(k, t);
      rl.hit(k, t);
      expect(() => rl.check(k, t)).toThrow();
      rl.undo(k, t);
      expect(() => rl.check(k, t)).not.toThrow();
      rl.undo(k, t);
      rl.undo(k, t);
      rl.hit(k, t);
      expect(() => rl.check(k, t)).not.toThrow();
    } finally {
      db.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('sign-in throttle', () => {
  it('the delay doubles with each attempt past the budget, from the base up to the cap', () => {
    const schedule = { baseMs: 1000, maxMs: 30_000 };
    expect([0, 1, 2, 3, 4, 5, 6, 7].map((n) => throttleDelayMs(n, schedule))).toEqual([0, 1000, 2000, 4000, 8000, 16_000, 30_000, 30_000]);
    // Far past the budget (a long attack) the delay stays at the cap instead of overflowing.
    expect(throttleDelayMs(5000, schedule)).toBe(30_000);
    expect(throttleDelayMs(3, { baseMs: 0, maxMs: 30_000 })).toBe(0);
    expect(throttleDelayMs(-1, schedule)).toBe(0);
  });

  it('excess: how far the next attempt is past the most used budget, 0 within every budget and in a new window', () => {
    const dir = mkdtempSync(join(tmpdir(), 'hcs-rl-'));
    const db = openDatabase(dir);
    try {
      const rl = createRateLimiter(db);
      const account = { key: 'login:user:zed', rule: { limit: 3, windowMs: 60_000 } };
      const ip = { key: 'login:ip:10.9.9.9', rule: { limit: 12, windowMs: 60_000 } };
      const t = 2_000_000;
      expect(rl.excess([account, ip], t)).toBe(0);
      rl.hit([account, ip], t);
      rl.hit([account, ip], t);
      expect(rl.excess([account, ip], t)).toBe(0);
      rl.hit([account, ip], t);
      expect(rl.excess([account, ip], t)).toBe(1);
      rl.hit([account, ip], t);
      expect(rl.excess([account, ip], t)).toBe(2);
      // Another account from the same address is within its own budget and the address's.
      expect(rl.excess([{ ...account, key: 'login:user:amy' }, ip], t)).toBe(0);
      expect(rl.excess([account, ip], t + 60_000)).toBe(0);
    } finally {
      db.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('holds at most the given number of delayed attempts per key, and a released slot is free again', () => {
    const slots = createDelaySlots(2);
    const a = slots.acquire('10.0.0.1');
    const b = slots.acquire('10.0.0.1');
    expect(a && b).toBeTruthy();
    expect(slots.acquire('10.0.0.1')).toBeNull();
    // Other addresses have their own bound.
    const other = slots.acquire('10.0.0.2');
    expect(other).toBeTruthy();
    a!();
    a!(); // releasing twice frees one slot only
    const c = slots.acquire('10.0.0.1');
    expect(c).toBeTruthy();
    expect(slots.acquire('10.0.0.1')).toBeNull();
    b!();
    c!();
    other!();
    expect(slots.held('10.0.0.1')).toBe(0);
  });
});
