// Content-addressed blobs with reference counts. References are instance rows (live or in the recycle bin)
// and history versions. A blob whose count reaches 0 is garbage: it is collected under a per-hash lock, so
// an upload filing the same content at the same key can never race the deletion of the object.
import type { Db } from './database.ts';
import { transaction } from './database.ts';
import { randomBytes } from 'node:crypto';

export interface BlobRow {
  id: string;
  sha256: string;
  size: number;
  bucket: string;
  objectKey: string;
  refCount: number;
  verified: boolean;
}

const COLS = 'id, sha256, size, bucket, object_key AS objectKey, ref_count AS refCount, verified';

function map(row: Record<string, unknown> | undefined): BlobRow | undefined {
  if (!row) return undefined;
  return { ...(row as unknown as BlobRow), verified: row.verified === 1 };
}

export function newId(): string {
  return randomBytes(12).toString('base64url');
}

export function getBlob(db: Db, id: string): BlobRow | undefined {
  return map(db.prepare(`SELECT ${COLS} FROM blobs WHERE id = ?`).get(id) as Record<string, unknown> | undefined);
}

export function findBlobBySha(db: Db, sha256: string): BlobRow | undefined {
  return map(db.prepare(`SELECT ${COLS} FROM blobs WHERE sha256 = ?`).get(sha256) as Record<string, unknown> | undefined);
}

/** A blob that may serve instant transfer: the server hashed its stored bytes itself, and it is not garbage. */
export function findInstantBlob(db: Db, sha256: string, size: number): BlobRow | undefined {
  const b = findBlobBySha(db, sha256);
  return b && b.verified && b.size === size && b.refCount > 0 ? b : undefined;
}

/**
 * A blob that may serve instant transfer to this user: an instant blob whose content the user can already read.
 * Instant transfer (and bulk-upload's "instant") is answered only for such content, so the protocol never tells
 * anyone that content they cannot read is stored (issue #11, finding 4); other content is uploaded and then
 * deduplicated once its bytes arrived and were hashed (save-instance). Reachable today: a file of the user's own
 * space, live or in its recycle bin. Spaces the user may read (department, group, shared to them) go here too,
 * and only here.
 */
export function findReachableBlob(db: Db, userId: string, sha256: string, size: number): BlobRow | undefined {
  const b = findInstantBlob(db, sha256, size);
  if (!b) return undefined;
  const own = db.prepare("SELECT 1 FROM instances WHERE blob_id = ? AND space_kind = 'user' AND space_id = ? LIMIT 1").get(b.id, userId);
  return own ? b : undefined;
}

/** Files a verified blob (the caller hashed the stored object) or marks an existing row verified; returns it. */
export function upsertVerifiedBlob(db: Db, b: { sha256: string; size: number; bucket: string; objectKey: string }): BlobRow {
  db.prepare(
    `INSERT INTO blobs (id, sha256, size, bucket, object_key, ref_count, verified, created_at) VALUES (?, ?, ?, ?, ?, 0, 1, ?)
     ON CONFLICT(sha256) DO UPDATE SET verified = 1`,
  ).run(newId(), b.sha256, b.size, b.bucket, b.objectKey, Date.now());
  return findBlobBySha(db, b.sha256)!;
}

export function addBlobRefs(db: Db, blobId: string, n = 1): void {
  if (n === 0) return;
  const r = db.prepare('UPDATE blobs SET ref_count = ref_count + ? WHERE id = ?').run(n, blobId);
  if (r.changes !== 1) throw new Error(`blob ${blobId} is missing`);
}

/** Drops references; returns the remaining count (0 = collect it after the transaction commits). */
export function dropBlobRefs(db: Db, blobId: string, n = 1): number {
  db.prepare('UPDATE blobs SET ref_count = MAX(0, ref_count - ?) WHERE id = ?').run(n, blobId);
  return (db.prepare('SELECT ref_count AS c FROM blobs WHERE id = ?').get(blobId) as { c: number } | undefined)?.c ?? 0;
}

/** How many rows really point at the blob (defence against a drifted counter). */
export function countBlobReferences(db: Db, blobId: string): number {
  const r = db
    .prepare(
      `SELECT (SELECT COUNT(*) FROM instances WHERE blob_id = ?) + (SELECT COUNT(*) FROM file_versions WHERE blob_id = ?) AS c`,
    )
    .get(blobId, blobId) as { c: number };
  return r.c;
}

const locks = new Map<string, Promise<void>>();

/** Serialises work on one content hash within this process (filing versus collecting the same key). */
export async function withBlobLock<T>(sha256: string, fn: () => Promise<T>): Promise<T> {
  const prev = locks.get(sha256) ?? Promise.resolve();
  let release!: () => void;
  const mine = new Promise<void>((r) => (release = r));
  const chained = prev.then(() => mine);
  locks.set(sha256, chained);
  await prev;
  try {
    return await fn();
  } finally {
    release();
    if (locks.get(sha256) === chained) locks.delete(sha256);
  }
}

export interface BlobStorage {
  deleteObject(key: string): Promise<unknown>;
}

/**
 * Removes an unreferenced blob: the row first (so nothing new can reference it), then the object.
 * Returns true when it was removed. A blob that gained references meanwhile is left alone.
 */
export async function collectBlob(db: Db, store: BlobStorage, sha256: string): Promise<boolean> {
  return withBlobLock(sha256, async () => {
    const gone = transaction(db, () => {
      const b = findBlobBySha(db, sha256);
      if (!b || b.refCount > 0) return undefined;
      const real = countBlobReferences(db, b.id);
      if (real > 0) {
        // The counter drifted; repair it instead of deleting content something still uses.
        db.prepare('UPDATE blobs SET ref_count = ? WHERE id = ?').run(real, b.id);
        return undefined;
      }
      db.prepare('DELETE FROM proof_challenges WHERE blob_id = ?').run(b.id);
      db.prepare('DELETE FROM blobs WHERE id = ?').run(b.id);
      return b;
    });
    if (!gone) return false;
    await store.deleteObject(gone.objectKey);
    return true;
  });
}
