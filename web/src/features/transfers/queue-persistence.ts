// Keeps unfinished uploads across a page refresh (spec 4: they come back paused). The File itself is stored when the
// browser allows it (IndexedDB structured clone of File works in Chromium and Firefox), so most uploads resume without
// asking; when it cannot be stored or read back, the item returns without a file and the user re-picks it.

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
}

export interface QueuePersistence {
  save(meta: PersistedUpload, file: File | undefined): Promise<void>;
  remove(uid: string): Promise<void>;
  load(): Promise<Array<{ meta: PersistedUpload; file: File | undefined }>>;
  clear(): Promise<void>;
}

const STORE = 'uploads';

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
      const r = idb.open(`hcs-upload-queue:${owner}`, 1);
      r.onupgradeneeded = () => r.result.createObjectStore(STORE, { keyPath: 'meta.uid' });
      r.onsuccess = () => resolve(r.result);
      r.onerror = () => reject(r.error ?? new Error('IndexedDB open failed'));
    });
    return dbp;
  };
  const tx = async (mode: IDBTransactionMode) => (await open()).transaction(STORE, mode).objectStore(STORE);
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
    async clear() {
      await req((await tx('readwrite')).clear());
    },
  };
}

export function memoryPersistence(): QueuePersistence {
  const rows = new Map<string, { meta: PersistedUpload; file: File | undefined }>();
  return {
    save: async (meta, file) => void rows.set(meta.uid, { meta: { ...meta }, file }),
    remove: async (uid) => void rows.delete(uid),
    load: async () => [...rows.values()].map((r) => ({ meta: { ...r.meta }, file: r.file })),
    clear: async () => rows.clear(),
  };
}

/** The identity the spec uses to match a re-picked file to a restored item. */
export const fileIdentity = (f: { name: string; size: number; lastModified: number }): string => `${f.name}\u0000${f.size}\u0000${f.lastModified}`;
