// Reads a framed request body: a first line, then exact byte counts. Chunks are sliced, not copied, unless a
// frame spans two network chunks. Every way the body can break the framing is a BAD_REQUEST, never a crash.
import { AppError } from '../http/errors.ts';

const EMPTY = Buffer.alloc(0);

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

  constructor(source: AsyncIterable<Buffer>) {
    this.#it = source[Symbol.asyncIterator]();
  }

  async #fill(): Promise<boolean> {
    if (this.#done) return false;
    const r = await this.#it.next();
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
