// Every transfer error of spec section 8 as a class with a stable code. UIs map `code` to an i18n key
// (`messageKey`); `cause` keeps the underlying HcsError/TransportError for logs and support.

export interface TransferErrorOptions {
  cause?: unknown;
  /** Server message to show as-is (the spec shows the envelope's msg on some failures). */
  serverMessage?: string;
}

export class TransferError extends Error {
  readonly code: string;
  readonly messageKey: string;
  readonly serverMessage: string | undefined;
  constructor(code: string, message: string, opts: TransferErrorOptions = {}, messageKey = `transfer.error.${code}`) {
    super(`[${code}] ${message}`, opts.cause === undefined ? undefined : { cause: opts.cause });
    this.name = new.target.name;
    this.code = code;
    this.messageKey = messageKey;
    this.serverMessage = opts.serverMessage;
  }
}

function define(code: string, message: string) {
  return class extends TransferError {
    static readonly code = code;
    constructor(opts: TransferErrorOptions = {}) {
      super(code, message, opts);
    }
  };
}

/** [002]; `group` when the target is a group folder (spec: "prefixed group for group files"). */
export class SpaceNotEnoughError extends TransferError {
  static readonly code = '002';
  readonly group: boolean;
  constructor(opts: TransferErrorOptions & { group?: boolean } = {}) {
    super('002', `${opts.group ? 'group ' : ''}space not enough`, opts);
    this.group = opts.group ?? false;
  }
}
export class HashError extends define('102', 'browser memory insufficient, md5 calculation failed') {}
export class SigningError extends define('201', 'failed to obtain authentication information') {}
export class FileVerificationError extends define('202', 'file verification failed') {}
export class MergeSigningError extends define('203', 'failed to get merge authentication') {}
export class InitMultipartError extends define('301', 'failed to initialize sharding') {}
export class DirectUploadError extends define('302', 'direct upload failed') {}
export class PartUploadError extends define('303', 'upload timeout / upload S3 parts failed') {}
export class PartInfoError extends define('304', 'failed to obtain partition information') {}
export class CdnFragmentError extends define('305', 'failed to upload CDN fragment') {}
/** Encryption point generation failed (the spec's 'Array out of bounds'). */
export class EncryptionPointError extends define('ARRAY_OUT_OF_BOUNDS', 'Array out of bounds') {}
/** The local file vanished, shrank or changed size during the transfer. */
export class FileMissingError extends define('FILE_MISSING', 'file information missing') {}
export class PartInfoLostError extends define('PART_INFO_LOST', 'uploaded file lost part information') {}
export class CdnSaveError extends define('CDN_SAVE_FAILED', 'failed to save CDN fragmentation information') {}
/** save-instance ret 2. */
export class UploadSecurityError extends define('UPLOAD_SECURITY', 'upload refused by the upload security check') {}
/** uploadflag 4, second-transfer ret 1 and any other refusal the server explains in msg. */
export class UploadFailedError extends define('UPLOAD_FAILED', 'upload failed') {}
/** Above the 80 GB limit (spec 5: transfer.moreThan80GB / transfer.over80G). */
export class FileTooLargeError extends TransferError {
  static readonly code = 'TOO_LARGE';
  constructor(opts: TransferErrorOptions = {}) {
    super('TOO_LARGE', 'file larger than 80 GB', opts, 'transfer.moreThan80GB');
  }
}
export class DownloadInfoError extends define('DOWNLOAD_INFO', 'get file information failed') {}
/** A download whose SHA-256 does not match the server's; the partial data is discarded. */
export class DownloadVerificationError extends define('202', 'file verification failed') {}
/** A storage or control-plane request failed after its retries (the spec's download "refresh" state). */
export class RequestError extends define('REQUEST', 'request exception') {}
export class NetworkError extends define('NETWORK', 'Network Error') {}
export class TimeoutError extends define('TIMEOUT', 'requestTimedOut') {}

/** A non-2xx answer from storage, with the S3 error code when the body had one. */
export class StorageHttpError extends Error {
  readonly status: number;
  readonly s3Code: string | undefined;
  constructor(status: number, s3Code?: string, message?: string) {
    super(`storage answered HTTP ${status}${s3Code ? ` ${s3Code}` : ''}${message ? `: ${message}` : ''}`);
    this.name = 'StorageHttpError';
    this.status = status;
    this.s3Code = s3Code;
  }
}

/** Whether err is the cancellation of our own AbortSignal (pause/delete), which is never an error to report. */
export function isAbort(err: unknown, signal?: AbortSignal): boolean {
  if (signal?.aborted && !(signal.reason instanceof TimeoutError)) return true;
  return err instanceof Error && err.name === 'AbortError';
}
