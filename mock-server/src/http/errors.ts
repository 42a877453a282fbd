// One error type for every failure a handler can raise; the error handler maps it to the envelope. The codes and
// their HTTP statuses are the contract's (ErrorCode and its x-hcs-status), so a code the server raises and the
// clients do not know cannot be written.
import { errorStatus, type ErrorCode } from '@hcs/openapi/operations';

export type { ErrorCode };

const STATUS: Readonly<Record<ErrorCode, number>> = errorStatus;

/** ret values the spec gives meaning to; everything else fails with ret 1. */
const RET: Partial<Record<ErrorCode, number>> = { HASH_MISMATCH: 404 };

export class AppError extends Error {
  readonly code: ErrorCode;
  readonly status: number;
  readonly ret: number;
  readonly fields: { field: string; message: string }[] | undefined;
  readonly retryAfterSeconds: number | undefined;
  constructor(
    code: ErrorCode,
    message: string,
    extra: { status?: number; ret?: number; fields?: { field: string; message: string }[]; retryAfterSeconds?: number } = {},
  ) {
    super(message);
    this.name = 'AppError';
    this.code = code;
    this.status = extra.status ?? STATUS[code];
    this.ret = extra.ret ?? RET[code] ?? 1;
    this.fields = extra.fields;
    this.retryAfterSeconds = extra.retryAfterSeconds;
  }
}

export const fail = (code: ErrorCode, message: string, extra?: ConstructorParameters<typeof AppError>[2]): never => {
  throw new AppError(code, message, extra);
};
