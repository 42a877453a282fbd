// Upload sessions: the server's record of an upload (staging key, multipart id, finished parts, the quota
// reservation), so an upload resumes from another tab, machine or after a restart. Proof challenges for
// instant transfer hang off a session.
//
// A session bounds what storage may hold for it (issue #11): the server signs every write a client sends to
// storage, each for exactly the bytes the declared size allows, into one PUT or one recorded multipart upload,
// and only while the session lives (an absolute expiry). A signed request stays valid at storage for up to
// 15 minutes, so an ended session keeps its row until then (see endSession) and the janitor removes what a
// late copy of such a request stored.
import { randomInt } from 'node:crypto';
import type { Db } from './database.ts';
import { newId } from './blobs-repo.ts';

/** Absolute lifetime of a session from its creation; activity never extends it. */
export const SESSION_TTL_MS = 24 * 3600 * 1000;
export const PROOF_TTL_MS = 10 * 60 * 1000;
export const DEFAULT_PART_SIZE = 8 * 1024 * 1024;
export const MAX_PARTS = 10000;

/** How the staging key is written: one client PUT, one client multipart upload at a time, or by the server itself. */
export type WriteMode = 'put' | 'multipart' | 'server';

export interface UploadSession {
  id: string;
  userId: string;
  spaceKind: 'user' | 'group' | 'dept';
  spaceId: string;
  parentId: string;
  libCode: string;
  name: string;
  size: number;
  sha256: string;
  bucket: string;
  objectKey: string;
  partSize: number;
  partCount: number;
  uploadId: string | null;
  conflict: 'keepBoth' | 'newVersion';
  existingId: string | null;
  reservedBytes: number;
  createdAt: number;
  updatedAt: number;
  expiresAt: number;
  /** Fixed by the first write signed (null: none yet). */
  writeMode: WriteMode | null;
  /** When the last write signed for the session stops being accepted by storage (0: none signed). */
  signUntil: number;
  /** Set when the session is over but a signed write may still land. */
  endedAt: number | null;
}

const COLS = `id, user_id AS userId, space_kind AS spaceKind, space_id AS spaceId, parent_id AS parentId, lib_code AS libCode, name,
  size, sha256, bucket, object_key AS objectKey, part_size AS partSize, part_count AS partCount, upload_id AS uploadId, conflict,
  existing_id AS existingId, reserved_bytes AS reservedBytes, created_at AS createdAt, updated_at AS updatedAt, expires_at AS expiresAt,
  write_mode AS writeMode, sign_until AS signUntil, ended_at AS endedAt`;
/** A session that can still be used: not ended, not expired. */
const OPEN = 'ended_at IS NULL AND expires_at > ?';

/** 8 MiB, grown in whole MiB so no file needs more than 10,000 parts. */
export function partSizeFor(size: number): number {
  const mib = 1024 * 1024;
  return Math.max(DEFAULT_PART_SIZE, Math.ceil(size / MAX_PARTS / mib) * mib);
}

/**
 * Where a session's bytes are uploaded. New content stays at this key as its blob: S3 has no rename and a
 * copy rewrites every byte (and stops at 5 GiB), while the key is unique per session and never reused, so
 * a collected blob can never race a new upload to the same key. Deduplication is by the blobs.sha256 index.
 * The key names no user: a file deduplicated against another user's content gets that content's key, which
 * must not tell who stored it first.
 */
export function stagingKey(sessionId: string): string {
  return `objects/${sessionId}`;
}

type NewSession = Omit<UploadSession, 'id' | 'objectKey' | 'partSize' | 'partCount' | 'uploadId' | 'createdAt' | 'updatedAt' | 'expiresAt' | 'writeMode' | 'signUntil' | 'endedAt'>;

/**
 * `clientWrites`: the client uploads the bytes with requests the server signs (file-uploadable). Otherwise the
 * server writes them itself (bulk-upload) and nothing is ever signed for the session.
 */
export function createSession(db: Db, s: NewSession & { clientWrites?: boolean }): UploadSession {
  const id = newId();
  const now = Date.now();
  const partSize = partSizeFor(s.size);
  db.prepare(
    `INSERT INTO upload_sessions (id, user_id, space_kind, space_id, parent_id, lib_code, name, size, sha256, bucket, object_key, part_size,
       part_count, upload_id, conflict, existing_id, reserved_bytes, created_at, updated_at, expires_at, write_mode)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, NULL, ?, ?, ?, ?, ?, ?, ?)`,
  ).run(
    id, s.userId, s.spaceKind, s.spaceId, s.parentId, s.libCode, s.name, s.size, s.sha256, s.bucket, stagingKey(id), partSize,
    Math.max(1, Math.ceil(s.size / partSize)), s.conflict, s.existingId, s.reservedBytes, now, now, now + SESSION_TTL_MS,
    s.clientWrites ? null : 'server',
  );
  return getSession(db, id)!;
}

