// Reads a framed request body: a first line, then exact byte counts. Chunks are sliced, not copied, unless a
// frame spans two network chunks. Every way the body can break the framing is a BAD_REQUEST, never a crash.
import { AppError } from '../http/errors.ts';

const EMPTY = Buffer.alloc(0);

export class FrameReader {
  readonly #it: AsyncIterator<Buffer>;
  #buf: Buffer = EMPTY;
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
    this.#buf = this.#buf.length === 0 ? chunk : Buffer.concat([this.#buf, chunk]);
    return true;
  }

  /** The bytes before the next line feed (which is consumed), at most `max` bytes. */
  async line(max: number, what: string): Promise<Buffer> {
    let from = 0;
    for (;;) {
      const at = this.#buf.indexOf(10, from);
      if (at >= 0 && at <= max) {
        const out = this.#buf.subarray(0, at);
        this.#buf = this.#buf.subarray(at + 1);
        this.consumed += at + 1;
        return out;
      }
      if (this.#buf.length > max) throw new AppError('BAD_REQUEST', `${what} is longer than ${max} bytes or not ended by a line feed`);
      from = this.#buf.length;
      if (!(await this.#fill())) throw new AppError('BAD_REQUEST', `the body ends inside ${what}`);
    }
  }

  /** Exactly `n` bytes. */
  async take(n: number, what: string): Promise<Buffer> {
    while (this.#buf.length < n) {
      if (!(await this.#fill())) throw new AppError('BAD_REQUEST', `the body ends inside ${what}: ${n} bytes declared, ${this.#buf.length} sent`);
    }
    const out = this.#buf.subarray(0, n);
    this.#buf = this.#buf.length === n ? EMPTY : this.#buf.subarray(n);
    this.consumed += n;
    return out;
  }

  /** Fails when anything follows the last frame. */
  async end(): Promise<void> {
    if (this.#buf.length > 0) throw new AppError('BAD_REQUEST', 'the body is longer than its manifest declares');
    while (await this.#fill()) {
      if (this.#buf.length > 0) throw new AppError('BAD_REQUEST', 'the body is longer than its manifest declares');
    }
  }
}
