import type { FileSource, HasherFactory } from '../ports/index.ts';
import { EMPTY_SHA256, HASH_CHUNK } from './constants.ts';
import { FileMissingError, HashError } from './errors.ts';

/** Where hashing stopped: the hasher state after `bytes` bytes of the file with this identity. */
export interface HashCheckpoint {
  identity: string;
  bytes: number;
  /** Base64 of Hasher.save(). */
  state: string;
}

export interface HashOptions {
  signal?: AbortSignal;
  onProgress?: (bytesHashed: number) => void;
  /** Where to resume from (ignored unless it matches the source identity and the factory can restore). */
  checkpoint?: HashCheckpoint;
  /** Called after each chunk with a fresh checkpoint; the caller decides how often to persist it. */
  onCheckpoint?: (cp: HashCheckpoint) => void | Promise<void>;
  chunkSize?: number;
}

/**
 * SHA-256 of a whole file, read HASH_CHUNK (20 MiB) at a time. Continues from a checkpoint when one is given and
 * loadable; falls back to hashing from zero when the state cannot be restored (different implementation).
 * Applies the spec's [102] check: a non-empty file whose digest is the empty digest means the reads came back empty.
 */
export async function hashSource(source: FileSource, factory: HasherFactory, opts: HashOptions = {}): Promise<string> {
  const chunk = opts.chunkSize ?? HASH_CHUNK;
  let offset = 0;
  let hasher;
  const cp = opts.checkpoint;
  if (cp && factory.checkpoints && cp.identity === source.identity && cp.bytes > 0 && cp.bytes <= source.size) {
    try {
      hasher = await factory.create(fromBase64(cp.state));
      offset = cp.bytes;
    } catch {
      hasher = undefined;
    }
  }
  hasher ??= await factory.create();
  // The next chunk is read while this one is hashed (two chunks in memory), so disk and CPU overlap.
  const readAt = (at: number) => {
    const p = source.read(at, Math.min(chunk, source.size - at), opts.signal);
    p.catch(() => {});
    return p;
  };
  let ahead = offset < source.size ? readAt(offset) : undefined;
  try {
    while (offset < source.size) {
      opts.signal?.throwIfAborted();
      const want = Math.min(chunk, source.size - offset);
      const bytes = await ahead!;
      ahead = offset + want < source.size ? readAt(offset + want) : undefined;
      if (bytes.byteLength !== want) throw new FileMissingError({ cause: new Error(`short read at ${offset}: ${bytes.byteLength} of ${want}`) });
      await hasher.update(bytes);
      offset += want;
      opts.onProgress?.(offset);
      if (opts.onCheckpoint && factory.checkpoints && offset < source.size) {
        const state = await hasher.save();
        if (state) await opts.onCheckpoint({ identity: source.identity, bytes: offset, state: toBase64(state) });
      }
    }
    const hex = await hasher.digest();
    if (source.size > 0 && hex === EMPTY_SHA256) throw new HashError();
    if (!/^[0-9a-f]{64}$/.test(hex)) throw new HashError({ cause: new Error(`not a SHA-256 hex digest: ${hex.slice(0, 80)}`) });
    return hex;
  } finally {
    hasher.dispose();
  }
}

/**
 * Proof of possession for instant transfer: SHA-256 (hex) of bytes [offset, offset+length) of the local file.
 * The range must lie inside the file; a server naming another range is answered with an error, not a guess.
 */
export async function computeProof(source: FileSource, factory: HasherFactory, offset: number, length: number, signal?: AbortSignal): Promise<string> {
  if (!Number.isSafeInteger(offset) || !Number.isSafeInteger(length) || offset < 0 || length < 0 || offset + length > source.size) {
    throw new RangeError(`proof range ${offset}+${length} outside the file (${source.size} bytes)`);
  }
  const hasher = await factory.create();
  try {
    for (let pos = offset; pos < offset + length; ) {
      const want = Math.min(HASH_CHUNK, offset + length - pos);
      const bytes = await source.read(pos, want, signal);
      if (bytes.byteLength !== want) throw new FileMissingError();
      await hasher.update(bytes);
      pos += want;
    }
    return await hasher.digest();
  } finally {
    hasher.dispose();
  }
}

export function toBase64(bytes: Uint8Array): string {
  let bin = '';
  for (let i = 0; i < bytes.length; i += 0x8000) bin += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(bin);
}

export function fromBase64(s: string): Uint8Array {
  return Uint8Array.from(atob(s), (c) => c.charCodeAt(0));
}
