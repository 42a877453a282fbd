// The ObjectStore of the embedded store. Handlers still speak S3 to it (signing, multipart, deletes go over
// HTTP like for any target), but reads the server makes for itself — the SHA-256 of an upload on save, zip
// entries, proofs of possession, downloads through the server — go straight to the files on disk instead of an
// HTTP request to itself: same bytes, same errors, without a second copy of every byte through the sockets.
import { createHash } from 'node:crypto';
import { writeFile } from 'node:fs/promises';
import { Readable } from 'node:stream';
import type { DiskStore } from './embedded/disk-store.ts';
import { isS3Error } from './embedded/errors.ts';
import type { EmbeddedS3Control } from './embedded/plugin.ts';
import { parseRange } from './embedded/range.ts';
import { ObjectStore, StorageError, type ByteRange, type GetResult, type HeadResult, type ObjectReader, type ObjectStoreConfig } from './object-store.ts';

const READ_CHUNK = 1 << 20;
const HASH_CHUNK = 1 << 20;

function storageError(err: unknown): unknown {
  return isS3Error(err) ? new StorageError(err.code, err.message, err.status, err) : err;
}

export class EmbeddedObjectStore extends ObjectStore {
  private readonly control: EmbeddedS3Control;

  constructor(config: ObjectStoreConfig, control: EmbeddedS3Control) {
    super(config);
    this.control = control;
  }

  private disk(): DiskStore {
    const disk = this.control.disk;
    if (!disk) throw new StorageError('ServiceUnavailable', 'the embedded store has not started', 503);
    return disk;
  }

  /**
   * A body the server already holds in memory (bulk-upload's small files, which it has hashed itself) is written
   * straight to the store's files, with the same temp-file, fsync and atomic-commit path as an HTTP PUT. Streams
   * still go through S3 like for any target.
   */
  override async putObject(key: string, body: Readable | Buffer, opts: { contentLength: number; contentType?: string; metadata?: Record<string, string> }): Promise<{ etag: string }> {
    if (!Buffer.isBuffer(body)) return super.putObject(key, body, opts);
    if (body.length !== opts.contentLength) throw new StorageError('IncompleteBody', `${body.length} bytes given, ${opts.contentLength} declared`, 400);
    const disk = this.disk();
    const temp = disk.tempPath();
    try {
      await writeFile(temp, body, { flag: 'wx', flush: true });
      const meta = await disk.commitObject(this.bucket, key, temp, {
        size: body.length,
        etag: createHash('md5').update(body).digest('hex'),
        contentType: opts.contentType ?? 'application/octet-stream',
        userMetadata: Object.fromEntries(Object.entries(opts.metadata ?? {}).map(([k, v]) => [k.toLowerCase(), v])),
        headers: {},
      });
      return { etag: meta.etag };
    } catch (err) {
      throw storageError(err);
    } finally {
      await disk.releaseTemp(temp);
    }
  }

  /** Whether this bucket's new objects are encrypted at rest by the store (AES-256-GCM, per-object data keys). */
  isEncrypted(): boolean {
    return this.disk().isEncrypted(this.bucket);
  }

  async setEncryption(on: boolean): Promise<void> {
    await this.disk().setEncryption(this.bucket, on);
  }

  /** Re-wraps every encrypted object's data key under the current master key (after a rotation). */
  rewrapKeys(): Promise<number> {
    return this.disk().rewrapKeys();
  }

  override async headObject(key: string): Promise<HeadResult | null> {
    let meta;
    try {
      meta = this.disk().head(this.bucket, key);
    } catch (err) {
      throw storageError(err);
    }
    if (!meta) return null;
    return { size: meta.size, etag: meta.etag, contentType: meta.contentType, lastModified: new Date(meta.lastModified), metadata: { ...meta.userMetadata } };
  }

  override async getObject(key: string, range?: ByteRange): Promise<GetResult> {
    return this.read(key, range, READ_CHUNK);
  }

  override async openReader(key: string): Promise<ObjectReader> {
    let opened;
    try {
      opened = await this.disk().openObject(this.bucket, key);
    } catch (err) {
      throw storageError(err);
    }
    const { meta, handle } = opened;
    return {
      size: meta.size,
      read: (buffer, offset, length, position) => handle.read(buffer, offset, length, position),
      close: () => handle.close(),
    };
  }

  private async read(key: string, range: ByteRange | undefined, highWaterMark: number): Promise<GetResult> {
    let opened;
    try {
      opened = await this.disk().openObject(this.bucket, key);
    } catch (err) {
      throw storageError(err);
    }
    const { meta, handle } = opened;
    const header = range === undefined ? undefined : 'suffix' in range ? `bytes=-${range.suffix}` : `bytes=${range.start}-${range.end ?? ''}`;
    // The same Range rules the store applies to HTTP GETs.
    const parsed = parseRange(header, meta.size);
    if (parsed.kind === 'unsatisfiable') {
      await handle.close();
      throw new StorageError('InvalidRange', 'The requested range is not satisfiable', 416);
    }
    const start = parsed.kind === 'partial' ? parsed.start : 0;
    const end = parsed.kind === 'partial' ? parsed.end : meta.size - 1;
    let body: Readable;
    if (meta.size === 0) {
      await handle.close();
      body = Readable.from([]);
    } else {
      body = handle.createReadStream({ start, end, highWaterMark, autoClose: true });
    }
    return {
      body,
      contentLength: end - start + 1,
      ...(parsed.kind === 'partial' ? { contentRange: `bytes ${start}-${end}/${meta.size}` } : {}),
      etag: meta.etag,
      contentType: meta.contentType,
    };
  }

  /** SHA-256 of the stored bytes, read from disk (the server's own hash, never the client's). */
  override async sha256(key: string): Promise<string> {
    let known: string | undefined;
    try {
      known = this.disk().head(this.bucket, key)?.sha256;
    } catch (err) {
      throw storageError(err);
    }
    // Computed by the store from the part files that are this object's segments, while they arrived.
    if (known) return known;
    // One buffer for the whole object: the hash consumes each read before the next one.
    const reader = await this.openReader(key);
    try {
      const hash = createHash('sha256');
      const buf = Buffer.allocUnsafeSlow(Math.min(HASH_CHUNK, Math.max(1, reader.size)));
      for (let pos = 0; pos < reader.size;) {
        const { bytesRead } = await reader.read(buf, 0, Math.min(buf.length, reader.size - pos), pos);
        if (bytesRead === 0) throw new StorageError('InternalError', `object ${key} is shorter than its recorded size`, 500);
        hash.update(buf.subarray(0, bytesRead));
        pos += bytesRead;
      }
      return hash.digest('hex');
    } finally {
      await reader.close();
    }
  }
}
