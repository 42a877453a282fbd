import type { DownloadSink, DownloadSinkFactory } from '../ports/index.ts';

/** Whether this browser can write downloads straight to disk (File System Access API: Chromium). */
export function canWriteFiles(): boolean {
  return typeof globalThis !== 'undefined' && 'showSaveFilePicker' in globalThis;
}

/**
 * A sink writing to a file the user picked (File System Access API): positional writes into the browser's
 * swap file, committed on flush; verification reads the committed file back; abort removes it. Nothing is held
 * in memory. `handleFor` returns the picked handle for a download key (the web app keeps handles in IndexedDB,
 * they are structured-cloneable, so a download resumes after a reload once permission is re-granted).
 *
 * Browsers without the API (Firefox, Safari) get no sink: the web app downloads through a presigned URL
 * (getS3DownloadUrl) and the browser's own download manager, which is streaming and resumable, instead of
 * collecting the file in memory.
 */
export function createDownloadSinkFactory(handleFor: (key: string, name: string) => Promise<FileSystemFileHandle>): DownloadSinkFactory {
  return {
    async open({ key, name, resume }) {
      const handle = await handleFor(key, name);
      let writable: FileSystemWritableFileStream | undefined = await handle.createWritable({ keepExistingData: resume });
      const sink: DownloadSink = {
        async write(offset, data) {
          if (!writable) writable = await handle.createWritable({ keepExistingData: true });
          await writable.write({ type: 'write', position: offset, data: data as Uint8Array<ArrayBuffer> });
        },
        async flush() {
          await writable?.close();
          writable = undefined;
        },
        async read(offset, length) {
          const file = await handle.getFile();
          return new Uint8Array(await file.slice(offset, offset + length).arrayBuffer());
        },
        async finalize() {
          await writable?.close();
          writable = undefined;
        },
        async abort() {
          await writable?.abort().catch(() => {});
          writable = undefined;
          const removable = handle as FileSystemFileHandle & { remove?: () => Promise<void> };
          if (removable.remove) await removable.remove();
          else {
            const w = await handle.createWritable();
            await w.truncate(0);
            await w.close();
          }
        },
      };
      return sink;
    },
  };
}
