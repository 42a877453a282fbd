// The transfer queue behind the panel (spec 4): one upload active at a time, pause/resume/retry/delete per item and
// for all, network loss pauses and remembers, a refresh brings unfinished uploads back paused. Framework-free so it is
// testable without React; the panel reads it through useSyncExternalStore.
import { describeFailure, type ConflictChoice, type EnginePhase, type UploadEngine, type UploadJob } from './engine.ts';
import { fileIdentity, type PersistedUpload, type QueuePersistence } from './queue-persistence.ts';

export type UploadStatus = 'ready' | 'checking' | 'uploading' | 'pause' | 'merging' | 'success' | 'error' | 'deleted' | 'onTimeout';

export interface UploadItem extends PersistedUpload {
  status: UploadStatus;
  loaded: number;
  /** Bytes per second over the last few seconds. */
  speed: number;
  /** Seconds left at the current speed; undefined when unknown. */
  timeLeft: number | undefined;
  errorKey?: string;
  errorText?: string;
  /** Restored after a refresh without its File: the user must pick the same file again. */
  needsFile: boolean;
}

export type DownloadStatus = 'wait' | 'resume' | 'pause' | 'refresh';

export interface DownloadItem {
  uid: string;
  name: string;
  size: number;
  loaded: number;
  speed: number;
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
}

export interface TransferStoreDeps {
  engine: UploadEngine;
  persistence: QueuePersistence;
  notify?: (n: Notice) => void;
  now?: () => number;
  /** Progress repaint throttle; spec 9 allows up to 5000 ms, we repaint faster for a smoother bar. */
  progressIntervalMs?: number;
  newId?: () => string;
}

const ACTIVE: ReadonlySet<UploadStatus> = new Set(['checking', 'uploading', 'merging']);
const MAX_FINISHED = 1000;

