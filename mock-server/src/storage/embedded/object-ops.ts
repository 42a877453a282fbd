// Object operations: PutObject, GetObject, HeadObject, DeleteObject, CopyObject, DeleteObjects.
import { createHash } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { pipeline } from 'node:stream/promises';
import { receiveSmall, receiveToFile } from './body.ts';
import {
  STORED_HEADERS, header, httpDate, isoDate, objectAttributes, quoteEtag, sendXml, type S3Context,
} from './context.ts';
import type { ObjectMeta } from './disk-store.ts';
import { S3Error } from './errors.ts';
import { unquoteEtag } from './multipart-store.ts';
import { parseRange } from './range.ts';
import { childText, el, parseXml, type XmlNode } from './xml.ts';
import { isActiveContent } from '../../http/hygiene.ts';

const READ_CHUNK = 1 << 20;
const MAX_DELETE_KEYS = 1000;
const MAX_XML_BODY = 2 << 20;
const DELETE_PARALLELISM = 16;

function requireBucket(ctx: S3Context): void {
  if (!ctx.store.hasBucket(ctx.bucket)) throw new S3Error('NoSuchBucket');
}

export async function putObject(ctx: S3Context): Promise<void> {
  requireBucket(ctx);
  const ifNoneMatch = header(ctx, 'if-none-match');
  if (ifNoneMatch !== undefined && ifNoneMatch.trim() !== '*') throw new S3Error('NotImplemented', 'If-None-Match on PUT supports only "*"');
  if (ifNoneMatch !== undefined && ctx.store.head(ctx.bucket, ctx.key)) throw new S3Error('PreconditionFailed');
  const attributes = objectAttributes(ctx);
  const temp = ctx.store.tempPath();
  try {
    const body = await receiveToFile(ctx.request.raw, temp, { headers: ctx.request.raw.headers, auth: ctx.auth, maxSize: ctx.limits.maxSinglePut });
    const meta = await ctx.store.commitObject(ctx.bucket, ctx.key, temp, {
      ...attributes, size: body.size, etag: body.md5.toString('hex'),
    }, ifNoneMatch !== undefined);
    ctx.reply.code(200).header('etag', quoteEtag(meta.etag)).send();
  } finally {
    await ctx.store.releaseTemp(temp);
  }
}

function setObjectHeaders(ctx: S3Context, meta: ObjectMeta): void {
  const r = ctx.reply;
  r.header('etag', quoteEtag(meta.etag));
  r.header('last-modified', httpDate(meta.lastModified));
  r.header('accept-ranges', 'bytes');
  r.header('content-type', meta.contentType);
  for (const [name, value] of Object.entries(meta.headers)) r.header(name, value);
  for (const [name, value] of Object.entries(meta.userMetadata)) r.header(`x-amz-meta-${name}`, value);
  // response-* parameters override stored headers (only honoured on signed requests, as here).
  for (const name of ['content-type', ...STORED_HEADERS]) {
    const override = ctx.query.get(`response-${name}`);
    if (override !== undefined) r.header(name, override);
  }
  // The uploader chose the stored Content-Type: markup or script opened from here would run on the drive's origin
  // (the sandbox CSP stops it in browsers that honour it; attachment stops it everywhere).
  if (isActiveContent({ contentType: String(r.getHeader('content-type') ?? '') })) {
    const disposition = String(r.getHeader('content-disposition') ?? '');
    const params = disposition.indexOf(';');
    r.header('content-disposition', `attachment${params < 0 ? '' : disposition.slice(params)}`);
  }
}

