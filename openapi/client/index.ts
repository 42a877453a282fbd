// Typed /hcs client for Node and the browser (CLI and transfer-core), on openapi-fetch.
// It adds the common headers every call needs (X-Requested-With, traceId, userName, token) so call sites
// never pass them, and turns the {ret, msg, data} envelope into a value or one typed error.
import createClient, { type Client, type Middleware } from 'openapi-fetch';
import type { paths } from '../gen/schema.d.ts';

/** The contract's paths with the common headers made optional: the middleware sets them. */
type CommonHeader = 'X-Requested-With' | 'userName' | 'traceId';
type RelaxHeaders<P> = P extends { header: infer H }
  ? Omit<P, 'header'> & { header?: Partial<H> & Omit<H, CommonHeader> }
  : P;
type RelaxOp<O> = O extends { parameters: infer P } ? Omit<O, 'parameters'> & { parameters: RelaxHeaders<P> } : O;
export type HcsPaths = {
  [K in keyof paths]: { [M in keyof paths[K]]: M extends 'parameters' ? RelaxHeaders<paths[K][M]> : RelaxOp<paths[K][M]> };
};
export type HcsClient = Client<HcsPaths>;
export type { paths, components, operations } from '../gen/schema.d.ts';
export { FORBIDDEN_NAME_CHARS, MAX_NAME_LENGTH, NAME_PROBLEMS, nameProblem, type NameProblem } from './names.ts';

export interface HcsClientOptions {
  /** Server origin, e.g. http://localhost:8080 (no trailing /hcs). */
  baseUrl: string;
  /** Session token for the `token` header (CLI); browsers use the session cookie instead. */
  token?: () => string | undefined;
  userName?: () => string | undefined;
  fetch?: typeof fetch;
  /** Browsers: send the session cookie. */
  credentials?: 'omit' | 'same-origin' | 'include';
}

export function newTraceId(): string {
  const bytes = new Uint8Array(12);
  crypto.getRandomValues(bytes);
  return Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');
}

export function createHcsClient(opts: HcsClientOptions): HcsClient {
  const client = createClient<HcsPaths>({
    baseUrl: opts.baseUrl.replace(/\/+$/, ''),
    fetch: opts.fetch,
    credentials: opts.credentials,
  });
  const headers: Middleware = {
    onRequest({ request }) {
      request.headers.set('X-Requested-With', 'XMLHttpRequest');
      if (!request.headers.has('traceId')) request.headers.set('traceId', newTraceId());
      const token = opts.token?.();
      if (token) request.headers.set('token', token);
      const user = opts.userName?.();
      if (user) request.headers.set('userName', encodeURIComponent(user));
      return request;
    },
  };
  client.use(headers);
  return client;
}

/** A failed /hcs call: HTTP status, the envelope's ret and msg, and the stable error code. */
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

interface EnvelopeLike {
  ret: number;
  msg: string;
  data?: unknown;
}

/**
 * Unwraps an openapi-fetch result: returns the envelope (ret 0) or throws HcsError.
 * Network failures surface as the fetch error itself.
 */
export function unwrap<T extends EnvelopeLike>(result: { data?: T; error?: unknown; response: Response }): T {
  const { response } = result;
  const body = (result.data ?? result.error) as Partial<EnvelopeLike> & { data?: { code?: string; traceId?: string; retryAfterSeconds?: number } } | undefined;
  if (response.ok && body && body.ret === 0) return result.data as T;
  const ret = typeof body?.ret === 'number' ? body.ret : response.status;
  const code = body?.data && typeof body.data === 'object' && typeof body.data.code === 'string' ? body.data.code : `HTTP_${response.status}`;
  throw new HcsError(response.status, ret, body?.msg ?? response.statusText, code, body?.data?.traceId, body?.data?.retryAfterSeconds);
}

// The spec's transport encoding (section 5), used for instance names and encrypted passwords:
// Base64 with / -> _x, + -> _j, = -> _d, so values survive query strings and gateways unchanged.
export function toWireBase64(base64: string): string {
  return base64.replace(/\//g, '_x').replace(/\+/g, '_j').replace(/=/g, '_d');
}

export function fromWireBase64(wire: string): string {
  return wire.replace(/_x/g, '/').replace(/_j/g, '+').replace(/_d/g, '=');
}

function bytesToBase64(bytes: Uint8Array): string {
  let bin = '';
  for (let i = 0; i < bytes.length; i += 0x8000) bin += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(bin);
}

/** Base64 (UTF-8) with the spec's wire replacements: / -> _x, + -> _j, = -> _d. */
export function encodeName(name: string): string {
  return toWireBase64(bytesToBase64(new TextEncoder().encode(name)));
}

/**
 * Encrypts a password for the wire (sign-in, password change): RSA-OAEP with SHA-256 under the server's SPKI PEM
 * public key (getPlatformInfo), in wire Base64. Web Crypto, so the browser, the CLI and tests share it.
 */
export async function encryptPassword(publicKeyPem: string, password: string): Promise<string> {
  const der = Uint8Array.from(atob(publicKeyPem.replace(/-----(BEGIN|END) [A-Z ]+-----/g, '').replace(/\s+/g, '')), (c) => c.charCodeAt(0));
  const key = await crypto.subtle.importKey('spki', der, { name: 'RSA-OAEP', hash: 'SHA-256' }, false, ['encrypt']);
  const cipher = await crypto.subtle.encrypt({ name: 'RSA-OAEP' }, key, new TextEncoder().encode(password));
  return toWireBase64(bytesToBase64(new Uint8Array(cipher)));
}

/** The inverse of encodeName; throws on malformed input. */
export function decodeName(wire: string): string {
  if (!/^[A-Za-z0-9_]*$/.test(wire)) throw new Error('malformed encoded name');
  const b64 = fromWireBase64(wire);
  if (/_/.test(b64)) throw new Error('malformed encoded name');
  const bin = atob(b64);
  const bytes = Uint8Array.from(bin, (c) => c.charCodeAt(0));
  return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
}
