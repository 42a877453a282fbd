import { describe, expect, it } from 'vitest';
import { DownloadTargetError } from './engine.ts';
import { failure, scriptedEngine } from '../../test/fake-engine.ts';
import { memoryPersistence } from './queue-persistence.ts';
import { TransferStore, type Notice } from './transfer-store.ts';

const file = (name: string, size = 10, lastModified = 1) => new File([new Uint8Array(size)], name, { lastModified });
const flush = () => new Promise((r) => setTimeout(r, 0));
const handle = {} as FileSystemFileHandle;

function setup(persistence = memoryPersistence()) {
  const fake = scriptedEngine();
  const notices: Notice[] = [];
  let n = 0;
  const store = new TransferStore({ engine: fake.engine, persistence, notify: (x) => notices.push(x), newId: () => `u${++n}`, progressIntervalMs: 1 });
  const add = (...names: string[]) =>
    store.add(names.map((name) => ({ file: file(name), name, parentId: 'p', uploadTo: '/docs', instanceType: '1', libCode: 'NetDisk', conflict: 'keepBoth' as const })));
  const statuses = () => store.getSnapshot().uploads.map((u) => u.status);
  return { store, persistence, notices, add, statuses, ...fake };
}

describe('TransferStore uploads on the engine queue', () => {
  it('runs one upload at a time and moves finished ones to the top of the finished list', async () => {
    const { store, upload, runs, add, statuses } = setup();
    add('a', 'b');
    expect(runs()).toBe(1);
    expect(statuses()).toEqual(['checking', 'ready']);
    upload('a').phase('uploading');
    upload('a').succeed('id-a');
    await flush();
    expect(runs()).toBe(2);
    upload('b').succeed('id-b');
    await flush();
    const snap = store.getSnapshot();
    expect(snap.uploads).toHaveLength(0);
    expect(snap.finished.map((f) => f.filename)).toEqual(['b', 'a']);
    expect(snap.finished[0]).toMatchObject({ transferType: 'upload', fileId: 'id-b', filePosition: '/docs' });
  });

  it('hands the engine the target and the resume identity recorded at queue time', async () => {
    const { upload, add, persistence } = setup();
    add('a');
    expect(upload('a').job).toMatchObject({ name: 'a', parentId: 'p', instanceType: '1', libCode: 'NetDisk', conflict: 'keepBoth', identity: 'a:10:1' });
    await flush();
    expect((await persistence.load())[0]!.meta.identity).toBe('a:10:1');
  });

  it('pauses by pausing the engine task and resumes through ready', async () => {
    const { store, upload, runs, add, statuses } = setup();
    add('a');
    store.pause('u1');
    expect(upload('a').signal!.aborted).toBe(true);
    await flush();
    expect(statuses()).toEqual(['pause']);
    store.resume('u1');
    await flush();
    expect(runs()).toBe(2);
    expect(statuses()).toEqual(['checking']);
  });

  it('holds a waiting row on pause (the engine cannot pause from ready) and releases it on resume', async () => {
    const { store, upload, runs, add, statuses } = setup();
    add('a', 'b');
    store.pause('u2');
    expect(statuses()).toEqual(['checking', 'pause']);
    upload('a').succeed('x');
    await flush();
    expect(runs()).toBe(1);
    store.resume('u2');
    await flush();
    expect(runs()).toBe(2);
  });

  it('only warns when a waiting item is started by hand', () => {
    const { store, notices, add, statuses } = setup();
    add('a', 'b');
    store.start('u2');
    expect(notices.at(-1)).toEqual({ level: 'warning', key: 'transfer.isUploading' });
    expect(statuses()[1]).toBe('ready');
  });

  it('shows spec error codes and retries only from error', async () => {
    const { store, upload, runs, add } = setup();
    add('a');
    upload('a').fail(failure('002'), 'error');
    await flush();
    expect(store.getSnapshot().uploads[0]).toMatchObject({ status: 'error', errorKey: 'transfer.error.002' });
    store.resume('u1');
    await flush();
    expect(runs()).toBe(1);
    store.retry('u1');
    await flush();
    expect(runs()).toBe(2);
    expect(store.getSnapshot().uploads[0]!.errorKey).toBeUndefined();
  });

  it('maps server envelope errors without a spec code to the generic upload failure with the server text', async () => {
    const { store, upload, add } = setup();
    add('a');
    upload('a').fail(Object.assign(new Error('quota policy says no'), { code: 'FORBIDDEN', ret: 1 }) as never, 'error');
    await flush();
    expect(store.getSnapshot().uploads[0]).toMatchObject({ errorKey: 'transfer.error.UPLOAD_FAILED', errorText: 'quota policy says no' });
  });

  it('pauses everything on network loss and resumes exactly those items when it returns', async () => {
    const { store, runs, add, notices, statuses } = setup();
    add('a', 'b', 'c');
    store.pause('u3');
    store.setOnline(false);
    await flush();
    expect(statuses()).toEqual(['pause', 'pause', 'pause']);
    expect(notices.at(-1)?.key).toBe('transfer.networkDisconnected');
    store.resume('u1');
    expect(notices.at(-1)?.key).toBe('transfer.networkFault');
    store.setOnline(true);
    await flush();
    expect(notices.some((n) => n.key === 'transfer.networkConnected' && n.level === 'success')).toBe(true);
    expect(statuses()).toEqual(['checking', 'ready', 'pause']);
    expect(runs()).toBe(2);
  });

  it('shows the engine speed and time left, and no upload progress while hashing', async () => {
    const { store, upload, add } = setup();
    add('a');
    upload('a').emitProgress({ loaded: 6, total: 10, phase: 'hashing', speed: 100 });
    await new Promise((r) => setTimeout(r, 5));
    expect(store.getSnapshot().uploads[0]).toMatchObject({ loaded: 0, speed: 0 });
    upload('a').phase('uploading');
    upload('a').emitProgress({ loaded: 4, total: 10, phase: 'transferring', speed: 2, timeLeft: 3 });
    await new Promise((r) => setTimeout(r, 5));
    expect(store.getSnapshot().uploads[0]).toMatchObject({ loaded: 4, speed: 2, timeLeft: 3 });
  });

  it('brings unfinished uploads back paused after a refresh and matches re-picked files by name, size and date', async () => {
    const { persistence, add, store: first } = setup();
    add('a', 'b');
    await flush();
    first.pause('u1');
    const rows = await persistence.load();
    // Simulate a browser that could not keep the File of "a".
    await persistence.save(rows[0]!.meta, undefined);

    const again = setup(persistence);
    await again.store.restore();
    expect(again.store.getSnapshot().uploads).toMatchObject([
      { uid: 'u1', status: 'pause', needsFile: true },
      { uid: 'u2', status: 'pause', needsFile: false },
    ]);
    await flush();
    expect(again.runs()).toBe(0);
    again.store.resume('u1');
    expect(again.notices.at(-1)?.key).toBe('transfer.repickFile');
    expect(again.store.attachFiles([file('a', 11)])).toBe(0);
    expect(again.store.attachFiles([file('a', 10, 1)])).toBe(1);
    expect(again.store.getSnapshot().uploads[0]).toMatchObject({ status: 'pause', needsFile: false });
    again.store.resume('u1');
    await flush();
    expect(again.runs()).toBe(1);
    expect(again.upload('a').job).toMatchObject({ name: 'a', identity: 'a:10:1' });
  });

  it('delete stops the upload, ends its engine session and starts the next', async () => {
    const { store, upload, runs, add, persistence } = setup();
    add('a', 'b');
    store.remove('u1');
    expect(upload('a').signal!.aborted).toBe(true);
    expect(upload('a').deleted).toBe(1);
    await flush();
    expect((await persistence.load()).map((r) => r.meta.uid)).toEqual(['u2']);
    expect(runs()).toBe(2);
    expect(store.counts()).toEqual({ uploads: 1, downloads: 0 });
  });

  it('pause all holds waiting rows and pauses the running one; resume all continues them in order', async () => {
    const { store, runs, add, statuses } = setup();
    add('a', 'b');
    store.pauseAll();
    await flush();
    expect(statuses()).toEqual(['pause', 'pause']);
    expect(runs()).toBe(1);
    store.resumeAll();
    await flush();
    expect(statuses()).toEqual(['checking', 'ready']);
  });
});

