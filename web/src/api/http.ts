// The one place web requests go through (orval's mutator): adds the common /hcs headers, sends the session
// cookie, applies the request timeout, unwraps the {ret, msg, data} envelope and turns failures into HcsError.
import { HcsError, newTraceId } from './hcs-error.ts';

export const REQUEST_TIMEOUT_MS = 120_000;

export interface HttpHooks {
  /**
   * Called for every failure before it is thrown (toasts, 401 reload, 302 redirect...). `quiet`: the caller shows
   * this failure itself (inline, or as the page's own state), so only what concerns the whole session applies.
   */
  onError?: (err: HcsError, quiet: boolean) => void;
  userName?: () => string | undefined;
}

const hooks: HttpHooks = {};
export function setHttpHooks(h: HttpHooks): void {
  Object.assign(hooks, h);
}

/** `quiet`: the caller reports a failure itself (see HttpHooks.onError). */
export type HcsRequestInit = RequestInit & { quiet?: boolean };

export async function hcsFetch<T>(url: string, options?: HcsRequestInit): Promise<T> {
  const { quiet = false, ...init } = options ?? {};
  const headers = new Headers(init.headers);
  // orval's fetch client writes every non-binary body with JSON.stringify, a text/* one too (importUsers' CSV): that
  // is a JSON string literal here, and the server must get the text itself.
  if (/^text\//.test(headers.get('Content-Type') ?? '') && typeof init.body === 'string') init.body = textBody(init.body);
  headers.set('X-Requested-With', 'XMLHttpRequest');
  headers.set('traceId', newTraceId());
  const user = hooks.userName?.();
  if (user) headers.set('userName', encodeURIComponent(user));
  const timeout = AbortSignal.timeout(REQUEST_TIMEOUT_MS);
  const signal = init.signal ? AbortSignal.any([init.signal, timeout]) : timeout;
  let res: Response;
  try {
    res = await fetch(url, { ...init, headers, signal, credentials: 'same-origin', redirect: 'manual' });
  } catch {
    const err =
      timeout.aborted && !(init.signal?.aborted ?? false)
        ? new HcsError(0, -1, 'requestTimedOut', 'TIMEOUT')
        : init.signal?.aborted
          ? new HcsError(0, -1, 'aborted', 'ABORTED')
          : new HcsError(0, -1, 'Network Error', 'NETWORK');
    if (err.code !== 'ABORTED') hooks.onError?.(err, quiet);
    throw err;
  }
  if (res.type === 'opaqueredirect' || res.status === 302) {
    const err = new HcsError(302, 302, 'redirect', 'REDIRECT');
    hooks.onError?.(err, quiet);
    throw err;
  }
  const text = await res.text();
  let body: { ret?: number; msg?: string; data?: unknown } | undefined;
  try {
    body = text ? JSON.parse(text) : undefined;
  } catch {
    body = undefined;
  }
  if (res.ok && body && body.ret === 0) return body as T;
  const data = (body?.data ?? {}) as { code?: string; traceId?: string; retryAfterSeconds?: number };
  const err = new HcsError(
    res.status,
    typeof body?.ret === 'number' ? body.ret : res.status,
    // No envelope (a proxy's error page): the code says what happened, statusText is no message for users.
    body?.msg ?? '',
    typeof data.code === 'string' ? data.code : `HTTP_${res.status}`,
    data.traceId,
    data.retryAfterSeconds,
  );
  hooks.onError?.(err, quiet);
  throw err;
}

function textBody(body: string): string {
  try {
    const v: unknown = JSON.parse(body);
    return typeof v === 'string' ? v : body;
  } catch {
    return body;
  }
}

export default hcsFetch;
