import type { ResumeStore } from '../ports/index.ts';

/** ResumeStore over IndexedDB (one object store, JSON-compatible values, structured clone). */
export function createResumeStore(dbName = 'hcs-transfers', storeName = 'resume'): ResumeStore {
  let dbp: Promise<IDBDatabase> | undefined;
  const db = () =>
    (dbp ??= new Promise((resolve, reject) => {
      const req = indexedDB.open(dbName, 1);
      req.onupgradeneeded = () => req.result.createObjectStore(storeName);
      req.onsuccess = () => resolve(req.result);
      req.onerror = () => reject(req.error);
    }));
  async function tx<T>(mode: IDBTransactionMode, fn: (s: IDBObjectStore) => IDBRequest): Promise<T> {
    const d = await db();
    return new Promise((resolve, reject) => {
      const t = d.transaction(storeName, mode);
      const req = fn(t.objectStore(storeName));
      t.oncomplete = () => resolve(req.result as T);
      t.onerror = () => reject(t.error);
      t.onabort = () => reject(t.error);
    });
  }
  return {
    get: <T>(key: string) => tx<T | undefined>('readonly', (s) => s.get(key)),
    set: async <T>(key: string, value: T) => {
      await tx('readwrite', (s) => s.put(value, key));
    },
    delete: async (key) => {
      await tx('readwrite', (s) => s.delete(key));
    },
    keys: async (prefix) => {
      const range = IDBKeyRange.bound(prefix, `${prefix}\uffff`);
      return (await tx<IDBValidKey[]>('readonly', (s) => s.getAllKeys(range))).map(String);
    },
  };
}
