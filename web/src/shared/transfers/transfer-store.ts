// The transfer lists behind the panel (spec 4). Scheduling is the engine's: uploads run on its upload queue one file
// at a time (spec 9), downloads on its download queue; each task is an engine UploadTask/DownloadTask. This store
// adds what only the web has: the persisted queue that brings unfinished uploads and downloads back paused after a
// reload, the finished list, the notices, and a snapshot for React. Framework-free so it is testable without React.
import { DOWNLOAD_QUEUE_STATES, TransferQueue, UPLOAD_QUEUE_STATES, type Progress, type TransferError } from '@hcs/transfer-core';
import { describeFailure, type ConflictChoice, type DownloadStatus, type DownloadTaskLike, type TransferEngine, type UploadStatus } from './engine.ts';
import { fileIdentity, type PersistedDownload, type PersistedUpload, type QueuePersistence } from './queue-persistence.ts';
import { QueuedUpload } from './queued-upload.ts';

export type { DownloadStatus, UploadStatus } from './engine.ts';

export interface UploadItem extends PersistedUpload {
  status: UploadStatus;
  loaded: number;
  /** Bytes per second over the last few seconds. */
  speed: number;
  /** Seconds left at the current speed; undefined when unknown. */
  timeLeft: number | undefined;
  errorKey?: string;
  /** The server's own text and code of the failure, when a server answer caused it. */
  errorText?: string;
  errorCode?: string;
  /** Restored after a refresh without its File: the user must pick the same file again. */
  needsFile: boolean;
}

export interface DownloadItem {
  uid: string;
  instanceId: string;
  name: string;
  size: number;
  /** Display path of its folder, for the finished list. */
  path: string;
  loaded: number;
  speed: number;
  timeLeft: number | undefined;
  status: DownloadStatus;
  errorKey?: string;
}

export interface FinishedItem {
  id: string;
  filename: string;
  fileSize: number;
  filePosition: string;
  transferType: 'upload' | 'download';
  fileId: string;
  finishedAt: number;
}

export interface Notice {
  level: 'info' | 'success' | 'warning' | 'error';
  key: string;
  values?: Record<string, string | number>;
}

export interface TransferSnapshot {
  uploads: readonly UploadItem[];
  downloads: readonly DownloadItem[];
  finished: readonly FinishedItem[];
  online: boolean;
}

export interface NewUpload {
  file: File;
  name: string;
  parentId: string;
  uploadTo: string;
  instanceType: string;
  libCode: string;
  conflict: ConflictChoice;
  attrs?: { classifierId: string; values: Record<string, string | number | null> };
}

export interface NewDownload {
  instanceId: string;
  name: string;
  size: number;
  path: string;
  handle: FileSystemFileHandle;
}

export interface NewZipDownload {
  ids: string[];
  /** The file name, ending in .zip. */
  name: string;
  /** What the zip holds (the files' bytes): its size is known only once it is written. */
  size: number;
  path: string;
  handle: FileSystemFileHandle;
}

export interface TransferStoreDeps {
  engine: TransferEngine;
  persistence: QueuePersistence;
  notify?: (n: Notice) => void;
  now?: () => number;
  /** Progress repaint throttle; spec 9 allows up to 5000 ms, we repaint faster for a smoother bar. */
  progressIntervalMs?: number;
  newId?: () => string;
}

interface UploadRow {
  meta: PersistedUpload;
  file: File | undefined;
  upload: QueuedUpload;
  progress: Progress | undefined;
  errorKey?: string;
  errorText?: string;
  errorCode?: string;
}

interface DownloadRow {
  meta: PersistedDownload;
  handle: FileSystemFileHandle;
  task: DownloadTaskLike;
  progress: Progress | undefined;
  errorKey?: string;
  /** The picked file cannot be written (permission refused, file gone): shown as an error until resumed again. */
  blocked?: string;
  /** A resume click is checking the picked file (permission prompt open). */
  preparing?: boolean;
  /** A zip: not kept across a reload (it cannot continue), and its size is what was written. */
  zip?: boolean;
}

type UploadQueue = TransferQueue<UploadStatus, QueuedUpload>;
type DownloadQueue = TransferQueue<DownloadStatus, DownloadTaskLike>;

