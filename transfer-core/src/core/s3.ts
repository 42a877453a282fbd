// S3 requests sent straight to storage, each signed by the /hcs server (the secret never leaves it).
import type { Clock, ControlPlane, StorageAction, Transport, TransportRequest, TransportResponse } from '../ports/index.ts';
import { LIST_PARTS_PAGE, PART_TIMEOUT_MS } from './constants.ts';
import type { EngineDeps } from './engine-options.ts';
import { withTimeout } from './clock.ts';
import type { TransferError} from './errors.ts';
import { SigningError, StorageHttpError, type TransferErrorOptions } from './errors.ts';
import { withRetry } from './retry.ts';

export interface StorageClientOptions {
  controlPlane: ControlPlane;
  transport: Transport;
  clock: Clock;
  onUnauthorized?: () => Promise<void>;
  platformId?: string;
  /** Per-request timeout (spec 9: 900000 ms for parts). */
  timeoutMs: number;
  /** Backoff base for retries (tests shrink it). */
  retryBaseMs?: number;
}

export interface StorageRequest {
  method: TransportRequest['method'];
  bucket: string;
  key: string;
  /** Query string without '?', already encoded and in sorted order (as it is signed). */
  query?: string;
  action: StorageAction;
  fId: string;
  body?: Uint8Array | string | Blob;
  headers?: Record<string, string>;
  signal?: AbortSignal;
  /** Bytes of the body sent so far by the current attempt (restarts at 0 on a retry). */
  onUploadProgress?: (sentBytes: number) => void;
  /** The error class to report a signing failure with ([201] by default, [203] for completion). */
  signError?: new (opts?: TransferErrorOptions) => TransferError;
  /** Called with the response of a 2xx answer; runs inside the retry and timeout (streams are read here). */
  consume?: (res: TransportResponse, signal: AbortSignal) => Promise<unknown>;
}