export class TransferStore {
  readonly #deps: Required<Omit<TransferStoreDeps, 'notify'>> & { notify: (n: Notice) => void };
  #uploads: UploadItem[] = [];
  #downloads: DownloadItem[] = [];
  #finished: FinishedItem[] = [];
  #online = true;
  readonly #files = new Map<string, File>();
  readonly #controllers = new Map<string, AbortController>();
  /** Items paused by a network loss, resumed when it returns (spec 4). */
  readonly #pausedByNetwork = new Set<string>();
  readonly #samples = new Map<string, Array<{ t: number; loaded: number }>>();
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
    this.#snapshot = this.#makeSnapshot();
  }

  subscribe = (fn: () => void): (() => void) => {
    this.#listeners.add(fn);
    return () => this.#listeners.delete(fn);
  };

  getSnapshot = (): TransferSnapshot => this.#snapshot;

  /** Upload and download counts for the header (spec 2: transfer list with counters). */
  counts(): { uploads: number; downloads: number } {
    return { uploads: this.#uploads.length, downloads: this.#downloads.length };
  }

  /** Brings back the queue of the previous page load, every item paused (spec 4). */
  async restore(): Promise<void> {
    const rows = await this.#deps.persistence.load();
    for (const { meta, file } of rows.sort((a, b) => a.meta.addedAt - b.meta.addedAt)) {
      if (this.#uploads.some((u) => u.uid === meta.uid)) continue;
      if (file) this.#files.set(meta.uid, file);
      this.#uploads.push({ ...meta, status: 'pause', loaded: 0, speed: 0, timeLeft: undefined, needsFile: !file });
    }
    this.#emit();
  }

  add(entries: readonly NewUpload[]): void {
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
      };
      this.#files.set(uid, e.file);
      this.#uploads.push({ ...meta, status: this.#online ? 'ready' : 'pause', loaded: 0, speed: 0, timeLeft: undefined, needsFile: false });
      if (!this.#online) this.#pausedByNetwork.add(uid);
      void this.#deps.persistence.save(meta, e.file).catch(() => {});
    }
    this.#emit();
    this.#pump();
  }

  /** Re-attaches a file the user picked again after a refresh; matched by name + size + lastModified. */
  attachFiles(files: readonly File[]): number {
    let matched = 0;
    for (const f of files) {
      const id = fileIdentity(f);
      const item = this.#uploads.find((u) => u.needsFile && fileIdentity(u) === id);
      if (!item) continue;
      this.#files.set(item.uid, f);
      this.#patch(item.uid, { needsFile: false });
      void this.#deps.persistence.save(this.#meta(item), f).catch(() => {});
      matched += 1;
    }
    return matched;
  }

  pause(uid: string): void {
    const item = this.#find(uid);
    if (!item) return;
    if (item.status === 'ready' || item.status === 'checking' || item.status === 'uploading') {
      this.#controllers.get(uid)?.abort();
      this.#patch(uid, { status: 'pause', speed: 0, timeLeft: undefined });
      this.#pump();
    }
  }

  resume(uid: string): void {
    const item = this.#find(uid);
    if (!item || item.status !== 'pause') return;
    if (item.needsFile) {
      this.#deps.notify({ level: 'warning', key: 'transfer.repickFile', values: { name: item.name } });
      return;
    }
    if (!this.#online) {
      this.#deps.notify({ level: 'error', key: 'transfer.networkFault' });
      return;
    }
    this.#patch(uid, { status: 'ready' });
    this.#pump();
  }

  /** Spec 4: manually starting a ready item only says that it is (queued for) uploading. */
  start(uid: string): void {
    const item = this.#find(uid);
    if (!item) return;
    if (item.status === 'ready') this.#deps.notify({ level: 'warning', key: 'transfer.isUploading' });
    else if (item.status === 'pause') this.resume(uid);
  }

  retry(uid: string): void {
    const item = this.#find(uid);
    if (!item || (item.status !== 'error' && item.status !== 'onTimeout')) return;
    this.#patch(uid, { status: 'ready', errorKey: undefined, errorText: undefined });
    this.#pump();
  }

  remove(uid: string): void {
    const item = this.#find(uid);
    if (!item) return;
    this.#controllers.get(uid)?.abort();
    const file = this.#files.get(uid);
    this.#drop(uid);
    if (file && this.#deps.engine.discard) void this.#deps.engine.discard(this.#job(item, file)).catch(() => {});
    this.#emit();
    this.#pump();
  }

  pauseAll(): void {
    // Waiting items first: pausing the active one first would let the queue start the next in between.
    for (const u of this.#uploads) if (u.status === 'ready') this.#patch(u.uid, { status: 'pause' }, false);
    for (const u of [...this.#uploads]) this.pause(u.uid);
    this.#emit();
  }

  resumeAll(): void {
    let asked = false;
    for (const u of this.#uploads) {
      if (u.status !== 'pause') continue;
      if (u.needsFile) {
        asked = true;
        continue;
      }
      if (this.#online) this.#patch(u.uid, { status: 'ready' }, false);
    }
    if (asked) this.#deps.notify({ level: 'warning', key: 'transfer.repickFiles' });
    if (!this.#online) this.#deps.notify({ level: 'error', key: 'transfer.networkFault' });
    this.#emit();
    this.#pump();
  }

  removeMany(uids: readonly string[]): void {
    for (const uid of uids) this.remove(uid);
  }

  setOnline(online: boolean): void {
    if (online === this.#online) return;
    this.#online = online;
    if (!online) {
      for (const u of this.#uploads) {
        if (u.status === 'ready' || ACTIVE.has(u.status)) {
          this.#pausedByNetwork.add(u.uid);
          this.#controllers.get(u.uid)?.abort();
          this.#patch(u.uid, { status: 'pause', speed: 0, timeLeft: undefined }, false);
        }
      }
      this.#downloads = this.#downloads.map((d) => (d.status === 'resume' ? { ...d, status: 'refresh' as const } : d));
      this.#deps.notify({ level: 'warning', key: 'transfer.networkDisconnected' });
    } else {
      this.#deps.notify({ level: 'success', key: 'transfer.networkConnected' });
      for (const uid of this.#pausedByNetwork) {
        const u = this.#find(uid);
        if (u?.status === 'pause' && !u.needsFile) this.#patch(uid, { status: 'ready' }, false);
      }
      this.#pausedByNetwork.clear();
    }
    this.#emit();
    this.#pump();
  }

  // Downloads: the download module reports its items here so the header counter and the finished list are one place.
  trackDownload(item: DownloadItem): void {
    const i = this.#downloads.findIndex((d) => d.uid === item.uid);
    if (i >= 0) this.#downloads[i] = item;
    else this.#downloads.push(item);
    this.#emit();
  }

  untrackDownload(uid: string): void {
    this.#downloads = this.#downloads.filter((d) => d.uid !== uid);
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

  /** Stops everything and forgets the queue (user change, spec 4). */
  async reset(): Promise<void> {
    for (const c of this.#controllers.values()) c.abort();
    this.#controllers.clear();
    this.#uploads = [];
    this.#downloads = [];
    this.#finished = [];
    this.#files.clear();
    await this.#deps.persistence.clear();
    this.#emit();
  }

  #pump(): void {
    if (!this.#online || this.#uploads.some((u) => ACTIVE.has(u.status))) return;
    const next = this.#uploads.find((u) => u.status === 'ready');
    if (next) void this.#run(next);
  }

  async #run(item: UploadItem): Promise<void> {
    const file = this.#files.get(item.uid);
    if (!file) {
      this.#patch(item.uid, { status: 'pause', needsFile: true });
      return;
    }
    const controller = new AbortController();
    this.#controllers.set(item.uid, controller);
    this.#samples.set(item.uid, []);
    this.#patch(item.uid, { status: 'checking', loaded: 0, speed: 0, timeLeft: undefined });
    const events = {
      phase: (phase: EnginePhase) => {
        if (!controller.signal.aborted) this.#patch(item.uid, { status: phase });
      },
      progress: (loaded: number, total: number) => {
        if (!controller.signal.aborted) this.#progress(item.uid, loaded, total);
      },
    };
    try {
      const result = await this.#deps.engine.upload(this.#job(item, file), events, controller.signal);
      if (controller.signal.aborted) return;
      const done = this.#find(item.uid);
      this.#drop(item.uid);
      this.addFinished({
        filename: item.name,
        fileSize: item.size,
        filePosition: item.uploadTo,
        transferType: 'upload',
        fileId: result.instanceId,
      });
      if (done) this.#deps.notify({ level: 'success', key: 'transfer.uploadSuccess', values: { name: item.name } });
    } catch (err) {
      if (controller.signal.aborted) return;
      // The row shows the localized message; the cause (HTTP status, S3 code) goes where support looks.
      const cause = (err as { cause?: unknown })?.cause;
      console.warn(`upload of ${item.name} failed: ${String(err)}${cause ? ` (cause: ${String(cause)}${(cause as { code?: string }).code ? ` ${(cause as { code?: string }).code}` : ''})` : ''}`);
      const f = describeFailure(err);
      const timeout = f.code === 'TIMEOUT' || f.code === '303';
      this.#patch(item.uid, {
        status: timeout ? 'onTimeout' : 'error',
        speed: 0,
        timeLeft: undefined,
        errorKey: f.key,
        errorText: f.serverMessage,
      });
    } finally {
      if (this.#controllers.get(item.uid) === controller) this.#controllers.delete(item.uid);
      this.#samples.delete(item.uid);
      this.#emit();
      this.#pump();
    }
  }

  #progress(uid: string, loaded: number, total: number): void {
    const now = this.#deps.now();
    const samples = this.#samples.get(uid) ?? [];
    samples.push({ t: now, loaded });
    // A 5 s window smooths part-sized jumps without hiding a stall for long.
    while (samples.length > 2 && now - samples[0]!.t > 5000) samples.shift();
    this.#samples.set(uid, samples);
    const first = samples[0]!;
    const dt = (now - first.t) / 1000;
    const speed = dt > 0 ? Math.max(0, (loaded - first.loaded) / dt) : 0;
    const timeLeft = speed > 0 ? (total - loaded) / speed : undefined;
    this.#patch(uid, { loaded, speed, timeLeft }, false);
    this.#scheduleRepaint();
  }

  #scheduleRepaint(): void {
    if (this.#repaintTimer !== undefined) return;
    this.#repaintTimer = setTimeout(() => {
      this.#repaintTimer = undefined;
      this.#emit();
    }, this.#deps.progressIntervalMs);
  }

  #job(item: UploadItem, file: File): UploadJob {
    return {
      uid: item.uid,
      file,
      name: item.name,
      parentId: item.parentId,
      instanceType: item.instanceType,
      libCode: item.libCode,
      conflict: item.conflict,
    };
  }

  #meta(u: UploadItem): PersistedUpload {
    const { uid, name, size, lastModified, parentId, uploadTo, instanceType, libCode, conflict, addedAt } = u;
    return { uid, name, size, lastModified, parentId, uploadTo, instanceType, libCode, conflict, addedAt };
  }

  #find(uid: string): UploadItem | undefined {
    return this.#uploads.find((u) => u.uid === uid);
  }

  #drop(uid: string): void {
    this.#uploads = this.#uploads.filter((u) => u.uid !== uid);
    this.#files.delete(uid);
    this.#controllers.delete(uid);
    this.#pausedByNetwork.delete(uid);
    void this.#deps.persistence.remove(uid).catch(() => {});
  }

  #patch(uid: string, patch: Partial<UploadItem>, emit = true): void {
    const i = this.#uploads.findIndex((u) => u.uid === uid);
    if (i < 0) return;
    this.#uploads = this.#uploads.map((u, j) => (j === i ? { ...u, ...patch } : u));
    if (emit) this.#emit();
  }

  #makeSnapshot(): TransferSnapshot {
    return { uploads: this.#uploads, downloads: this.#downloads, finished: this.#finished, online: this.#online };
  }

  #emit(): void {
    this.#snapshot = this.#makeSnapshot();
    for (const l of this.#listeners) l();
  }
}
