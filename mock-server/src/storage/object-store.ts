// The one storage module server handlers use. It speaks the S3 API only, so the same code runs
// against the embedded store, MinIO, Ceph RGW or AWS. ETags are returned without quotes.
import { createHash } from 'node:crypto';
import type { Readable } from 'node:stream';
import {
  AbortMultipartUploadCommand, CompleteMultipartUploadCommand, CopyObjectCommand, CreateBucketCommand,
  CreateMultipartUploadCommand, DeleteObjectCommand, DeleteObjectsCommand, GetObjectCommand, HeadBucketCommand,
  HeadObjectCommand, ListObjectsV2Command, ListPartsCommand, PutObjectCommand, S3Client, S3ServiceException,
  UploadPartCommand,
} from '@aws-sdk/client-s3';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import { UNSIGNED_PAYLOAD, canonicalQueryString, canonicalUri, formatAmzDate, signRequest, type QueryInput } from './sigv4.ts';

export interface ObjectStoreConfig {
  /** Endpoint the server itself uses, possibly with a path prefix (`http://127.0.0.1:8080/s3`). */
  endpoint: string;
  /** Endpoint browsers and the CLI use; defaults to `endpoint`. */
  publicEndpoint?: string;
  region: string;
  bucket: string;
  accessKeyId: string;
  secretAccessKey: string;
}

/** Where objects live: a storage connection ('0' = the server's own store) and a bucket on it. */
export interface StoreLocation { connectionId: string; bucket: string }

/** Server-side encryption an external S3 is asked for on each new object (x-amz-server-side-encryption...). */
export interface Sse { mode: 'AES256' | 'aws:kms'; kmsKeyId?: string }

/** The headers that ask for `sse`: sent with every PUT and CreateMultipartUpload, and signed with them. */
export function sseHeaders(sse: Sse | undefined): Record<string, string> {
  if (!sse) return {};
  return {
    'x-amz-server-side-encryption': sse.mode,
    ...(sse.mode === 'aws:kms' && sse.kmsKeyId ? { 'x-amz-server-side-encryption-aws-kms-key-id': sse.kmsKeyId } : {}),
  };
}

function sseParams(sse: Sse | undefined): { ServerSideEncryption?: Sse['mode']; SSEKMSKeyId?: string } {
  if (!sse) return {};
  return { ServerSideEncryption: sse.mode, ...(sse.mode === 'aws:kms' && sse.kmsKeyId ? { SSEKMSKeyId: sse.kmsKeyId } : {}) };
}

/** An S3 failure, with the S3 error code (`NoSuchKey`, `NoSuchUpload`, `InvalidPart`, …). */
export class StorageError extends Error {
  readonly code: string;
  readonly status: number | undefined;
  constructor(code: string, message: string, status?: number, cause?: unknown) {
    super(message, { cause });
    this.name = 'StorageError';
    this.code = code;
    this.status = status;
  }
}

export interface ObjectInfo { key: string; size: number; etag: string; lastModified: Date }
export interface ListPage { objects: ObjectInfo[]; prefixes: string[] }
export interface HeadResult { size: number; etag: string; contentType: string | undefined; lastModified: Date | undefined; metadata: Record<string, string> }
export interface GetResult { body: Readable; contentLength: number; contentRange?: string; etag: string; contentType?: string }
/** Positional reads of an object's bytes, for stores that can read them without a request (FileHandle.read's shape). */
export interface ObjectReader {
  size: number;
  read(buffer: Buffer, offset: number, length: number, position: number): Promise<{ bytesRead: number }>;
  close(): Promise<void>;
}
export interface PartInfo { partNumber: number; etag: string; size: number; lastModified?: Date }
/** `{start, end}` inclusive (end optional = to the end), `{suffix}` = last n bytes. */
export type ByteRange = { start: number; end?: number } | { suffix: number };

export interface SignRequestInput {
  method: string;
  key: string;
  query?: QueryInput;
  /** Extra headers the client will send and that must be signed (e.g. content-type). */
  headers?: Record<string, string>;
  /** `YYYYMMDDTHHMMSSZ`; defaults to now. */
  amzDate?: string;
  /** Public endpoint override, e.g. the origin the browser is using. */
  endpoint?: string;
  /** Hex SHA-256 the body must have (storage refuses any other body); UNSIGNED-PAYLOAD when omitted. */
  payloadHash?: string;
}

