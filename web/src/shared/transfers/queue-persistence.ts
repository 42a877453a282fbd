// Keeps unfinished uploads across a page refresh (spec 4: they come back paused). The File itself is stored when the
// browser allows it (IndexedDB structured clone of File works in Chromium and Firefox), so most uploads resume without
// asking; when it cannot be stored or read back, the item returns without a file and the user re-picks it.
// Engine downloads are kept the same way with the FileSystemFileHandle the user picked (structured-cloneable in
// Chromium, the only browser that has one), so the download continues into the same file after a reload.

export interface PersistedUpload {
  uid: string;
  name: string;
  size: number;
  lastModified: number;
  parentId: string;
  uploadTo: string;
  instanceType: string;
  libCode: string;
  conflict: 'newVersion' | 'keepBoth';
  addedAt: number;
  /** The engine's resume identity of the file (absent in records written before it was kept). */
  identity?: string;
  /** The pick or drop it came with: its success is announced once for all of them. */
  batch?: string;
  /** A business library file's attribute values, kept so a resumed upload still files them. */
  attrs?: { classifierId: string; values: Record<string, string | number | null> };
}

export interface PersistedDownload {
  uid: string;
  instanceId: string;
  name: string;
  size: number;
  /** Display path of its folder, for the finished list. */
  path: string;
  addedAt: number;
}

export interface QueuePersistence {
  save(meta: PersistedUpload, file: File | undefined): Promise<void>;
  remove(uid: string): Promise<void>;
  load(): Promise<Array<{ meta: PersistedUpload; file: File | undefined }>>;
  saveDownload(meta: PersistedDownload, handle: FileSystemFileHandle): Promise<void>;
  removeDownload(uid: string): Promise<void>;
  loadDownloads(): Promise<Array<{ meta: PersistedDownload; handle: FileSystemFileHandle }>>;
  /** Forgets uploads and downloads. */
  clear(): Promise<void>;
}

const STORE = 'uploads';
const DOWNLOADS = 'downloads';
/** 1: uploads; 2: downloads added (the uploads store and its rows are kept). */
const VERSION = 2;

function req<T>(r: IDBRequest<T>): Promise<T> {
  return new Promise((resolve, reject) => {
    r.onsuccess = () => resolve(r.result);
    r.onerror = () => reject(r.error ?? new Error('IndexedDB request failed'));
  });
}

/** One database per signed-in user, so a user change never shows someone else's queue (spec 4). */
export function indexedDbPersistence(owner: string, idb: IDBFactory | undefined = globalThis.indexedDB): QueuePersistence {
  if (!idb) return memoryPersistence();
  let dbp: Promise<IDBDatabase> | undefined;
  const open = (): Promise<IDBDatabase> => {
    dbp ??= new Promise((resolve, reject) => {
      const r = idb.open(`hcs-upload-queue:${owner}`, VERSION);
      r.onupgradeneeded = () => {
        const db = r.result;
        if (!db.objectStoreNames.contains(STORE)) db.createObjectStore(STORE, { keyPath: 'meta.uid' });
        if (!db.objectStoreNames.contains(DOWNLOADS)) db.createObjectStore(DOWNLOADS, { keyPath: 'meta.uid' });
      };
      r.onsuccess = () => {
        // Another tab opening a newer version must not be blocked by this one: close, the next call reopens.
        r.result.onversionchange = () => {
          r.result.close();
          dbp = undefined;
        };
        resolve(r.result);
      };
      r.onerror = () => reject(r.error ?? new Error('IndexedDB open failed'));
    });
    return dbp;
  };
  const tx = async (mode: IDBTransactionMode, store = STORE) => (await open()).transaction(store, mode).objectStore(store);
  return {
    async save(meta, file) {
      try {
        await req((await tx('readwrite')).put({ meta, file }));
      } catch {
        // Some browsers (private windows) refuse Blobs in IndexedDB: keep the record so it can be re-picked.
        await req((await tx('readwrite')).put({ meta, file: undefined }));
      }
    },
    async remove(uid) {
      await req((await tx('readwrite')).delete(uid));
    },
    async load() {
      const rows = (await req((await tx('readonly')).getAll())) as Array<{ meta: PersistedUpload; file?: File }>;
      return rows.map((r) => ({ meta: r.meta, file: r.file instanceof Blob ? (r.file as File) : undefined }));
    },
    async saveDownload(meta, handle) {
      await req((await tx('readwrite', DOWNLOADS)).put({ meta, handle }));
    },
    async removeDownload(uid) {
      await req((await tx('readwrite', DOWNLOADS)).delete(uid));
    },
    async loadDownloads() {
      const rows = (await req((await tx('readonly', DOWNLOADS)).getAll())) as Array<{ meta: PersistedDownload; handle?: unknown }>;
      // A row whose handle did not survive (not a handle any more) cannot continue: it is dropped, not shown.
      return rows.filter((r): r is { meta: PersistedDownload; handle: FileSystemFileHandle } => isFileHandle(r.handle));
    },
    async clear() {
      await req((await tx('readwrite')).clear());
      await req((await tx('readwrite', DOWNLOADS)).clear());
    },
  };
}

const isFileHandle = (h: unknown): boolean =>
  typeof h === 'object' && h !== null && (h as { kind?: unknown }).kind === 'file' && typeof (h as { createWritable?: unknown }).createWritable === 'function';

export function memoryPersistence(): QueuePersistence {
  const rows = new Map<string, { meta: PersistedUpload; file: File | undefined }>();
  const downloads = new Map<string, { meta: PersistedDownload; handle: FileSystemFileHandle }>();
  return {
    save: async (meta, file) => void rows.set(meta.uid, { meta: { ...meta }, file }),
    remove: async (uid) => void rows.delete(uid),
    load: async () => [...rows.values()].map((r) => ({ meta: { ...r.meta }, file: r.file })),
    saveDownload: async (meta, handle) => void downloads.set(meta.uid, { meta: { ...meta }, handle }),
    removeDownload: async (uid) => void downloads.delete(uid),
    loadDownloads: async () => [...downloads.values()].map((r) => ({ meta: { ...r.meta }, handle: r.handle })),
    clear: async () => {
      rows.clear();
      downloads.clear();
    },
  };
}

/** The identity the spec uses to match a re-picked file to a restored item. */
export const fileIdentity = (f: { name: string; size: number; lastModified: number }): string => `${f.name}\u0000${f.size}\u0000${f.lastModified}`;
