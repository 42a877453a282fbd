// A folder (or several items) downloaded as the server's streamed zip into a picked file: the row has the real size
// while it runs and counts as finished only when the last byte is written.
import { describe, expect, it, vi } from 'vitest';
import type { DownloadStatus } from '@hcs/transfer-core';
import { memoryPersistence } from './queue-persistence.ts';
import { scriptedEngine } from '../../test/fake-engine.ts';
import { TransferStore } from './transfer-store.ts';
import { ZipDownload } from './zip-download.ts';

/** A picked file that records what was written and whether it was committed. */
function pickedFile() {
  const written: Uint8Array[] = [];
  let closed = false;
  let aborted = false;
  const handle = {
    createWritable: async () => ({
      write: async (chunk: Uint8Array) => void written.push(chunk),
      close: async () => void (closed = true),
      abort: async () => void (aborted = true),
    }),
  } as unknown as FileSystemFileHandle;
  return { handle, written, closed: () => closed, aborted: () => aborted };
}

/** A zip body the test feeds chunk by chunk. */
function feed() {
  let ctrl!: ReadableStreamDefaultController<Uint8Array>;
  const body = new ReadableStream<Uint8Array>({ start: (c) => void (ctrl = c) });
  return { body, push: (n: number) => ctrl.enqueue(new Uint8Array(n)), end: () => ctrl.close() };
}

const until = async (cond: () => boolean) => {
  for (let i = 0; i < 200 && !cond(); i++) await new Promise((r) => setTimeout(r, 1));
  expect(cond()).toBe(true);
};

describe('ZipDownload', () => {
  it('streams into the picked file with progress, and succeeds only once the stream ended and the file is committed', async () => {
    const file = pickedFile();
    const zip = feed();
    const requested: string[] = [];
    const task = new ZipDownload({
      uid: 'z1',
      handle: file.handle,
      url: async () => '/hcs/services/API/zip/t1',
      fetch: async (url) => (requested.push(String(url)), new Response(zip.body, { status: 200 })),
      progressEveryMs: 0,
    });
    const statuses: DownloadStatus[] = [];
    task.events.on('status', (e) => void statuses.push(e.to));
    const loaded: number[] = [];
    task.events.on('progress', (p) => void loaded.push(p.loaded));
    const run = task.run();
    await until(() => requested.length === 1);
    zip.push(1000);
    zip.push(500);
    await until(() => loaded.at(-1) === 1500);
    expect(task.status).toBe('resume');
    expect(file.closed()).toBe(false);
    zip.end();
    await run;
    expect(statuses).toEqual(['resume', 'success']);
    expect(file.closed()).toBe(true);
    expect(file.written.reduce((n, c) => n + c.length, 0)).toBe(1500);
    expect(task.progress.loaded).toBe(1500);
  });

  it('a broken stream is a request exception (refresh), the partial file is discarded, and resume starts over', async () => {
    const file = pickedFile();
    let n = 0;
    const broken = () =>
      new ReadableStream<Uint8Array>({
        start(c) {
          c.enqueue(new Uint8Array(100));
          c.error(new Error('connection reset'));
        },
      });
    const answers = [() => new Response(broken(), { status: 200 }), () => new Response('nope', { status: 500 })];
    const task = new ZipDownload({ uid: 'z1', handle: file.handle, url: async () => `/zip/${++n}`, fetch: async () => answers.shift()!() });
    await task.run();
    expect(task.status).toBe('refresh');
    expect(task.error?.messageKey).toBe('transfer.error.REQUEST');
    expect(file.aborted()).toBe(true);
    expect(file.closed()).toBe(false);
    expect(task.resume()).toBe(true);
    expect(task.status).toBe('wait');
    // Each run asks for a fresh ticket; a refused one is a request exception too.
    await task.run();
    expect(n).toBe(2);
    expect(task.status).toBe('refresh');
  });
});

describe('TransferStore zip rows', () => {
  it('show the size they were given while running and go to finished with the bytes written, only on success', async () => {
    const fake = scriptedEngine();
    const store = new TransferStore({ engine: fake.engine, persistence: memoryPersistence(), newId: () => 'z1', progressIntervalMs: 1 });
    store.addZipDownload({ ids: ['f1'], name: 'photos.zip', size: 4096, path: '/', handle: {} as FileSystemFileHandle });
    expect(fake.downloads[0]!.job).toMatchObject({ uid: 'z1', zip: { ids: ['f1'], name: 'photos' } });
    expect(store.getSnapshot().downloads[0]).toMatchObject({ name: 'photos.zip', size: 4096, status: 'resume' });
    expect(store.getSnapshot().finished).toEqual([]);
    fake.downloads[0]!.emitProgress({ loaded: 5000, total: 5000, phase: 'transferring' });
    fake.downloads[0]!.succeed();
    await new Promise((r) => setTimeout(r, 0));
    expect(store.getSnapshot().finished[0]).toMatchObject({ filename: 'photos.zip', fileSize: 5000, transferType: 'download' });
  });
});

describe('ZipDownload events', () => {
  it('a throwing listener neither keeps the others from hearing nor breaks the task', async () => {
    const task = new ZipDownload({
      uid: 'z9',
      handle: pickedFile().handle,
      url: async () => '/hcs/services/API/zip/t9',
      fetch: async () => new Response(null, { status: 500 }),
    });
    task.events.on('status', () => {
      throw new Error('a bug in one panel');
    });
    const heard: DownloadStatus[] = [];
    task.events.on('status', (e) => void heard.push(e.to));
    const reported = vi.spyOn(console, 'error').mockImplementation(() => {});
    try {
      expect(task.pause()).toBe(true);
      await task.delete();
      // Not swallowed silently: developers see the bug in the console.
      expect(reported).toHaveBeenCalledTimes(2);
    } finally {
      reported.mockRestore();
    }
    expect(heard).toEqual(['pause', 'deleted']);
    expect(task.status).toBe('deleted');
  });
});
