// One place that turns the typed /hcs client's failures into CLI exit codes, so every command reports
// "not signed in", "server unreachable" and "refused" the same way.
import { createHcsClient, HcsError, unwrap, type HcsClient } from '@hcs/openapi/client';
import type { ErrorCode } from '@hcs/openapi/operations';
import { CliError, EXIT } from './exit-codes.ts';
import type { Settings } from './settings.ts';

export { HcsError, unwrap };
export type { HcsClient };

export interface Api {
  client: HcsClient;
  server: string;
  /** Runs one call and unwraps its envelope; failures become CliError with the right exit code. */
  call<T extends { ret: number; msg: string; data?: unknown }>(
    fn: (c: HcsClient) => Promise<{ data?: T; error?: unknown; response: Response }>,
  ): Promise<T>;
}

/** The contract's codes that mean "sign in again" (exit code EXIT.AUTH). */
const AUTH_CODES: ReadonlySet<string> = new Set<ErrorCode>(['UNAUTHENTICATED', 'ACCOUNT_FROZEN', 'ACCOUNT_EXPIRED', 'LOGIN_FAILED', 'CAPTCHA_REQUIRED', 'CAPTCHA_INVALID']);

/** Maps any failure of a /hcs call (or of a storage request) to a CliError. */
export function toCliError(err: unknown): CliError {
  if (err instanceof CliError) return err;
  if (err instanceof HcsError) {
    if (err.status === 401 || AUTH_CODES.has(err.code)) {
      const hint = err.code === 'UNAUTHENTICATED' ? ' (run `drive login`)' : '';
      return new CliError(EXIT.AUTH, `${err.message}${hint}`, err.code);
    }
    if (err.status === 502 || err.status === 503 || err.status === 504) {
      return new CliError(EXIT.UNREACHABLE, `server unavailable (HTTP ${err.status})`, err.code);
    }
    const trace = err.traceId ? ` [trace ${err.traceId}]` : '';
    return new CliError(EXIT.REFUSED, `${err.message} (${err.code})${trace}`, err.code);
  }
  if (isNetworkError(err)) {
    const cause = (err as { cause?: { code?: string; message?: string } }).cause;
    return new CliError(EXIT.UNREACHABLE, `cannot reach the server: ${cause?.code ?? cause?.message ?? (err as Error).message}`, 'UNREACHABLE');
  }
  const msg = err instanceof Error ? err.message : String(err);
  return new CliError(EXIT.REFUSED, msg, 'ERROR');
}

/** fetch() rejects with a TypeError whose cause carries the socket error. */
export function isNetworkError(err: unknown): boolean {
  if (!(err instanceof Error)) return false;
  if (err.name === 'AbortError') return false;
  const cause = (err as { cause?: { code?: string } }).cause;
  return (err instanceof TypeError && /fetch failed|network/i.test(err.message)) || typeof cause?.code === 'string' && /^E(CONN|HOST|NET|AI_|PIPE|TIMEDOUT)|UND_ERR/.test(cause.code);
}

export function createApi(settings: Settings, opts: { requireAuth?: boolean; fetch?: typeof fetch } = {}): Api {
  const server = settings.server;
  if (!server) throw new CliError(EXIT.USAGE, 'no server: pass --server URL, set HCS_SERVER, or run `drive login --server URL`', 'USAGE');
  if (opts.requireAuth !== false && !settings.token) {
    throw new CliError(EXIT.AUTH, `not signed in to ${server}: run \`drive login\` or set HCS_TOKEN`, 'UNAUTHENTICATED');
  }
  const client = createHcsClient({
    baseUrl: server,
    token: () => settings.token,
    userName: () => settings.userName,
    fetch: opts.fetch,
  });
  return {
    client,
    server,
    async call(fn) {
      try {
        return unwrap(await fn(client));
      } catch (err) {
        throw toCliError(err);
      }
    },
  };
}