describe('TransferStore downloads on the engine queue', () => {
  const dl = (store: TransferStore, name: string) => store.addDownload({ instanceId: `i-${name}`, name, size: 100, path: '/docs', handle });

  it('runs a download task into the picked file, counts it, and lists it as finished', async () => {
    const { store, downloads } = setup();
    const uid = dl(store, 'a.bin');
    expect(downloads[0]!.job).toEqual({ uid, instanceId: 'i-a.bin', handle });
    expect(store.getSnapshot().downloads[0]).toMatchObject({ status: 'resume', name: 'a.bin' });
    expect(store.counts().downloads).toBe(1);
    downloads[0]!.emitProgress({ loaded: 40, total: 100, phase: 'transferring', speed: 20, timeLeft: 3 });
    await new Promise((r) => setTimeout(r, 5));
    expect(store.getSnapshot().downloads[0]).toMatchObject({ loaded: 40, speed: 20, timeLeft: 3 });
    downloads[0]!.succeed();
    await flush();
    expect(store.getSnapshot().downloads).toHaveLength(0);
    expect(store.getSnapshot().finished[0]).toMatchObject({ filename: 'a.bin', transferType: 'download', fileId: 'i-a.bin', filePosition: '/docs' });
  });

  it('pauses and resumes; a network loss turns it to refresh (request exception) until the user resumes', async () => {
    const { store, downloads } = setup();
    const uid = dl(store, 'a.bin');
    const task = downloads[0]!;
    store.pauseDownload(uid);
    expect(store.getSnapshot().downloads[0]!.status).toBe('pause');
    store.resumeDownload(uid);
    await flush();
    expect(task.runs).toBe(2);
    store.setOnline(false);
    expect(store.getSnapshot().downloads[0]).toMatchObject({ status: 'refresh', errorKey: 'transfer.error.REQUEST' });
    store.setOnline(true);
    await flush();
    expect(store.getSnapshot().downloads[0]!.status).toBe('refresh');
    store.resumeDownload(uid);
    await flush();
    expect(task.runs).toBe(3);
  });

  it('reports a verification failure and starts over on retry; delete removes the partial file', async () => {
    const { store, downloads, notices } = setup();
    const uid = dl(store, 'a.bin');
    downloads[0]!.fail(failure('202'), 'error');
    expect(notices.at(-1)).toEqual({ level: 'error', key: 'transfer.error.202' });
    expect(store.getSnapshot().downloads[0]).toMatchObject({ status: 'error', errorKey: 'transfer.error.202' });
    store.resumeDownload(uid);
    await flush();
    expect(downloads[0]!.runs).toBe(2);
    store.removeDownload(uid);
    await flush();
    expect(downloads[0]!.deleted).toBe(1);
    expect(store.counts().downloads).toBe(0);
  });

  it('keeps a download with its picked file across a reload and forgets it once it succeeds', async () => {
    const persistence = memoryPersistence();
    const first = setup(persistence);
    const uid = dl(first.store, 'a.bin');
    await flush();
    expect(await persistence.loadDownloads()).toEqual([{ meta: { uid, instanceId: 'i-a.bin', name: 'a.bin', size: 100, path: '/docs', addedAt: expect.any(Number) }, handle }]);
    first.store.pauseDownload(uid);

    // The next page load: the row comes back paused over the same handle, and nothing runs until the user resumes.
    const second = setup(persistence);
    await second.store.restore();
    expect(second.downloads).toHaveLength(1);
    const task = second.downloads[0]!;
    expect(task.job).toEqual({ uid, instanceId: 'i-a.bin', handle, restored: true });
    expect(second.store.getSnapshot().downloads).toEqual([expect.objectContaining({ uid, name: 'a.bin', size: 100, path: '/docs', status: 'pause' })]);
    expect(second.store.counts().downloads).toBe(1);
    await flush();
    expect(task.runs).toBe(0);

    second.store.resumeDownload(uid);
    await flush();
    expect(task.prepared).toBe(1);
    expect(task.runs).toBe(1);
    expect(second.store.getSnapshot().downloads[0]!.status).toBe('resume');
    task.succeed();
    await flush();
    expect(second.store.getSnapshot().finished[0]).toMatchObject({ filename: 'a.bin', transferType: 'download', fileId: 'i-a.bin' });
    expect(await persistence.loadDownloads()).toEqual([]);
  });

  it('forgets a deleted download and one whose data failed verification', async () => {
    const { store, downloads, persistence } = setup();
    const a = dl(store, 'a.bin');
    dl(store, 'b.bin');
    await flush();
    expect((await persistence.loadDownloads()).map((d) => d.meta.name).sort()).toEqual(['a.bin', 'b.bin']);
    store.removeDownload(a);
    await flush();
    expect((await persistence.loadDownloads()).map((d) => d.meta.name)).toEqual(['b.bin']);
    await flush();
    downloads[1]!.fail(failure('202'), 'error');
    await flush();
    expect(await persistence.loadDownloads()).toEqual([]);
    // A fresh start in this page is kept again.
    store.resumeDownload(downloads[1]!.id);
    await flush();
    expect((await persistence.loadDownloads()).map((d) => d.meta.name)).toEqual(['b.bin']);
  });

  it('a restored download whose picked file cannot be written turns to error with the reason, and retries the check', async () => {
    const persistence = memoryPersistence();
    const first = setup(persistence);
    const uid = dl(first.store, 'a.bin');
    await flush();
    const { store, downloads, notices } = setup(persistence);
    await store.restore();
    const task = downloads[0]!;
    task.prepareError = new DownloadTargetError('DOWNLOAD_PERMISSION');
    store.resumeDownload(uid);
    await flush();
    expect(task.runs).toBe(0);
    expect(store.getSnapshot().downloads[0]).toMatchObject({ status: 'error', errorKey: 'transfer.error.DOWNLOAD_PERMISSION' });
    expect(notices.at(-1)).toMatchObject({ level: 'error', key: 'transfer.error.DOWNLOAD_PERMISSION' });

    task.prepareError = new DownloadTargetError('DOWNLOAD_TARGET_MISSING');
    store.resumeDownload(uid);
    await flush();
    expect(store.getSnapshot().downloads[0]).toMatchObject({ status: 'error', errorKey: 'transfer.error.DOWNLOAD_TARGET_MISSING' });

    // Granted on a later click: the check passes and the download continues.
    task.prepareError = undefined;
    store.resumeDownload(uid);
    await flush();
    expect(task.prepared).toBe(3);
    expect(task.runs).toBe(1);
    expect(store.getSnapshot().downloads[0]).toMatchObject({ status: 'resume' });
    expect(store.getSnapshot().downloads[0]!.errorKey).toBeUndefined();

    store.removeDownload(uid);
    await flush();
    expect(task.deleted).toBe(1);
    expect(await persistence.loadDownloads()).toEqual([]);
  });

  it('sign-out reset pauses uploads (sessions stay resumable) and removes partial downloads', async () => {
    const { store, upload, downloads, add, runs, persistence } = setup();
    add('a', 'b');
    dl(store, 'c.bin');
    await store.reset();
    expect(upload('a').status).toBe('pause');
    expect(upload('a').deleted).toBe(0);
    expect(downloads[0]!.deleted).toBe(1);
    await flush();
    expect(runs()).toBe(1);
    expect(store.getSnapshot()).toMatchObject({ uploads: [], downloads: [] });
    expect(await persistence.loadDownloads()).toEqual([]);
  });
});

