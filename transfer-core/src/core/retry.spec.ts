import { HcsError } from '@hcs/openapi/client';
import { describe, expect, it, vi } from 'vitest';
import { FakeClock, runWithClock } from '../test/fake-clock.ts';
import { StorageHttpError, TimeoutError } from './errors.ts';
import { classify, withRetry } from './retry.ts';
import { TokenBucket } from './throttle.ts';

describe('withRetry (spec 8/9: 500 x3, 401 re-login x3)', () => {
  it('retries HTTP 500 three times with doubling backoff, then gives up with the last error', async () => {
    const clock = new FakeClock();
    const fn = vi.fn(async () => {
      throw new StorageHttpError(500, 'InternalError');
    });
    await expect(runWithClock(clock, withRetry(fn, { clock, baseDelayMs: 1000, random: () => 1 }))).rejects.toBeInstanceOf(StorageHttpError);
    expect(fn).toHaveBeenCalledTimes(4);
    expect(clock.delays).toEqual([1000, 2000, 4000]);
  });

  it('succeeds when a retry succeeds', async () => {
    const clock = new FakeClock();
    let n = 0;
    const fn = async () => {
      if (n++ < 2) throw new HcsError(500, 500, 'boom', 'INTERNAL');
      return 'ok';
    };
    await expect(runWithClock(clock, withRetry(fn, { clock }))).resolves.toBe('ok');
    expect(n).toBe(3);
  });

  it('calls the re-login hook on 401 and retries, at most 3 times', async () => {
    const clock = new FakeClock();
    const relogin = vi.fn(async () => {});
    const fn = vi.fn(async () => {
      throw new HcsError(401, 401, 'login', 'UNAUTHENTICATED');
    });
    await expect(withRetry(fn, { clock, onUnauthorized: relogin })).rejects.toMatchObject({ status: 401 });
    expect(relogin).toHaveBeenCalledTimes(3);
    expect(fn).toHaveBeenCalledTimes(4);
  });

  it('a 401 without a re-login hook is final', async () => {
    const fn = vi.fn(async () => {
      throw new HcsError(401, 401, 'login', 'UNAUTHENTICATED');
    });
    await expect(withRetry(fn, { clock: new FakeClock() })).rejects.toBeDefined();
    expect(fn).toHaveBeenCalledTimes(1);
  });

  it('does not retry 4xx, aborts, or unknown errors; retries network errors and timeouts', () => {
    expect(classify(new StorageHttpError(403))).toBe('none');
    expect(classify(new HcsError(400, 1, 'bad', 'VALIDATION_FAILED'))).toBe('none');
    expect(classify(new DOMException('x', 'AbortError'))).toBe('none');
    expect(classify(new Error('x'))).toBe('none');
    expect(classify(new TypeError('fetch failed'))).toBe('server');
    expect(classify(new TimeoutError())).toBe('server');
    expect(classify(new StorageHttpError(503))).toBe('server');
  });

  it('stops waiting when aborted during backoff', async () => {
    const clock = new FakeClock();
    const ctrl = new AbortController();
    const p = withRetry(async () => {
      throw new StorageHttpError(500);
    }, { clock, signal: ctrl.signal });
    await new Promise((r) => setTimeout(r, 0));
    ctrl.abort(new DOMException('paused', 'AbortError'));
    await expect(p).rejects.toMatchObject({ name: 'AbortError' });
  });
});

describe('TokenBucket (syncSpeed throttle)', () => {
  it('lets one second of rate through, then paces to the rate', async () => {
    const clock = new FakeClock();
    const b = new TokenBucket(1000, clock);
    await b.take(1000);
    expect(clock.delays).toEqual([]);
    const p = b.take(500);
    expect(clock.delays).toEqual([500]);
    clock.advance(500);
    await p;
  });

  it('charges a request bigger than the bucket as debt that later callers repay', async () => {
    const clock = new FakeClock();
    const b = new TokenBucket(1000, clock);
    const p = b.take(3000);
    expect(clock.delays).toEqual([2000]);
    clock.advance(2000);
    await p;
    const q = b.take(1000);
    expect(clock.delays[1]).toBe(1000);
    clock.advance(1000);
    await q;
  });

  it('moves 10 MB at 1 MB/s in about 10 s of clock time', async () => {
    const clock = new FakeClock();
    const b = new TokenBucket(1_000_000, clock);
    await runWithClock(clock, (async () => {
      for (let i = 0; i < 10; i++) await b.take(1_000_000);
    })());
    expect(clock.now()).toBeGreaterThanOrEqual(9000);
    expect(clock.now()).toBeLessThanOrEqual(10000);
  });
});
