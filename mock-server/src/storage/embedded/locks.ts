// In-process coordination. The embedded store is owned by one server process, so per-key
// promise chains are enough to serialise commits without blocking unrelated keys.

/** Runs callbacks one at a time per key, in arrival order. */
export class KeyedMutex {
  private readonly tails = new Map<string, Promise<void>>();

  async run<T>(key: string, fn: () => Promise<T>): Promise<T> {
    const previous = this.tails.get(key) ?? Promise.resolve();
    let release!: () => void;
    const current = new Promise<void>((resolve) => { release = resolve; });
    const tail = previous.then(() => current);
    this.tails.set(key, tail);
    await previous;
    try {
      return await fn();
    } finally {
      release();
      if (this.tails.get(key) === tail) this.tails.delete(key);
    }
  }

  isLocked(key: string): boolean {
    return this.tails.has(key);
  }
}

/** Many shared holders or one exclusive holder (used so a bucket is not removed under a commit). */
export class SharedExclusiveLock {
  private shared = 0;
  private exclusive: Promise<void> | undefined;
  private waiters: Array<() => void> = [];

  async withShared<T>(fn: () => Promise<T>): Promise<T> {
    while (this.exclusive) await this.exclusive;
    this.shared++;
    try {
      return await fn();
    } finally {
      this.shared--;
      if (this.shared === 0) for (const wake of this.waiters.splice(0)) wake();
    }
  }

  async withExclusive<T>(fn: () => Promise<T>): Promise<T> {
    while (this.exclusive) await this.exclusive;
    let done!: () => void;
    this.exclusive = new Promise<void>((resolve) => { done = resolve; });
    try {
      while (this.shared > 0) await new Promise<void>((resolve) => this.waiters.push(resolve));
      return await fn();
    } finally {
      this.exclusive = undefined;
      done();
    }
  }
}
