import { open, rename, unlink, type FileHandle } from 'node:fs/promises';
import { join } from 'node:path';
import type { DownloadSink, DownloadSinkFactory } from '../ports/index.ts';
import { safeFileName } from '../core/safe-name.ts';
import { createFileVerifier } from './file-verifier.ts';

/**
 * The smallest file whose SHA-256 is computed by a worker thread (createFileVerifier); a smaller one is hashed by the
 * engine on its own thread as its bytes arrive. The worker does not save the hashing, it moves it off the transfer's
 * thread, and starting one costs about 54 ms of CPU here (as much as hashing 85 MiB at this machine's 1.6 GB/s): a
 * folder of 320 small files spent 61 ms of CPU per file, 19.5 s in all, to download 0.6 MB, nearly all of it starting
 * one worker per file. Below this size the transfer's thread hashes one part at a time as it arrives: 5 ms per 8 MiB
 * part here, about 18 ms where SHA-256 runs at 450 MB/s.
 */
export const VERIFIER_MIN_BYTES = 64 * 1024 * 1024;

/**
 * Writes into `<final>.part` with positional writes (parts arrive out of order) and renames it to the final path
 * only after verification, so a file under its real name is always complete and verified.
 */
export function createFileSinkFactory(opts: { dir: string; pathFor?: (name: string) => string }): DownloadSinkFactory {
  return {
    async open({ name, size, resume }) {
      const finalPath = opts.pathFor ? opts.pathFor(name) : join(opts.dir, safeFileName(name));
      const partPath = `${finalPath}.part`;
      let fh: FileHandle;
      if (resume) {
        fh = await open(partPath, 'r+', 0o600).catch(() => open(partPath, 'w+', 0o600));
      } else {
        fh = await open(partPath, 'w+', 0o600);
      }
      let closed = false;
      const close = async () => {
        if (!closed) {
          closed = true;
          await fh.close();
        }
      };
      const sink: DownloadSink = {
        async write(offset, data) {
          let done = 0;
          while (done < data.byteLength) {
            const { bytesWritten } = await fh.write(data, done, data.byteLength - done, offset + done);
            done += bytesWritten;
          }
        },
        async writev(offset, chunks) {
          let rest = chunks.filter((c) => c.byteLength > 0);
          let at = offset;
          while (rest.length > 0) {
            const { bytesWritten } = await fh.writev(rest as Uint8Array[], at);
            at += bytesWritten;
            // A short writev (rare on regular files) continues from the first byte not written.
            let skip = bytesWritten;
            while (rest.length > 0 && skip >= rest[0]!.byteLength) {
              skip -= rest[0]!.byteLength;
              rest = rest.slice(1);
            }
            if (skip > 0) rest = [rest[0]!.subarray(skip), ...rest.slice(1)];
          }
        },
        flush: () => fh.sync(),
        // Positional reads on the same descriptor see completed writes at once.
        readsBeforeFlush: true,
        ...(size >= VERIFIER_MIN_BYTES && { createVerifier: () => createFileVerifier(partPath) }),
        async read(offset, length) {
          const buf = new Uint8Array(length);
          let got = 0;
          while (got < length) {
            const { bytesRead } = await fh.read(buf, got, length - got, offset + got);
            if (bytesRead === 0) break;
            got += bytesRead;
          }
          return buf.subarray(0, got);
        },
        async finalize() {
          await close();
          await rename(partPath, finalPath);
        },
        async abort() {
          await close();
          await unlink(partPath).catch(() => {});
        },
      };
      return sink;
    },
  };
}

/** Node always writes to disk (mirrors the browser entry's feature check). */
export const canWriteFiles = (): boolean => true;