const MAX_FINISHED = 1000;
// Each transfer keeps 3 storage requests in flight (spec 9) and Chromium allows 6 HTTP/1.1 connections per host:
// one upload plus one download fill them, so more parallel downloads would only queue behind each other and
// starve the API calls that sign every part.
const DOWNLOAD_CONCURRENCY = 1;

export class TransferStore {
  readonly #deps: Required<Omit<TransferStoreDeps, 'notify'>> & { notify: (n: Notice) => void };
  #uploadQueue!: UploadQueue;
  #downloadQueue!: DownloadQueue;
  #unwire: Array<() => void> = [];
  readonly #uploads = new Map<string, UploadRow>();
  readonly #downloads = new Map<string, DownloadRow>();
  #finished: FinishedItem[] = [];
  #online = true;
  /** Per batch (one pick or drop), the names that succeeded and were not announced yet. */
  readonly #batchDone = new Map<string, string[]>();
  #batchSeq = 0;
  /** Waiting rows held by a network loss (running ones the engine's queue remembers itself). */
  readonly #heldByNetwork = new Set<string>();
  readonly #listeners = new Set<() => void>();
  #snapshot: TransferSnapshot;
  #repaintTimer: ReturnType<typeof setTimeout> | undefined;

  constructor(deps: TransferStoreDeps) {
    this.#deps = {
      notify: () => {},
      now: () => Date.now(),
      progressIntervalMs: 500,
      newId: () => crypto.randomUUID(),
      ...deps,
    };
    this.#createQueues();
    this.#snapshot = this.#makeSnapshot();
  }

  subscribe = (fn: () => void): (() => void) => {
    this.#listeners.add(fn);
    return () => this.#listeners.delete(fn);
  };

  getSnapshot = (): TransferSnapshot => this.#snapshot;

  /** Upload and download counts for the header (spec 2: transfer list with counters). */
  counts(): { uploads: number; downloads: number } {
    return { uploads: this.#uploads.size, downloads: this.#downloads.size };
  }

  /** Brings back the queue of the previous page load, every item paused (spec 4). */
  async restore(): Promise<void> {
    const [rows, downloads] = await Promise.all([this.#deps.persistence.load(), this.#deps.persistence.loadDownloads().catch(() => [])]);
    for (const { meta, file } of rows.sort((a, b) => a.meta.addedAt - b.meta.addedAt)) {
      if (this.#uploads.has(meta.uid)) continue;
      const task = file ? this.#deps.engine.createUpload(this.#job(meta, file)) : undefined;
      this.#addRow(meta, file, new QueuedUpload(meta.uid, task, true));
    }
    // The engine finds its saved record (same instanceId) and fetches only the parts it lacks once resumed.
    for (const { meta, handle } of downloads.sort((a, b) => a.meta.addedAt - b.meta.addedAt)) {
      if (this.#downloads.has(meta.uid)) continue;
      const task = this.#deps.engine.createDownload({ uid: meta.uid, instanceId: meta.instanceId, handle, restored: true });
      this.#addDownloadRow(meta, handle, task);
    }
    this.#emit();
  }

  /** Queues one pick or drop: its successes are announced once, when the last of them is done (not per file). */
  add(entries: readonly NewUpload[]): void {
    const batch = `b${++this.#batchSeq}:${this.#deps.now()}`;
    for (const e of entries) {
      const uid = this.#deps.newId();
      const meta: PersistedUpload = {
        uid,
        name: e.name,
        size: e.file.size,
        lastModified: e.file.lastModified,
        parentId: e.parentId,
        uploadTo: e.uploadTo,
        instanceType: e.instanceType,
        libCode: e.libCode,
        conflict: e.conflict,
        addedAt: this.#deps.now(),
        identity: this.#deps.engine.identityOf(e.file, e.name),
        batch,
        ...(e.attrs ? { attrs: e.attrs } : {}),
      };
      // Offline, a new row waits paused like the others and starts when the network returns.
      const upload = new QueuedUpload(uid, this.#deps.engine.createUpload(this.#job(meta, e.file)), !this.#online);
      if (!this.#online) this.#heldByNetwork.add(uid);
      this.#addRow(meta, e.file, upload);
      void this.#deps.persistence.save(meta, e.file).catch(() => {});
    }
    this.#emit();
  }

  /** Re-attaches a file the user picked again after a refresh; matched by name + size + lastModified. */
  attachFiles(files: readonly File[]): number {
    let matched = 0;
    for (const f of files) {
      const id = fileIdentity(f);
      const row = [...this.#uploads.values()].find((r) => r.upload.needsFile && fileIdentity(r.meta) === id);
      if (!row) continue;
      row.file = f;
      row.upload.attach(this.#deps.engine.createUpload(this.#job(row.meta, f)));
      void this.#deps.persistence.save(row.meta, f).catch(() => {});
      matched += 1;
    }
    if (matched > 0) this.#emit();
    return matched;
  }

  pause(uid: string): void {
    this.#uploadQueue.pause(uid);
  }

  resume(uid: string): void {
    const row = this.#uploads.get(uid);
    if (!row || row.upload.status !== 'pause') return;
    if (row.upload.needsFile) {
      this.#deps.notify({ level: 'warning', key: 'transfer.repickFile', values: { name: row.meta.name } });
      return;
    }
    if (!this.#online) {
      this.#deps.notify({ level: 'error', key: 'transfer.networkFault' });
      return;
    }
    this.#heldByNetwork.delete(uid);
    this.#uploadQueue.resume(uid);
  }

  /** Spec 4: manually starting a waiting item only says that it is (queued for) uploading. */
  start(uid: string): void {
    const status = this.#uploads.get(uid)?.upload.status;
    if (status === 'ready') this.#uploadQueue.start(uid);
    else if (status === 'pause') this.resume(uid);
  }

  retry(uid: string): void {
    this.#uploadQueue.retry(uid);
  }

  remove(uid: string): void {
    const row = this.#uploads.get(uid);
    if (!row) return;
    this.#dropUpload(uid);
    this.#announceIfSettled(row.meta);
    // The engine aborts the requests, ends the server session and forgets the resume record.
    void this.#uploadQueue.delete(uid).catch(() => {});
    this.#emit();
  }

  /** Pauses every upload and download (spec 2: the panel's pause all). */
  pauseAll(): void {
    // Waiting rows first: pausing the running one first would let the queue start the next in between.
    const rows = [...this.#uploads.values()];
    for (const r of rows) if (r.upload.status === 'ready') r.upload.pause();
    for (const r of rows) r.upload.pause();
    const downloads = [...this.#downloads.values()];
    for (const d of downloads) if (d.task.status === 'wait') this.#downloadQueue.pause(d.meta.uid);
    for (const d of downloads) this.#downloadQueue.pause(d.meta.uid);
  }

  resumeAll(): void {
    let asked = false;
    for (const r of this.#uploads.values()) {
      if (r.upload.status !== 'pause') continue;
      if (r.upload.needsFile) {
        asked = true;
        continue;
      }
      if (this.#online) this.#uploadQueue.resume(r.meta.uid);
    }
    if (asked) this.#deps.notify({ level: 'warning', key: 'transfer.repickFiles' });
    if (!this.#online) {
      this.#deps.notify({ level: 'error', key: 'transfer.networkFault' });
      return;
    }
    // Paused and interrupted downloads, in list order; each checks its picked file first (resumeDownload).
    for (const d of [...this.#downloads.values()]) if (d.task.status === 'pause' || d.task.status === 'refresh') this.resumeDownload(d.meta.uid);
  }

  removeMany(uids: readonly string[]): void {
    for (const uid of uids) this.remove(uid);
  }

  setOnline(online: boolean): void {
    if (online === this.#online) return;
    this.#online = online;
    if (!online) {
      // The engine pauses the running upload and remembers it; downloads turn to refresh (spec 4).
      this.#uploadQueue.networkLost();
      this.#downloadQueue.networkLost();
      for (const r of this.#uploads.values()) {
        if (r.upload.status === 'ready' && r.upload.pause()) this.#heldByNetwork.add(r.meta.uid);
      }
      this.#deps.notify({ level: 'warning', key: 'transfer.networkDisconnected' });
    } else {
      this.#deps.notify({ level: 'success', key: 'transfer.networkConnected' });
      this.#uploadQueue.networkReturned();
      for (const uid of this.#heldByNetwork) this.#uploadQueue.resume(uid);
      this.#heldByNetwork.clear();
      this.#downloadQueue.networkReturned();
    }
    this.#emit();
  }

  /** A single-file download through the engine (ranged, resumable, verified) into the file the user picked. */
  addDownload(d: NewDownload): string {
    const uid = this.#deps.newId();
    const meta: PersistedDownload = { uid, instanceId: d.instanceId, name: d.name, size: d.size, path: d.path, addedAt: this.#deps.now() };
    const task = this.#deps.engine.createDownload({ uid, instanceId: d.instanceId, handle: d.handle });
    this.#addDownloadRow(meta, d.handle, task);
    void this.#deps.persistence.saveDownload(meta, d.handle).catch(() => {});
    this.#emit();
    return uid;
  }

  /** A zip of folders or several items into the file the user picked; it counts as finished once fully written. */
  addZipDownload(d: NewZipDownload): string {
    const uid = this.#deps.newId();
    const meta: PersistedDownload = { uid, instanceId: d.ids.join(','), name: d.name, size: d.size, path: d.path, addedAt: this.#deps.now() };
    const task = this.#deps.engine.createDownload({ uid, instanceId: meta.instanceId, handle: d.handle, zip: { ids: d.ids, name: d.name.replace(/\.zip$/i, '') } });
    this.#addDownloadRow(meta, d.handle, task, true);
    this.#emit();
    return uid;
  }

  pauseDownload(uid: string): void {
    this.#downloadQueue.pause(uid);
  }

  /**
   * pause/refresh continue where they stopped; error (verification failed, data discarded) starts over. Called from
   * the user's click: a paused download first makes sure its picked file is still writable, which after a reload
   * may show the browser's permission prompt (it needs that click).
   */
  resumeDownload(uid: string): void {
    const row = this.#downloads.get(uid);
    if (!row || row.preparing) return;
    if (!this.#online) {
      this.#deps.notify({ level: 'error', key: 'transfer.networkFault' });
      return;
    }
    const status = row.task.status;
    if (row.task.prepare && (row.blocked || status === 'pause' || status === 'refresh')) {
      row.preparing = true;
      void row.task.prepare().then(
        () => {
          row.preparing = false;
          row.blocked = undefined;
          if (this.#downloads.get(uid) !== row) return;
          this.#downloadQueue.resume(uid);
          this.#emit();
        },
        (err: unknown) => {
          row.preparing = false;
          if (this.#downloads.get(uid) !== row) return;
          console.warn(`download of ${row.meta.name} cannot continue: ${String(err)}`);
          row.blocked = describeFailure(err).key;
          this.#deps.notify({ level: 'error', key: row.blocked, values: { name: row.meta.name } });
          this.#emit();
        },
      );
      return;
    }
    if (status === 'error') this.#downloadQueue.retry(uid);
    else this.#downloadQueue.resume(uid);
  }

  /** Stops the download and removes its partial file. */
  removeDownload(uid: string): void {
    if (!this.#downloads.delete(uid)) return;
    void this.#deps.persistence.removeDownload(uid).catch(() => {});
    void this.#downloadQueue.delete(uid).catch(() => {});
    this.#emit();
  }

  addFinished(row: Omit<FinishedItem, 'id' | 'finishedAt'>): void {
    // Spec 4: a finished file goes to the top of the finished list.
    this.#finished = [{ ...row, id: this.#deps.newId(), finishedAt: this.#deps.now() }, ...this.#finished].slice(0, MAX_FINISHED);
    this.#emit();
  }

  clearFinished(ids?: readonly string[]): void {
    this.#finished = ids ? this.#finished.filter((f) => !ids.includes(f.id)) : [];
    this.#emit();
  }

  /**
   * Stops everything and forgets the lists (user change, spec 4). Upload sessions stay resumable on the server;
   * downloads leave the list, so their partial files are removed rather than left half-written.
   */
  async reset(): Promise<void> {
    // One synchronous pass: waiting rows are held before a paused one's queue could start the next.
    for (const r of this.#uploads.values()) r.upload.pause();
    const downloads = [...this.#downloads.values()].map((d) => d.task.delete().catch(() => {}));
    for (const off of this.#unwire) off();
    this.#createQueues();
    this.#uploads.clear();
    this.#downloads.clear();
    this.#heldByNetwork.clear();
    this.#finished = [];
    this.#emit();
    await Promise.all([this.#deps.persistence.clear(), ...downloads]);
  }

  #createQueues(): void {
    // Spec 4/9: the web uploads one file at a time.
    this.#uploadQueue = new TransferQueue<UploadStatus, QueuedUpload>(UPLOAD_QUEUE_STATES, { concurrency: 1 });
    this.#downloadQueue = new TransferQueue<DownloadStatus, DownloadTaskLike>(DOWNLOAD_QUEUE_STATES, { concurrency: DOWNLOAD_CONCURRENCY });
    const up = this.#uploadQueue.events;
    const down = this.#downloadQueue.events;
    this.#unwire = [
      up.on('status', ({ task, to, error }) => this.#onUploadStatus(task, to as UploadStatus, error)),
      up.on('progress', ({ task, progress }) => this.#onProgress(this.#uploads.get(task.id), progress)),
      up.on('alreadyQueued', () => this.#deps.notify({ level: 'warning', key: 'transfer.isUploading' })),
      down.on('status', ({ task, to, from, error }) => this.#onDownloadStatus(task, to as DownloadStatus, from as DownloadStatus, error)),
      down.on('progress', ({ task, progress }) => this.#onProgress(this.#downloads.get(task.id), progress)),
    ];
  }

  #addDownloadRow(meta: PersistedDownload, handle: FileSystemFileHandle, task: DownloadTaskLike, zip = false): void {
    this.#downloads.set(meta.uid, { meta, handle, task, progress: undefined, ...(zip ? { zip } : {}) });
    this.#downloadQueue.add(task);
  }

  #addRow(meta: PersistedUpload, file: File | undefined, upload: QueuedUpload): void {
    this.#uploads.set(meta.uid, { meta, file, upload, progress: undefined });
    this.#uploadQueue.add(upload);
  }

  #onUploadStatus(upload: QueuedUpload, to: UploadStatus, error: TransferError | undefined): void {
    const row = this.#uploads.get(upload.id);
    if (!row) return;
    if (to === 'success') {
      this.#dropUpload(upload.id);
      this.addFinished({
        filename: row.meta.name,
        fileSize: row.meta.size,
        filePosition: row.meta.uploadTo,
        transferType: 'upload',
        fileId: upload.task?.result?.instanceId ?? '',
      });
      const done = this.#batchDone.get(this.#batchOf(row.meta)) ?? [];
      done.push(row.meta.name);
      this.#batchDone.set(this.#batchOf(row.meta), done);
      this.#announceIfSettled(row.meta);
      return;
    }
    if (to === 'error' || to === 'onTimeout') {
      // The row shows the localized message; the cause (HTTP status, S3 code) goes where support looks.
      const cause = (error as { cause?: unknown } | undefined)?.cause;
      console.warn(`upload of ${row.meta.name} failed: ${String(error)}${cause ? ` (cause: ${String(cause)})` : ''}`);
      const f = describeFailure(error);
      row.errorKey = f.key;
      row.errorText = f.serverMessage;
      row.errorCode = f.serverCode;
    } else if (to === 'ready' || to === 'checking') {
      row.errorKey = undefined;
      row.errorText = undefined;
      row.errorCode = undefined;
    }
    if (to === 'pause' || to === 'error' || to === 'onTimeout') {
      row.progress = row.progress && { ...row.progress, speed: 0, timeLeft: undefined };
      this.#announceIfSettled(row.meta);
    }
    this.#emit();
  }

  #batchOf(meta: PersistedUpload): string {
    return meta.batch ?? meta.uid;
  }

  /** Once no file of the batch is waiting or running, its successes so far are announced in one notice. */
  #announceIfSettled(meta: PersistedUpload): void {
    const batch = this.#batchOf(meta);
    const done = this.#batchDone.get(batch);
    if (!done || done.length === 0) return;
    const busy: readonly UploadStatus[] = ['ready', 'checking', 'uploading', 'merging'];
    for (const r of this.#uploads.values()) if (this.#batchOf(r.meta) === batch && busy.includes(r.upload.status)) return;
    this.#batchDone.delete(batch);
    this.#deps.notify(
      done.length === 1
        ? { level: 'success', key: 'transfer.uploadSuccess', values: { name: done[0]! } }
        : { level: 'success', key: 'transfer.batchUploadSuccess', values: { count: done.length } },
    );
  }

  #onDownloadStatus(task: DownloadTaskLike, to: DownloadStatus, from: DownloadStatus, error: TransferError | undefined): void {
    const row = this.#downloads.get(task.id);
    if (!row) return;
    if (to === 'success') {
      this.#downloads.delete(task.id);
      void this.#deps.persistence.removeDownload(task.id).catch(() => {});
      const { name, size, path, instanceId } = row.meta;
      const fileSize = row.zip ? (row.progress?.loaded ?? size) : size;
      this.addFinished({ filename: name, fileSize, filePosition: path, transferType: 'download', fileId: instanceId });
      return;
    }
    if (to === 'error' || to === 'refresh') {
      const cause = (error as { cause?: unknown } | undefined)?.cause;
      console.warn(`download of ${row.meta.name} stopped: ${String(error)}${cause ? ` (cause: ${String(cause)})` : ''}`);
      row.errorKey = error ? describeFailure(error).key : 'transfer.error.REQUEST';
      // A verification failure discarded the data and the engine's record: nothing is left to continue after a
      // reload, so the row is no longer kept; it offers a fresh start in this page.
      if (to === 'error') {
        void this.#deps.persistence.removeDownload(task.id).catch(() => {});
        this.#deps.notify({ level: 'error', key: row.errorKey });
      }
    } else if (to === 'wait' || to === 'resume') {
      // A fresh start after a failure is a download again worth keeping across a reload.
      if (from === 'error' && !row.zip) void this.#deps.persistence.saveDownload(row.meta, row.handle).catch(() => {});
      row.errorKey = undefined;
    }
    if (to !== 'resume') row.progress = row.progress && { ...row.progress, speed: 0, timeLeft: undefined };
    this.#emit();
  }

  #onProgress(row: { progress: Progress | undefined } | undefined, progress: Progress): void {
    if (!row) return;
    row.progress = progress;
    this.#scheduleRepaint();
  }

  #scheduleRepaint(): void {
    if (this.#repaintTimer !== undefined) return;
    this.#repaintTimer = setTimeout(() => {
      this.#repaintTimer = undefined;
      this.#emit();
    }, this.#deps.progressIntervalMs);
  }

  #job(meta: PersistedUpload, file: File) {
    const { uid, name, parentId, instanceType, libCode, conflict, identity, attrs } = meta;
    return { uid, file, name, parentId, instanceType, libCode, conflict, ...(identity ? { identity } : {}), ...(attrs ? { attrs } : {}) };
  }

  #dropUpload(uid: string): void {
    this.#uploads.delete(uid);
    this.#heldByNetwork.delete(uid);
    void this.#deps.persistence.remove(uid).catch(() => {});
  }

  #makeSnapshot(): TransferSnapshot {
    const uploads = [...this.#uploads.values()].map((r): UploadItem => {
      const p = r.progress;
      const status = r.upload.status;
      // Hashing progress is not upload progress: the bar shows bytes on storage.
      const transferring = p && p.phase !== 'hashing';
      return {
        ...r.meta,
        status,
        loaded: transferring ? p.loaded : 0,
        speed: transferring ? p.speed : 0,
        timeLeft: transferring ? p.timeLeft : undefined,
        needsFile: r.upload.needsFile,
        ...(r.errorKey ? { errorKey: r.errorKey } : {}),
        ...(r.errorText ? { errorText: r.errorText } : {}),
        ...(r.errorCode ? { errorCode: r.errorCode } : {}),
      };
    });
    const downloads = [...this.#downloads.values()].map((r): DownloadItem => {
      const { uid, instanceId, name, size, path } = r.meta;
      const errorKey = r.blocked ?? r.errorKey;
      return {
        uid,
        instanceId,
        name,
        size,
        path,
        status: r.blocked ? 'error' : r.task.status,
        loaded: r.progress?.phase === 'transferring' ? r.progress.loaded : r.progress ? size : 0,
        speed: r.progress?.speed ?? 0,
        timeLeft: r.progress?.timeLeft,
        ...(errorKey ? { errorKey } : {}),
      };
    });
    return { uploads, downloads, finished: this.#finished, online: this.#online };
  }

  #emit(): void {
    this.#snapshot = this.#makeSnapshot();
    for (const l of this.#listeners) l();
  }
}
