// Buckets and objects on local disk.
//
// Layout under root:
//   buckets/<bucket>/bucket.json
//   buckets/<bucket>/objects/<h[0..1]>/<h>.json         metadata; its rename is the commit point
//   buckets/<bucket>/objects/<h[0..1]>/<h>.<id>.data    content, referenced by the metadata
//   buckets/<bucket>/objects/<h[0..1]>/<h>.<id>.<n>.data  segments of a completed multipart object, in order
//   uploads/…                                           multipart state (multipart-store.ts)
//   tmp/                                                temp files; emptied on start
// where h = sha256(key): keys are opaque (may hold '/', '..', any unicode) and never reach a path.
// Content is written to tmp, fsynced, renamed next to the metadata, then the metadata is replaced
// atomically; a crash at any point leaves either the old object or the new one, never a mix, and
// at worst an unreferenced .data file that the next start removes.
// A multipart object is not copied into one file: its parts are hard-linked in as segments and the
// metadata lists them, so completing a 1 GiB upload writes a few hundred bytes, not 1 GiB again.
import { createHash } from 'node:crypto';
import { link, mkdir, open, readFile, readdir, rename, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { SegmentedContent, type ContentHandle } from './content.ts';
import { EncryptedContent, dataKeyOf, encryptFile, newObjectEncryption, rewrap, type ObjectEncryption } from './encryption.ts';
import type { Keyring } from '../master-key.ts';
import { S3Error } from './errors.ts';
import { fsyncDir, isNotFound, randomId, removeTreeAtomic, writeFileAtomic } from './fs-util.ts';
import { insertSorted, removeSorted, compareKeys } from './listing.ts';
import { KeyedMutex, SharedExclusiveLock } from './locks.ts';

export interface StoreLogger {
  info(obj: object, msg?: string): void;
  warn(obj: object, msg?: string): void;
  error(obj: object, msg?: string): void;
}

export interface ObjectMeta {
  key: string;
  size: number;
  /** Unquoted: md5 hex, or md5-of-md5s hex + "-N" for multipart objects. */
  etag: string;
  contentType: string;
  lastModified: number;
  /** x-amz-meta-* without the prefix, names lower-cased. */
  userMetadata: Record<string, string>;
  /** Stored representation headers (content-disposition, cache-control, …), lower-cased names. */
  headers: Record<string, string>;
  /** File name of the content in the metadata's directory (the first segment's for a segmented object). */
  data: string;
  /** Present for a completed multipart object: its content is these files of the directory, in order. */
  segments?: Array<{ file: string; size: number }>;
  /** SHA-256 hex of the content, when the store computed it from the stored parts (never from a client). */
  sha256?: string;
  /** Present when the content files are encrypted (encryption.ts); sizes stay plaintext sizes. */
  enc?: ObjectEncryption;
}

/** Names of the files holding an object's content, in order. */
export function contentFiles(meta: ObjectMeta): string[] {
  return meta.segments ? meta.segments.map((s) => s.file) : [meta.data];
}

export type NewObject = Omit<ObjectMeta, 'key' | 'data' | 'lastModified' | 'enc'>;

interface BucketState {
  name: string;
  created: number;
  keys: string[];
  metas: Map<string, ObjectMeta>;
  lock: SharedExclusiveLock;
  /** New objects are encrypted at rest (bucket.json `encryption`). */
  encrypted: boolean;
}

const BUCKET_NAME = /^(?!\d+\.\d+\.\d+\.\d+$)(?!.*\.\.)[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/;

export function isValidBucketName(name: string): boolean {
  return BUCKET_NAME.test(name);
}

export function keyHash(key: string): string {
  return createHash('sha256').update(key, 'utf8').digest('hex');
}

export class DiskStore {
  readonly root: string;
  readonly tmpDir: string;
  readonly log: StoreLogger;
  private readonly bucketsDir: string;
  private readonly buckets = new Map<string, BucketState>();
  private readonly keyLocks = new KeyedMutex();
  /** Temp files owned by in-flight requests; a runtime sweep leaves them alone. */
  readonly activeTemps = new Set<string>();
  /**
   * Open readers of segmented content (keyed by its first file). A segment is opened only when the read
   * reaches it, so files an overwrite or delete replaced are removed when the last such reader closes.
   */
  private readonly readers = new Map<string, number>();
  private readonly doomed = new Map<string, string[]>();

  /** The master keys wrapping data keys; without it the store cannot encrypt (and refuses to). */
  private readonly keyring: (() => Keyring) | undefined;

  private constructor(root: string, log: StoreLogger, keyring?: () => Keyring) {
    this.root = root;
    this.log = log;
    this.keyring = keyring;
    this.tmpDir = join(root, 'tmp');
    this.bucketsDir = join(root, 'buckets');
  }

  /** Opens (creating if needed) a store, discarding leftovers of interrupted writes. */
  static async open(root: string, log: StoreLogger, keyring?: () => Keyring): Promise<DiskStore> {
    const store = new DiskStore(root, log, keyring);
    await rm(store.tmpDir, { recursive: true, force: true });
    await mkdir(store.tmpDir, { recursive: true });
    await mkdir(store.bucketsDir, { recursive: true });
    for (const name of await readdir(store.bucketsDir)) {
      if (!isValidBucketName(name)) continue;
      await store.loadBucket(name);
    }
    return store;
  }

  private async loadBucket(name: string): Promise<void> {
    const dir = join(this.bucketsDir, name);
    let created: number;
    let encrypted: boolean;
    try {
      const info = JSON.parse(await readFile(join(dir, 'bucket.json'), 'utf8')) as { created: number; encryption?: string };
      created = info.created;
      encrypted = info.encryption === 'aes256-gcm';
    } catch (err) {
      this.log.warn({ bucket: name, err }, 'embedded-s3: ignoring a bucket directory without a readable bucket.json');
      return;
    }
    const state: BucketState = { name, created, keys: [], metas: new Map(), lock: new SharedExclusiveLock(), encrypted };
    const objectsDir = join(dir, 'objects');
    let fanout: string[] = [];
    try {
      fanout = await readdir(objectsDir);
    } catch (err) {
      if (!isNotFound(err)) throw err;
    }
    let orphans = 0;
    for (const sub of fanout) {
      const subDir = join(objectsDir, sub);
      const names = await readdir(subDir);
      const referenced = new Set<string>();
      const present = new Set(names);
      for (const file of names) {
        if (!file.endsWith('.json')) continue;
        try {
          const meta = JSON.parse(await readFile(join(subDir, file), 'utf8')) as ObjectMeta;
          const h = file.slice(0, -5);
          const files = contentFiles(meta);
          if (keyHash(meta.key) !== h || !files.every((f) => present.has(f))) throw new Error('metadata does not match its content file');
          for (const f of files) referenced.add(f);
          state.metas.set(meta.key, meta);
        } catch (err) {
          this.log.error({ bucket: name, file, err }, 'embedded-s3: unreadable object metadata; object skipped');
        }
      }
      for (const file of names) {
        if (file.endsWith('.data') && !referenced.has(file)) {
          orphans++;
          await rm(join(subDir, file), { force: true });
        }
      }
    }
    state.keys = [...state.metas.keys()].sort(compareKeys);
    this.buckets.set(name, state);
    if (orphans > 0) this.log.info({ bucket: name, orphans }, 'embedded-s3: removed content of interrupted writes');
  }

  /** A fresh temp file path in the store's filesystem, tracked until released. */
  tempPath(): string {
    const path = join(this.tmpDir, `${randomId()}.part`);
    this.activeTemps.add(path);
    return path;
  }

  /** Removes a temp file that was not committed (a committed one was renamed away and is no longer tracked). */
  async releaseTemp(path: string): Promise<void> {
    if (!this.activeTemps.delete(path)) return;
    await rm(path, { force: true });
  }

  // ----- buckets

  listBuckets(): Array<{ name: string; created: number }> {
    return [...this.buckets.values()].map((b) => ({ name: b.name, created: b.created })).sort((a, b) => compareKeys(a.name, b.name));
  }

  hasBucket(name: string): boolean {
    return this.buckets.has(name);
  }

  private bucket(name: string): BucketState {
    const state = this.buckets.get(name);
    if (!state) throw new S3Error('NoSuchBucket');
    return state;
  }

  async createBucket(name: string): Promise<void> {
    if (!isValidBucketName(name)) throw new S3Error('InvalidBucketName');
    await this.keyLocks.run(`bucket:${name}`, async () => {
      if (this.buckets.has(name)) throw new S3Error('BucketAlreadyOwnedByYou');
      const staging = join(this.tmpDir, `${name}.${randomId()}.bucket`);
      await mkdir(join(staging, 'objects'), { recursive: true });
      const created = Date.now();
      await writeFileAtomic(this.tmpDir, join(staging, 'bucket.json'), JSON.stringify({ created }));
      await rename(staging, join(this.bucketsDir, name));
      await fsyncDir(this.bucketsDir);
      this.buckets.set(name, { name, created, keys: [], metas: new Map(), lock: new SharedExclusiveLock(), encrypted: false });
    });
  }

  isEncrypted(name: string): boolean {
    return this.bucket(name).encrypted;
  }

  /** Whether the bucket's new objects are encrypted at rest; objects already stored stay as they are. */
  async setEncryption(name: string, on: boolean): Promise<void> {
    if (on && !this.keyring) throw new Error('the embedded store has no master key to encrypt with');
    await this.keyLocks.run(`bucket:${name}`, async () => {
      const state = this.bucket(name);
      if (state.encrypted === on) return;
      const dir = join(this.bucketsDir, name);
      await writeFileAtomic(this.tmpDir, join(dir, 'bucket.json'), JSON.stringify({ created: state.created, ...(on ? { encryption: 'aes256-gcm' } : {}) }));
      await fsyncDir(dir);
      state.encrypted = on;
    });
  }

  /**
   * Re-wraps every object's data key under the keyring's current master key (after a rotation): metadata is
   * rewritten, content never. Returns how many objects were re-wrapped.
   */
  async rewrapKeys(): Promise<number> {
    const ring = this.keyring?.();
    if (!ring) return 0;
    let count = 0;
    for (const state of this.buckets.values()) {
      for (const key of [...state.metas.keys()]) {
        await this.withBucket(state.name, () => this.keyLocks.run(`object:${state.name}/${key}`, async () => {
          const meta = state.metas.get(key);
          if (!meta?.enc || ring.sealsUnderCurrent(meta.enc.wrappedKey)) return;
          const next: ObjectMeta = { ...meta, enc: rewrap(ring, meta.enc) };
          const h = keyHash(key);
          const dir = this.objectDir(state.name, h);
          await writeFileAtomic(this.tmpDir, join(dir, `${h}.json`), JSON.stringify(next));
          await fsyncDir(dir);
          state.metas.set(key, next);
          count++;
        }));
      }
    }
    return count;
  }

  /** Removes an empty bucket. The caller then aborts the bucket's multipart uploads. */
  async deleteBucket(name: string): Promise<void> {
    await this.keyLocks.run(`bucket:${name}`, async () => {
      const state = this.bucket(name);
      await state.lock.withExclusive(async () => {
        if (state.keys.length > 0) throw new S3Error('BucketNotEmpty');
        this.buckets.delete(name);
        await removeTreeAtomic(this.tmpDir, join(this.bucketsDir, name));
        await fsyncDir(this.bucketsDir);
      });
    });
  }

  /** Runs `fn` while the bucket is guaranteed to exist (and not be removed). */
  async withBucket<T>(name: string, fn: () => Promise<T>): Promise<T> {
    const state = this.bucket(name);
    return state.lock.withShared(async () => {
      if (this.buckets.get(name) !== state) throw new S3Error('NoSuchBucket');
      return fn();
    });
  }

  // ----- objects

  head(bucket: string, key: string): ObjectMeta | undefined {
    return this.bucket(bucket).metas.get(key);
  }

  sortedKeys(bucket: string): readonly string[] {
    return this.bucket(bucket).keys;
  }

  private objectDir(bucket: string, h: string): string {
    return join(this.bucketsDir, bucket, 'objects', h.slice(0, 2));
  }

  dataPath(bucket: string, meta: ObjectMeta): string {
    return join(this.objectDir(bucket, keyHash(meta.key)), meta.data);
  }

  /** Opens an object's content; retries if an overwrite replaced it between lookup and open. */
  async openObject(bucket: string, key: string): Promise<{ meta: ObjectMeta; handle: ContentHandle }> {
    for (;;) {
      const meta = this.head(bucket, key);
      if (!meta) throw new S3Error('NoSuchKey');
      if (meta.enc) return { meta, handle: this.openEncrypted(bucket, meta, meta.enc) };
      if (meta.segments) return { meta, handle: this.openSegments(bucket, meta) };
      try {
        return { meta, handle: await open(this.dataPath(bucket, meta), 'r') };
      } catch (err) {
        if (!isNotFound(err) || this.head(bucket, key) === meta) throw err;
      }
    }
  }

  /** Encrypted content, one file or segments; registered as a reader like segments, since its files open lazily. */
  private openEncrypted(bucket: string, meta: ObjectMeta, enc: ObjectEncryption): ContentHandle {
    const ring = this.keyring?.();
    if (!ring) throw new S3Error('InternalError');
    const dir = this.objectDir(bucket, keyHash(meta.key));
    const files = meta.segments ? meta.segments.map((s) => ({ path: join(dir, s.file), size: s.size })) : [{ path: join(dir, meta.data), size: meta.size }];
    const key = dataKeyOf(ring, enc);
    return new EncryptedContent(files, key, enc, meta.segments ? 1 : 0, this.registerReader(files[0]!.path));
  }

  private openSegments(bucket: string, meta: ObjectMeta): ContentHandle {
    const dir = this.objectDir(bucket, keyHash(meta.key));
    const segments = meta.segments!.map((s) => ({ path: join(dir, s.file), size: s.size }));
    return new SegmentedContent(segments, this.registerReader(segments[0]!.path));
  }

  /** Counts an open reader of content whose first file is `id`; the returned release runs when it closes. */
  private registerReader(id: string): () => void {
    this.readers.set(id, (this.readers.get(id) ?? 0) + 1);
    return () => {
      const left = (this.readers.get(id) ?? 1) - 1;
      if (left > 0) {
        this.readers.set(id, left);
        return;
      }
      this.readers.delete(id);
      const files = this.doomed.get(id);
      this.doomed.delete(id);
      if (files) void this.removeFiles(files);
    };
  }

  /** Removes replaced or deleted content, or leaves that to the last open reader of it. */
  private async removeContent(dir: string, meta: ObjectMeta): Promise<void> {
    const files = contentFiles(meta).map((f) => join(dir, f));
    if ((meta.segments || meta.enc) && this.readers.has(files[0]!)) {
      this.doomed.set(files[0]!, files);
      return;
    }
    await this.removeFiles(files);
  }

  private async removeFiles(files: string[]): Promise<void> {
    for (const f of files) {
      await rm(f, { force: true }).catch((err: unknown) => this.log.warn({ err }, 'embedded-s3: could not remove replaced content; the next start removes it'));
    }
  }

  /**
   * Makes a fully written, fsynced temp file the content of `key`. With `ifNoneMatch` the commit
   * fails with PreconditionFailed when the key already exists (checked under the key's lock).
   */
  async commitObject(bucket: string, key: string, tempPath: string, object: NewObject, ifNoneMatch = false): Promise<ObjectMeta> {
    return this.withBucket(bucket, () => this.keyLocks.run(`object:${bucket}/${key}`, async () => {
      const state = this.bucket(bucket);
      const previous = state.metas.get(key);
      if (ifNoneMatch && previous) throw new S3Error('PreconditionFailed');
      const h = keyHash(key);
      const dir = this.objectDir(bucket, h);
      await mkdir(dir, { recursive: true });
      const meta: ObjectMeta = { ...object, key, lastModified: Date.now(), data: `${h}.${randomId()}.data` };
      const dataPath = join(dir, meta.data);
      let source = tempPath;
      if (state.encrypted) {
        // The plaintext temp file goes as soon as its ciphertext is complete; only ciphertext is committed.
        const { enc, key: dataKey } = newObjectEncryption(this.requireKeyring());
        source = this.tempPath();
        try {
          await encryptFile(tempPath, source, dataKey, enc, 0);
        } catch (err) {
          await this.releaseTemp(source);
          throw err;
        }
        await this.releaseTemp(tempPath);
        meta.enc = enc;
      }
      await rename(source, dataPath);
      this.activeTemps.delete(source);
      try {
        await writeFileAtomic(this.tmpDir, join(dir, `${h}.json`), JSON.stringify(meta));
        await fsyncDir(dir);
      } catch (err) {
        await rm(dataPath, { force: true });
        throw err;
      }
      state.metas.set(key, meta);
      insertSorted(state.keys, key);
      if (previous) await this.removeContent(dir, previous);
      return meta;
    }));
  }

  /**
   * Makes the concatenation of `parts` (complete, fsynced files elsewhere in the store) the content of
   * `key` without copying: each is hard-linked into the object's directory, then the metadata naming them
   * is committed. The sources stay untouched, so a crash before the commit leaves the upload as it was
   * (and unreferenced links the next start removes).
   */
  async commitSegments(bucket: string, key: string, parts: Array<{ path: string; size: number }>, object: NewObject): Promise<ObjectMeta> {
    return this.withBucket(bucket, () => this.keyLocks.run(`object:${bucket}/${key}`, async () => {
      const state = this.bucket(bucket);
      const previous = state.metas.get(key);
      const h = keyHash(key);
      const dir = this.objectDir(bucket, h);
      await mkdir(dir, { recursive: true });
      const id = randomId();
      const segments = parts.map((p, i) => ({ file: `${h}.${id}.${i + 1}.data`, size: p.size }));
      const meta: ObjectMeta = { ...object, key, lastModified: Date.now(), data: segments[0]!.file, segments };
      // An encrypted bucket cannot take the parts as they are: each becomes an encrypted segment (one write).
      const sealed = state.encrypted ? newObjectEncryption(this.requireKeyring()) : undefined;
      if (sealed) meta.enc = sealed.enc;
      try {
        for (let i = 0; i < parts.length; i++) {
          if (sealed) await encryptFile(parts[i]!.path, join(dir, segments[i]!.file), sealed.key, sealed.enc, i + 1);
          else await link(parts[i]!.path, join(dir, segments[i]!.file));
        }
        await writeFileAtomic(this.tmpDir, join(dir, `${h}.json`), JSON.stringify(meta));
        await fsyncDir(dir);
      } catch (err) {
        await this.removeFiles(segments.map((s) => join(dir, s.file)));
        throw err;
      }
      state.metas.set(key, meta);
      insertSorted(state.keys, key);
      if (previous) await this.removeContent(dir, previous);
      return meta;
    }));
  }

  private requireKeyring(): Keyring {
    const ring = this.keyring?.();
    if (!ring) throw new S3Error('InternalError');
    return ring;
  }

  /** Deletes a key; absent keys are not an error (S3 semantics). */
  async deleteObject(bucket: string, key: string): Promise<void> {
    await this.withBucket(bucket, () => this.keyLocks.run(`object:${bucket}/${key}`, async () => {
      const state = this.bucket(bucket);
      const meta = state.metas.get(key);
      if (!meta) return;
      const h = keyHash(key);
      const dir = this.objectDir(bucket, h);
      await rm(join(dir, `${h}.json`), { force: true });
      await fsyncDir(dir);
      state.metas.delete(key);
      removeSorted(state.keys, key);
      await this.removeContent(dir, meta);
    }));
  }
}
