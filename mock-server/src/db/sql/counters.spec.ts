// Counters on both databases: atomic increments shared by every caller, in fixed windows.
import { expect, it } from 'vitest';
import { consume, hitCounter, pruneCounters, readCounter, resetCounter, undoHit } from './counters.ts';
import { describeEachDialect, unique } from './test-databases.ts';

const T0 = 1_700_000_000_000;
const WINDOW = 60_000;

describeEachDialect((get) => {
  it('counts concurrent hits exactly: each caller sees its own count and none is lost', async () => {
    const { db } = get();
    const key = unique('login:ip');
    const counts = await Promise.all(Array.from({ length: 200 }, () => hitCounter(db, key, WINDOW, T0)));
    expect(counts.map((c) => c.count).sort((a, b) => a - b)).toEqual(Array.from({ length: 200 }, (_, i) => i + 1));
    expect(await readCounter(db, key, WINDOW, T0)).toEqual({ count: 200, windowStart: T0 });
  });

  it('starts a new window once the last one is over', async () => {
    const { db } = get();
    const key = unique('login:user');
    await hitCounter(db, key, WINDOW, T0);
    expect(await hitCounter(db, key, WINDOW, T0 + WINDOW - 1)).toEqual({ count: 2, windowStart: T0 });
    expect(await readCounter(db, key, WINDOW, T0 + WINDOW)).toEqual({ count: 0, windowStart: T0 + WINDOW });
    expect(await hitCounter(db, key, WINDOW, T0 + WINDOW)).toEqual({ count: 1, windowStart: T0 + WINDOW });
  });

  it('limits attempts per window, takes a hit back, resets and prunes', async () => {
    const { db } = get();
    const key = unique('share:ip');
    for (let i = 1; i <= 3; i++) expect((await consume(db, key, 3, WINDOW, T0 + i)).allowed).toBe(true);
    expect(await consume(db, key, 3, WINDOW, T0 + 10)).toEqual({ allowed: false, count: 4, windowStart: T0 + 1, retryAfterMs: WINDOW - 9 });
    await undoHit(db, key, WINDOW, T0 + 11);
    expect((await readCounter(db, key, WINDOW, T0 + 11)).count).toBe(3);
    await resetCounter(db, key);
    expect((await readCounter(db, key, WINDOW, T0 + 12)).count).toBe(0);
    await hitCounter(db, key, WINDOW, T0);
    expect(await pruneCounters(db, WINDOW, T0 + WINDOW + 1)).toBeGreaterThanOrEqual(1);
    expect((await readCounter(db, key, 10 * WINDOW, T0 + WINDOW + 1)).count).toBe(0);
  });
});
