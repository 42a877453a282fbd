// The body deadlines and a source that fails, with the clock faked: the reader must end a body that stops (or
// trickles) with REQUEST_TIMEOUT, charge the client only for time spent waiting on it, and turn a broken
// connection into ClientGoneError.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { AppError } from '../http/errors.ts';
import { ClientGoneError, FrameReader } from './frame-reader.ts';

/** A body whose chunks, end and failure the test hands over one at a time. */
function source() {
  const queue: (Buffer | Error | null)[] = [];
  let wake: (() => void) | undefined;
  const put = (v: Buffer | Error | null) => {
    queue.push(v);
    wake?.();
  };
  const body: AsyncIterable<Buffer> = {
    async *[Symbol.asyncIterator]() {
      for (;;) {
        while (queue.length === 0) await new Promise<void>((r) => (wake = r));
        const v = queue.shift()!;
        if (v === null) return;
        if (v instanceof Error) throw v;
        yield v;
      }
    },
  };
  return { body, send: (s: string) => put(Buffer.from(s)), end: () => put(null), fail: (e: Error) => put(e) };
}

/** Settles a read the test expects to stay pending, as a value to compare. */
function watch<T>(p: Promise<T>) {
  const s: { value?: T; error?: unknown } = {};
  p.then(
    (v) => (s.value = v),
    (e: unknown) => (s.error = e),
  );
  return s;
}

const code = (e: unknown) => (e instanceof AppError ? [e.code, e.status, e.message] : e);

describe('FrameReader deadlines', () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  it('ends a body that sends nothing for the idle deadline with REQUEST_TIMEOUT (408)', async () => {
    const src = source();
    const reader = new FrameReader(src.body, { idleMs: 1000, totalMs: 60_000 });
    src.send('{"files":[]}\nab');
    expect((await reader.line(100, 'the manifest')).toString()).toBe('{"files":[]}');
    const read = watch(reader.take(5, 'file 1'));
    await vi.advanceTimersByTimeAsync(999);
    expect(read).toEqual({});
    await vi.advanceTimersByTimeAsync(1);
    expect(code(read.error)).toEqual(['REQUEST_TIMEOUT', 408, 'no bytes of the body arrived for 1 s']);
    // The reader stays failed: a later read that needs bytes does not ask the source again.
    await expect(reader.take(10, 'file 2')).rejects.toBe(read.error);
  });

  it('each arriving chunk restarts the idle deadline', async () => {
    const src = source();
    const reader = new FrameReader(src.body, { idleMs: 1000, totalMs: 60_000 });
    const read = watch(reader.take(4, 'file 1'));
    for (const c of 'abcd') {
      await vi.advanceTimersByTimeAsync(900);
      src.send(c);
    }
    await vi.advanceTimersByTimeAsync(0);
    expect(read.value?.toString()).toBe('abcd');
  });

  it('ends a body that trickles in under the idle deadline when the overall deadline passes', async () => {
    const src = source();
    const reader = new FrameReader(src.body, { idleMs: 1000, totalMs: 3000 });
    const read = watch(reader.take(100, 'file 1'));
    for (let i = 0; i < 5 && !read.error; i++) {
      await vi.advanceTimersByTimeAsync(900);
      src.send('x');
    }
    expect(code(read.error)).toEqual(['REQUEST_TIMEOUT', 408, 'the body did not arrive within 3 s']);
  });

  it('charges the client only while the reader waits on it, not while its owner does something else', async () => {
    const src = source();
    const reader = new FrameReader(src.body, { idleMs: 1000, totalMs: 1500 });
    src.send('{"files":[]}\n');
    await reader.line(100, 'the manifest');
    // The owner waits for a slot or for storage long past both deadlines, without reading.
    await vi.advanceTimersByTimeAsync(10_000);
    src.send('abcd');
    expect((await reader.take(4, 'file 1')).toString()).toBe('abcd');
    const read = watch(reader.take(1, 'file 2'));
    await vi.advanceTimersByTimeAsync(999);
    expect(read).toEqual({});
    src.send('e');
    await vi.advanceTimersByTimeAsync(0);
    expect(read.value?.toString()).toBe('e');
    // 999 ms of the 1500 are used: the next wait ends at the overall deadline, before the idle one.
    const last = watch(reader.end());
    await vi.advanceTimersByTimeAsync(600);
    expect(code(last.error)).toEqual(['REQUEST_TIMEOUT', 408, 'the body did not arrive within 1.5 s']);
  });

  it('a body that arrives in time is read as without deadlines, and leaves no timer behind', async () => {
    const src = source();
    const reader = new FrameReader(src.body, { idleMs: 1000, totalMs: 5000 });
    src.send('m\nabc');
    src.end();
    expect((await reader.line(10, 'the manifest')).toString()).toBe('m');
    expect((await reader.take(3, 'file 1')).toString()).toBe('abc');
    await reader.end();
    expect(reader.ended).toBe(true);
    expect(vi.getTimerCount()).toBe(0);
  });
});

describe('FrameReader source failures', () => {
  it('a connection that breaks mid-body is a ClientGoneError (a 400, not an internal error) carrying the cause', async () => {
    const src = source();
    const reader = new FrameReader(src.body);
    src.send('m\nab');
    await reader.line(10, 'the manifest');
    const aborted = Object.assign(new Error('aborted'), { code: 'ECONNRESET' });
    src.fail(aborted);
    const err = await reader.take(5, 'file 1').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ClientGoneError);
    expect(code(err)).toEqual(['BAD_REQUEST', 400, 'the client closed the connection before the body ended']);
    expect((err as Error).cause).toBe(aborted);
  });

  it('a body that ends early is still a framing error, not a client that went away', async () => {
    const src = source();
    const reader = new FrameReader(src.body);
    src.send('m\nab');
    src.end();
    await reader.line(10, 'the manifest');
    const err = await reader.take(5, 'file 1').catch((e: unknown) => e);
    expect(err).not.toBeInstanceOf(ClientGoneError);
    expect(code(err)).toEqual(['BAD_REQUEST', 400, 'the body ends inside file 1: 5 bytes declared, 2 sent']);
  });
});
