import type { Clock } from '../ports/index.ts';

/** A manual clock: timers fire only when the test advances time, so backoff and throttling are measurable. */
export class FakeClock implements Clock {
  #now = 0;
  #seq = 0;
  #timers = new Map<number, { at: number; fn: () => void; ms: number }>();
  /** Every delay requested, in order (backoff and throttle waits show up here). */
  readonly delays: number[] = [];

  now(): number {
    return this.#now;
  }
  setTimeout(fn: () => void, ms: number): unknown {
    const id = ++this.#seq;
    this.#timers.set(id, { at: this.#now + Math.max(0, ms), fn, ms });
    this.delays.push(ms);
    return id;
  }
  clearTimeout(handle: unknown): void {
    this.#timers.delete(handle as number);
  }
  get pending(): number {
    return this.#timers.size;
  }
  /** Moves time forward, firing due timers in order. */
  advance(ms: number): void {
    const target = this.#now + ms;
    for (;;) {
      const next = this.#earliest((t) => t.at <= target);
      if (!next) break;
      this.#timers.delete(next[0]);
      this.#now = next[1].at;
      next[1].fn();
    }
    this.#now = target;
  }
  /** Fires the earliest timer whose requested delay is at most maxMs (skipping time to it). */
  fireNextWithin(maxMs: number): boolean {
    const next = this.#earliest((t) => t.ms <= maxMs);
    if (!next) return false;
    this.#timers.delete(next[0]);
    this.#now = Math.max(this.#now, next[1].at);
    next[1].fn();
    return true;
  }
  #earliest(pred: (t: { at: number; ms: number }) => boolean) {
    return [...this.#timers].filter(([, t]) => pred(t)).sort((a, b) => a[1].at - b[1].at)[0];
  }
}

/**
 * Drives a promise to completion on a FakeClock: lets microtasks settle, then fires the earliest short timer
 * (backoff, throttle), repeatedly. Long timers (the 900 s part timeout) are left alone unless maxTimerMs says so.
 */
export async function runWithClock<T>(clock: FakeClock, p: Promise<T>, maxTimerMs = 600_000): Promise<T> {
  let settled = false;
  const wrapped = p.finally(() => {
    settled = true;
  });
  // The caller handles the outcome after the loop; this only keeps an early rejection from counting as unhandled.
  wrapped.catch(() => {});
  while (!settled) {
    await new Promise((r) => setTimeout(r, 0));
    if (!settled && !clock.fireNextWithin(maxTimerMs)) await new Promise((r) => setTimeout(r, 1));
  }
  return wrapped;
}
