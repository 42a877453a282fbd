import { describe, expect, it } from 'vitest';
import { AppError } from '../http/errors.ts';
import { createBulkGate, type BulkGate } from './bulk-gate.ts';

/** Asks for a slot and records when it is granted, so a test can see who got in without timing anything. */
function ask(gate: BulkGate, userId: string, opts?: { bytes?: number; signal?: AbortSignal }) {
  const state: { release?: () => void; error?: unknown } = {};
  const done = gate.acquire(userId, opts).then(
    (release) => {
      state.release = release;
    },
    (err: unknown) => {
      state.error = err;
    },
  );
  return Object.assign(state, { done });
}

/** Lets every already-resolved grant run its callbacks. */
const settle = () => new Promise<void>((resolve) => setImmediate(resolve));

describe('bulk gate', () => {
  it('admits up to the slots server-wide, the rest wait and enter in order as slots are given back', async () => {
    const gate = createBulkGate({ slots: 3, perUser: 3 });
    const asks = ['a', 'b', 'c', 'd', 'e'].map((u) => ask(gate, u));
    await settle();
    expect(asks.map((a) => !!a.release)).toEqual([true, true, true, false, false]);
    asks[1]!.release!();
    await settle();
    expect(asks.map((a) => !!a.release)).toEqual([true, true, true, true, false]);
    asks[0]!.release!();
    await settle();
    expect(asks[4]!.release).toBeDefined();
  });

  it('holds one user to their share while others still get the free slots', async () => {
    const gate = createBulkGate({ slots: 8, perUser: 2 });
    const mallory = Array.from({ length: 10 }, () => ask(gate, 'mallory'));
    const alice = Array.from({ length: 3 }, () => ask(gate, 'alice'));
    const bob = ask(gate, 'bob');
    await settle();
    expect(mallory.filter((a) => a.release)).toHaveLength(2);
    expect(alice.filter((a) => a.release)).toHaveLength(2);
    expect(bob.release).toBeDefined();
    // Mallory's next request enters only when one of her own slots is given back, even with free slots left.
    alice[0]!.release!();
    await settle();
    expect(mallory.filter((a) => a.release)).toHaveLength(2);
    expect(alice.filter((a) => a.release)).toHaveLength(3);
    mallory[0]!.release!();
    await settle();
    expect(mallory.filter((a) => a.release)).toHaveLength(3);
  });

  it('passes over a waiter whose user is at their share in favour of a later one who is not', async () => {
    const gate = createBulkGate({ slots: 2, perUser: 1 });
    const m1 = ask(gate, 'mallory');
    const a1 = ask(gate, 'alice');
    const m2 = ask(gate, 'mallory');
    const b1 = ask(gate, 'bob');
    await settle();
    expect([!!m1.release, !!a1.release, !!m2.release, !!b1.release]).toEqual([true, true, false, false]);
    a1.release!(); // a slot frees up, but mallory (first in line) still holds her share: bob gets it
    await settle();
    expect([!!m2.release, !!b1.release]).toEqual([false, true]);
    m1.release!();
    await settle();
    expect(m2.release).toBeDefined();
  });

  it('a second release of the same slot does not free another one', async () => {
    const gate = createBulkGate({ slots: 1, perUser: 1 });
    const first = ask(gate, 'a');
    const second = ask(gate, 'b');
    const third = ask(gate, 'c');
    await settle();
    first.release!();
    first.release!();
    await settle();
    expect([!!second.release, !!third.release]).toEqual([true, false]);
  });

  it("refuses a request that would take a user's waiting manifests past the budget, with RATE_LIMITED and Retry-After", async () => {
    // Each waiting request holds its parsed manifest (up to 1 MiB of JSON): one user cannot pile up gigabytes.
    const gate = createBulkGate({ slots: 2, perUser: 1, waitingBytesPerUser: 1000 });
    const state = (a: ReturnType<typeof ask>) => (a.release ? 'in' : a.error ? 'refused' : 'waiting');
    const mallory = [400, 400, 400, 300, 1].map((bytes) => ask(gate, 'mallory', { bytes }));
    // Many small ones of another user all wait: the budget counts bytes, not requests.
    const alice = Array.from({ length: 20 }, () => ask(gate, 'alice', { bytes: 40 }));
    await settle();
    // 400 enters; 400 + 400 wait (800); 300 would make 1100; 1 still fits (801).
    expect(mallory.map(state)).toEqual(['in', 'waiting', 'waiting', 'refused', 'waiting']);
    expect(alice.map(state)).toEqual(['in', ...Array(19).fill('waiting')]);
    const refusal = mallory[3]!.error as AppError;
    expect(refusal).toBeInstanceOf(AppError);
    expect([refusal.code, refusal.status, refusal.retryAfterSeconds]).toEqual(['RATE_LIMITED', 429, expect.any(Number)]);
    // Once one of hers enters, its bytes leave the budget.
    mallory[0]!.release!();
    await settle();
    expect(mallory[1]!.release).toBeDefined();
    const again = ask(gate, 'mallory', { bytes: 199 });
    await settle();
    expect(state(again)).toBe('waiting');
  });

  it('one request alone may always wait, whatever its manifest holds', async () => {
    const gate = createBulkGate({ slots: 1, perUser: 1, waitingBytesPerUser: 10 });
    const first = ask(gate, 'a');
    const big = ask(gate, 'a', { bytes: 5000 });
    await settle();
    expect([!!first.release, big.error]).toEqual([true, undefined]);
    first.release!();
    await settle();
    expect(big.release).toBeDefined();
  });

  it('a waiter whose signal aborts leaves the queue and never holds a slot', async () => {
    const gate = createBulkGate({ slots: 1, perUser: 1 });
    const holder = ask(gate, 'a');
    const gone = new AbortController();
    const leaving = ask(gate, 'b', { signal: gone.signal });
    const next = ask(gate, 'c');
    gone.abort(new Error('client went away'));
    await settle();
    expect(leaving.error).toEqual(new Error('client went away'));
    holder.release!();
    await settle();
    expect(leaving.release).toBeUndefined();
    expect(next.release).toBeDefined();
    // An already aborted signal is refused at once, without taking the free slot.
    next.release!();
    const late = ask(gate, 'd', { signal: AbortSignal.abort(new Error('gone')) });
    const after = ask(gate, 'e');
    await settle();
    expect([late.release, late.error]).toEqual([undefined, new Error('gone')]);
    expect(after.release).toBeDefined();
  });
});
