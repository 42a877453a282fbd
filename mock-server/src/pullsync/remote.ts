// The other drive server a pull reads from, spoken to as any client of the /hcs contract would (the CLI's calls):
// sign-in with the remote server's own public key, Page listings, group lists and presigned downloads. Failures
// become this server's codes: the remote refusing the account is REMOTE_LOGIN_FAILED, anything that is not an /hcs
// answer is REMOTE_UNREACHABLE. Remote messages are never passed through to our clients or logs as they are.
import { Readable } from 'node:stream';
import type { ReadableStream as WebReadableStream } from 'node:stream/web';
import { createHcsClient, encryptPassword, HcsError, unwrap, type HcsClient, type components } from '@hcs/openapi/client';
import { AppError } from '../http/errors.ts';

export type RemoteInstance = components['schemas']['Instance'];
export interface RemoteGroup {
  groupId: string;
  groupName: string;
  rootId: string;
}

/** How long one remote call may take before the remote counts as unreachable (a download only to its headers). */
const CALL_TIMEOUT_MS = 60_000;
const PAGE_SIZE = 1000;
/** The remote codes that say the account may not sign in (wrong password, throttled, disabled, expired). */
const REFUSALS = new Set(['LOGIN_FAILED', 'CAPTCHA_REQUIRED', 'CAPTCHA_INVALID', 'ACCOUNT_FROZEN', 'ACCOUNT_EXPIRED', 'SSO_REQUIRED', 'UNAUTHENTICATED']);

/**
 * fetch that refuses redirects: the administrator allowed one origin (HCS_PULL_SOURCES), and a redirect from it would
 * take the server's requests anywhere, internal addresses included.
 */
function noRedirects(inner: typeof fetch): typeof fetch {
  return (input, init) => inner(input, { ...init, redirect: 'error' });
}

/** The server URL as an origin-and-path base (no trailing slash); only http(s). */
export function normaliseServerUrl(raw: string): string {
  let url: URL;
  try {
    url = new URL(raw.trim());
  } catch {
    throw new AppError('VALIDATION_FAILED', 'serverUrl is not a URL', { fields: [{ field: 'serverUrl', message: 'not a URL' }] });
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new AppError('VALIDATION_FAILED', 'serverUrl must be http or https', { fields: [{ field: 'serverUrl', message: 'not http(s)' }] });
  }
  if (url.username || url.password || url.search || url.hash) {
    throw new AppError('VALIDATION_FAILED', 'serverUrl carries no credentials, query or fragment', { fields: [{ field: 'serverUrl', message: 'not a plain base URL' }] });
  }
  return `${url.origin}${url.pathname.replace(/\/+$/, '')}`;
}

/**
 * Whether the administrator allowed pulling from this server (HCS_PULL_SOURCES): the server fetches what the URL
 * names, so an open list would let any user make it reach internal addresses.
 */
export function allowedSource(allowed: readonly string[], serverUrl: string): boolean {
  if (allowed.includes('*')) return true;
  const origin = new URL(serverUrl).origin;
  return allowed.some((a) => {
    try {
      return new URL(a).origin === origin;
    } catch {
      return false;
    }
  });
}

/** Maps a failed remote call to this server's error; `signIn` also turns account refusals into REMOTE_LOGIN_FAILED. */
export function remoteError(err: unknown, signIn = false): AppError {
  if (err instanceof AppError) return err;
  if (err instanceof HcsError) {
    if (REFUSALS.has(err.code) || err.status === 401) {
      return new AppError('REMOTE_LOGIN_FAILED', signIn ? 'the other drive server refused the user name or password' : 'the other drive server ended the session');
    }
    if (/^HTTP_/.test(err.code)) return new AppError('REMOTE_UNREACHABLE', `the other drive server answered HTTP ${err.status} without an /hcs envelope`);
    return new AppError('REMOTE_UNREACHABLE', `the other drive server refused a call (${err.code.slice(0, 64)})`);
  }
  return new AppError('REMOTE_UNREACHABLE', 'the other drive server cannot be reached');
}

async function call<T extends { ret: number; msg: string; data?: unknown }>(
  fn: () => Promise<{ data?: T; error?: unknown; response: Response }>,
  signIn = false,
): Promise<T> {
  try {
    return unwrap(await fn());
  } catch (err) {
    throw remoteError(err, signIn);
  }
}

