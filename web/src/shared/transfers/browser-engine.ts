// The web app's transfer engine: @hcs/transfer-core with its browser adapters (File source, hash-wasm in a Web
// Worker with checkpoints, IndexedDB resume store, fetch to storage, File System Access sink). Nothing here
// re-implements the engine; it only binds it to the signed-in user and the page's origin.
import { createHcsClient } from '@hcs/openapi/client';
import {
  createDownloadSinkFactory,
  createEngineDeps,
  createFileSource,
  createHcsControlPlane,
  createResumeStore,
  DownloadTask,
  downloadRecordKey,
  UploadTask,
  type DownloadRecord,
  type DownloadSink,
  type EngineDeps,
  type FileSource,
  type ResumeStore,
} from '@hcs/transfer-core/browser';
import { getUserInfo } from '../session.ts';
import { DownloadTargetError, type DownloadJob, type DownloadTaskLike, type TransferEngine, type UploadJob } from './engine.ts';
import { ZipDownload } from './zip-download.ts';
import { createProgressTransport } from './progress-transport.ts';
import { getZipDownloadUrl } from '../../api/gen/download/download.ts';

/** A fresh single-use ticket URL for each run of a zip download. */
async function zipUrl(zip: { ids: string[]; name: string }): Promise<string> {
  const res = await getZipDownloadUrl({ ids: zip.ids.join(','), name: zip.name }, { quiet: true });
  if (!res.data?.url) throw new Error('no zip url');
  return res.data.url;
}

export function createBrowserEngine(owner: string): TransferEngine {
  const client = createHcsClient({ baseUrl: window.location.origin, credentials: 'same-origin', userName: () => getUserInfo()?.userName });
  // One resume database per user: another user on this browser never resumes onto (or deletes) these sessions.
  const deps: EngineDeps = createEngineDeps({
    controlPlane: createHcsControlPlane(client),
    resumeStore: createResumeStore(`hcs-transfers:${owner}`),
    platformId: 'NetDisk',
    // Parts report their bytes as they leave, so the bar and the speed move within a part.
    transport: createProgressTransport(),
  });
  const source = (job: UploadJob): FileSource => {
    const s = createFileSource(job.file, job.name);
    // A File read back from IndexedDB after a reload loses webkitRelativePath, which the identity includes: keep
    // the identity recorded at queue time so the resume record (hash, session, parts) is found again.
    return job.identity ? { ...s, identity: job.identity } : s;
  };
  return {
    createUpload: (job) =>
      new UploadTask(
        { id: job.uid, source: source(job), target: { parentId: job.parentId, instanceType: job.instanceType, category: job.libCode, conflict: job.conflict, ...(job.attrs ? { attrs: job.attrs } : {}) } },
        deps,
      ),
    createDownload: (job) =>
      job.zip
        ? new ZipDownload({ uid: job.uid, handle: job.handle, url: () => zipUrl(job.zip!) })
        : createPickedFileDownload(job, deps),
    identityOf: (file, name) => createFileSource(file, name).identity,
  };
}

/**
 * The engine's record of one download job: per job, not per file, since the same file may be downloading into two
 * picked files at once. Beside it, the parts whose bytes were committed to the picked file.
 */
const jobKey = (job: Pick<DownloadJob, 'instanceId' | 'uid'>) => `${job.instanceId}:${job.uid}`;
const recordKeyOf = (job: Pick<DownloadJob, 'instanceId' | 'uid'>) => downloadRecordKey(jobKey(job));
const committedKeyOf = (job: Pick<DownloadJob, 'instanceId' | 'uid'>) => `download-committed:${jobKey(job)}`;

type PermissionState = 'granted' | 'denied' | 'prompt';
type PermissionedHandle = FileSystemFileHandle & {
  queryPermission?: (d: { mode: 'readwrite' }) => Promise<PermissionState>;
  requestPermission?: (d: { mode: 'readwrite' }) => Promise<PermissionState>;
};

/**
 * An engine DownloadTask into the picked file that survives a page reload. A picked file's writable stream writes
 * to a swap file that the browser commits only on close and throws away when the page goes, while the engine's
 * record says which parts are done. So a download that stops (pause, network loss) commits what it wrote and notes
 * which parts that covers; a task restored after a reload trusts only those parts before it continues, and a part
 * written but not committed when the page went is fetched again instead of failing verification at the end.
 */
