// SHA-256 of a download while its parts arrive out of order, so verification needs no second full read.
// Bytes at the hash position are hashed as they are written; bytes ahead of it (a later part finishing first)
// are read back from the sink once everything before them is hashed. Only what was actually written to the
// sink is hashed, so the digest is the digest of the file. A part rewritten after some of it was hashed (a
// retried request) makes the running digest unusable; the caller then verifies by reading the file again.
import type { DownloadSink, Hasher, SinkVerifier } from '../ports/index.ts';
import { partRange, type PartPlan } from './part-size.ts';

/** Read-back granularity and the most hashing work allowed to queue before a writer waits for it. */
const READ_CHUNK = 4 * 1024 * 1024;
const MAX_QUEUED = 16 * 1024 * 1024;

export class OrderedHasher {
  readonly #hasher: Hasher;
  readonly #sink: DownloadSink;
  readonly #plan: PartPlan;
  readonly #size: number;
  /** Bytes written contiguously from each part's start. */
  readonly #extent = new Map<number, number>();
  #pos = 0;
  #queued = 0;
  #chain: Promise<void> = Promise.resolve();
  #broken = false;

  /** When the sink hashes by itself (a worker thread in Node), only the contiguous extent is tracked here. */
  readonly #verifier: SinkVerifier | undefined;

  constructor(hasher: Hasher, sink: DownloadSink, plan: PartPlan, size: number, verifier?: SinkVerifier) {
    this.#hasher = hasher;
    this.#sink = sink;
    this.#plan = plan;
    this.#size = size;
    this.#verifier = verifier;
  }

  /** Verifier mode: moves the position over everything written contiguously and tells the verifier. */
  #advance(): void {
    const start = this.#pos;
    while (this.#pos < this.#size) {
      const n = Math.floor(this.#pos / this.#plan.partSize) + 1;
      const available = partRange(this.#plan, n).start + (this.#extent.get(n) ?? 0) - this.#pos;
      if (available <= 0) break;
      this.#pos += available;
    }
    if (this.#pos > start) this.#verifier!.advance(this.#pos);
  }

  /** A part already on the sink (resumed from an earlier run). */
  complete(partNumber: number): void {
    this.#extent.set(partNumber, partRange(this.#plan, partNumber).size);
  }

  /** A part is (re)written from its start; bytes of it already hashed may now differ from the file. */
  restart(partNumber: number): void {
    if (this.#pos > partRange(this.#plan, partNumber).start) this.#broken = true;
    this.#extent.set(partNumber, 0);
  }

  /**
   * `data` was written at `offset` of part `partNumber`. Resolves at once unless too much hashing is queued,
   * which keeps memory bounded when hashing is slower than the network.
   */
  written(partNumber: number, offset: number, data: Uint8Array | readonly Uint8Array[]): Promise<void> {
    const chunks = data instanceof Uint8Array ? [data] : data;
    const length = chunks.reduce((sum, c) => sum + c.byteLength, 0);
    this.#extent.set(partNumber, (this.#extent.get(partNumber) ?? 0) + length);
    if (this.#broken) return Promise.resolve();
    if (this.#verifier) {
      this.#advance();
      return Promise.resolve();
    }
    this.#queued += length;
    const step = this.#chain.then(async () => {
      try {
        if (this.#broken) return;
        if (offset === this.#pos) {
          for (const c of chunks) await this.#hasher.update(c);
          this.#pos += length;
        }
        await this.#catchUp();
      } finally {
        this.#queued -= length;
      }
    });
    this.#chain = step.catch(() => {
      this.#broken = true;
    });
    return this.#queued > MAX_QUEUED ? this.#chain : Promise.resolve();
  }

  /** Hashes what is written right after the hash position (a later part that finished first). */
  async #catchUp(): Promise<void> {
    while (!this.#broken && this.#pos < this.#size) {
      const n = Math.floor(this.#pos / this.#plan.partSize) + 1;
      const { start } = partRange(this.#plan, n);
      const available = start + (this.#extent.get(n) ?? 0) - this.#pos;
      if (available <= 0) return;
      const want = Math.min(READ_CHUNK, available);
      const bytes = await this.#sink.read(this.#pos, want);
      if (bytes.byteLength !== want) {
        this.#broken = true;
        return;
      }
      await this.#hasher.update(bytes);
      this.#pos += want;
    }
  }

  /** The digest when every byte was hashed in order, else undefined (verify by reading the file). */
  async digest(): Promise<string | undefined> {
    if (this.#verifier) {
      if (!this.#broken) this.#advance();
      if (this.#broken || this.#pos !== this.#size) return undefined;
      return this.#verifier.digest(this.#size).catch(() => undefined);
    }
    await this.#chain;
    if (!this.#broken) await this.#catchUp().catch(() => (this.#broken = true));
    if (this.#broken || this.#pos !== this.#size) return undefined;
    return this.#hasher.digest();
  }
}