describe('TransferStore (issue #22 defect 4)', () => {
  it('pause all and resume all take the downloads along', async () => {
    const { store, add, downloads, statuses } = setup();
    add('a');
    store.addDownload({ instanceId: 'i1', name: 'd1.bin', size: 100, path: '/', handle });
    store.addDownload({ instanceId: 'i2', name: 'd2.bin', size: 100, path: '/', handle });
    await flush();
    const dstatus = () => store.getSnapshot().downloads.map((d) => d.status);
    expect(dstatus()).toEqual(['resume', 'wait']);
    store.pauseAll();
    await flush();
    expect(statuses()).toEqual(['pause']);
    expect(dstatus()).toEqual(['pause', 'pause']);
    store.resumeAll();
    await flush();
    expect(statuses()).toEqual(['checking']);
    expect(dstatus()).toEqual(['resume', 'wait']);
    expect(downloads[0]!.runs).toBe(2);
  });

  it('one success notice for a batch (a folder upload), when its last file is done; a lone file is named', async () => {
    const { store, upload, notices } = setup();
    const batch = (...names: string[]) =>
      store.add(names.map((name) => ({ file: file(name), name, parentId: 'p', uploadTo: '/docs', instanceType: '1', libCode: 'NetDisk', conflict: 'keepBoth' as const })));
    batch('a', 'b', 'c');
    batch('solo');
    const successes = () => notices.filter((n) => n.level === 'success');
    for (const name of ['a', 'b']) {
      upload(name).succeed(`id-${name}`);
      await flush();
    }
    expect(successes()).toEqual([]);
    upload('c').fail(failure('304'), 'error');
    await flush();
    // The batch has settled: what went is reported once; the failed file keeps its row and its message.
    expect(successes()).toEqual([{ level: 'success', key: 'transfer.batchUploadSuccess', values: { count: 2 } }]);
    upload('solo').succeed('id-solo');
    await flush();
    expect(successes().at(-1)).toEqual({ level: 'success', key: 'transfer.uploadSuccess', values: { name: 'solo' } });
    // Retried on its own later, the failed file is reported by name.
    store.retry('u3');
    await flush();
    upload('c').succeed('id-c');
    await flush();
    expect(successes()).toHaveLength(3);
    expect(successes().at(-1)).toEqual({ level: 'success', key: 'transfer.uploadSuccess', values: { name: 'c' } });
  });
});
