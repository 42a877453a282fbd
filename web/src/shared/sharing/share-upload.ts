// Uploads through a public upload link with the same resumable engine as signed-in uploads. The anonymous upload
// calls (/hcs/services/API/...) have the signed-in calls' shapes (contract: paths/upload.yaml share*), so the
// engine's own control plane is used with a fetch that sends its calls there with the visitor's share token
// instead of a session. Loaded only when a visitor uploads: the public page stays light.
import { createHcsClient } from '@hcs/openapi/client';
import { createEngineDeps, createFileSource, createHcsControlPlane, createResumeStore, UploadTask } from '@hcs/transfer-core/browser';

const SIGNED_IN = '/hcs/controller/API/';
const ANONYMOUS = '/hcs/services/API/';

/** A fetch that moves the engine's upload calls to their anonymous twins and carries the share token. */
export function shareFetch(token: () => string, base: typeof fetch = fetch): (input: Request) => Promise<Response> {
  return async (input: Request) => {
    const url = new URL(input.url);
    if (url.pathname.startsWith(SIGNED_IN)) url.pathname = ANONYMOUS + url.pathname.slice(SIGNED_IN.length);
    const headers = new Headers(input.headers);
    headers.set('shareToken', token());
    const body = input.method === 'GET' || input.method === 'HEAD' ? undefined : await input.arrayBuffer();
    return base(new Request(url, { method: input.method, headers, body, signal: input.signal, credentials: 'omit' }));
  };
}

export interface ShareUploader {
  upload(file: File, parentId: string | undefined, onProgress: (loaded: number) => void): Promise<void>;
}

export function createShareUploader(link: string, token: () => string): ShareUploader {
  const client = createHcsClient({ baseUrl: window.location.origin, credentials: 'omit', fetch: shareFetch(token) as typeof fetch });
  // One resume database per link: a visitor's unfinished uploads resume after a reload, and never into another link.
  const deps = createEngineDeps({ controlPlane: createHcsControlPlane(client), resumeStore: createResumeStore(`hcs-share-uploads:${link}`), platformId: 'NetDisk' });
  return {
    async upload(file, parentId, onProgress) {
      const task = new UploadTask({ source: createFileSource(file, file.name), target: { parentId, conflict: 'keepBoth' } }, deps);
      task.events.on('progress', (p) => onProgress(p.loaded));
      await task.run();
      if (task.status !== 'success') throw task.error ?? new Error(task.status);
    },
  };
}