/** Sessions of the user a client may still write to (the per-user cap counts these). */
export function countOpenSessions(db: Db, userId: string, now = Date.now()): number {
  const r = db
    .prepare(`SELECT COUNT(*) AS c FROM upload_sessions WHERE user_id = ? AND ${OPEN} AND (write_mode IS NULL OR write_mode <> 'server')`)
    .get(userId, now) as { c: number };
  return r.c;
}

/** Bytes of part `n` (1-based) in the session's layout: partSize, the last one what is left of the size. */
export function partLength(s: Pick<UploadSession, 'size' | 'partSize' | 'partCount'>, n: number): number {
  return n < s.partCount ? s.partSize : s.size - s.partSize * (s.partCount - 1);
}

/**
 * Records that a write request is being signed for the session: fixes its write mode (a session in the other
 * mode is refused) and extends sign_until, which must stay within the session's expiry. With `uploadId`, the
 * request must belong to the multipart upload recorded. Returns false when the session no longer allows it
 * (ended, expired or changed meanwhile); one statement, so it cannot interleave with endSession.
 */
export function claimWrite(db: Db, id: string, mode: 'put' | 'multipart', signUntil: number, uploadId?: string): boolean {
  const r = db
    .prepare(
      `UPDATE upload_sessions SET write_mode = ?, sign_until = MAX(sign_until, ?)
       WHERE id = ? AND ended_at IS NULL AND expires_at >= ? AND (write_mode IS NULL OR write_mode = ?) AND (? IS NULL OR upload_id = ?)`,
    )
    .run(mode, signUntil, id, signUntil, mode, uploadId ?? null, uploadId ?? null);
  return r.changes === 1;
}

export function getSession(db: Db, id: string): UploadSession | undefined {
  return db.prepare(`SELECT ${COLS} FROM upload_sessions WHERE id = ?`).get(id) as UploadSession | undefined;
}

/** An open session of this user, or undefined. */
export function getUserSession(db: Db, userId: string, id: string, now = Date.now()): UploadSession | undefined {
  const s = getSession(db, id);
  return s && s.userId === userId && s.endedAt === null && s.expiresAt > now ? s : undefined;
}

export function findResumable(db: Db, userId: string, sha256: string, parentId: string, name: string, now = Date.now()): UploadSession | undefined {
  return db
    .prepare(`SELECT ${COLS} FROM upload_sessions WHERE user_id = ? AND sha256 = ? AND parent_id = ? AND name = ? AND ${OPEN} ORDER BY updated_at DESC LIMIT 1`)
    .get(userId, sha256, parentId, name, now) as UploadSession | undefined;
}

/** The open session uploading to this key. */
export function findByObjectKey(db: Db, objectKey: string, now = Date.now()): UploadSession | undefined {
  return db.prepare(`SELECT ${COLS} FROM upload_sessions WHERE object_key = ? AND ${OPEN}`).get(objectKey, now) as UploadSession | undefined;
}

/**
 * Records the session's multipart upload and the part layout the client chose (it may grow parts beyond the
 * suggestion), replacing `previous` (whose storage the caller has removed). False when the session changed
 * meanwhile: ended, in single-PUT mode, or another upload recorded.
 */
export function recordUpload(db: Db, id: string, previous: string | null, uploadId: string, partSize: number, partCount: number): boolean {
  const r = db
    .prepare(
      `UPDATE upload_sessions SET upload_id = ?, part_size = ?, part_count = ?, write_mode = 'multipart', updated_at = ?
       WHERE id = ? AND ended_at IS NULL AND upload_id IS ? AND (write_mode IS NULL OR write_mode = 'multipart')`,
    )
    .run(uploadId, partSize, partCount, Date.now(), id, previous);
  if (r.changes !== 1) return false;
  db.prepare('DELETE FROM upload_parts WHERE session_id = ?').run(id);
  return true;
}

/** Activity, for ordering resumable sessions; the expiry stays where it was set at creation. */
export function touchSession(db: Db, id: string): void {
  db.prepare('UPDATE upload_sessions SET updated_at = ? WHERE id = ?').run(Date.now(), id);
}

export interface PartRecord {
  partNumber: number;
  etag: string;
  size: number;
}

export function upsertParts(db: Db, id: string, parts: PartRecord[]): void {
  const st = db.prepare(
    `INSERT INTO upload_parts (session_id, part_number, etag, size) VALUES (?, ?, ?, ?)
     ON CONFLICT(session_id, part_number) DO UPDATE SET etag = excluded.etag, size = excluded.size`,
  );
  for (const p of parts) st.run(id, p.partNumber, p.etag.replace(/^"|"$/g, ''), p.size);
  touchSession(db, id);
}

