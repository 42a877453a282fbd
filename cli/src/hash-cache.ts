// SHA-256 per local file, keyed by absolute path + size + mtime (as the immich CLI does): a re-run of a bulk
// upload does not re-read files it already hashed, and any edit (size or mtime change) misses the cache.
import { createHash } from 'node:crypto';
import { open } from 'node:fs/promises';
import { join } from 'node:path';
import { Journal, readJournal } from './journal.ts';

interface Entry {
  p: string;
  s: number;
  m: number;
  h: string;
}

const READ_CHUNK = 1024 * 1024;

export class HashCache {
  private readonly map = new Map<string, Entry>();
  private readonly journal: Journal<Entry>;
  private readonly path: string;
  constructor(stateDir: string) {
    this.path = join(stateDir, 'hash-cache.jsonl');
    this.journal = new Journal<Entry>(this.path);
  }

  async load(): Promise<void> {
    const entries = await readJournal<Entry>(this.path);
    for (const e of entries) if (typeof e.p === 'string' && /^[0-9a-f]{64}$/.test(e.h)) this.map.set(e.p, e);
    // Superseded lines accumulate as files change: compact when they dominate.
    if (entries.length > 1000 && entries.length > this.map.size * 2) await this.journal.rewrite([...this.map.values()]);
    await this.journal.open();
  }

  get(path: string, size: number, mtimeMs: number): string | undefined {
    const e = this.map.get(path);
    return e && e.s === size && e.m === mtimeMs ? e.h : undefined;
  }

  async set(path: string, size: number, mtimeMs: number, sha256: string): Promise<void> {
    if (this.get(path, size, mtimeMs) === sha256) return;
    const e = { p: path, s: size, m: mtimeMs, h: sha256 };
    this.map.set(path, e);
    await this.journal.append(e);
  }

  forget(path: string): void {
    this.map.delete(path);
  }

  close(): Promise<void> {
    return this.journal.close();
  }
}

/** Streams a file (or a byte range of it) through SHA-256 in 1 MiB reads; memory stays constant. */
export async function sha256File(
  path: string,
  opts: { offset?: number; length?: number; signal?: AbortSignal; onProgress?: (bytes: number) => void } = {},
): Promise<string> {
  const fh = await open(path, 'r');
  try {
    const hash = createHash('sha256');
    const buf = Buffer.allocUnsafe(READ_CHUNK);
    let pos = opts.offset ?? 0;
    const end = opts.length === undefined ? Infinity : pos + opts.length;
    let done = 0;
    while (pos < end) {
      opts.signal?.throwIfAborted();
      const want = Math.min(READ_CHUNK, end - pos);
      const { bytesRead } = await fh.read(buf, 0, want, pos);
      if (bytesRead === 0) break;
      hash.update(buf.subarray(0, bytesRead));
      pos += bytesRead;
      done += bytesRead;
      opts.onProgress?.(done);
    }
    if (opts.length !== undefined && done !== opts.length) throw new Error(`file is shorter than expected: ${path}`);
    return hash.digest('hex');
  } finally {
    await fh.close();
  }
}
