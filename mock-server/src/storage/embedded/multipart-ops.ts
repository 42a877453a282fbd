// Multipart operations: Create, UploadPart, ListParts, Complete, Abort, ListMultipartUploads.
import { receiveSmall, receiveToFile } from './body.ts';
import { header, intParam, isoDate, objectAttributes, owner, quoteEtag, sendXml, type S3Context } from './context.ts';
import { S3Error } from './errors.ts';
import { compareKeys } from './listing.ts';
import { childText, el, parseXml } from './xml.ts';

const MAX_COMPLETE_BODY = 4 << 20;
const PAGE = 1000;

function requireBucket(ctx: S3Context): void {
  if (!ctx.store.hasBucket(ctx.bucket)) throw new S3Error('NoSuchBucket');
}

function uploadOf(ctx: S3Context) {
  requireBucket(ctx);
  return ctx.multipart.get(ctx.bucket, ctx.key, ctx.query.get('uploadId') ?? '');
}

export async function createMultipartUpload(ctx: S3Context): Promise<void> {
  requireBucket(ctx);
  const upload = await ctx.multipart.create(ctx.bucket, ctx.key, objectAttributes(ctx));
  sendXml(ctx, el('InitiateMultipartUploadResult', el('Bucket', ctx.bucket), el('Key', ctx.key), el('UploadId', upload.uploadId)));
}

export async function uploadPart(ctx: S3Context): Promise<void> {
  const raw = ctx.query.get('partNumber') ?? '';
  const partNumber = /^\d{1,5}$/.test(raw) ? Number(raw) : 0;
  if (partNumber < 1 || partNumber > ctx.limits.maxParts) {
    throw new S3Error('InvalidArgument', `Part number must be an integer between 1 and ${ctx.limits.maxParts}, inclusive`, {
      detail: { ArgumentName: 'partNumber', ArgumentValue: raw },
    });
  }
  const upload = uploadOf(ctx);
  const temp = ctx.store.tempPath();
  try {
    const body = await receiveToFile(ctx.request.raw, temp, { headers: ctx.request.raw.headers, auth: ctx.auth, maxSize: ctx.limits.maxPartSize });
    const etag = body.md5.toString('hex');
    await ctx.multipart.commitPart(upload, partNumber, temp, etag, body.size);
    ctx.reply.code(200).header('etag', quoteEtag(etag)).send();
  } finally {
    await ctx.store.releaseTemp(temp);
  }
}

export async function listParts(ctx: S3Context): Promise<void> {
  const upload = uploadOf(ctx);
  const marker = intParam(ctx, 'part-number-marker', 0);
  const maxParts = intParam(ctx, 'max-parts', PAGE, PAGE);
  const { parts, isTruncated } = await ctx.multipart.listParts(upload, marker, maxParts);
  const last = parts.at(-1)?.partNumber ?? marker;
  sendXml(ctx, el('ListPartsResult',
    el('Bucket', ctx.bucket), el('Key', ctx.key), el('UploadId', upload.uploadId),
    el('Initiator', ...owner(ctx)), el('Owner', ...owner(ctx)), el('StorageClass', 'STANDARD'),
    el('PartNumberMarker', marker), el('NextPartNumberMarker', last), el('MaxParts', maxParts), el('IsTruncated', isTruncated),
    ...parts.map((p) => el('Part',
      el('PartNumber', p.partNumber), el('LastModified', isoDate(p.lastModified)), el('ETag', quoteEtag(p.etag)), el('Size', p.size)))));
}

export async function completeMultipartUpload(ctx: S3Context): Promise<void> {
  const upload = uploadOf(ctx);
  const body = await receiveSmall(ctx.request.raw, { headers: ctx.request.raw.headers, auth: ctx.auth, maxSize: MAX_COMPLETE_BODY });
  let requested: Array<{ partNumber: number; etag: string }>;
  try {
    const doc = parseXml(body.toString('utf8'));
    if (doc.name !== 'CompleteMultipartUpload') throw new Error('not a CompleteMultipartUpload document');
    requested = doc.children.filter((c) => c.name === 'Part').map((p) => {
      const number = childText(p, 'PartNumber')?.trim() ?? '';
      const etag = childText(p, 'ETag');
      if (!/^\d{1,5}$/.test(number) || etag === undefined) throw new Error('Part needs PartNumber and ETag');
      return { partNumber: Number(number), etag };
    });
  } catch {
    throw new S3Error('MalformedXML');
  }
  const meta = await ctx.multipart.complete(upload, requested, { minPartSize: ctx.limits.minPartSize, maxObjectSize: ctx.limits.maxObjectSize });
  const host = header(ctx, 'host') ?? 'localhost';
  const path = ctx.request.raw.url?.split('?')[0] ?? '';
  sendXml(ctx, el('CompleteMultipartUploadResult',
    el('Location', `${ctx.request.protocol}://${host}${path}`), el('Bucket', ctx.bucket), el('Key', ctx.key), el('ETag', quoteEtag(meta.etag))));
}

export async function abortMultipartUpload(ctx: S3Context): Promise<void> {
  await ctx.multipart.abort(uploadOf(ctx));
  ctx.reply.code(204).send();
}

export async function listMultipartUploads(ctx: S3Context): Promise<void> {
  requireBucket(ctx);
  const prefix = ctx.query.get('prefix') ?? '';
  const keyMarker = ctx.query.get('key-marker') ?? '';
  const uploadIdMarker = ctx.query.get('upload-id-marker') ?? '';
  const maxUploads = intParam(ctx, 'max-uploads', PAGE, PAGE);
  const all = ctx.multipart.list(ctx.bucket).filter((u) => u.key.startsWith(prefix));
  let start = 0;
  if (keyMarker !== '') {
    const markerIndex = all.findIndex((u) => u.key === keyMarker && u.uploadId === uploadIdMarker);
    start = markerIndex >= 0 ? markerIndex + 1 : all.findIndex((u) => compareKeys(u.key, keyMarker) > 0);
    if (start < 0) start = all.length;
  }
  const page = all.slice(start, start + maxUploads);
  const isTruncated = start + page.length < all.length;
  const last = page.at(-1);
  sendXml(ctx, el('ListMultipartUploadsResult',
    el('Bucket', ctx.bucket), el('KeyMarker', keyMarker), el('UploadIdMarker', uploadIdMarker),
    el('NextKeyMarker', last?.key ?? ''), el('NextUploadIdMarker', last?.uploadId ?? ''),
    el('Prefix', prefix), el('MaxUploads', maxUploads), el('IsTruncated', isTruncated),
    ...page.map((u) => el('Upload', el('Key', u.key), el('UploadId', u.uploadId), el('Initiator', ...owner(ctx)),
      el('Owner', ...owner(ctx)), el('StorageClass', 'STANDARD'), el('Initiated', isoDate(u.initiated))))));
}
