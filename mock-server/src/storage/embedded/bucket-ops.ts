// Service and bucket operations: ListBuckets, Create/Head/DeleteBucket, GetBucketLocation and
// ListObjects (V1 and V2).
import { uriEncode } from '../sigv4.ts';
import { intParam, isoDate, owner, quoteEtag, sendXml, type S3Context } from './context.ts';
import { S3Error } from './errors.ts';
import { listKeys } from './listing.ts';
import { el, xmlDocument, type XmlChild } from './xml.ts';

const PAGE = 1000;

export async function listBuckets(ctx: S3Context): Promise<void> {
  sendXml(ctx, el('ListAllMyBucketsResult',
    el('Owner', ...owner(ctx)),
    el('Buckets', ...ctx.store.listBuckets().map((b) => el('Bucket', el('Name', b.name), el('CreationDate', isoDate(b.created)))))));
}

export async function createBucket(ctx: S3Context): Promise<void> {
  await ctx.store.createBucket(ctx.bucket);
  ctx.reply.code(200).header('location', `/${ctx.bucket}`).send();
}

export async function headBucket(ctx: S3Context): Promise<void> {
  if (!ctx.store.hasBucket(ctx.bucket)) throw new S3Error('NoSuchBucket');
  ctx.reply.code(200).header('x-amz-bucket-region', ctx.region).send();
}

export async function deleteBucket(ctx: S3Context): Promise<void> {
  await ctx.store.deleteBucket(ctx.bucket);
  // Outside the bucket's lock: an in-flight Complete may hold an upload and wait for the bucket.
  await ctx.multipart.abortAll(ctx.bucket);
  ctx.reply.code(204).send();
}

export async function getBucketLocation(ctx: S3Context): Promise<void> {
  if (!ctx.store.hasBucket(ctx.bucket)) throw new S3Error('NoSuchBucket');
  // us-east-1 is reported as an empty constraint, as S3 does.
  const body = xmlDocument(el('LocationConstraint', ctx.region === 'us-east-1' ? '' : ctx.region));
  ctx.reply.code(200).header('content-type', 'application/xml').send(body);
}

function decodeToken(token: string): string {
  const decoded = Buffer.from(token, 'base64url').toString('utf8');
  if (token === '' || Buffer.from(decoded, 'utf8').toString('base64url') !== token) {
    throw new S3Error('InvalidArgument', 'The continuation token provided is incorrect');
  }
  return decoded;
}

export async function listObjects(ctx: S3Context, version: 1 | 2): Promise<void> {
  if (!ctx.store.hasBucket(ctx.bucket)) throw new S3Error('NoSuchBucket');
  const q = ctx.query;
  const prefix = q.get('prefix') ?? '';
  const delimiter = q.get('delimiter') || undefined;
  const maxKeys = intParam(ctx, 'max-keys', PAGE, PAGE);
  const encodingType = q.get('encoding-type');
  if (encodingType !== undefined && encodingType !== 'url') throw new S3Error('InvalidArgument', 'Invalid Encoding Method specified in Request');
  const enc = (value: string) => (encodingType === 'url' ? uriEncode(value, false) : value);
  const token = q.get('continuation-token');
  const startAfter = q.get('start-after');
  const marker = q.get('marker');
  const after = version === 2 ? (token !== undefined ? decodeToken(token) : startAfter) : marker;
  const result = listKeys(ctx.store.sortedKeys(ctx.bucket), { prefix, delimiter, maxKeys, after: after || undefined });

  const contents = result.keys.map((key) => {
    const meta = ctx.store.head(ctx.bucket, key);
    return el('Contents',
      el('Key', enc(key)), el('LastModified', isoDate(meta?.lastModified ?? 0)), el('ETag', quoteEtag(meta?.etag ?? '')),
      el('Size', meta?.size ?? 0), el('StorageClass', 'STANDARD'));
  });
  const prefixes = result.commonPrefixes.map((p) => el('CommonPrefixes', el('Prefix', enc(p))));
  const head: XmlChild[] = [el('Name', ctx.bucket), el('Prefix', enc(prefix))];
  if (version === 2) {
    if (startAfter !== undefined) head.push(el('StartAfter', enc(startAfter)));
    if (token !== undefined) head.push(el('ContinuationToken', token));
    if (result.isTruncated && result.last !== undefined) head.push(el('NextContinuationToken', Buffer.from(result.last, 'utf8').toString('base64url')));
    head.push(el('KeyCount', result.keys.length + result.commonPrefixes.length));
  } else {
    head.push(el('Marker', enc(marker ?? '')));
    if (result.isTruncated && delimiter !== undefined && result.last !== undefined) head.push(el('NextMarker', enc(result.last)));
  }
  head.push(el('MaxKeys', maxKeys));
  if (delimiter !== undefined) head.push(el('Delimiter', enc(delimiter)));
  if (encodingType !== undefined) head.push(el('EncodingType', encodingType));
  head.push(el('IsTruncated', result.isTruncated));
  sendXml(ctx, el('ListBucketResult', ...head, ...contents, ...prefixes));
}