/** RFC 3986 encoding of an object key, keeping '/' separators (what SigV4 canonical URIs expect). */
export function encodeKey(key: string): string {
  return key
    .split('/')
    .map((seg) => encodeURIComponent(seg).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`))
    .join('/');
}

export function resourceUri(bucket: string, key: string, query?: string): string {
  return `/${encodeURIComponent(bucket)}/${encodeKey(key)}${query ? `?${query}` : ''}`;
}

export class StorageClient {
  readonly #o: StorageClientOptions;
  constructor(opts: StorageClientOptions) {
    this.#o = opts;
  }

  /**
   * Signs and sends one request with the retry policy (5xx/network/timeout x3 with backoff, 401 re-login x3).
   * Each attempt is signed afresh so a retry never reuses a stale x-amz-date. Resolves with consume()'s result.
   */
  async send<T = TransportResponse>(req: StorageRequest): Promise<T> {
    const { controlPlane, transport, clock } = this.#o;
    const uri = resourceUri(req.bucket, req.key, req.query);
    const retry = { clock, signal: req.signal, onUnauthorized: this.#o.onUnauthorized, baseDelayMs: this.#o.retryBaseMs };
    return withRetry(async () => {
      let signed;
      try {
        signed = await withRetry(
          () =>
            controlPlane.signStorageRequest(
              { httpVerb: req.method, bucketName: req.bucket, resourceUri: uri, action: req.action, fId: req.fId, platformId: this.#o.platformId },
              req.signal,
            ),
          retry,
        );
      } catch (err) {
        if (req.signal?.aborted) throw req.signal.reason;
        const E = req.signError ?? SigningError;
        throw new E({ cause: err, serverMessage: messageOf(err) });
      }
      const t = withTimeout(clock, this.#o.timeoutMs, req.signal);
      try {
        const res = await transport.request({
          method: req.method,
          url: signed.url,
          headers: {
            ...req.headers,
            // Signed with the request (server-side encryption a library's policy asks for): sent exactly as given.
            ...signed.headers,
            Authorization: signed.authorization,
            'x-amz-date': signed.date,
            'x-amz-content-sha256': signed.contentSha256,
          },
          body: req.body,
          signal: t.signal,
          ...(req.onUploadProgress ? { onUploadProgress: req.onUploadProgress } : {}),
        });
        if (res.status < 200 || res.status > 299) {
          const text = await res.text().catch(() => '');
          throw new StorageHttpError(res.status, xmlValue(text, 'Code'), xmlValue(text, 'Message'));
        }
        return (req.consume ? await req.consume(res, t.signal) : res) as T;
      } finally {
        t.dispose();
      }
    }, retry);
  }

  async initMultipart(bucket: string, key: string, fId: string, signal?: AbortSignal): Promise<string> {
    const xml = await this.send<string>({ method: 'POST', bucket, key, query: 'uploads', action: 'initMultipart', fId, signal, consume: (r) => r.text() });
    const uploadId = xmlValue(xml, 'UploadId');
    if (!uploadId) throw new StorageHttpError(200, 'MalformedResponse', 'no UploadId in InitiateMultipartUpload result');
    return uploadId;
  }

  async uploadPart(
    bucket: string,
    key: string,
    fId: string,
    uploadId: string,
    partNumber: number,
    body: Uint8Array | Blob,
    signal?: AbortSignal,
    onUploadProgress?: (sentBytes: number) => void,
  ): Promise<string> {
    return this.send<string>({
      ...(onUploadProgress ? { onUploadProgress } : {}),
      method: 'PUT',
      bucket,
      key,
      query: `partNumber=${partNumber}&uploadId=${encodeURIComponent(uploadId)}`,
      action: 'uploadPart',
      fId,
      body,
      signal,
      consume: async (r) => {
        const etag = r.header('etag');
        await r.text();
        // Browsers hide ETag unless storage's CORS exposes it; without it the completion cannot be built.
        if (!etag) throw new StorageHttpError(r.status, 'MissingETag', 'no ETag header on UploadPart (CORS ExposeHeaders?)');
        return etag;
      },
    });
  }

  /** Every part storage holds for the upload, following NextPartNumberMarker across 1000-part pages. */
  async listParts(bucket: string, key: string, fId: string, uploadId: string, signal?: AbortSignal): Promise<ListedPart[]> {
    const parts: ListedPart[] = [];
    let marker = 0;
    for (let page = 0; page < 100; page++) {
      const query = `${marker ? `part-number-marker=${marker}&` : ''}uploadId=${encodeURIComponent(uploadId)}`;
      const xml = await this.send<string>({ method: 'GET', bucket, key, query, action: 'listParts', fId, signal, consume: (r) => r.text() });
      const res = parseListParts(xml);
      parts.push(...res.parts);
      if (!res.isTruncated) return parts;
      if (!res.nextMarker || res.nextMarker <= marker) throw new StorageHttpError(200, 'MalformedResponse', 'ListParts truncated without progress');
      marker = res.nextMarker;
    }
    throw new StorageHttpError(200, 'MalformedResponse', `ListParts did not end within ${100 * LIST_PARTS_PAGE} parts`);
  }

  async completeMultipart(bucket: string, key: string, fId: string, uploadId: string, parts: Array<{ partNumber: number; etag: string }>, signError: StorageRequest['signError'], signal?: AbortSignal): Promise<void> {
    const body = completeXml(parts);
    const xml = await this.send<string>({
      method: 'POST',
      bucket,
      key,
      query: `uploadId=${encodeURIComponent(uploadId)}`,
      action: 'completeMultipart',
      fId,
      body,
      headers: { 'Content-Type': 'application/xml' },
      signError,
      signal,
      consume: (r) => r.text(),
    });
    // S3 may answer 200 and still fail the completion in the body (it streams whitespace while it works).
    const code = /<Error>/.test(xml) ? xmlValue(xml, 'Code') : undefined;
    if (code) throw new StorageHttpError(code === 'InternalError' ? 500 : 400, code, xmlValue(xml, 'Message'));
  }

  async putObject(bucket: string, key: string, fId: string, body: Uint8Array | Blob, signal?: AbortSignal, onUploadProgress?: (sentBytes: number) => void): Promise<void> {
    await this.send({ method: 'PUT', bucket, key, action: 'putObject', fId, body, signal, consume: (r) => r.text(), ...(onUploadProgress ? { onUploadProgress } : {}) });
  }
}

export interface ListedPart {
  partNumber: number;
  etag: string;
  size: number;
}

const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" };

function decodeXml(s: string): string {
  return s.replace(/&(#x[0-9a-fA-F]+|#[0-9]+|amp|lt|gt|quot|apos);/g, (_m, e: string) =>
    e.startsWith('#x') ? String.fromCodePoint(parseInt(e.slice(2), 16)) : e.startsWith('#') ? String.fromCodePoint(parseInt(e.slice(1), 10)) : ENTITIES[e]!,
  );
}

function escapeXml(s: string): string {
  return s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

/** Text of the first <tag> element. The S3 answers we read are flat and small, so no XML parser is needed. */
export function xmlValue(xml: string, tag: string): string | undefined {
  const m = new RegExp(`<${tag}>([^<]*)</${tag}>`).exec(xml);
  return m ? decodeXml(m[1]!) : undefined;
}

export function parseListParts(xml: string): { parts: ListedPart[]; isTruncated: boolean; nextMarker: number | undefined } {
  const parts: ListedPart[] = [];
  for (const m of xml.matchAll(/<Part>([\s\S]*?)<\/Part>/g)) {
    const body = m[1]!;
    const partNumber = Number(xmlValue(body, 'PartNumber'));
    const size = Number(xmlValue(body, 'Size'));
    const etag = xmlValue(body, 'ETag');
    if (Number.isInteger(partNumber) && partNumber > 0 && Number.isFinite(size) && etag) parts.push({ partNumber, etag, size });
  }
  const next = xmlValue(xml, 'NextPartNumberMarker');
  return { parts, isTruncated: xmlValue(xml, 'IsTruncated') === 'true', nextMarker: next ? Number(next) : undefined };
}

export function completeXml(parts: Array<{ partNumber: number; etag: string }>): string {
  const sorted = [...parts].sort((a, b) => a.partNumber - b.partNumber);
  return `<CompleteMultipartUpload>${sorted.map((p) => `<Part><PartNumber>${p.partNumber}</PartNumber><ETag>${escapeXml(p.etag)}</ETag></Part>`).join('')}</CompleteMultipartUpload>`;
}

export function messageOf(err: unknown): string | undefined {
  return err instanceof Error ? err.message : undefined;
}

/** The storage client an upload or download task uses, configured from the engine's dependencies. */
export function storageClientFor(deps: EngineDeps, clock: Clock): StorageClient {
  return new StorageClient({
    controlPlane: deps.controlPlane,
    transport: deps.transport,
    clock,
    onUnauthorized: deps.onUnauthorized,
    platformId: deps.platformId,
    timeoutMs: deps.partTimeoutMs ?? PART_TIMEOUT_MS,
    retryBaseMs: deps.retryBaseMs,
  });
}
