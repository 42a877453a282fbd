// One blob's copy from the origin's storage to a target site's, in plain S3 (@aws-sdk/client-s3) so any endpoint
// works on either side.
// - Within one endpoint (one connection), the storage copies it itself: no byte passes through here. CopyObject
//   takes up to 5 GiB; above that (or above a lowered threshold, HCS_REPLICATION_PART_COPY_BYTES) the copy is a
//   multipart upload of UploadPartCopy parts of the threshold's size, each a byte range of the source.
// - Across endpoints, GetObject streams into a multipart upload, hashed on the way; the upload is completed only when
//   the SHA-256 of what was read is the blob's, so a target never holds a torn or wrong object under the key. Memory
//   is one part at a time.
// A target that already holds the key at the blob's size counts as done: that is what makes a retried or resumed
// copy free of duplicates (the key is the blob's, never a new one per attempt).
import { createHash } from 'node:crypto';
import type { Readable } from 'node:stream';
import {
  AbortMultipartUploadCommand, CompleteMultipartUploadCommand, CopyObjectCommand, CreateMultipartUploadCommand, GetObjectCommand,
  HeadObjectCommand, PutObjectCommand, UploadPartCommand, UploadPartCopyCommand, type S3ServiceException,
} from '@aws-sdk/client-s3';
import type { ObjectStore } from '../storage/object-store.ts';

/** Part size of a cross-endpoint copy: S3's minimum part is 5 MiB; 8 MiB keeps 10,000 parts above 78 GiB. */
export const PART_SIZE = 8 * 1024 * 1024;

/** The largest object one CopyObject copies (S3's limit), and the largest UploadPartCopy part. */
export const MAX_COPY_OBJECT = 5 * 1024 ** 3;
/** A multipart upload's most parts (S3's limit). */
const MAX_PARTS = 10_000;

export interface BlobToCopy {
  key: string;
  size: number;
  sha256: string;
  /** Where it goes at the target (default: the same key; the benchmark's raw baseline copies beside the replicas). */
  targetKey?: string;
}

export class CopyMismatch extends Error {}

async function present(dst: ObjectStore, key: string, size: number, abortSignal: AbortSignal): Promise<boolean> {
  try {
    const head = await dst.client.send(new HeadObjectCommand({ Bucket: dst.bucket, Key: key }), { abortSignal });
    return head.ContentLength === size;
  } catch (err) {
    if ((err as S3ServiceException).$metadata?.httpStatusCode === 404) return false;
    throw err;
  }
}

/** A multipart upload at the target that is aborted when the copy fails or stops (no parts left behind). */
async function multipart(dst: ObjectStore, key: string, abortSignal: AbortSignal, fill: (uploadId: string) => Promise<Array<{ PartNumber: number; ETag: string }>>): Promise<void> {
  const created = await dst.client.send(new CreateMultipartUploadCommand({ Bucket: dst.bucket, Key: key }), { abortSignal });
  const uploadId = created.UploadId!;
  try {
    const parts = await fill(uploadId);
    await dst.client.send(
      new CompleteMultipartUploadCommand({ Bucket: dst.bucket, Key: key, UploadId: uploadId, MultipartUpload: { Parts: parts } }), { abortSignal },
    );
  } catch (err) {
    // Best effort: the storage's own abandoned-upload sweep is the backstop.
    await dst.client.send(new AbortMultipartUploadCommand({ Bucket: dst.bucket, Key: key, UploadId: uploadId })).catch(() => undefined);
    throw err;
  }
}

/**
 * Answers how the copy was made: 'present' (nothing to do), 'server' (CopyObject), 'server-parts' (UploadPartCopy,
 * above `partCopyBytes`, default and at most 5 GiB) or 'stream'.
 */
export async function copyBlob(
  src: ObjectStore, dst: ObjectStore, blob: BlobToCopy, opts: { sameEndpoint: boolean; signal: AbortSignal; partCopyBytes?: number },
): Promise<'present' | 'server' | 'server-parts' | 'stream'> {
  const abortSignal = opts.signal;
  const key = blob.targetKey ?? blob.key;
  if (await present(dst, key, blob.size, abortSignal)) return 'present';
  if (opts.sameEndpoint) {
    const source = `${src.bucket}/${blob.key.split('/').map(encodeURIComponent).join('/')}`;
    const threshold = Math.min(opts.partCopyBytes ?? MAX_COPY_OBJECT, MAX_COPY_OBJECT);
    if (blob.size <= threshold) {
      await dst.client.send(new CopyObjectCommand({ Bucket: dst.bucket, Key: key, CopySource: source }), { abortSignal });
      return 'server';
    }
    const partSize = Math.max(threshold, Math.ceil(blob.size / MAX_PARTS));
    await multipart(dst, key, abortSignal, async (uploadId) => {
      const parts: Array<{ PartNumber: number; ETag: string }> = [];
      for (let start = 0; start < blob.size; start += partSize) {
        const PartNumber = parts.length + 1;
        const out = await dst.client.send(new UploadPartCopyCommand({
          Bucket: dst.bucket, Key: key, UploadId: uploadId, PartNumber, CopySource: source,
          CopySourceRange: `bytes=${start}-${Math.min(start + partSize, blob.size) - 1}`,
        }), { abortSignal });
        parts.push({ PartNumber, ETag: out.CopyPartResult!.ETag! });
      }
      return parts;
    });
    // No byte passed through here to hash: the copy at least has the blob's size (an origin object shorter than its
    // blob makes a range fail, one longer would leave the copy short).
    if (!(await present(dst, key, blob.size, abortSignal))) throw new CopyMismatch('the copy made of parts does not have the blob\'s size');
    return 'server-parts';
  }
  const got = await src.client.send(new GetObjectCommand({ Bucket: src.bucket, Key: blob.key }), { abortSignal });
  const body = got.Body as Readable;
  const hash = createHash('sha256');
  if (blob.size < PART_SIZE) {
    const chunks: Buffer[] = [];
    for await (const c of body) chunks.push(c as Buffer);
    const all = Buffer.concat(chunks);
    if (createHash('sha256').update(all).digest('hex') !== blob.sha256) throw new CopyMismatch('the origin\'s bytes do not have the blob\'s SHA-256');
    await dst.client.send(new PutObjectCommand({ Bucket: dst.bucket, Key: key, Body: all, ContentLength: all.length }), { abortSignal });
    return 'stream';
  }
  await multipart(dst, key, abortSignal, async (uploadId) => {
    const parts: Array<{ PartNumber: number; ETag: string }> = [];
    let pending: Buffer[] = [];
    let pendingBytes = 0;
    const flush = async () => {
      const part = Buffer.concat(pending, pendingBytes);
      pending = [];
      pendingBytes = 0;
      const PartNumber = parts.length + 1;
      const out = await dst.client.send(
        new UploadPartCommand({ Bucket: dst.bucket, Key: key, UploadId: uploadId, PartNumber, Body: part, ContentLength: part.length }), { abortSignal },
      );
      parts.push({ PartNumber, ETag: out.ETag! });
    };
    for await (const chunk of body) {
      const c = chunk as Buffer;
      hash.update(c);
      pending.push(c);
      pendingBytes += c.length;
      if (pendingBytes >= PART_SIZE) await flush();
    }
    if (pendingBytes > 0) await flush();
    if (hash.digest('hex') !== blob.sha256) throw new CopyMismatch('the origin\'s bytes do not have the blob\'s SHA-256');
    return parts;
  });
  return 'stream';
}
