import type { Clock } from '../ports/index.ts';
import { TimeoutError } from './errors.ts';

export const systemClock: Clock = {
  now: () => Date.now(),
  setTimeout: (fn, ms) => globalThis.setTimeout(fn, ms),
  clearTimeout: (h) => globalThis.clearTimeout(h as ReturnType<typeof globalThis.setTimeout>),
};

function abortReason(signal: AbortSignal): unknown {
  return signal.reason ?? new DOMException('aborted', 'AbortError');
}

/** Waits ms on the clock; rejects with the signal's reason when aborted first. */
export function sleep(clock: Clock, ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(abortReason(signal));
    const onAbort = () => {
      clock.clearTimeout(handle);
      reject(abortReason(signal!));
    };
    const handle = clock.setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

/**
 * A child signal aborted by the parent or after ms (reason TimeoutError). dispose() clears the timer and the
 * listener so long uploads do not accumulate them.
 */
export function withTimeout(clock: Clock, ms: number, parent?: AbortSignal): { signal: AbortSignal; dispose(): void } {
  const ctrl = new AbortController();
  const onAbort = () => ctrl.abort(abortReason(parent!));
  if (parent?.aborted) onAbort();
  else parent?.addEventListener('abort', onAbort, { once: true });
  const handle = clock.setTimeout(() => ctrl.abort(new TimeoutError()), ms);
  return {
    signal: ctrl.signal,
    dispose() {
      clock.clearTimeout(handle);
      parent?.removeEventListener('abort', onAbort);
    },
  };
}
