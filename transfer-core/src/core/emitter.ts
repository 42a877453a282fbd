/** Minimal typed event emitter; a throwing listener cannot break a transfer. */
export class Emitter<E extends Record<string, unknown>> {
  readonly #listeners = new Map<keyof E, Set<(payload: never) => void>>();

  on<K extends keyof E>(event: K, fn: (payload: E[K]) => void): () => void {
    let set = this.#listeners.get(event);
    if (!set) this.#listeners.set(event, (set = new Set()));
    set.add(fn as (payload: never) => void);
    return () => set.delete(fn as (payload: never) => void);
  }

  emit<K extends keyof E>(event: K, payload: E[K]): void {
    // A snapshot: a listener that subscribes another (re-arming itself) must not be called again by this event.
    for (const fn of [...(this.#listeners.get(event) ?? [])]) {
      try {
        (fn as (p: E[K]) => void)(payload);
      } catch (err) {
        // A UI bug must not fail the transfer; surface it where developers look.
        console.error('transfer listener failed', err);
      }
    }
  }
}
