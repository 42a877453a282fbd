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
  UploadTask,
  type EngineDeps,
  type FileSource,
} from '@hcs/transfer-core/browser';
import { getUserInfo } from '../../app/session.ts';
import type { TransferEngine, UploadJob } from './engine.ts';

export function createBrowserEngine(owner: string): TransferEngine {
  const client = createHcsClient({ baseUrl: window.location.origin, credentials: 'same-origin', userName: () => getUserInfo()?.userName });
  // One resume database per user: another user on this browser never resumes onto (or deletes) these sessions.
  const deps: EngineDeps = createEngineDeps({
    controlPlane: createHcsControlPlane(client),
    resumeStore: createResumeStore(`hcs-transfers:${owner}`),
    platformId: 'NetDisk',
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
        { id: job.uid, source: source(job), target: { parentId: job.parentId, instanceType: job.instanceType, category: job.libCode, conflict: job.conflict } },
        deps,
      ),
    createDownload: (job) => new DownloadTask({ id: job.uid, instanceId: job.instanceId, sinks: createDownloadSinkFactory(async () => job.handle) }, deps),
    identityOf: (file, name) => createFileSource(file, name).identity,
  };
}
