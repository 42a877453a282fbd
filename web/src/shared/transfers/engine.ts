// The seam between the transfer UI and the shared engine (@hcs/transfer-core). The store schedules the engine's own
// tasks on the engine's own queues; it only needs to create them, which the browser wiring (browser-engine.ts) does
// with the real adapters and the tests do with scripted tasks.
import type { DownloadStatus, QueueTask, UploadStatus } from '@hcs/transfer-core';
import type { ErrorCode } from '../../api/gen/model/errorCode.ts';

export type { DownloadStatus, UploadStatus } from '@hcs/transfer-core';

export type ConflictChoice = 'newVersion' | 'keepBoth';

export interface UploadJob {
  uid: string;
  file: File;
  /** Target name (plain text; the engine's control plane encodes it). */
  name: string;
  /** The resume identity recorded when the upload was queued, so a restored File finds its resume record. */
  identity?: string;
  parentId: string;
  instanceType: string;
  libCode: string;
  conflict: ConflictChoice;
  /** A business library file's classifier and attribute values, saved with it. */
  attrs?: { classifierId: string; values: Record<string, string | number | null> };
}

/** An engine UploadTask as the store sees it. */
export interface UploadTaskLike extends QueueTask<UploadStatus> {
  readonly result: { instanceId: string } | undefined;
}

/** An engine DownloadTask as the store sees it. */
export interface DownloadTaskLike extends QueueTask<DownloadStatus> {
  networkLost(): void;
  /**
   * Makes the picked file writable again before a paused download continues: asks for permission when the browser
   * dropped it (after a reload; needs the user's click) and checks the file still exists. Rejects with a
   * DownloadTargetError. Absent where there is nothing to check.
   */
  prepare?(): Promise<void>;
}

export interface DownloadJob {
  uid: string;
  instanceId: string;
  /** Where the bytes go: the file the user picked (File System Access API). */
  handle: FileSystemFileHandle;
  /** Brought back from a previous page load: the task starts paused and continues from its saved parts. */
  restored?: true;
  /** Not one file but the server's zip of these instances (a folder, or several items), named `name`.zip. */
  zip?: { ids: string[]; name: string };
}

/** The picked file cannot be written: permission refused, or the file is gone. */
export class DownloadTargetError extends Error {
  readonly code: 'DOWNLOAD_PERMISSION' | 'DOWNLOAD_TARGET_MISSING';
  readonly messageKey: string;
  constructor(code: 'DOWNLOAD_PERMISSION' | 'DOWNLOAD_TARGET_MISSING', options?: { cause?: unknown }) {
    super(code === 'DOWNLOAD_PERMISSION' ? 'write permission for the picked file was refused' : 'the picked file no longer exists', options);
    this.name = 'DownloadTargetError';
    this.code = code;
    this.messageKey = `transfer.error.${code}`;
  }
}

export interface TransferEngine {
  createUpload(job: UploadJob): UploadTaskLike;
  createDownload(job: DownloadJob): DownloadTaskLike;
  /** The resume identity the engine gives this file (stored with the queued upload). */
  identityOf(file: File, name: string): string;
}

/** What the UI can say about a failure: an i18n key, and what the server answered (its code, its message). */
export interface TransferFailure {
  key: string;
  code: string;
  /** The envelope's data.code when a server answer caused the failure: the UI words it from the locale files. */
  serverCode?: string;
  serverMessage?: string;
}

const envelopeCode = (e: unknown): string | undefined => {
  const x = e as { code?: unknown; ret?: unknown; status?: unknown } | null;
  return x && typeof x.code === 'string' && typeof x.ret === 'number' && typeof x.status === 'number' ? x.code : undefined;
};

/** Maps engine/HTTP errors onto the spec 8 message keys (transfer.error.<code>). */
export function describeFailure(err: unknown): TransferFailure {
  const e = err as { code?: unknown; messageKey?: unknown; serverMessage?: unknown; message?: unknown; ret?: unknown };
  const code = typeof e?.code === 'string' ? e.code : 'UPLOAD_FAILED';
  let key = typeof e?.messageKey === 'string' ? e.messageKey : `transfer.error.${KNOWN_HTTP_CODES[code as ErrorCode] ?? 'UPLOAD_FAILED'}`;
  // Spec 8: space-not-enough says "group" for group files.
  if (code === '002' && (err as { group?: unknown })?.group === true) key = 'transfer.error.002group';
  const serverMessage =
    typeof e?.serverMessage === 'string' ? e.serverMessage : typeof e?.ret === 'number' && typeof e?.message === 'string' ? e.message : undefined;
  const serverCode = envelopeCode(err) ?? envelopeCode((err as { cause?: unknown } | null)?.cause);
  return { key, code, ...(serverCode ? { serverCode } : {}), ...(serverMessage !== undefined ? { serverMessage } : {}) };
}

/** Envelope codes (the contract's) and the engine's own network codes that have a spec 8 counterpart. */
const KNOWN_HTTP_CODES: Readonly<Partial<Record<ErrorCode | 'NETWORK' | 'TIMEOUT', string>>> = {
  SPACE_NOT_ENOUGH: '002',
  HASH_MISMATCH: '202',
  NETWORK: 'NETWORK',
  TIMEOUT: 'TIMEOUT',
  UPLOAD_SESSION_MISSING: 'PART_INFO_LOST',
  STORAGE_ERROR: 'REQUEST',
};