export interface SignedStorageRequest {
  authorization: string;
  amzDate: string;
  host: string;
  /** What the client sends as x-amz-content-sha256. */
  contentSha256: string;
  /** Full URL (with the canonical query) to send the request to. */
  url: string;
}

function unquote(etag: string | undefined): string {
  return (etag ?? '').replace(/^"|"$/g, '');
}

function rangeHeader(range: ByteRange): string {
  return 'suffix' in range ? `bytes=-${range.suffix}` : `bytes=${range.start}-${range.end ?? ''}`;
}

/** `upload`: the call names a multipart upload, so a 404 means the upload is gone (Ceph RGW says NoSuchKey). */
function wrap(err: unknown, upload = false): unknown {
  if (err instanceof S3ServiceException) {
    const status = err.$metadata.httpStatusCode;
    let code = err.name === 'NotFound' ? 'NoSuchKey' : err.name;
    if (upload && status === 404) code = 'NoSuchUpload';
    return new StorageError(code, err.message || code, status, err);
  }
  return err;
}

async function call<T>(fn: () => Promise<T>, upload = false): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    throw wrap(err, upload);
  }
}

function makeClient(endpoint: string, cfg: ObjectStoreConfig): S3Client {
  return new S3Client({
    endpoint,
    region: cfg.region,
    credentials: { accessKeyId: cfg.accessKeyId, secretAccessKey: cfg.secretAccessKey },
    forcePathStyle: true,
    // Flexible checksums (CRC trailers) are not understood by every S3 implementation.
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
  });
}

export class ObjectStore {
  readonly bucket: string;
  readonly region: string;
  readonly client: S3Client;
  private readonly config: ObjectStoreConfig;
  private readonly publicClients = new Map<string, S3Client>();
  private locator: ((at: StoreLocation) => Promise<ObjectStore>) | undefined;

  constructor(config: ObjectStoreConfig) {
    this.config = { ...config, endpoint: config.endpoint.replace(/\/+$/, ''), publicEndpoint: config.publicEndpoint?.replace(/\/+$/, '') };
    this.bucket = config.bucket;
    this.region = config.region;
    this.client = makeClient(this.config.endpoint, this.config);
  }

  /** The same endpoint and credentials on another bucket (the caller destroys it when done). */
  forBucket(bucket: string): ObjectStore {
    return new ObjectStore({ ...this.config, bucket });
  }

  /**
   * Makes this store (connection zero) the way to every recorded location: code holding the server's store reaches a
   * blob's own place with at() without knowing about connections (storage/routing.ts sets it once connected).
   */
  routeWith(locator: (at: StoreLocation) => Promise<ObjectStore>): void {
    this.locator = locator;
  }

  /**
   * The store holding objects recorded at `at` (a blob's or an upload session's connection and bucket): this store for
   * its own bucket of connection zero. Shared and cached: the caller never destroys it.
   */
  async at(at: StoreLocation): Promise<ObjectStore> {
    if (at.connectionId === '0' && at.bucket === this.bucket) return this;
    if (!this.locator) throw new StorageError('NoSuchLocation', `no route to connection ${at.connectionId} bucket ${at.bucket}`);
    return this.locator(at);
  }

  /** Endpoint handed to browsers and the CLI. */
  /** The endpoint the server itself sends requests to. */
  get endpoint(): string {
    return this.config.endpoint;
  }

  get publicEndpoint(): string {
    return this.config.publicEndpoint ?? this.config.endpoint;
  }

  private publicClient(endpoint = this.publicEndpoint): S3Client {
    const normalized = endpoint.replace(/\/+$/, '');
    let client = this.publicClients.get(normalized);
    if (!client) {
      if (this.publicClients.size >= 16) this.publicClients.clear();
      client = makeClient(normalized, this.config);
      this.publicClients.set(normalized, client);
    }
    return client;
  }