export function createPickedFileDownload(job: DownloadJob, deps: EngineDeps): DownloadTaskLike {
  const store = deps.resumeStore;
  const files = createDownloadSinkFactory(async () => job.handle);
  /** The open writable's sink; undefined after a commit until the next operation reopens it, keeping the data. */
  let current: Promise<DownloadSink> | undefined;
  let opened = false;
  const task = new DownloadTask(
    {
      id: job.uid,
      instanceId: job.instanceId,
      recordKey: recordKeyOf(job),
      sinks: {
        async open(opts) {
          current = files.open(opts);
          await current;
          opened = true;
          // One shared reopen: the engine's parallel parts must not each open a writable of their own.
          const sink = () => (current ??= files.open({ ...opts, resume: true }));
          return {
            write: async (offset, data) => (await sink()).write(offset, data),
            flush: async () => (await sink()).flush(),
            read: async (offset, length) => (await sink()).read(offset, length),
            finalize: async () => (await sink()).finalize(),
            abort: async () => (await sink()).abort(),
          };
        },
      },
    },
    deps,
    job.restored ? 'pause' : 'wait',
  );
  const key = recordKeyOf(job);

  /** Closes the writable (commits the swap file); the next sink operation reopens it, keeping the data. */
  const commit = async (): Promise<void> => {
    const open = current;
    if (!open) return;
    try {
      // Read first: nothing writes while the task is stopped, so these parts are all in what close() commits.
      const rec = await store.get<DownloadRecord>(key);
      current = undefined;
      await (await open).flush();
      await store.set(committedKeyOf(job), rec?.done ?? []);
    } catch (err) {
      console.warn(`could not commit the partial download of ${job.instanceId}: ${String(err)}`);
    }
  };
  const forget = () => store.delete(committedKeyOf(job)).catch(() => {});

  return {
    id: task.id,
    get status() {
      return task.status;
    },
    get error() {
      return task.error;
    },
    get progress() {
      return task.progress;
    },
    events: task.events,
    async run() {
      try {
        await task.run();
      } finally {
        // Still inside run(): the queue does not start this task again before the commit is done.
        if (task.status === 'pause' || task.status === 'refresh') await commit();
        else if (task.status === 'success' || task.status === 'error') await forget();
      }
    },
    pause: () => task.pause(),
    resume: () => task.resume(),
    retry: () => task.retry(),
    networkLost: () => task.networkLost(),
    async delete() {
      await task.delete();
      await forget();
    },
    async prepare() {
      await ensureWritable(job.handle as PermissionedHandle);
      // Not opened in this page: the file holds only what an earlier page committed.
      if (!opened) await trustCommittedParts(store, key, committedKeyOf(job));
    },
  };
}

/** Called from the user's click: requestPermission needs a user gesture. */
async function ensureWritable(handle: PermissionedHandle): Promise<void> {
  if (handle.queryPermission) {
    let state: PermissionState;
    try {
      state = await handle.queryPermission({ mode: 'readwrite' });
      if (state !== 'granted' && handle.requestPermission) state = await handle.requestPermission({ mode: 'readwrite' });
    } catch (err) {
      throw new DownloadTargetError('DOWNLOAD_PERMISSION', { cause: err });
    }
    if (state !== 'granted') throw new DownloadTargetError('DOWNLOAD_PERMISSION');
  }
  try {
    await handle.getFile();
  } catch (err) {
    throw new DownloadTargetError(err instanceof DOMException && err.name === 'NotAllowedError' ? 'DOWNLOAD_PERMISSION' : 'DOWNLOAD_TARGET_MISSING', { cause: err });
  }
}

async function trustCommittedParts(store: ResumeStore, key: string, committedKey: string): Promise<void> {
  const rec = await store.get<DownloadRecord>(key);
  if (!rec || rec.done.length === 0) return;
  const committed = new Set((await store.get<number[]>(committedKey)) ?? []);
  const done = rec.done.filter((n) => committed.has(n));
  if (done.length !== rec.done.length) await store.set(key, { ...rec, done });
}
