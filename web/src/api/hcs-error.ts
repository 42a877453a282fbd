// Web-side error type for /hcs calls (same fields as the CLI's HcsError in @hcs/openapi/client).
export class HcsError extends Error {
  readonly status: number;
  readonly ret: number;
  readonly code: string;
  readonly traceId: string | undefined;
  readonly retryAfterSeconds: number | undefined;
  constructor(status: number, ret: number, msg: string, code: string, traceId?: string, retryAfterSeconds?: number) {
    super(msg || code);
    this.name = 'HcsError';
    this.status = status;
    this.ret = ret;
    this.code = code;
    this.traceId = traceId;
    this.retryAfterSeconds = retryAfterSeconds;
  }
}

export function newTraceId(): string {
  const bytes = new Uint8Array(12);
  crypto.getRandomValues(bytes);
  return Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');
}
