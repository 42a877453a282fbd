// Leases on both databases: one holder at a time, whatever the timing of the others.
import { expect, it } from 'vitest';
import { acquireLease, leaseHolder, releaseLease, renewLease } from './leases.ts';
import { describeEachDialect, unique } from './test-databases.ts';

const T0 = 1_700_000_000_000;
const TTL = 10_000;

describeEachDialect((get) => {
  it('has one holder until it expires, is renewed only by that holder, and is released only by it', async () => {
    const { db } = get();
    const name = unique('janitor');
    expect(await acquireLease(db, name, 'node-a', TTL, T0)).toBe(true);
    expect(await acquireLease(db, name, 'node-b', TTL, T0 + 1)).toBe(false);
    expect(await renewLease(db, name, 'node-b', TTL, T0 + 1)).toBe(false);
    expect(await releaseLease(db, name, 'node-b')).toBe(false);
    expect(await leaseHolder(db, name, T0 + 1)).toEqual({ holder: 'node-a', expiresAt: T0 + TTL, acquiredAt: T0 });

    expect(await renewLease(db, name, 'node-a', TTL, T0 + 5000)).toBe(true);
    expect(await acquireLease(db, name, 'node-a', TTL, T0 + 6000)).toBe(true); // re-acquiring extends, keeps acquiredAt
    expect(await leaseHolder(db, name, T0 + 6000)).toEqual({ holder: 'node-a', expiresAt: T0 + 6000 + TTL, acquiredAt: T0 });

    const expired = T0 + 6000 + TTL;
    expect(await leaseHolder(db, name, expired)).toBeUndefined();
    expect(await renewLease(db, name, 'node-a', TTL, expired)).toBe(false); // a lapse is noticed, not papered over
    expect(await acquireLease(db, name, 'node-b', TTL, expired)).toBe(true);
    expect(await renewLease(db, name, 'node-a', TTL, expired + 1)).toBe(false);
    expect(await releaseLease(db, name, 'node-a')).toBe(false);
    expect(await releaseLease(db, name, 'node-b')).toBe(true);
    expect(await acquireLease(db, name, 'node-a', TTL, expired + 2)).toBe(true);
  });

  it('goes to exactly one of many holders racing for it, free or expired', async () => {
    const { db } = get();
    const name = unique('race');
    const holders = Array.from({ length: 20 }, (_, i) => `node-${i}`);
    for (const [round, now] of [T0, T0 + TTL, T0 + 3 * TTL].entries()) {
      const won = await Promise.all(holders.map((h) => acquireLease(db, name, h, TTL, now)));
      const winners = holders.filter((_, i) => won[i]);
      expect(winners, `round ${round}`).toHaveLength(1);
      expect((await leaseHolder(db, name, now))?.holder).toBe(winners[0]);
    }
  });
});