export function listParts(db: Db, id: string): PartRecord[] {
  return db.prepare('SELECT part_number AS partNumber, etag, size FROM upload_parts WHERE session_id = ? ORDER BY part_number').all(id) as unknown as PartRecord[];
}

export function deleteParts(db: Db, id: string, partNumbers?: number[]): void {
  if (!partNumbers) {
    db.prepare('DELETE FROM upload_parts WHERE session_id = ?').run(id);
    return;
  }
  const st = db.prepare('DELETE FROM upload_parts WHERE session_id = ? AND part_number = ?');
  for (const n of partNumbers) st.run(id, n);
}

/** Removes a session row outright; only for sessions nothing was ever signed for (bulk-upload's). */
export function deleteSession(db: Db, id: string): void {
  db.prepare('DELETE FROM upload_sessions WHERE id = ?').run(id);
}

/**
 * Ends a session (filed, refused, cancelled): it no longer resumes, signs or counts against the cap. Call inside
 * the transaction that files or refuses it. Returns true when storage may hold something of it that must go
 * (the caller then removes it, see cleanStaging): anything the client was signed to write, or `stored` (known to
 * be there), unless `keyIsBlob`.
 *
 * While a signed write may still land (sign_until), the row stays, ended, until then: the janitor then removes
 * what a late copy of a request stored. A refused or cancelled single PUT keeps its reservation until then too,
 * since such a copy can store the whole declared size again; a multipart upload is aborted, after which no part
 * or completion lands, so its reservation goes at once. A filed session's reservation has become usage.
 */
export function endSession(db: Db, id: string, how: { filed: boolean; keyIsBlob?: boolean; stored?: boolean }, now = Date.now()): boolean {
  const s = getSession(db, id);
  if (!s) return false;
  const written = how.stored === true || s.writeMode === 'put' || s.writeMode === 'multipart';
  const cleanup = written && !how.keyIsBlob;
  db.prepare('DELETE FROM proof_challenges WHERE session_id = ?').run(id);
  db.prepare('DELETE FROM upload_parts WHERE session_id = ?').run(id);
  if (!cleanup && s.signUntil <= now) {
    deleteSession(db, id);
    return false;
  }
  const keep = !how.filed && s.writeMode === 'put';
  db.prepare('UPDATE upload_sessions SET ended_at = ?, expires_at = MAX(?, sign_until), reserved_bytes = ? WHERE id = ?').run(
    now, now, keep ? s.reservedBytes : 0, id,
  );
  return cleanup;
}

/** Drops an ended session whose storage was cleaned, once no signed write of it can land any more. */
export function forgetEnded(db: Db, id: string, now = Date.now()): void {
  db.prepare('DELETE FROM upload_sessions WHERE id = ? AND ended_at IS NOT NULL AND expires_at <= ?').run(id, now);
}

export interface ProofChallenge {
  id: string;
  offset: number;
  length: number;
}

/**
 * A random byte range of the blob. It is always shorter than the content (for 2+ bytes), so the known
 * hash of the whole file never answers it.
 */
export function createProof(db: Db, userId: string, sessionId: string, blobId: string, size: number): ProofChallenge {
  const length = size <= 1 ? size : Math.min(256 * 1024, Math.max(1, Math.floor(size / 2)), size - 1);
  const offset = size - length > 0 ? randomInt(0, size - length + 1) : 0;
  const id = newId();
  db.prepare('DELETE FROM proof_challenges WHERE session_id = ?').run(sessionId);
  db.prepare('INSERT INTO proof_challenges (id, user_id, session_id, blob_id, offset, length, expires_at) VALUES (?, ?, ?, ?, ?, ?, ?)').run(
    id, userId, sessionId, blobId, offset, length, Date.now() + PROOF_TTL_MS,
  );
  return { id, offset, length };
}

/** Takes the challenge out (single use): it is gone whether the answer is right or not. */
export function takeProof(db: Db, id: string, userId: string, sessionId: string): (ProofChallenge & { blobId: string; expiresAt: number }) | undefined {
  const row = db
    .prepare('SELECT id, offset, length, blob_id AS blobId, expires_at AS expiresAt FROM proof_challenges WHERE id = ? AND user_id = ? AND session_id = ?')
    .get(id, userId, sessionId) as (ProofChallenge & { blobId: string; expiresAt: number }) | undefined;
  if (row) db.prepare('DELETE FROM proof_challenges WHERE id = ?').run(id);
  return row;
}
