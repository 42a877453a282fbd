import { open, realpath, type FileHandle } from 'node:fs/promises';
import { basename } from 'node:path';
import type { FileSource } from '../ports/index.ts';

/**
 * A FileSource over a file handle. Identity is real path + size + mtime (immich CLI's hash-cache key), so an
 * edited file is never resumed onto the parts of its old content. Each read is one positional read of the whole
 * requested range (parts are MiB-sized), which keeps reads well above the 1 MiB needed for full disk speed.
 */
export async function openFileSource(path: string, name = basename(path)): Promise<FileSource & { close(): Promise<void> }> {
  const real = await realpath(path);
  const handle: FileHandle = await open(real, 'r');
  try {
    const st = await handle.stat();
    if (!st.isFile()) throw new Error(`${path} is not a regular file`);
    const size = st.size;
    return {
      name,
      size,
      identity: `${real}:${size}:${Math.trunc(st.mtimeMs)}`,
      async read(offset, length, signal) {
        signal?.throwIfAborted();
        const want = Math.max(0, Math.min(length, size - offset));
        const buf = new Uint8Array(want);
        let got = 0;
        while (got < want) {
          const { bytesRead } = await handle.read(buf, got, want - got, offset + got);
          if (bytesRead === 0) break; // truncated since we opened it: the caller reports the short read
          got += bytesRead;
        }
        return got === want ? buf : buf.subarray(0, got);
      },
      close: () => handle.close(),
    };
  } catch (err) {
    await handle.close();
    throw err;
  }
}
