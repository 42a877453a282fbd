import { describe, expect, it, vi } from 'vitest';
import type { UploadEngine, UploadEvents, UploadJob } from './engine.ts';
import { memoryPersistence } from './queue-persistence.ts';
import { TransferStore, type Notice } from './transfer-store.ts';

/** An engine whose uploads finish only when the test says so, recording every call and abort. */
function controllableEngine() {
  const runs: Array<{ job: UploadJob; events: UploadEvents; signal: AbortSignal; resolve: (id: string) => void; reject: (e: unknown) => void }> = [];
  const engine: UploadEngine = {
    upload: (job, events, signal) =>
      new Promise((resolve, reject) => {
        runs.push({ job, events, signal, resolve: (id) => resolve({ instanceId: id }), reject });
        signal.addEventListener('abort', () => reject(new DOMException('aborted', 'AbortError')));
      }),
    discard: vi.fn(async () => {}),
  };
  return { engine, runs };
}

const file = (name: string, size = 10, lastModified = 1) => new File([new Uint8Array(size)], name, { lastModified });
const flush = () => new Promise((r) => setTimeout(r, 0));

function setup() {
  const { engine, runs } = controllableEngine();
  const persistence = memoryPersistence();
  const notices: Notice[] = [];
  let n = 0;
  const store = new TransferStore({ engine, persistence, notify: (x) => notices.push(x), newId: () => `u${++n}`, progressIntervalMs: 1 });
  const add = (...names: string[]) =>
    store.add(names.map((name) => ({ file: file(name), name, parentId: 'p', uploadTo: '/docs', instanceType: '1', libCode: 'NetDisk', conflict: 'keepBoth' as const })));
  return { store, runs, persistence, notices, add, engine };
}

describe('TransferStore', () => {
  it('runs one upload at a time and moves finished ones to the top of the finished list', async () => {
    const { store, runs, add } = setup();
    add('a', 'b');
    expect(runs).toHaveLength(1);
    expect(store.getSnapshot().uploads.map((u) => u.status)).toEqual(['checking', 'ready']);
    runs[0]!.events.phase('uploading');
    runs[0]!.resolve('id-a');
    await flush();
    expect(runs).toHaveLength(2);
    runs[1]!.resolve('id-b');
    await flush();
    const snap = store.getSnapshot();
    expect(snap.uploads).toHaveLength(0);
    expect(snap.finished.map((f) => f.filename)).toEqual(['b', 'a']);
    expect(snap.finished[0]).toMatchObject({ transferType: 'upload', fileId: 'id-b', filePosition: '/docs' });
  });

  it('pauses by aborting the engine and resumes through ready', async () => {
    const { store, runs, add } = setup();
    add('a');
    store.pause('u1');
    expect(runs[0]!.signal.aborted).toBe(true);
    await flush();
    expect(store.getSnapshot().uploads[0]!.status).toBe('pause');
    store.resume('u1');
    expect(runs).toHaveLength(2);
    expect(store.getSnapshot().uploads[0]!.status).toBe('checking');
  });

  it('only warns when a ready item is started by hand', () => {
    const { store, notices, add } = setup();
    add('a', 'b');
    store.start('u2');
    expect(notices.at(-1)).toEqual({ level: 'warning', key: 'transfer.isUploading' });
    expect(store.getSnapshot().uploads[1]!.status).toBe('ready');
  });

  it('shows spec error codes and retries only from error', async () => {
    const { store, runs, add } = setup();
    add('a');
    runs[0]!.reject(Object.assign(new Error('[002] space not enough'), { code: '002', messageKey: 'transfer.error.002' }));
    await flush();
    expect(store.getSnapshot().uploads[0]).toMatchObject({ status: 'error', errorKey: 'transfer.error.002' });
    store.resume('u1');
    expect(runs).toHaveLength(1);
    store.retry('u1');
    expect(runs).toHaveLength(2);
  });

  it('maps server envelope errors without a spec code to the generic upload failure with the server text', async () => {
    const { store, runs, add } = setup();
    add('a');
    runs[0]!.reject(Object.assign(new Error('quota policy says no'), { code: 'FORBIDDEN', ret: 1 }));
    await flush();
    expect(store.getSnapshot().uploads[0]).toMatchObject({ errorKey: 'transfer.error.UPLOAD_FAILED', errorText: 'quota policy says no' });
  });

  it('pauses everything on network loss and resumes exactly those items when it returns', async () => {
    const { store, runs, add, notices } = setup();
    add('a', 'b', 'c');
    store.pause('u3');
    store.setOnline(false);
    await flush();
    expect(store.getSnapshot().uploads.map((u) => u.status)).toEqual(['pause', 'pause', 'pause']);
    expect(notices.at(-1)?.key).toBe('transfer.networkDisconnected');
    store.setOnline(true);
    expect(notices.at(-1)).toEqual({ level: 'success', key: 'transfer.networkConnected' });
    expect(store.getSnapshot().uploads.map((u) => u.status)).toEqual(['checking', 'ready', 'pause']);
    expect(runs).toHaveLength(2);
  });

  it('computes speed and time left from progress', async () => {
    let now = 0;
    const { engine, runs } = controllableEngine();
    const store = new TransferStore({ engine, persistence: memoryPersistence(), now: () => now, newId: () => 'x', progressIntervalMs: 1 });
    store.add([{ file: file('a', 1000), name: 'a', parentId: 'p', uploadTo: '/', instanceType: '1', libCode: 'NetDisk', conflict: 'keepBoth' }]);
    runs[0]!.events.progress(0, 1000);
    now = 2000;
    runs[0]!.events.progress(400, 1000);
    await new Promise((r) => setTimeout(r, 5));
    expect(store.getSnapshot().uploads[0]).toMatchObject({ loaded: 400, speed: 200, timeLeft: 3 });
  });

  it('brings unfinished uploads back paused after a refresh and matches re-picked files by name, size and date', async () => {
    const { persistence, add, store: first } = setup();
    add('a');
    await flush();
    first.pause('u1');
    const rows = await persistence.load();
    // Simulate a browser that could not keep the File.
    await persistence.save(rows[0]!.meta, undefined);

    const { engine, runs } = controllableEngine();
    const notices: Notice[] = [];
    const store = new TransferStore({ engine, persistence, notify: (x) => notices.push(x) });
    await store.restore();
    expect(store.getSnapshot().uploads[0]).toMatchObject({ uid: 'u1', status: 'pause', needsFile: true });
    store.resume('u1');
    expect(runs).toHaveLength(0);
    expect(notices.at(-1)?.key).toBe('transfer.repickFile');
    expect(store.attachFiles([file('a', 11)])).toBe(0);
    expect(store.attachFiles([file('a', 10, 1)])).toBe(1);
    store.resume('u1');
    expect(runs).toHaveLength(1);
    expect(runs[0]!.job.name).toBe('a');
  });

  it('delete stops the upload, forgets it and tells the engine to release the session', async () => {
    const { store, runs, add, persistence, engine } = setup();
    add('a', 'b');
    store.remove('u1');
    expect(runs[0]!.signal.aborted).toBe(true);
    expect(engine.discard).toHaveBeenCalledOnce();
    await flush();
    expect((await persistence.load()).map((r) => r.meta.uid)).toEqual(['u2']);
    expect(runs).toHaveLength(2);
  });
});
