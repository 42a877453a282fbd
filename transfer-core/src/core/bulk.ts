// Small files in bulk: many files per bulk-upload request (contract extension) instead of four round trips each
// (upload-ability, signing, PUT, save). The server hashes and files every file itself, so the engine's part is to
// read each file once, hash the bytes it sends, group files into requests within the server's limits, and map
// the per-file answers to the typed errors of spec section 8.
import type { BulkUploadFile, FileSource } from '../ports/index.ts';
import type { EngineDeps } from './engine-options.ts';
import { systemClock } from './clock.ts';
import {
  FileMissingError,
  FileVerificationError,
  isAbort,
  NetworkError,
  SpaceNotEnoughError,
  TransferError,
  UploadFailedError,
} from './errors.ts';
import { asTransferError } from './hcs-errors.ts';
import { withRetry } from './retry.ts';

/** The server's limits (contract: BulkUploadFile.fSize, BulkUploadManifest.files, one request's bytes). */
export const BULK_MAX_FILE_SIZE = 1024 * 1024;
export const BULK_MAX_FILES = 1000;
export const BULK_MAX_BYTES = 64 * 1024 * 1024;

export interface BulkEntry {
  source: FileSource;
  /** Target folder of this file (the request's default when omitted). */
  parentId?: string;
}

export interface BulkEntryResult {
  outcome: 'uploaded' | 'instant' | 'skipped' | 'failed';
  instanceId?: string;
  /** SHA-256 of the bytes sent (undefined when the file could not be read). */
  sha256?: string;
  error?: TransferError;
  /** Bytes put on the wire for this file. */
  bytesSent: number;
}

export interface BulkOptions {
  conflict: 'keepBoth' | 'newVersion' | 'skip';
  parentId?: string;
  category?: string;
  instanceType?: string;
}

/** Splits items into requests of at most `maxFiles` files and `maxBytes` bytes, keeping their order. */
export function planBatches<T>(items: readonly T[], sizeOf: (item: T) => number, maxFiles = 256, maxBytes = 8 * 1024 * 1024): T[][] {
  const files = Math.max(1, Math.min(maxFiles, BULK_MAX_FILES));
  const bytes = Math.min(maxBytes, BULK_MAX_BYTES);
  const out: T[][] = [];
  let cur: T[] = [];
  let curBytes = 0;
  for (const item of items) {
    const size = sizeOf(item);
    if (cur.length > 0 && (cur.length >= files || curBytes + size > bytes)) {
      out.push(cur);
      cur = [];
      curBytes = 0;
    }
    cur.push(item);
    curBytes += size;
  }
  if (cur.length > 0) out.push(cur);
  return out;
}

function errorOf(code: string | undefined, msg: string | undefined): TransferError {
  const opts = { serverMessage: msg, cause: new Error(`${code ?? 'failed'}: ${msg ?? ''}`) };
  if (code === 'HASH_MISMATCH') return new FileVerificationError(opts);
  if (code === 'SPACE_NOT_ENOUGH') return new SpaceNotEnoughError(opts);
  return new UploadFailedError(opts);
}

/**
 * Uploads one batch (see planBatches) in one request. Never rejects for one file's problem: each result carries
 * its outcome. Rejects (with a TransferError) when the request as a whole failed; then nothing was filed, unless
 * the connection broke after the server received everything (NetworkError): the caller must check before
 * sending those files again with keepBoth.
 */
export async function uploadBatch(entries: readonly BulkEntry[], opts: BulkOptions, deps: EngineDeps, signal: AbortSignal): Promise<BulkEntryResult[]> {
  const cp = deps.controlPlane;
  if (!cp.bulkUpload) throw new Error('this control plane has no bulkUpload');
  const results: BulkEntryResult[] = entries.map(() => ({ outcome: 'failed', bytesSent: 0 }));
  const files: BulkUploadFile[] = [];
  const bodies: Uint8Array[] = [];
  const sent: number[] = [];
  for (let i = 0; i < entries.length; i++) {
    const { source, parentId } = entries[i]!;
    signal.throwIfAborted();
    try {
      if (source.size > BULK_MAX_FILE_SIZE) throw new UploadFailedError({ cause: new Error(`${source.size} bytes is over the bulk limit`) });
      const bytes = source.size === 0 ? new Uint8Array(0) : await source.read(0, source.size, signal);
      if (bytes.byteLength !== source.size) throw new FileMissingError({ cause: new Error(`read ${bytes.byteLength} of ${source.size} bytes`) });
      const hasher = await deps.hasherFactory.create();
      await hasher.update(bytes);
      const sha256 = await hasher.digest();
      results[i]!.sha256 = sha256;
      files.push({ name: source.name, size: source.size, sha256, parentId });
      bodies.push(bytes);
      sent.push(i);
    } catch (err) {
      if (isAbort(err, signal)) throw err;
      results[i]!.error = err instanceof TransferError ? err : new FileMissingError({ cause: err });
    }
  }
  if (files.length === 0) return results;
  const answers = await withRetry(
    () =>
      cp.bulkUpload!({ parentId: opts.parentId, category: opts.category, instanceType: opts.instanceType, conflict: opts.conflict, files, bodies }, signal).catch((err) => {
        // No answer at all is ambiguous (the server may have filed everything): not retried here.
        if (err instanceof TypeError) throw new NetworkError({ cause: err });
        throw err;
      }),
    { clock: deps.clock ?? systemClock, signal, onUnauthorized: deps.onUnauthorized, baseDelayMs: deps.retryBaseMs },
  ).catch((err) => {
    if (isAbort(err, signal)) throw err;
    throw asTransferError(err, UploadFailedError);
  });
  answers.forEach((a, k) => {
    const i = sent[k]!;
    const r = results[i]!;
    r.outcome = a.outcome;
    r.instanceId = a.instanceId;
    r.bytesSent = files[k]!.size;
    if (a.outcome === 'failed') r.error = errorOf(a.code, a.msg);
  });
  return results;
}
