/**
 * A first-in, first-out async mutex. The embedded SQLite database is one connection: whoever holds this holds
 * the connection, for one query or for a whole transaction, and everyone else queues in arrival order (so a
 * burst of readers cannot starve a writer that asked first).
 */
export class Mutex {
  #locked = false;
  readonly #waiters: (() => void)[] = [];

  async lock(): Promise<void> {
    if (!this.#locked) {
      this.#locked = true;
      return;
    }
    await new Promise<void>((resolve) => this.#waiters.push(resolve));
  }

  unlock(): void {
    const next = this.#waiters.shift();
    // Ownership passes straight to the next waiter, so no caller arriving now can slip in between.
    if (next) next();
    else this.#locked = false;
  }

  /** Callers waiting for the lock (not counting the holder). */
  get waiting(): number {
    return this.#waiters.length;
  }
}
