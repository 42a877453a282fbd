import type { FileSource } from '../ports/index.ts';

/**
 * A FileSource over a File/Blob: each read slices the Blob, so only the requested range is in memory; upload bodies
 * are slices the browser reads as it sends them (FileSource.slice).
 * Identity is the relative path (folder uploads) or name, with size and lastModified.
 */
export function createFileSource(file: File | Blob, name = (file as File).name ?? 'blob'): FileSource {
  const f = file as File;
  const path = (f as File & { webkitRelativePath?: string }).webkitRelativePath || name;
  return {
    name,
    size: file.size,
    identity: `${path}:${file.size}:${f.lastModified ?? 0}`,
    async read(offset, length, signal) {
      signal?.throwIfAborted();
      const buf = await file.slice(offset, Math.min(offset + length, file.size)).arrayBuffer();
      return new Uint8Array(buf);
    },
    slice(offset, length) {
      return file.slice(offset, Math.min(offset + length, file.size));
    },
  };
}
