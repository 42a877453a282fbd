// Adapter from the UI's UploadEngine seam to transfer-core's UploadTask. Interim: the package's browser entry
// (@hcs/transfer-core/browser: File source, hashing Worker, IndexedDB resume store) is not published yet, so the
// core modules are imported by path and the three small browser ports live here. When the entry lands, replace
// these imports and ports with it; nothing else in the web app changes.
import { createHcsClient } from '@hcs/openapi/client';
import type { FileSource, HasherFactory, ResumeStore } from '../../../../transfer-core/src/ports/index.ts';
import { createFetchTransport } from '../../../../transfer-core/src/core/fetch-transport.ts';
import { createHcsControlPlane } from '../../../../transfer-core/src/core/hcs-control-plane.ts';
import { createWasmHasherFactory } from '../../../../transfer-core/src/core/wasm-hasher.ts';
import { UploadTask } from '../../../../transfer-core/src/core/upload.ts';
import { getUserInfo } from '../../app/session.ts';
import type { UploadEngine, UploadJob } from './engine.ts';
import { Sha256Js, wasmAvailable } from './sha256.ts';

/** hash-wasm when the page may compile WebAssembly, else the plain-JS SHA-256 (no checkpoints: re-hash on resume). */
async function hasherFactory(): Promise<HasherFactory> {
  if (await wasmAvailable()) return createWasmHasherFactory();
  return {
    checkpoints: false,
    async create(state) {
      if (state) throw new Error('checkpoints are not supported by the JS hasher');
      const h = new Sha256Js();
      return {
        update: async (d) => h.update(d),
        digest: async () => h.digestHex(),
        save: async () => undefined,
        dispose: () => {},
      };
    },
  };
}

function fileSource(file: File): FileSource {
  return {
    name: file.name,
    size: file.size,
    // Resume records and hash checkpoints are keyed by it: an edited file is never resumed onto old parts.
    identity: `${file.name}:${file.size}:${file.lastModified}`,
    async read(offset, length) {
      const buf = await file.slice(offset, offset + length).arrayBuffer();
      return new Uint8Array(buf);
    },
  };
}

/** Small JSON records (session ids, hash checkpoints) in localStorage, per signed-in user. */
function localResumeStore(prefix: string): ResumeStore {
  const k = (key: string) => `${prefix}${key}`;
  return {
    async get<T>(key: string) {
      const v = localStorage.getItem(k(key));
      return v === null ? undefined : (JSON.parse(v) as T);
    },
    async set<T>(key: string, value: T) {
      localStorage.setItem(k(key), JSON.stringify(value));
    },
    async delete(key: string) {
      localStorage.removeItem(k(key));
    },
    async keys(p: string) {
      const out: string[] = [];
      for (let i = 0; i < localStorage.length; i++) {
        const key = localStorage.key(i);
        if (key?.startsWith(k(p))) out.push(key.slice(prefix.length));
      }
      return out;
    },
  };
}

export function createBrowserUploadEngine(owner: string): UploadEngine {
  const client = createHcsClient({ baseUrl: window.location.origin, credentials: 'same-origin', userName: () => getUserInfo()?.userName });
  const depsPromise = hasherFactory().then((factory) => ({
    controlPlane: createHcsControlPlane(client),
    transport: createFetchTransport(),
    hasherFactory: factory,
    resumeStore: localResumeStore(`hcs.upload.${owner}.`),
    platformId: 'NetDisk',
  }));
  const target = (job: UploadJob) => ({ parentId: job.parentId, instanceType: job.instanceType, category: job.libCode, conflict: job.conflict });
  return {
    async upload(job, events, signal) {
      const deps = await depsPromise;
      const task = new UploadTask({ id: job.uid, source: fileSource(job.file), target: target(job) }, deps);
      task.events.on('status', ({ to }) => {
        if (to === 'checking' || to === 'uploading' || to === 'merging') events.phase(to);
      });
      task.events.on('progress', (p) => events.progress(p.loaded, p.total));
      // Our pause/network loss: the task pauses (parts on storage stay, the session stays resumable).
      const onAbort = () => task.pause();
      signal.addEventListener('abort', onAbort, { once: true });
      return task.run().then(() => {
        signal.removeEventListener('abort', onAbort);
        if (task.status === 'success' && task.result) return { instanceId: task.result.instanceId };
        if (signal.aborted) throw new DOMException('paused', 'AbortError');
        throw task.error ?? Object.assign(new Error('upload failed'), { code: 'UPLOAD_FAILED' });
      });
    },
    async discard(job) {
      const deps = await depsPromise;
      // A fresh task with the same identity finds the local record and ends the server session (abort + cleanup).
      const task = new UploadTask({ id: job.uid, source: fileSource(job.file), target: target(job) }, deps);
      await task.delete();
    },
  };
}
