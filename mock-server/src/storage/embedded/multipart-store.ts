// Multipart uploads on disk:
//   uploads/<uploadId>/upload.json                   bucket, key, initiation time, metadata
//   uploads/<uploadId>/<n>.<md5hex>.<size>.part      one file per part; the name carries the ETag
// A part becomes visible only by renaming a complete, fsynced temp file into place, so ListParts
// never reports a half-written part. Completing hard-links the chosen parts into the object's
// directory as its segments and commits metadata listing them (DiskStore.commitSegments).
import { createHash, randomBytes, type Hash } from 'node:crypto';
import { mkdir, open, readFile, readdir, rename, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { DiskStore, NewObject, ObjectMeta } from './disk-store.ts';
import { S3Error } from './errors.ts';
import { fsyncDir, removeTreeAtomic, writeFileAtomic } from './fs-util.ts';
import { compareKeys } from './listing.ts';
import { KeyedMutex, SharedExclusiveLock } from './locks.ts';

async function hashFile(hash: Hash, path: string, buf: Buffer): Promise<void> {
  const fh = await open(path, 'r');
  try {
    for (;;) {
      const { bytesRead } = await fh.read(buf, 0, buf.length, null);
      if (bytesRead === 0) return;
      hash.update(buf.subarray(0, bytesRead));
    }
  } finally {
    await fh.close();
  }
}

export interface UploadRecord {
  uploadId: string;
  bucket: string;
  key: string;
  initiated: number;
  object: Omit<NewObject, 'size' | 'etag'>;
}

export interface PartInfo {
  partNumber: number;
  /** Unquoted md5 hex. */
  etag: string;
  size: number;
  file: string;
}

export interface CompleteLimits {
  minPartSize: number;
  maxObjectSize: number;
}

const UPLOAD_ID = /^[A-Za-z0-9_-]{32}$/;
const PART_FILE = /^(\d{1,5})\.([0-9a-f]{32})\.(\d{1,16})\.part$/;
const STALE_TEMP_MS = 60 * 60 * 1000;

export function unquoteEtag(etag: string): string {
  return etag.trim().replace(/^"(.*)"$/, '$1').replace(/^&quot;(.*)&quot;$/, '$1').toLowerCase();
}

interface UploadState {
  record: UploadRecord;
  /** Part index, read from disk on first use and then kept current. */
  parts: Promise<Map<number, PartInfo>> | undefined;
  /** Part commits share it; Complete and Abort take it exclusively. */
  lock: SharedExclusiveLock;
  /** SHA-256 of parts 1..n in order, computed from their files while the upload goes on. */
  sha?: RunningHash;
}

/**
 * The server hashes every uploaded file itself before filing it; reading a finished multipart object again
 * for that doubled the disk reads of an upload. Instead the parts are hashed from their files as soon as they
 * are contiguous from part 1, in otherwise idle time, and Complete records the digest with the object when the
 * chosen parts are exactly the files hashed. Anything else (a replaced part, a gap, a restart, a read error)
 * just leaves the digest out and the reader computes it from the stored object as before.
 */
interface RunningHash {
  hash: Hash;
  /** Part files hashed so far, in part-number order from 1. */
  files: string[];
  running: Promise<void> | undefined;
  again: boolean;
  failed: boolean;
}

export class MultipartStore {
  private readonly store: DiskStore;
  private readonly dir: string;
  private readonly uploads = new Map<string, UploadState>();
  private readonly partLocks = new KeyedMutex();
  private timer: NodeJS.Timeout | undefined;

  private constructor(store: DiskStore) {
    this.store = store;
    this.dir = join(store.root, 'uploads');
  }

  static async open(store: DiskStore): Promise<MultipartStore> {
    const mp = new MultipartStore(store);
    await mkdir(mp.dir, { recursive: true });
    for (const id of await readdir(mp.dir)) {
      const dir = join(mp.dir, id);
      try {
        const record = JSON.parse(await readFile(join(dir, 'upload.json'), 'utf8')) as UploadRecord;
        if (record.uploadId !== id || !UPLOAD_ID.test(id) || !store.hasBucket(record.bucket)) throw new Error('stale upload');
        mp.uploads.set(id, { record, parts: undefined, lock: new SharedExclusiveLock() });
      } catch (err) {
        store.log.warn({ uploadId: id, err }, 'embedded-s3: removing an unusable multipart upload directory');
        await removeTreeAtomic(store.tmpDir, dir);
      }
    }
    return mp;
  }

  async create(bucket: string, key: string, object: UploadRecord['object']): Promise<UploadRecord> {
    return this.store.withBucket(bucket, async () => {
      const record: UploadRecord = { uploadId: randomBytes(24).toString('base64url'), bucket, key, initiated: Date.now(), object };
      const staging = join(this.store.tmpDir, `${record.uploadId}.upload`);
      await mkdir(staging);
      await writeFileAtomic(this.store.tmpDir, join(staging, 'upload.json'), JSON.stringify(record));
      await rename(staging, join(this.dir, record.uploadId));
      await fsyncDir(this.dir);
      this.uploads.set(record.uploadId, { record, parts: Promise.resolve(new Map()), lock: new SharedExclusiveLock() });
      return record;
    });
  }

  /** The upload `uploadId` of bucket/key, or NoSuchUpload. */
  get(bucket: string, key: string, uploadId: string): UploadRecord {
    const record = UPLOAD_ID.test(uploadId) ? this.uploads.get(uploadId)?.record : undefined;
    if (!record || record.bucket !== bucket || record.key !== key) throw new S3Error('NoSuchUpload');
    return record;
  }

  list(bucket: string): UploadRecord[] {
    return [...this.uploads.values()]
      .map((u) => u.record)
      .filter((u) => u.bucket === bucket)
      .sort((a, b) => compareKeys(a.key, b.key) || a.initiated - b.initiated || compareKeys(a.uploadId, b.uploadId));
  }

  private state(uploadId: string): UploadState {
    const state = this.uploads.get(uploadId);
    if (!state) throw new S3Error('NoSuchUpload');
    return state;
  }

  async commitPart(upload: UploadRecord, partNumber: number, tempPath: string, md5Hex: string, size: number): Promise<void> {
    const state = this.state(upload.uploadId);
    await state.lock.withShared(() => this.partLocks.run(`${upload.uploadId}:${partNumber}`, async () => {
      if (this.uploads.get(upload.uploadId) !== state) throw new S3Error('NoSuchUpload');
      const parts = await this.partIndex(state);
      const dir = join(this.dir, upload.uploadId);
      const part: PartInfo = { partNumber, etag: md5Hex, size, file: `${partNumber}.${md5Hex}.${size}.part` };
      await rename(tempPath, join(dir, part.file));
      this.store.activeTemps.delete(tempPath);
      const previous = parts.get(partNumber);
      parts.set(partNumber, part);
      if (previous && previous.file !== part.file) await rm(join(dir, previous.file), { force: true });
      await fsyncDir(dir);
    }));
    this.hashAhead(state);
  }

  private hashAhead(state: UploadState): void {
    const sha = (state.sha ??= { hash: createHash('sha256'), files: [], running: undefined, again: false, failed: false });
    if (sha.failed) return;
    if (sha.running) {
      sha.again = true;
      return;
    }
    sha.running = (async () => {
      // One buffer per run, reused for every read: the hash consumes it before the next read.
      const buf = Buffer.allocUnsafeSlow(1 << 20);
      do {
        sha.again = false;
        const parts = await this.partIndex(state);
        for (let next = parts.get(sha.files.length + 1); next; next = parts.get(sha.files.length + 1)) {
          if (this.uploads.get(state.record.uploadId) !== state) return;
          await hashFile(sha.hash, join(this.dir, state.record.uploadId, next.file), buf);
          sha.files.push(next.file);
        }
      } while (sha.again);
    })()
      .catch(() => {
        sha.failed = true;
      })
      .finally(() => {
        sha.running = undefined;
      });
  }

  /** The running digest when `chosen` are exactly the files hashed so far (finishing any in progress). */
  private async hashedDigest(state: UploadState, chosen: PartInfo[]): Promise<string | undefined> {
    const sha = state.sha;
    if (!sha) return undefined;
    while (sha.running) await sha.running;
    if (sha.failed || sha.files.length !== chosen.length || chosen.some((p, i) => p.file !== sha.files[i])) return undefined;
    sha.failed = true; // a Hash digests once
    return sha.hash.digest('hex');
  }

  private partIndex(state: UploadState): Promise<Map<number, PartInfo>> {
    state.parts ??= this.readParts(state.record.uploadId).catch((err: unknown) => {
      state.parts = undefined;
      throw err;
    });
    return state.parts;
  }

  private async readParts(uploadId: string): Promise<Map<number, PartInfo>> {
    const dir = join(this.dir, uploadId);
    const parts = new Map<number, PartInfo>();
    for (const file of await readdir(dir)) {
      const m = PART_FILE.exec(file);
      if (!m) continue;
      const part = { partNumber: Number(m[1]), etag: m[2]!, size: Number(m[3]), file };
      // Two files for one part survive only a crash between a re-upload's rename and cleanup;
      // both are complete uploads of that part, so keep one and drop the other.
      const other = parts.get(part.partNumber);
      if (other) await rm(join(dir, other.file), { force: true });
      parts.set(part.partNumber, part);
    }
    return parts;
  }

  private async sortedParts(state: UploadState): Promise<PartInfo[]> {
    return [...(await this.partIndex(state)).values()].sort((a, b) => a.partNumber - b.partNumber);
  }

  /** One page of parts after `marker`, with their modification times. */
  async listParts(upload: UploadRecord, marker: number, maxParts: number): Promise<{ parts: Array<PartInfo & { lastModified: number }>; isTruncated: boolean }> {
    const state = this.state(upload.uploadId);
    const all = (await this.sortedParts(state)).filter((p) => p.partNumber > marker);
    const page = all.slice(0, maxParts);
    const dir = join(this.dir, upload.uploadId);
    const parts = await Promise.all(page.map(async (p) => {
      const info = await stat(join(dir, p.file)).catch(() => undefined);
      return { ...p, lastModified: info?.mtimeMs ?? upload.initiated };
    }));
    return { parts, isTruncated: all.length > page.length };
  }

  async complete(upload: UploadRecord, requested: Array<{ partNumber: number; etag: string }>, limits: CompleteLimits): Promise<ObjectMeta> {
    const state = this.state(upload.uploadId);
    return state.lock.withExclusive(async () => {
      if (this.uploads.get(upload.uploadId) !== state) throw new S3Error('NoSuchUpload');
      if (requested.length === 0) throw new S3Error('MalformedXML', 'You must specify at least one part');
      const available = await this.partIndex(state);
      const chosen: PartInfo[] = [];
      let total = 0;
      requested.forEach((want, i) => {
        if (i > 0 && want.partNumber <= requested[i - 1]!.partNumber) throw new S3Error('InvalidPartOrder');
        const part = available.get(want.partNumber);
        if (!part || part.etag !== unquoteEtag(want.etag)) throw new S3Error('InvalidPart', undefined, { detail: { PartNumber: String(want.partNumber), ETag: want.etag } });
        chosen.push(part);
        total += part.size;
      });
      chosen.slice(0, -1).forEach((part) => {
        if (part.size < limits.minPartSize) {
          throw new S3Error('EntityTooSmall', undefined, {
            detail: { ProposedSize: String(part.size), MinSizeAllowed: String(limits.minPartSize), PartNumber: String(part.partNumber), ETag: `"${part.etag}"` },
          });
        }
      });
      if (total > limits.maxObjectSize) {
        throw new S3Error('EntityTooLarge', undefined, { detail: { ProposedSize: String(total), MaxSizeAllowed: String(limits.maxObjectSize) } });
      }
      const dir = join(this.dir, upload.uploadId);
      const md5s = createHash('md5');
      for (const part of chosen) md5s.update(Buffer.from(part.etag, 'hex'));
      // The part files become the object's segments (hard links): no second write of the whole object.
      const sha256 = await this.hashedDigest(state, chosen);
      const meta = await this.store.commitSegments(upload.bucket, upload.key, chosen.map((p) => ({ path: join(dir, p.file), size: p.size })), {
        ...upload.object, size: total, etag: `${md5s.digest('hex')}-${chosen.length}`, ...(sha256 ? { sha256 } : {}),
      });
      await this.remove(upload.uploadId);
      return meta;
    });
  }

  async abort(upload: UploadRecord): Promise<void> {
    const state = this.state(upload.uploadId);
    await state.lock.withExclusive(async () => {
      if (this.uploads.get(upload.uploadId) !== state) throw new S3Error('NoSuchUpload');
      await this.remove(upload.uploadId);
    });
  }

  /** Aborts every upload of a bucket (DeleteBucket). */
  async abortAll(bucket: string): Promise<void> {
    for (const upload of this.list(bucket)) await this.abort(upload).catch(() => undefined);
  }

  private async remove(uploadId: string): Promise<void> {
    this.uploads.delete(uploadId);
    await removeTreeAtomic(this.store.tmpDir, join(this.dir, uploadId));
  }

  /** Aborts uploads initiated more than `maxAgeMs` ago and removes stale temp files. */
  async sweep(maxAgeMs: number, now = Date.now()): Promise<{ abortedUploads: number; removedTemps: number }> {
    let abortedUploads = 0;
    for (const state of [...this.uploads.values()]) {
      const { uploadId, initiated } = state.record;
      if (now - initiated <= maxAgeMs) continue;
      await state.lock.withExclusive(async () => {
        if (this.uploads.get(uploadId) !== state) return;
        await this.remove(uploadId);
        abortedUploads++;
      });
    }
    let removedTemps = 0;
    for (const name of await readdir(this.store.tmpDir)) {
      const path = join(this.store.tmpDir, name);
      if (this.store.activeTemps.has(path)) continue;
      const info = await stat(path).catch(() => undefined);
      if (info && now - info.mtimeMs > STALE_TEMP_MS) {
        await rm(path, { recursive: true, force: true });
        removedTemps++;
      }
    }
    if (abortedUploads > 0 || removedTemps > 0) this.store.log.info({ abortedUploads, removedTemps }, 'embedded-s3: swept abandoned uploads');
    return { abortedUploads, removedTemps };
  }

  startSweeper(maxAgeMs: number): void {
    const every = Math.min(Math.max(Math.floor(maxAgeMs / 4), 1000), 60 * 60 * 1000);
    this.timer = setInterval(() => {
      this.sweep(maxAgeMs).catch((err: unknown) => this.store.log.error({ err }, 'embedded-s3: sweep failed'));
    }, every);
    this.timer.unref();
  }

  stopSweeper(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
  }
}
