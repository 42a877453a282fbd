import type { DownloadTask } from './download.ts';
import { DOWNLOAD_QUEUE_STATES, TransferQueue, UPLOAD_QUEUE_STATES } from './queue.ts';
import type { DownloadStatus, UploadStatus } from './state-machine.ts';
import type { UploadTask } from './upload.ts';

/** Uploads, `concurrency` files at a time (web: 1, the spec's rule; CLI: --concurrency). */
export const createUploadQueue = (opts: { concurrency?: number } = {}) => new TransferQueue<UploadStatus, UploadTask>(UPLOAD_QUEUE_STATES, opts);
export const createDownloadQueue = (opts: { concurrency?: number } = {}) => new TransferQueue<DownloadStatus, DownloadTask>(DOWNLOAD_QUEUE_STATES, opts);
