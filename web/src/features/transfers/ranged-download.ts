// Single-file download to a file the user chose (File System Access API): ranged parts, 3 in flight (spec 9),
// written positionally, hashed in order and compared with the server's SHA-256 before the file is kept.
// Memory stays bounded by part size x parallel parts: out-of-order parts wait at most that long for the hasher.
import { createIncrementalSha256 } from './sha256.ts';

export const DOWNLOAD_PART_SIZE = 8 * 1024 * 1024;
export const DOWNLOAD_PARALLEL = 3;

export interface RangedDownloadOptions {
  url: string;
  size: number;
  /** Expected SHA-256 (hex); verification is skipped only when the server has none. */
  sha256: string | null | undefined;
  writable: FileSystemWritableFileStream;
  signal: AbortSignal;
  onProgress?: (loaded: number) => void;
  fetchImpl?: typeof fetch;
  partSize?: number;
}

export class DownloadVerifyError extends Error {
  readonly code = '202';
  readonly messageKey = 'transfer.error.202';
}

export async function rangedDownload(o: RangedDownloadOptions): Promise<void> {
  const f = o.fetchImpl ?? fetch;
  const partSize = o.partSize ?? DOWNLOAD_PART_SIZE;
  const parts = Math.max(1, Math.ceil(o.size / partSize));
  const hasher = o.sha256 ? await createIncrementalSha256() : undefined;
  const pending = new Map<number, Uint8Array<ArrayBuffer>>();
  let nextToHash = 0;
  let nextToFetch = 0;
  let loaded = 0;

  const fetchPart = async (i: number): Promise<Uint8Array<ArrayBuffer>> => {
    if (o.size === 0) return new Uint8Array(0);
    const start = i * partSize;
    const end = Math.min(o.size, start + partSize) - 1;
    for (let attempt = 0; ; attempt++) {
      try {
        const res = await f(o.url, { headers: { Range: `bytes=${start}-${end}` }, signal: o.signal });
        if (res.status !== 206 && !(res.status === 200 && parts === 1)) throw new Error(`storage answered HTTP ${res.status}`);
        const buf = new Uint8Array(await res.arrayBuffer());
        if (buf.length !== end - start + 1) throw new Error('short part');
        return buf;
      } catch (err) {
        // Spec 8: retried up to 3 times; pause/delete aborts immediately.
        if (o.signal.aborted || attempt >= 2) throw err;
        await new Promise((r) => setTimeout(r, 1000 * (attempt + 1)));
      }
    }
  };

  const worker = async () => {
    while (nextToFetch < parts) {
      const i = nextToFetch++;
      const data = await fetchPart(i);
      await o.writable.write({ type: 'write', position: i * partSize, data });
      loaded += data.length;
      o.onProgress?.(loaded);
      if (hasher) {
        pending.set(i, data);
        while (pending.has(nextToHash)) {
          hasher.update(pending.get(nextToHash)!);
          pending.delete(nextToHash);
          nextToHash += 1;
        }
      }
    }
  };
  try {
    await Promise.all(Array.from({ length: Math.min(DOWNLOAD_PARALLEL, parts) }, worker));
    if (hasher && hasher.digestHex() !== o.sha256) throw new DownloadVerifyError('file verification failed');
    await o.writable.close();
  } catch (err) {
    // Never leave a half-written or unverified file behind under the user's chosen name.
    await o.writable.abort().catch(() => {});
    throw err;
  }
}
