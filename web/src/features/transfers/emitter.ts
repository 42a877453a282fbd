/** A typed event emitter with the `on(event, fn) => off` shape the engine's queue subscribes through. */
export class Emitter<E extends Record<string, unknown>> {
  readonly #listeners = new Map<keyof E, Set<(p: never) => void>>();

  on<K extends keyof E>(event: K, fn: (payload: E[K]) => void): () => void {
    const set = this.#listeners.get(event) ?? new Set();
    this.#listeners.set(event, set);
    set.add(fn as (p: never) => void);
    return () => set.delete(fn as (p: never) => void);
  }

  emit<K extends keyof E>(event: K, payload: E[K]): void {
    for (const fn of [...(this.#listeners.get(event) ?? [])]) (fn as (p: E[K]) => void)(payload);
  }
}
