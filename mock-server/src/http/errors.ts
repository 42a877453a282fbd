// One error type for every failure a handler can raise; the error handler maps it to the envelope.
export type ErrorCode =
  | 'BAD_REQUEST'
  | 'UNAUTHENTICATED'
  | 'FORBIDDEN'
  | 'CSRF_HEADER_MISSING'
  | 'NOT_FOUND'
  | 'CONFLICT'
  | 'NAME_INVALID'
  | 'NAME_EXISTS'
  | 'VALIDATION_FAILED'
  | 'PAYLOAD_TOO_LARGE'
  | 'REQUEST_TIMEOUT'
  | 'RATE_LIMITED'
  | 'NOT_IMPLEMENTED'
  | 'METHOD_NOT_ALLOWED'
  | 'ACCOUNT_FROZEN'
  | 'ACCOUNT_EXPIRED'
  | 'LOGIN_FAILED'
  | 'CAPTCHA_REQUIRED'
  | 'CAPTCHA_INVALID'
  | 'PASSWORD_POLICY'
  | 'PASSWORD_WRONG'
  | 'SPACE_NOT_ENOUGH'
  | 'HASH_MISMATCH'
  | 'PROOF_REJECTED'
  | 'UPLOAD_SESSION_MISSING'
  | 'TOO_MANY_UPLOADS'
  | 'STORAGE_ERROR'
  | 'INTERNAL';

const STATUS: Record<ErrorCode, number> = {
  BAD_REQUEST: 400,
  UNAUTHENTICATED: 401,
  FORBIDDEN: 403,
  CSRF_HEADER_MISSING: 403,
  NOT_FOUND: 404,
  CONFLICT: 409,
  NAME_INVALID: 422,
  NAME_EXISTS: 409,
  VALIDATION_FAILED: 422,
  PAYLOAD_TOO_LARGE: 413,
  REQUEST_TIMEOUT: 408,
  RATE_LIMITED: 429,
  NOT_IMPLEMENTED: 501,
  METHOD_NOT_ALLOWED: 405,
  ACCOUNT_FROZEN: 403,
  ACCOUNT_EXPIRED: 403,
  LOGIN_FAILED: 401,
  // A wrong password past the failure threshold: the next attempt is held back unless it carries a solved CAPTCHA.
  CAPTCHA_REQUIRED: 401,
  CAPTCHA_INVALID: 401,
  PASSWORD_POLICY: 422,
  PASSWORD_WRONG: 403,
  SPACE_NOT_ENOUGH: 409,
  HASH_MISMATCH: 409,
  PROOF_REJECTED: 403,
  UPLOAD_SESSION_MISSING: 404,
  TOO_MANY_UPLOADS: 409,
  STORAGE_ERROR: 502,
  INTERNAL: 500,
};

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
