import type { Clock } from '../ports/index.ts';
import { sleep } from './clock.ts';

/**
 * Token bucket limiting a transfer to `rate` bytes/s (the server's syncSpeed). Burst is one second of rate.
 * A request larger than the bucket is allowed to go into debt, so an 8 MiB part at 1 MiB/s waits 8 s instead of
 * never fitting; later callers then wait for the debt to be repaid, which keeps the long-run rate exact.
 */
export class TokenBucket {
  readonly #clock: Clock;
  #rate: number;
  #tokens: number;
  #last: number;

  constructor(rate: number, clock: Clock) {
    if (!(rate > 0)) throw new RangeError(`invalid rate ${rate}`);
    this.#clock = clock;
    this.#rate = rate;
    this.#tokens = rate;
    this.#last = clock.now();
  }

  get rate(): number {
    return this.#rate;
  }

  setRate(rate: number): void {
    if (rate > 0) {
      this.#refill();
      this.#rate = rate;
      this.#tokens = Math.min(this.#tokens, rate);
    }
  }

  #refill(): void {
    const now = this.#clock.now();
    this.#tokens = Math.min(this.#rate, this.#tokens + ((now - this.#last) / 1000) * this.#rate);
    this.#last = now;
  }

  /** Takes n tokens, waiting as long as the debt requires. */
  async take(n: number, signal?: AbortSignal): Promise<void> {
    this.#refill();
    this.#tokens -= n;
    if (this.#tokens < 0) await sleep(this.#clock, (-this.#tokens / this.#rate) * 1000, signal);
  }
}
