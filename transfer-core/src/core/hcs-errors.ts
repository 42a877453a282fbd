import { isAbort, RequestError, TransferError, type TransferErrorOptions } from './errors.ts';

/** Shape of HcsError from @hcs/openapi/client, matched structurally so the core needs no runtime import of it. */
export interface HcsErrorLike {
  status: number;
  ret: number;
  code: string;
  message: string;
}

export function isHcsError(err: unknown): err is HcsErrorLike {
  return !!err && typeof err === 'object' && 'ret' in err && 'code' in err && 'status' in err;
}

/** save-instance's hash-mismatch answer (spec 8: ret 404 marks the hash wrong). */
export function isHashMismatch(err: unknown): boolean {
  return isHcsError(err) && (err.code === 'HASH_MISMATCH' || (err.ret === 404 && err.status !== 404));
}

/** A session the server no longer knows (expired, finished or destroyed). */
export function isSessionMissing(err: unknown): boolean {
  return isHcsError(err) && (err.code === 'UPLOAD_SESSION_MISSING' || err.code === 'NOT_FOUND');
}

/** Wraps any failure into a TransferError of the given class (keeps existing TransferErrors as they are). */
export function asTransferError(err: unknown, E: new (opts?: TransferErrorOptions) => TransferError = RequestError): TransferError {
  if (err instanceof TransferError) return err;
  if (isAbort(err)) return new RequestError({ cause: err });
  return new E({ cause: err, serverMessage: isHcsError(err) ? err.message : undefined });
}