/** 304/412 per If-Match, If-None-Match, If-Modified-Since, If-Unmodified-Since. */
function checkPreconditions(ctx: S3Context, meta: ObjectMeta): void {
  const etag = meta.etag;
  const matches = (list: string) => list.split(',').some((t) => t.trim() === '*' || unquoteEtag(t) === etag);
  const modifiedSec = Math.floor(meta.lastModified / 1000);
  const ifMatch = header(ctx, 'if-match');
  const ifNoneMatch = header(ctx, 'if-none-match');
  const ifModifiedSince = Date.parse(header(ctx, 'if-modified-since') ?? '');
  const ifUnmodifiedSince = Date.parse(header(ctx, 'if-unmodified-since') ?? '');
  if (ifMatch !== undefined && !matches(ifMatch)) throw new S3Error('PreconditionFailed');
  if (ifMatch === undefined && !Number.isNaN(ifUnmodifiedSince) && modifiedSec > ifUnmodifiedSince / 1000) throw new S3Error('PreconditionFailed');
  if (ifNoneMatch !== undefined && matches(ifNoneMatch)) throw notModified(meta);
  if (ifNoneMatch === undefined && !Number.isNaN(ifModifiedSince) && modifiedSec <= ifModifiedSince / 1000) throw notModified(meta);
}

function notModified(meta: ObjectMeta): S3Error {
  return new S3Error('NotModified', 'Not Modified', { headers: { etag: quoteEtag(meta.etag), 'last-modified': httpDate(meta.lastModified) } });
}

export async function headObject(ctx: S3Context): Promise<void> {
  requireBucket(ctx);
  const meta = ctx.store.head(ctx.bucket, ctx.key);
  if (!meta) throw new S3Error('NoSuchKey');
  checkPreconditions(ctx, meta);
  setObjectHeaders(ctx, meta);
  const range = parseRange(header(ctx, 'range'), meta.size);
  if (range.kind === 'unsatisfiable') throw invalidRange(meta.size);
  if (range.kind === 'partial') {
    ctx.reply.code(206).header('content-range', `bytes ${range.start}-${range.end}/${meta.size}`).header('content-length', range.end - range.start + 1);
  } else {
    ctx.reply.code(200).header('content-length', meta.size);
  }
  ctx.reply.send();
}

function invalidRange(size: number): S3Error {
  return new S3Error('InvalidRange', undefined, { headers: { 'content-range': `bytes */${size}` }, detail: { ActualObjectSize: String(size) } });
}

export async function getObject(ctx: S3Context): Promise<void> {
  requireBucket(ctx);
  const { meta, handle } = await ctx.store.openObject(ctx.bucket, ctx.key);
  try {
    checkPreconditions(ctx, meta);
    const range = parseRange(header(ctx, 'range'), meta.size);
    if (range.kind === 'unsatisfiable') throw invalidRange(meta.size);
    setObjectHeaders(ctx, meta);
    const start = range.kind === 'partial' ? range.start : 0;
    const end = range.kind === 'partial' ? range.end : meta.size - 1;
    if (range.kind === 'partial') ctx.reply.code(206).header('content-range', `bytes ${start}-${end}/${meta.size}`);
    else ctx.reply.code(200);
    ctx.reply.header('content-length', end - start + 1);
    if (meta.size === 0) {
      await handle.close();
      ctx.reply.send('');
      return;
    }
    ctx.reply.send(handle.createReadStream({ start, end, highWaterMark: READ_CHUNK, autoClose: true }));
  } catch (err) {
    await handle.close();
    throw err;
  }
}

export async function deleteObject(ctx: S3Context): Promise<void> {
  requireBucket(ctx);
  await ctx.store.deleteObject(ctx.bucket, ctx.key);
  ctx.reply.code(204).send();
}

function parseCopySource(value: string): { bucket: string; key: string } {
  const path = (value.startsWith('/') ? value.slice(1) : value).split('?')[0]!;
  const slash = path.indexOf('/');
  try {
    if (slash > 0 && slash < path.length - 1) return { bucket: decodeURIComponent(path.slice(0, slash)), key: decodeURIComponent(path.slice(slash + 1)) };
  } catch {
    // fall through to the S3 error
  }
  throw new S3Error('InvalidArgument', 'Copy Source must mention the source bucket and key: sourcebucket/sourcekey');
}

