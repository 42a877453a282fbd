/**
 * Holds chosen requests until the test releases them, so a test sees a transfer stopped at a known point on any
 * machine instead of racing its progress. Whatever intercepts the requests (a server hook on the signing call, a
 * browser route on /s3/) awaits `pass` for each one; the requests `arm`'s predicate picks wait there.
 */
export class HoldGate<T> {
  #match: ((item: T) => boolean) | null = null;
  #held: Array<() => void> = [];
  #waiters: Array<() => void> = [];

  /** From now on, requests that match are held. */
  arm(match: (item: T) => boolean): void {
    this.#match = match;
  }

  /** Resolves once at least one request is being held. */
  held(): Promise<void> {
    return this.#held.length > 0 ? Promise.resolve() : new Promise((resolve) => this.#waiters.push(resolve));
  }

  /** Lets every held request go on and holds nothing more. */
  release(): void {
    this.#match = null;
    for (const go of this.#held.splice(0)) go();
  }

  /** Called by the interceptor for each request: resolves at once, or once released when the request matches. */
  async pass(item: T): Promise<void> {
    if (!this.#match?.(item)) return;
    await new Promise<void>((resolve) => {
      this.#held.push(resolve);
      for (const w of this.#waiters.splice(0)) w();
    });
  }
}