  /** Decoded request path of `key` under an endpoint, prefix included: `/s3/hcs-drive/a b.txt`. */
  resourcePath(key: string, endpoint = this.publicEndpoint): string {
    const prefix = decodeURIComponent(new URL(endpoint).pathname).replace(/\/+$/, '');
    return `${prefix}/${this.bucket}/${key}`;
  }

  /**
   * The key a client-supplied resource path names (`/s3/hcs-drive/a%20b.txt`, with or without the
   * endpoint prefix, encoded or not), or null when it is not an object of this bucket.
   */
  keyFromResourceUri(resourceUri: string): string | null {
    let path: string;
    try {
      path = resourceUri.split('?')[0]!.split('/').map((s) => decodeURIComponent(s)).join('/');
    } catch {
      return null;
    }
    const prefix = decodeURIComponent(new URL(this.publicEndpoint).pathname).replace(/\/+$/, '');
    for (const base of [`${prefix}/${this.bucket}/`, `/${this.bucket}/`]) {
      if (path.startsWith(base) && path.length > base.length) return path.slice(base.length);
    }
    return null;
  }

  async ensureBucket(): Promise<void> {
    try {
      await this.client.send(new HeadBucketCommand({ Bucket: this.bucket }));
      return;
    } catch (err) {
      const status = (err as S3ServiceException).$metadata?.httpStatusCode;
      if (status !== 404) throw wrap(err);
    }
    try {
      await this.client.send(new CreateBucketCommand({ Bucket: this.bucket }));
    } catch (err) {
      const name = (err as Error).name;
      if (name !== 'BucketAlreadyOwnedByYou' && name !== 'BucketAlreadyExists') throw wrap(err);
    }
  }

  async putObject(key: string, body: Readable | Buffer, opts: { contentLength: number; contentType?: string; metadata?: Record<string, string>; sse?: Sse }): Promise<{ etag: string }> {
    const out = await call(() => this.client.send(new PutObjectCommand({
      Bucket: this.bucket, Key: key, Body: body, ContentLength: opts.contentLength, ContentType: opts.contentType, Metadata: opts.metadata, ...sseParams(opts.sse),
    })));
    return { etag: unquote(out.ETag) };
  }

  async getObject(key: string, range?: ByteRange): Promise<GetResult> {
    const out = await call(() => this.client.send(new GetObjectCommand({ Bucket: this.bucket, Key: key, Range: range ? rangeHeader(range) : undefined })));
    return {
      body: out.Body as Readable,
      contentLength: out.ContentLength ?? 0,
      contentRange: out.ContentRange,
      etag: unquote(out.ETag),
      contentType: out.ContentType,
    };
  }

  /**
   * A positional reader when the store can read the object locally, else null (then use getObject). Lets a
   * caller read into its own reused buffers instead of receiving a fresh buffer per chunk.
   */
  async openReader(_key: string): Promise<ObjectReader | null> {
    return null;
  }

  /** Metadata of `key`, or null when it does not exist. */
  async headObject(key: string): Promise<HeadResult | null> {
    try {
      const out = await this.client.send(new HeadObjectCommand({ Bucket: this.bucket, Key: key }));
      return { size: out.ContentLength ?? 0, etag: unquote(out.ETag), contentType: out.ContentType, lastModified: out.LastModified, metadata: out.Metadata ?? {} };
    } catch (err) {
      if ((err as S3ServiceException).$metadata?.httpStatusCode === 404) return null;
      throw wrap(err);
    }
  }

  async deleteObject(key: string): Promise<void> {
    await call(() => this.client.send(new DeleteObjectCommand({ Bucket: this.bucket, Key: key })));
  }

  /** Deletes many keys (batches of 1000); per-key failures are returned, not thrown. */
  async deleteObjects(keys: readonly string[]): Promise<{ errors: Array<{ key: string; code: string; message: string }> }> {
    const errors: Array<{ key: string; code: string; message: string }> = [];
    for (let i = 0; i < keys.length; i += 1000) {
      const batch = keys.slice(i, i + 1000);
      const out = await call(() => this.client.send(new DeleteObjectsCommand({
        Bucket: this.bucket, Delete: { Objects: batch.map((Key) => ({ Key })), Quiet: true },
      })));
      for (const e of out.Errors ?? []) errors.push({ key: e.Key ?? '', code: e.Code ?? 'Unknown', message: e.Message ?? '' });
    }
    return { errors };
  }

