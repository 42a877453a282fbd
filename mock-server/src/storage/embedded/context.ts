// Per-request state shared by the operation handlers, and small HTTP helpers.
import { createHash } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { VerifiedRequest } from '../sigv4.ts';
import type { DiskStore, ObjectMeta } from './disk-store.ts';
import { S3Error } from './errors.ts';
import type { MultipartStore } from './multipart-store.ts';
import { xmlDocument, type XmlNode } from './xml.ts';

export interface EmbeddedLimits {
  /** Largest UploadPart body. */
  maxPartSize: number;
  /** Largest object a CompleteMultipartUpload may produce. */
  maxObjectSize: number;
  /** Highest part number (S3: 10000). */
  maxParts: number;
  /** Largest PutObject body and CopyObject source. */
  maxSinglePut: number;
  /** Smallest size of every part but the last, checked at completion (S3: 5 MiB). */
  minPartSize?: number;
}

export interface S3Context {
  request: FastifyRequest;
  reply: FastifyReply;
  store: DiskStore;
  multipart: MultipartStore;
  limits: Required<EmbeddedLimits>;
  region: string;
  auth: VerifiedRequest;
  bucket: string;
  key: string;
  query: Map<string, string>;
}

/** The canonical owner of everything in the store, derived from the access key. */
export function owner(ctx: S3Context): XmlNode[] {
  const id = createHash('sha256').update(ctx.auth.accessKeyId).digest('hex');
  return [{ name: 'ID', children: [id] }, { name: 'DisplayName', children: ['hcs'] }];
}

export function sendXml(ctx: S3Context, root: XmlNode, status = 200): void {
  ctx.reply.code(status).header('content-type', 'application/xml').send(xmlDocument(root));
}

export function header(ctx: S3Context, name: string): string | undefined {
  const value = ctx.request.raw.headers[name];
  return Array.isArray(value) ? value.join(',') : value;
}

/** Parses an optional non-negative integer query parameter. */
export function intParam(ctx: S3Context, name: string, fallback: number, max = Number.MAX_SAFE_INTEGER): number {
  const raw = ctx.query.get(name);
  if (raw === undefined || raw === '') return fallback;
  if (!/^\d{1,15}$/.test(raw)) throw new S3Error('InvalidArgument', `Invalid value for ${name}: ${raw}`);
  return Math.min(Number(raw), max);
}

export const STORED_HEADERS = ['cache-control', 'content-disposition', 'content-encoding', 'content-language', 'expires'] as const;

const MAX_METADATA_BYTES = 2048;

/** Content-Type, x-amz-meta-* and representation headers of a write request. */
export function objectAttributes(ctx: S3Context): Pick<ObjectMeta, 'contentType' | 'userMetadata' | 'headers'> {
  const headers: Record<string, string> = {};
  for (const name of STORED_HEADERS) {
    let value = header(ctx, name);
    // aws-chunked describes this request's framing, not the stored representation.
    if (name === 'content-encoding' && value !== undefined) {
      value = value.split(',').map((s) => s.trim()).filter((s) => s !== '' && s !== 'aws-chunked').join(',') || undefined;
    }
    if (value !== undefined) headers[name] = value;
  }
  const userMetadata: Record<string, string> = {};
  let metadataBytes = 0;
  for (const [name, value] of Object.entries(ctx.request.raw.headers)) {
    if (!name.startsWith('x-amz-meta-') || value === undefined) continue;
    const text = Array.isArray(value) ? value.join(',') : value;
    const short = name.slice('x-amz-meta-'.length);
    userMetadata[short] = text;
    metadataBytes += Buffer.byteLength(short) + Buffer.byteLength(text);
  }
  if (metadataBytes > MAX_METADATA_BYTES) throw new S3Error('MetadataTooLarge', 'Your metadata headers exceed the maximum allowed metadata size.');
  return { contentType: header(ctx, 'content-type') ?? 'application/octet-stream', userMetadata, headers };
}

export function quoteEtag(etag: string): string {
  return `"${etag}"`;
}

export function httpDate(ms: number): string {
  return new Date(ms).toUTCString();
}

export function isoDate(ms: number): string {
  return new Date(ms).toISOString();
}
