import type { Clock } from '../ports/index.ts';
import { MAX_RETRIES } from './constants.ts';
import { sleep } from './clock.ts';
import { isAbort, StorageHttpError, TimeoutError } from './errors.ts';

export interface RetryOptions {
  clock: Clock;
  signal?: AbortSignal;
  /** Re-login hook called on HTTP 401 before the retry (spec 8: re-login and retry up to 3 times). */
  onUnauthorized?: () => Promise<void>;
  /** Retries for 5xx, network failures and timeouts (spec 9: 3). */
  maxRetries?: number;
  /** Retries after re-login (spec 9: 3). */
  maxAuthRetries?: number;
  /** First backoff; doubles each retry, with jitter. */
  baseDelayMs?: number;
  random?: () => number;
}

/** The HTTP status of a failure from storage (StorageHttpError) or from /hcs (HcsError), when it has one. */
export function statusOf(err: unknown): number | undefined {
  if (err instanceof StorageHttpError) return err.status;
  if (err && typeof err === 'object' && 'status' in err && typeof err.status === 'number' && err.status > 0) return err.status;
  return undefined;
}

export type RetryKind = 'server' | 'auth' | 'none';

/**
 * Which failures are worth repeating: 5xx and 429 (the server or storage may recover), network errors (fetch's
 * TypeError) and part timeouts. 4xx other than 401 mean the request itself is wrong: repeating cannot help.
 */
export function classify(err: unknown, signal?: AbortSignal): RetryKind {
  if (err instanceof TimeoutError) return 'server';
  if (isAbort(err, signal)) return 'none';
  const status = statusOf(err);
  if (status === 401) return 'auth';
  if (status !== undefined) return status >= 500 || status === 429 ? 'server' : 'none';
  if (err instanceof TypeError) return 'server';
  return 'none';
}

/** Runs fn with the spec's retry policy; the final error is rethrown unchanged for the caller to map. */
export async function withRetry<T>(fn: (attempt: number) => Promise<T>, opts: RetryOptions): Promise<T> {
  const maxRetries = opts.maxRetries ?? MAX_RETRIES;
  const maxAuth = opts.maxAuthRetries ?? MAX_RETRIES;
  const base = opts.baseDelayMs ?? 1000;
  const random = opts.random ?? Math.random;
  let serverRetries = 0;
  let authRetries = 0;
  for (let attempt = 0; ; attempt++) {
    try {
      return await fn(attempt);
    } catch (err) {
      const kind = classify(err, opts.signal);
      if (kind === 'auth' && opts.onUnauthorized && authRetries < maxAuth) {
        authRetries++;
        await opts.onUnauthorized();
        continue;
      }
      if (kind === 'server' && serverRetries < maxRetries) {
        const delay = base * 2 ** serverRetries * (0.5 + random() / 2);
        serverRetries++;
        await sleep(opts.clock, delay, opts.signal);
        continue;
      }
      throw err;
    }
  }
}