  async copyObject(sourceKey: string, destinationKey: string): Promise<{ etag: string }> {
    const source = `${this.bucket}/${sourceKey.split('/').map(encodeURIComponent).join('/')}`;
    const out = await call(() => this.client.send(new CopyObjectCommand({ Bucket: this.bucket, Key: destinationKey, CopySource: source })));
    return { etag: unquote(out.CopyObjectResult?.ETag) };
  }

  /** Every page of ListObjectsV2 under `prefix`. */
  async *list(prefix: string, opts: { delimiter?: string; pageSize?: number } = {}): AsyncGenerator<ListPage> {
    let token: string | undefined;
    do {
      const out = await call(() => this.client.send(new ListObjectsV2Command({
        Bucket: this.bucket, Prefix: prefix, Delimiter: opts.delimiter, MaxKeys: opts.pageSize, ContinuationToken: token,
      })));
      yield {
        objects: (out.Contents ?? []).map((o) => ({ key: o.Key ?? '', size: o.Size ?? 0, etag: unquote(o.ETag), lastModified: o.LastModified ?? new Date(0) })),
        prefixes: (out.CommonPrefixes ?? []).map((p) => p.Prefix ?? ''),
      };
      token = out.IsTruncated ? out.NextContinuationToken : undefined;
    } while (token);
  }

  async createMultipart(key: string, opts: { contentType?: string; metadata?: Record<string, string>; sse?: Sse } = {}): Promise<string> {
    const out = await call(() => this.client.send(new CreateMultipartUploadCommand({
      Bucket: this.bucket, Key: key, ContentType: opts.contentType, Metadata: opts.metadata, ...sseParams(opts.sse),
    })));
    if (!out.UploadId) throw new StorageError('InvalidResponse', 'CreateMultipartUpload returned no UploadId');
    return out.UploadId;
  }

  async uploadPart(key: string, uploadId: string, partNumber: number, body: Readable | Buffer, contentLength: number): Promise<string> {
    const out = await call(() => this.client.send(new UploadPartCommand({
      Bucket: this.bucket, Key: key, UploadId: uploadId, PartNumber: partNumber, Body: body, ContentLength: contentLength,
    })), true);
    return unquote(out.ETag);
  }

  /** Every part of an upload, following part-number-marker across pages of 1000. */
  async *listParts(key: string, uploadId: string): AsyncGenerator<PartInfo> {
    let marker: string | undefined;
    for (;;) {
      const out = await call(() => this.client.send(new ListPartsCommand({ Bucket: this.bucket, Key: key, UploadId: uploadId, PartNumberMarker: marker })), true);
      for (const p of out.Parts ?? []) yield { partNumber: p.PartNumber ?? 0, etag: unquote(p.ETag), size: p.Size ?? 0, lastModified: p.LastModified };
      const next = out.NextPartNumberMarker;
      if (!out.IsTruncated || next === undefined || next === marker) return;
      marker = next;
    }
  }

  /** Completes with the given parts, in any order (sent ascending; S3 rejects other orders, RGW does not). */
  async completeMultipart(key: string, uploadId: string, parts: ReadonlyArray<{ partNumber: number; etag: string }>): Promise<{ etag: string }> {
    const sorted = [...parts].sort((a, b) => a.partNumber - b.partNumber);
    if (sorted.some((p, i) => i > 0 && p.partNumber === sorted[i - 1]!.partNumber)) {
      throw new StorageError('InvalidPartOrder', 'a part number appears twice in the part list');
    }
    const out = await call(() => this.client.send(new CompleteMultipartUploadCommand({
      Bucket: this.bucket, Key: key, UploadId: uploadId,
      MultipartUpload: { Parts: sorted.map((p) => ({ PartNumber: p.partNumber, ETag: `"${unquote(p.etag)}"` })) },
    })), true);
    const etag = unquote(out.ETag);
    if (etag) return { etag };
    // Ceph RGW 16 answers CompleteMultipartUpload with an empty ETag; HEAD has the real one.
    const head = await this.headObject(key);
    if (!head) throw new StorageError('NoSuchKey', `completed object ${key} is not visible`);
    return { etag: head.etag };
  }

