import type { Clock, TimerHandle } from '../ports/index.ts';

export interface Progress {
  /** Bytes done (for uploads: confirmed parts plus the current hashing or upload position). */
  loaded: number;
  total: number;
  /** Bytes per second over the last few seconds; 0 until measurable. */
  speed: number;
  /** Seconds left at the current speed, or undefined when unknown. */
  timeLeft: number | undefined;
  phase: 'hashing' | 'transferring' | 'merging' | 'verifying';
}

/** Speed over a sliding window (spec 9: 5000 ms refresh interval), so a stall shows as a falling speed. */
export class SpeedMeter {
  readonly #clock: Clock;
  readonly #windowMs: number;
  #samples: Array<{ t: number; bytes: number }> = [];

  constructor(clock: Clock, windowMs = 5000) {
    this.#clock = clock;
    this.#windowMs = windowMs;
  }

  /** Records the running total of bytes transferred. */
  record(totalBytes: number): void {
    const t = this.#clock.now();
    this.#samples.push({ t, bytes: totalBytes });
    while (this.#samples.length > 2 && this.#samples[0]!.t < t - this.#windowMs) this.#samples.shift();
  }

  reset(): void {
    this.#samples = [];
  }

  speed(): number {
    const first = this.#samples[0];
    const last = this.#samples[this.#samples.length - 1];
    if (!first || !last || last.t <= first.t) return 0;
    return ((last.bytes - first.bytes) / (last.t - first.t)) * 1000;
  }

  progress(loaded: number, total: number, phase: Progress['phase']): Progress {
    const speed = this.speed();
    return { loaded, total, speed, timeLeft: speed > 0 ? Math.max(0, (total - loaded) / speed) : undefined, phase };
  }
}

/**
 * At most one progress event per interval, and the last one of a burst once the interval is up: dropped, it left a
 * transfer that then stalled (a slow part, a part waiting for storage or its signature) showing the progress from
 * before the burst.
 */
export class ProgressThrottle {
  readonly #clock: Clock;
  readonly #intervalMs: number;
  readonly #emit: () => void;
  #last = -Infinity;
  #trailing: TimerHandle | undefined;

  constructor(clock: Clock, intervalMs: number, emit: () => void) {
    this.#clock = clock;
    this.#intervalMs = intervalMs;
    this.#emit = emit;
  }

  /** Emits now when forced or the interval is up, else once it is. */
  push(force: boolean): void {
    const wait = this.#intervalMs - (this.#clock.now() - this.#last);
    if (!force && wait > 0) {
      this.#trailing ??= this.#clock.setTimeout(() => {
        this.#trailing = undefined;
        this.push(true);
      }, wait);
      return;
    }
    this.cancel();
    this.#last = this.#clock.now();
    this.#emit();
  }

  /** Drops a pending emit (the transfer paused, finished or failed: it reports that instead). */
  cancel(): void {
    if (this.#trailing === undefined) return;
    this.#clock.clearTimeout(this.#trailing);
    this.#trailing = undefined;
  }
}
