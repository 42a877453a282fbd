// Upload sessions: the server's record of an upload (staging key, multipart id, finished parts, the quota
// reservation), so an upload resumes from another tab, machine or after a restart. Proof challenges for
// instant transfer hang off a session.
import { randomInt } from 'node:crypto';
import type { Db } from './database.ts';
import { newId } from './blobs-repo.ts';

export const SESSION_TTL_MS = 24 * 3600 * 1000;
export const PROOF_TTL_MS = 10 * 60 * 1000;
export const DEFAULT_PART_SIZE = 8 * 1024 * 1024;
export const MAX_PARTS = 10000;

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
}

const COLS = `id, user_id AS userId, space_kind AS spaceKind, space_id AS spaceId, parent_id AS parentId, lib_code AS libCode, name,
  size, sha256, bucket, object_key AS objectKey, part_size AS partSize, part_count AS partCount, upload_id AS uploadId, conflict,
  existing_id AS existingId, reserved_bytes AS reservedBytes, created_at AS createdAt, updated_at AS updatedAt, expires_at AS expiresAt`;

/** 8 MiB, grown in whole MiB so no file needs more than 10,000 parts. */
export function partSizeFor(size: number): number {
  const mib = 1024 * 1024;
  return Math.max(DEFAULT_PART_SIZE, Math.ceil(size / MAX_PARTS / mib) * mib);
}

/**
 * Where a session's bytes are uploaded. New content stays at this key as its blob: S3 has no rename and a
 * copy rewrites every byte (and stops at 5 GiB), while the key is unique per session and never reused, so
 * a collected blob can never race a new upload to the same key. Deduplication is by the blobs.sha256 index.
 */
export function stagingKey(userId: string, sessionId: string): string {
  return `objects/${userId}/${sessionId}`;
}

export function createSession(db: Db, s: Omit<UploadSession, 'id' | 'objectKey' | 'partSize' | 'partCount' | 'uploadId' | 'createdAt' | 'updatedAt' | 'expiresAt'>): UploadSession {
  const id = newId();
  const now = Date.now();
  const partSize = partSizeFor(s.size);
  db.prepare(
    `INSERT INTO upload_sessions (id, user_id, space_kind, space_id, parent_id, lib_code, name, size, sha256, bucket, object_key, part_size,
       part_count, upload_id, conflict, existing_id, reserved_bytes, created_at, updated_at, expires_at)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, NULL, ?, ?, ?, ?, ?, ?)`,
  ).run(
    id, s.userId, s.spaceKind, s.spaceId, s.parentId, s.libCode, s.name, s.size, s.sha256, s.bucket, stagingKey(s.userId, id), partSize,
    Math.max(1, Math.ceil(s.size / partSize)), s.conflict, s.existingId, s.reservedBytes, now, now, now + SESSION_TTL_MS,
  );
  return getSession(db, id)!;
}

export function getSession(db: Db, id: string): UploadSession | undefined {
  return db.prepare(`SELECT ${COLS} FROM upload_sessions WHERE id = ?`).get(id) as UploadSession | undefined;
}

/** A live session of this user, or undefined. */
export function getUserSession(db: Db, userId: string, id: string, now = Date.now()): UploadSession | undefined {
  const s = getSession(db, id);
  return s && s.userId === userId && s.expiresAt > now ? s : undefined;
}

export function findResumable(db: Db, userId: string, sha256: string, parentId: string, name: string, now = Date.now()): UploadSession | undefined {
  return db
    .prepare(`SELECT ${COLS} FROM upload_sessions WHERE user_id = ? AND sha256 = ? AND parent_id = ? AND name = ? AND expires_at > ? ORDER BY updated_at DESC LIMIT 1`)
    .get(userId, sha256, parentId, name, now) as UploadSession | undefined;
}

export function findByObjectKey(db: Db, objectKey: string): UploadSession | undefined {
  return db.prepare(`SELECT ${COLS} FROM upload_sessions WHERE object_key = ?`).get(objectKey) as UploadSession | undefined;
}

export function setUploadId(db: Db, id: string, uploadId: string): void {
  db.prepare('DELETE FROM upload_parts WHERE session_id = ?').run(id);
  db.prepare('UPDATE upload_sessions SET upload_id = ?, updated_at = ?, expires_at = ? WHERE id = ?').run(uploadId, Date.now(), Date.now() + SESSION_TTL_MS, id);
}

/** The part layout the client chose (it may grow parts beyond the suggestion). */
export function setLayout(db: Db, id: string, partSize: number, partCount: number): void {
  db.prepare('UPDATE upload_sessions SET part_size = ?, part_count = ? WHERE id = ?').run(partSize, partCount, id);
}

export function touchSession(db: Db, id: string): void {
  db.prepare('UPDATE upload_sessions SET updated_at = ?, expires_at = ? WHERE id = ?').run(Date.now(), Date.now() + SESSION_TTL_MS, id);
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

/** Ends a session; its reservation stops counting with the row. */
export function deleteSession(db: Db, id: string): void {
  db.prepare('DELETE FROM upload_sessions WHERE id = ?').run(id);
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
