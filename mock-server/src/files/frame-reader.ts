// Reads a framed request body: a first line, then exact byte counts. Chunks are sliced, not copied, unless a
// frame spans two network chunks. Every way the body can break the framing is a BAD_REQUEST, never a crash; a body
// that stops arriving is a REQUEST_TIMEOUT, and a client that leaves mid-body a ClientGoneError.
import { AppError } from '../http/errors.ts';

const EMPTY = Buffer.alloc(0);

/**
 * How long the reader waits on the client. Only time spent waiting for bytes counts: a reader its owner does not
 * call (waiting for an admission slot, or for storage) charges the client nothing.
 */
export interface BodyDeadlines {
  /** Longest wait for the next bytes. */
  idleMs: number;
  /** Longest wait for all of them together (a client trickling a byte now and then still has to finish). */
  totalMs: number;
}

/** The source failed mid-body: the client closed or reset its connection. Nobody is left to answer. */
export class ClientGoneError extends AppError {
  constructor(cause: unknown) {
    super('BAD_REQUEST', 'the client closed the connection before the body ended');
    this.cause = cause;
  }
}

const seconds = (ms: number) => `${Number((ms / 1000).toFixed(3))} s`;

export class FrameReader {
  readonly #it: AsyncIterator<Buffer>;
  /** Received, not yet handed out: kept as chunks so a frame spanning many of them is joined once, not per chunk. */
  #chunks: Buffer[] = [];
  #len = 0;
  #done = false;
  /** Bytes handed out so far (line terminator included). */
  consumed = 0;

  /** The source has reported its end: nothing of the body is left unread on the connection. */
  get ended(): boolean {
    return this.#done;
  }

  readonly #deadlines: BodyDeadlines | undefined;
  /** Time spent waiting for the source so far, against deadlines.totalMs. */
  #waitedMs = 0;
  /** Once the source failed or timed out it is never asked again (a read may still be pending on it). */
  #failure: AppError | undefined;

  constructor(source: AsyncIterable<Buffer>, deadlines?: BodyDeadlines) {
    this.#it = source[Symbol.asyncIterator]();
    this.#deadlines = deadlines;
  }

  async #next(): Promise<IteratorResult<Buffer>> {
    const next = this.#it.next();
    const d = this.#deadlines;
    if (!d) return next;
    // Left pending when the deadline wins: its later failure (the connection closing) is nobody's error.
    next.catch(() => {});
    const left = d.totalMs - this.#waitedMs;
    const overall = left <= d.idleMs;
    const started = performance.now();
    let timer: NodeJS.Timeout | undefined;
    const deadline = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        reject(
          new AppError(
            'REQUEST_TIMEOUT',
            overall ? `the body did not arrive within ${seconds(d.totalMs)}` : `no bytes of the body arrived for ${seconds(d.idleMs)}`,
          ),
        );
      }, Math.max(0, overall ? left : d.idleMs));
    });
    try {
      return await Promise.race([next, deadline]);
    } finally {
      clearTimeout(timer);
      this.#waitedMs += performance.now() - started;
    }
  }

  async #fill(): Promise<boolean> {
    if (this.#failure) throw this.#failure;
    if (this.#done) return false;
    let r: IteratorResult<Buffer>;
    try {
      r = await this.#next();
    } catch (err) {
      this.#failure = err instanceof AppError ? err : new ClientGoneError(err);
      throw this.#failure;
    }
    if (r.done) {
      this.#done = true;
      return false;
    }
    const chunk = Buffer.isBuffer(r.value) ? r.value : Buffer.from(r.value as Uint8Array);
    if (chunk.length > 0) {
      this.#chunks.push(chunk);
      this.#len += chunk.length;
    }
    return true;
  }

  /** Removes and returns the first `n` buffered bytes (n <= #len): a slice when one chunk holds them. */
  #head(n: number): Buffer {
    if (n === 0) return EMPTY;
    const first = this.#chunks[0]!;
    let out: Buffer;
    if (first.length >= n) {
      out = first.subarray(0, n);
      if (first.length === n) this.#chunks.shift();
      else this.#chunks[0] = first.subarray(n);
    } else {
      const parts: Buffer[] = [];
      for (let need = n; need > 0;) {
        const c = this.#chunks[0]!;
        if (c.length <= need) {
          parts.push(c);
          this.#chunks.shift();
          need -= c.length;
        } else {
          parts.push(c.subarray(0, need));
          this.#chunks[0] = c.subarray(need);
          need = 0;
        }
      }
      out = Buffer.concat(parts, n);
    }
    this.#len -= n;
    return out;
  }

  /** The bytes before the next line feed (which is consumed), at most `max` bytes. */
  async line(max: number, what: string): Promise<Buffer> {
    // Chunks already searched (and their total length) are not searched again after the next arrives.
    let searchedChunks = 0;
    let searchedBytes = 0;
    for (;;) {
      for (; searchedChunks < this.#chunks.length; searchedChunks++) {
        const c = this.#chunks[searchedChunks]!;
        const at = c.indexOf(10);
        if (at >= 0) {
          const pos = searchedBytes + at;
          if (pos > max) break;
          const out = this.#head(pos);
          this.#head(1);
          this.consumed += pos + 1;
          return out;
        }
        searchedBytes += c.length;
      }
      if (this.#len > max) throw new AppError('BAD_REQUEST', `${what} is longer than ${max} bytes or not ended by a line feed`);
      if (!(await this.#fill())) throw new AppError('BAD_REQUEST', `the body ends inside ${what}`);
    }
  }

  /** Exactly `n` bytes. */
  async take(n: number, what: string): Promise<Buffer> {
    while (this.#len < n) {
      if (!(await this.#fill())) throw new AppError('BAD_REQUEST', `the body ends inside ${what}: ${n} bytes declared, ${this.#len} sent`);
    }
    this.consumed += n;
    return this.#head(n);
  }

  /** Fails when anything follows the last frame. */
  async end(): Promise<void> {
    if (this.#len > 0) throw new AppError('BAD_REQUEST', 'the body is longer than its manifest declares');
    while (await this.#fill()) {
      if (this.#len > 0) throw new AppError('BAD_REQUEST', 'the body is longer than its manifest declares');
    }
  }
}