/** Signs in on the remote server (its public key encrypts the password); answers the remote session token. */
export async function remoteSignIn(serverUrl: string, userName: string, password: string, fetchImpl?: typeof fetch): Promise<string> {
  const anon = createHcsClient({ baseUrl: serverUrl, fetch: noRedirects(fetchImpl ?? fetch) });
  const signal = AbortSignal.timeout(CALL_TIMEOUT_MS);
  const info = await call(() => anon.GET('/hcs/services/System/platformInfo', { signal }));
  if (!info.data?.publicKey) throw new AppError('REMOTE_UNREACHABLE', 'the other drive server sent no public key');
  let wire: string;
  try {
    wire = await encryptPassword(info.data.publicKey, password);
  } catch {
    throw new AppError('REMOTE_UNREACHABLE', 'the other drive server sent an unusable public key');
  }
  const res = await call(
    () =>
      anon.GET('/hcs/services/System/Token', {
        params: { query: { username: userName, password: wire, platformId: info.data!.platformId } },
        // A token session (the `token` header), as the CLI asks for, instead of a browser cookie.
        headers: { 'X-HCS-Client': 'cli' },
        signal,
      }),
    true,
  );
  if (!res.data?.token) throw new AppError('REMOTE_LOGIN_FAILED', 'the other drive server issued no session');
  return res.data.token;
}

export class RemoteDrive {
  readonly #client: HcsClient;
  readonly #fetch: typeof fetch;
  readonly serverUrl: string;

  constructor(serverUrl: string, token: string, fetchImpl: typeof fetch = fetch) {
    this.serverUrl = serverUrl;
    this.#fetch = noRedirects(fetchImpl);
    this.#client = createHcsClient({ baseUrl: serverUrl, token: () => token, fetch: this.#fetch });
  }

  /** The account's personal library root: the listing without a parentId names it. */
  async personalRoot(signal?: AbortSignal): Promise<string> {
    const res = await call(() => this.#client.GET('/hcs/controller/Page', { params: { query: { pageSize: 1 } }, signal }));
    if (!res.data?.parentId) throw new AppError('REMOTE_UNREACHABLE', 'the other drive server named no library root');
    return res.data.parentId;
  }

  /** The live groups the account belongs to. */
  async groups(signal?: AbortSignal): Promise<RemoteGroup[]> {
    const out: RemoteGroup[] = [];
    for (let pageNo = 1; ; pageNo++) {
      const page = (await call(() => this.#client.GET('/hcs/controller/groupFile/searchGroup', { params: { query: { pageNo, pageSize: PAGE_SIZE } }, signal }))).data;
      if (!page) break;
      out.push(...page.list.map((g) => ({ groupId: g.groupId, groupName: g.groupName, rootId: g.rootId })));
      if (page.list.length === 0 || pageNo * page.pageSize >= page.total) break;
    }
    return out;
  }

  /** Every child of a folder, page by page (the keyset cursor when the remote gives one). */
  async *children(parentId: string, signal?: AbortSignal): AsyncGenerator<RemoteInstance> {
    let cursor: string | undefined;
    let pageNo = 1;
    for (;;) {
      const query = { parentId, pageSize: PAGE_SIZE, ...(cursor ? { cursor } : { pageNo }) };
      const page = (await call(() => this.#client.GET('/hcs/controller/Page', { params: { query }, signal }))).data;
      if (!page) return;
      yield* page.list;
      if (page.list.length === 0) return;
      if (page.nextCursor) cursor = page.nextCursor;
      else if (page.pageNo * page.pageSize < page.total) pageNo = page.pageNo + 1;
      else return;
    }
  }

  /** A file's bytes as a stream (a presigned or ticket URL from the remote, fetched as it comes). */
  async download(instanceId: string, signal?: AbortSignal): Promise<Readable> {
    const signed = (await call(() => this.#client.GET('/hcs/controller/API/getS3DownloadUrl', { params: { query: { instanceId } }, signal }))).data;
    if (!signed?.url) throw new AppError('REMOTE_UNREACHABLE', 'the other drive server gave no download address');
    // A ticket URL may be relative to the remote server.
    const url = new URL(signed.url, `${this.serverUrl}/`);
    let res: Response;
    try {
      // Presigned and ticket URLs carry their own authority: the session token is not sent to storage.
      res = await this.#fetch(url, { signal });
    } catch (err) {
      if (signal?.aborted) throw err;
      throw new AppError('REMOTE_UNREACHABLE', 'the other drive server\'s storage cannot be reached');
    }
    if (!res.ok || !res.body) {
      await res.body?.cancel().catch(() => undefined);
      throw new AppError('REMOTE_UNREACHABLE', `the other drive server's storage answered HTTP ${res.status}`);
    }
    return Readable.fromWeb(res.body as WebReadableStream<Uint8Array>);
  }
}