  async abortMultipart(key: string, uploadId: string): Promise<void> {
    await call(() => this.client.send(new AbortMultipartUploadCommand({ Bucket: this.bucket, Key: key, UploadId: uploadId })), true);
  }

  /** A URL anyone can GET until it expires; with `range` the holder must send exactly that Range header. */
  async presignGet(key: string, opts: { expiresIn: number; range?: ByteRange; responseContentDisposition?: string; responseContentType?: string; endpoint?: string }): Promise<string> {
    const command = new GetObjectCommand({
      Bucket: this.bucket, Key: key, Range: opts.range ? rangeHeader(opts.range) : undefined,
      ResponseContentDisposition: opts.responseContentDisposition, ResponseContentType: opts.responseContentType,
    });
    return getSignedUrl(this.publicClient(opts.endpoint), command, { expiresIn: opts.expiresIn });
  }

  /** A URL anyone can PUT the object to; a given content type or length must then be sent exactly. */
  async presignPut(key: string, opts: { expiresIn: number; contentType?: string; contentLength?: number; endpoint?: string }): Promise<string> {
    const command = new PutObjectCommand({ Bucket: this.bucket, Key: key, ContentType: opts.contentType, ContentLength: opts.contentLength });
    const signableHeaders = new Set<string>();
    if (opts.contentType !== undefined) signableHeaders.add('content-type');
    if (opts.contentLength !== undefined) signableHeaders.add('content-length');
    return getSignedUrl(this.publicClient(opts.endpoint), command, { expiresIn: opts.expiresIn, signableHeaders });
  }

  async presignUploadPart(key: string, uploadId: string, partNumber: number, opts: { expiresIn: number; endpoint?: string }): Promise<string> {
    const command = new UploadPartCommand({ Bucket: this.bucket, Key: key, UploadId: uploadId, PartNumber: partNumber });
    return getSignedUrl(this.publicClient(opts.endpoint), command, { expiresIn: opts.expiresIn });
  }

  /**
   * Signs an S3 request a browser will send straight to storage (Authorization header, payload
   * UNSIGNED-PAYLOAD unless a payload hash is given), so the browser never sees the secret. The client must send
   * the returned authorization, x-amz-date = amzDate, x-amz-content-sha256 = contentSha256 and `headers` (a
   * signed content-length is what fetch sends for a body of that many bytes).
   */
  signRequest(input: SignRequestInput): SignedStorageRequest {
    const endpoint = new URL((input.endpoint ?? this.publicEndpoint).replace(/\/+$/, ''));
    const amzDate = input.amzDate ?? formatAmzDate(new Date());
    const path = this.resourcePath(input.key, endpoint.href);
    const payloadHash = input.payloadHash ?? UNSIGNED_PAYLOAD;
    const signed = signRequest({
      method: input.method, path, query: input.query, headers: { ...input.headers, host: endpoint.host }, amzDate,
      payloadHash, region: this.region,
      credentials: { accessKeyId: this.config.accessKeyId, secretAccessKey: this.config.secretAccessKey },
    });
    const query = canonicalQueryString(input.query);
    return {
      authorization: signed.authorization, amzDate, host: endpoint.host, contentSha256: payloadHash,
      url: `${endpoint.origin}${canonicalUri(path)}${query ? `?${query}` : ''}`,
    };
  }

  /** SHA-256 hex of an object's content, streamed. */
  async sha256(key: string): Promise<string> {
    const { body } = await this.getObject(key);
    const hash = createHash('sha256');
    for await (const chunk of body) hash.update(chunk as Buffer);
    return hash.digest('hex');
  }

  destroy(): void {
    this.client.destroy();
    for (const c of this.publicClients.values()) c.destroy();
    this.publicClients.clear();
  }
}

