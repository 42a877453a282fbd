// What the CLI's bulk jobs see of a transfer: requests, results, the Transfer interface and TransferError.
// Its own module so that the engine adapter (./transfer-core-adapter.ts) and the factory that picks it
// (./transfer.ts) both depend on it without depending on each other.

/** A job-level failure with a stable code (unsafe paths and the like; engine errors carry their own codes). */
export class TransferError extends Error {
  readonly code: string;
  constructor(code: string, message: string) {
    super(message);
    this.name = 'TransferError';
    this.code = code;
  }
}

export type Phase = 'hashing' | 'transferring' | 'verifying';

export interface UploadRequest {
  /** Absolute local path. */
  path: string;
  size: number;
  /** Plain remote name (the transfer encodes it for the wire). */
  name: string;
  parentId: string;
  conflict: 'newVersion' | 'keepBoth';
  /** Known SHA-256 from the hash cache; the transfer hashes the file itself when absent. */
  sha256?: string;
  /** Upload session of an earlier, interrupted run of this file (from the job state). */
  resumeFId?: string;
  signal: AbortSignal;
  onProgress(loaded: number, total: number, phase: Phase): void;
  /** The hash is known (store it in the cache before the network part starts). */
  onHashed?(sha256: string): void;
  /** A server upload session exists for this file (store it so a crash can resume it). */
  onSession?(fId: string): void;
}

export interface UploadResult {
  instanceId: string;
  /** The content was already stored: registered by instant transfer with proof of possession. */
  instant: boolean;
  sha256: string;
  /** Bytes actually sent to storage by this run (0 for instant transfer). */
  bytesSent: number;
}

export interface DownloadRequest {
  instanceId: string;
  /** Final local path; partial data lives beside it until the hash verifies. */
  dest: string;
  signal: AbortSignal;
  onProgress(loaded: number, total: number, phase: Phase): void;
}

export interface DownloadResult {
  sha256: string;
  bytes: number;
  /** Bytes fetched by this run (less than bytes when a partial download resumed). */
  bytesFetched: number;
}

/** One small file of a bulk request (see @hcs/transfer-core's uploadBatch). */
export interface BatchFile {
  path: string;
  size: number;
  name: string;
  parentId: string;
}

export interface BatchFileResult {
  outcome: 'uploaded' | 'instant' | 'skipped' | 'failed';
  instanceId?: string;
  sha256?: string;
  bytesSent: number;
  /** With failed: the engine's typed error (spec section 8 code). */
  error?: Error & { code?: string };
}

export interface Transfer {
  upload(req: UploadRequest): Promise<UploadResult>;
  /** Small files (<= maxBatchFileSize) in one request; rejects only when the request as a whole failed. */
  uploadBatch(files: BatchFile[], conflict: 'newVersion' | 'keepBoth' | 'skip', signal: AbortSignal): Promise<BatchFileResult[]>;
  readonly maxBatchFileSize: number;
  download(req: DownloadRequest): Promise<DownloadResult>;
}
