import type { FileSource } from '../ports/index.ts';

/** A FileSource over bytes in memory; `reads` records every read for assertions. */
export class MemorySource implements FileSource {
  readonly name: string;
  readonly identity: string;
  readonly reads: Array<{ offset: number; length: number }> = [];
  data: Uint8Array;
  /** Makes reads return zeros-length (simulates the browser's failed reads behind spec [102]). */
  emptyReads = false;

  constructor(name: string, data: Uint8Array, identity = `${name}:${data.byteLength}`) {
    this.name = name;
    this.data = data;
    this.identity = identity;
  }

  get size(): number {
    return this.data.byteLength;
  }

  async read(offset: number, length: number, signal?: AbortSignal): Promise<Uint8Array> {
    signal?.throwIfAborted();
    this.reads.push({ offset, length });
    if (this.emptyReads) return new Uint8Array(length);
    return this.data.slice(offset, Math.min(offset + length, this.data.byteLength));
  }
}

/** Deterministic pseudo-random bytes (xorshift), so tests need no fixtures. */
export function randomBytes(n: number, seed = 1): Uint8Array {
  const out = new Uint8Array(n);
  let x = seed >>> 0 || 1;
  for (let i = 0; i < n; i++) {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    out[i] = x & 0xff;
  }
  return out;
}