export async function copyObject(ctx: S3Context, source: string): Promise<void> {
  requireBucket(ctx);
  const src = parseCopySource(source);
  if (!ctx.store.hasBucket(src.bucket)) throw new S3Error('NoSuchBucket');
  const directive = (header(ctx, 'x-amz-metadata-directive') ?? 'COPY').toUpperCase();
  if (directive !== 'COPY' && directive !== 'REPLACE') throw new S3Error('InvalidArgument', 'Unknown metadata directive.');
  if (src.bucket === ctx.bucket && src.key === ctx.key && directive === 'COPY') {
    throw new S3Error('InvalidRequest', "This copy request is illegal because it is trying to copy an object to itself without changing the object's metadata, storage class, website redirect location or encryption attributes.");
  }
  const attributes = directive === 'REPLACE' ? objectAttributes(ctx) : undefined;
  const { meta: sourceMeta, handle } = await ctx.store.openObject(src.bucket, src.key);
  const temp = ctx.store.tempPath();
  try {
    const sourceMatch = header(ctx, 'x-amz-copy-source-if-match');
    if (sourceMatch !== undefined && unquoteEtag(sourceMatch) !== sourceMeta.etag) throw new S3Error('PreconditionFailed');
    if (sourceMeta.size > ctx.limits.maxSinglePut) {
      throw new S3Error('InvalidRequest', `The specified copy source is larger than the maximum allowable size for a copy source: ${ctx.limits.maxSinglePut}`);
    }
    const md5 = createHash('md5');
    await pipeline(
      handle.createReadStream({ highWaterMark: READ_CHUNK, autoClose: false }),
      async function* (chunks: AsyncIterable<Buffer>) {
        for await (const chunk of chunks) {
          md5.update(chunk);
          yield chunk;
        }
      },
      createWriteStream(temp, { flags: 'wx', flush: true, highWaterMark: 4 << 20 }),
    );
    const meta = await ctx.store.commitObject(ctx.bucket, ctx.key, temp, {
      contentType: attributes?.contentType ?? sourceMeta.contentType,
      userMetadata: attributes?.userMetadata ?? sourceMeta.userMetadata,
      headers: attributes?.headers ?? sourceMeta.headers,
      size: sourceMeta.size,
      etag: md5.digest('hex'),
    });
    sendXml(ctx, el('CopyObjectResult', el('LastModified', isoDate(meta.lastModified)), el('ETag', quoteEtag(meta.etag))));
  } finally {
    await handle.close();
    await ctx.store.releaseTemp(temp);
  }
}

export async function deleteObjects(ctx: S3Context): Promise<void> {
  requireBucket(ctx);
  const hasDigest = header(ctx, 'content-md5') !== undefined || Object.keys(ctx.request.raw.headers).some((h) => h.startsWith('x-amz-checksum-'));
  if (!hasDigest) throw new S3Error('InvalidRequest', 'Missing required header for this request: Content-MD5');
  const body = await receiveSmall(ctx.request.raw, { headers: ctx.request.raw.headers, auth: ctx.auth, maxSize: MAX_XML_BODY });
  let keys: string[];
  let quiet: boolean;
  try {
    const doc = parseXml(body.toString('utf8'));
    if (doc.name !== 'Delete') throw new Error('not a Delete document');
    quiet = childText(doc, 'Quiet')?.trim() === 'true';
    keys = doc.children.filter((c) => c.name === 'Object').map((o) => {
      const key = childText(o, 'Key');
      if (key === undefined || key === '') throw new Error('Object without Key');
      return key;
    });
  } catch {
    throw new S3Error('MalformedXML');
  }
  if (keys.length === 0 || keys.length > MAX_DELETE_KEYS) throw new S3Error('MalformedXML');
  const results: Array<XmlNode | undefined> = new Array(keys.length);
  let next = 0;
  // Each delete waits for a directory fsync; a few in parallel keep a 1000-key batch quick.
  await Promise.all(Array.from({ length: Math.min(DELETE_PARALLELISM, keys.length) }, async () => {
    while (next < keys.length) {
      const i = next++;
      const key = keys[i]!;
      try {
        await ctx.store.deleteObject(ctx.bucket, key);
        if (!quiet) results[i] = el('Deleted', el('Key', key));
      } catch (err) {
        ctx.request.log.error({ err, bucket: ctx.bucket }, 'embedded-s3: DeleteObjects entry failed');
        results[i] = el('Error', el('Key', key), el('Code', 'InternalError'), el('Message', 'We encountered an internal error. Please try again.'));
      }
    }
  }));
  sendXml(ctx, el('DeleteResult', ...results));
}
