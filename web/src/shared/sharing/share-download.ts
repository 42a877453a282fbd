// Public-page file downloads through the engine's DownloadTask, as signed-in downloads run: ranged parts, retried and
// resumed, SHA-256 verified against the server's hash, written into the file the visitor picked. Only where the
// bytes come from differs: a visitor gets no storage signature for reads, so the engine's storage GETs go to the
// server's shareDownload stream (ranged; the link is checked on every request) under a grant triggerShareLimit
// took, which counts the download once for the visitor's token. Loaded only when a visitor downloads.
import { createEngineDeps, createResumeStore, createTransport, type ControlPlane, type Transport } from '@hcs/transfer-core/browser';
import { shareGetDownloadFileInfo, triggerShareLimit } from '../../api/gen/shares/shares.ts';
import { createPickedFileDownload } from '../transfers/browser-engine.ts';
import type { DownloadTaskLike } from '../transfers/engine.ts';

/** A visitor call with the share token (the page renews a token the server stopped accepting). */
export type VisitorCall = <T>(fn: (headers: { shareToken: string }) => Promise<T>) => Promise<T>;

const notForVisitors = async (): Promise<never> => {
  throw new Error('not part of a visitor download');
};

/** The engine's control plane for one link's visitor: download information and reads only. */
export function visitorControlPlane(call: VisitorCall): ControlPlane {
  /** The grant's URL for the current token: a renewed token takes (and counts) its own grant. */
  const grantUrl = async (instanceId: string): Promise<string> => {
    const grant = (await call((headers) => triggerShareLimit({ instanceId }, { headers, quiet: true }))).data;
    if (!grant) throw new Error('no download grant');
    return new URL(grant.url, window.location.origin).toString();
  };
  return {
    checkFileExist: notForVisitors,
    getFileUploadable: notForVisitors,
    secondTransfer: notForVisitors,
    initPartInfo: notForVisitors,
    setPartInfo: notForVisitors,
    getPartInfo: notForVisitors,
    deletePartInfo: notForVisitors,
    destroyPartInfo: notForVisitors,
    saveInstance: notForVisitors,
    getCloudProvider: notForVisitors,
    async getDownloadFileInfo(q) {
      // The grant first: information about the bytes is handed out only for a counted download.
      await grantUrl(q.instanceId);
      const info = (await call((headers) => shareGetDownloadFileInfo({ instanceId: q.instanceId }, { headers, quiet: true }))).data;
      if (!info) throw new Error('no file information');
      return info;
    },
    async signStorageRequest(q) {
      if (q.action !== 'getObject' || !q.fId) return notForVisitors();
      // Not a signature: the server's own ranged stream, which the token in its URL authorizes.
      return { host: window.location.host, authorization: '', date: '', contentSha256: '', bucketName: q.bucketName, url: await grantUrl(q.fId) };
    },
  };
}

/** The engine's transport without the empty signature headers (the stream needs none). */
function withoutEmptyHeaders(base: Transport): Transport {
  return { request: (r) => base.request({ ...r, headers: Object.fromEntries(Object.entries(r.headers).filter(([, v]) => v !== '')) }) };
}

/** One visitor download of `instanceId` into `handle`; run() it, and run() again after a stop to resume its parts. */
export function createShareDownload(link: string, call: VisitorCall, instanceId: string, handle: FileSystemFileHandle): DownloadTaskLike {
  const deps = createEngineDeps({
    controlPlane: visitorControlPlane(call),
    // One resume database per link, as for a visitor's uploads.
    resumeStore: createResumeStore(`hcs-share-downloads:${link}`),
    platformId: 'NetDisk',
    transport: withoutEmptyHeaders(createTransport()),
  });
  return createPickedFileDownload({ uid: crypto.randomUUID(), instanceId, handle }, deps);
}
