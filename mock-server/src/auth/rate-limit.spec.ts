import { describe, it, expect, beforeEach, afterEach } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openSqlDatabase, type SqlDatabase } from '../db/sql/open.ts';
import type { Db } from '../db/sql/tx.ts';
import { createDelaySlots, createRateLimiter, throttleDelayMs } from './rate-limit.ts';
import type { AppError } from '../http/errors.ts';

let dir: string;
let opened: SqlDatabase;
let db: Db;
beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), 'hcs-rl-'));
  opened = await openSqlDatabase({ dataDir: dir });
  db = opened.db;
});
afterEach(async () => {
  await opened.close();
  rmSync(dir, { recursive: true, force: true });
});

const refusal = async (p: Promise<unknown>): Promise<AppError | null> => {
  try {
    await p;
    return null;
  } catch (e) {
    return e as AppError;
  }
};

describe('rate limiter', () => {
  const rule = { limit: 3, windowMs: 60_000 };
  const keys = [{ key: 'login:user:alice', rule }, { key: 'login:ip:10.0.0.1', rule: { limit: 5, windowMs: 60_000 } }];

  it('allows the budget, then refuses with Retry-After until the window ends', async () => {
    const rl = createRateLimiter(db);
    const t0 = 1_000_000;
    for (let i = 0; i < 3; i++) {
      expect(await refusal(rl.check(keys, t0 + i))).toBeNull();
      await rl.hit(keys, t0 + i);
    }
    const e = await refusal(rl.check(keys, t0 + 10_000));
    expect(e?.code).toBe('RATE_LIMITED');
    expect(e?.status).toBe(429);
    expect(e?.retryAfterSeconds).toBe(50);
    expect(await refusal(rl.check(keys, t0 + 60_000))).toBeNull();
  });

  it('counts per key: another account from the same IP is still allowed until the IP budget is used', async () => {
    const rl = createRateLimiter(db);
    const t = 5_000_000;
    for (let i = 0; i < 3; i++) await rl.hit(keys, t);
    const bob = [{ key: 'login:user:bob', rule }, keys[1]!];
    expect(await refusal(rl.check(bob, t))).toBeNull();
    await rl.hit(bob, t);
    await rl.hit(bob, t);
    expect((await refusal(rl.check(bob, t)))?.code).toBe('RATE_LIMITED');
  });

  it('reset clears one key; a new window starts counting from 1', async () => {
    const rl = createRateLimiter(db);
    const t = 9_000_000;
    for (let i = 0; i < 3; i++) await rl.hit([keys[0]!], t);
    await rl.reset('login:user:alice');
    expect(await refusal(rl.check([keys[0]!], t))).toBeNull();
    for (let i = 0; i < 3; i++) await rl.hit([keys[0]!], t);
    await rl.hit([keys[0]!], t + 60_000);
    expect(await refusal(rl.check([keys[0]!], t + 60_001))).toBeNull();
  });

  it('survives a reopen of the database (counts are persistent)', async () => {
    const t = Date.now();
    const rl = createRateLimiter(db);
    for (let i = 0; i < 3; i++) await rl.hit([keys[0]!], t);
    await opened.close();
    opened = await openSqlDatabase({ dataDir: dir });
    db = opened.db;
    expect((await refusal(createRateLimiter(db).check([keys[0]!], t + 1)))?.code).toBe('RATE_LIMITED');
  });

  it('takes back one hit within the window and never goes below zero', async () => {
    const rl = createRateLimiter(db);
    const k = [{ key: 'login:ip:1.2.3.4', rule: { limit: 2, windowMs: 60_000 } }];
    const t = 1_000_000;
    await rl.hit(k, t);
    await rl.hit(k, t);
    expect(await refusal(rl.check(k, t))).not.toBeNull();
    await rl.undo(k, t);
    expect(await refusal(rl.check(k, t))).toBeNull();
    await rl.undo(k, t);
    await rl.undo(k, t);
    await rl.hit(k, t);
    expect(await refusal(rl.check(k, t))).toBeNull();
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

  it('excess: how far the next attempt is past the most used budget, 0 within every budget and in a new window', async () => {
    const rl = createRateLimiter(db);
    const account = { key: 'login:user:zed', rule: { limit: 3, windowMs: 60_000 } };
    const ip = { key: 'login:ip:10.9.9.9', rule: { limit: 12, windowMs: 60_000 } };
    const t = 2_000_000;
    expect(await rl.excess([account, ip], t)).toBe(0);
    await rl.hit([account, ip], t);
    await rl.hit([account, ip], t);
    expect(await rl.excess([account, ip], t)).toBe(0);
    await rl.hit([account, ip], t);
    expect(await rl.excess([account, ip], t)).toBe(1);
    await rl.hit([account, ip], t);
    expect(await rl.excess([account, ip], t)).toBe(2);
    // Another account from the same address is within its own budget and the address's.
    expect(await rl.excess([{ ...account, key: 'login:user:amy' }, ip], t)).toBe(0);
    expect(await rl.excess([account, ip], t + 60_000)).toBe(0);
  });

  it('a hit says the excess its attempt had before it was counted and has after, as excess() would have', async () => {
    const rl = createRateLimiter(db);
    const account = { key: 'login:user:yan', rule: { limit: 2, windowMs: 60_000 } };
    const t = 3_000_000;
    const seen: { before: number; after: number; excess: number }[] = [];
    for (let i = 0; i < 4; i++) {
      const excess = await rl.excess([account], t);
      const hit = await rl.hit([account], t);
      seen.push({ ...hit, excess });
    }
    expect(seen.map((s) => s.before)).toEqual(seen.map((s) => s.excess));
    expect(seen).toEqual([
      { before: 0, after: 0, excess: 0 },
      { before: 0, after: 1, excess: 0 },
      { before: 1, after: 2, excess: 1 },
      { before: 2, after: 3, excess: 2 },
    ]);
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
