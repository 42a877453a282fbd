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
import { sql, type Selectable } from 'kysely';
import type { Db } from './sql/tx.ts';
import type { UploadSessionsTable } from './sql/schema.ts';
import { newId } from '../ids.ts';

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
  /** The storage connection the bytes go to, with `bucket`: the library's policy when the session was made. */
  connectionId: string;
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

function toSession(r: Selectable<UploadSessionsTable>): UploadSession {
  return {
    id: r.id,
    userId: r.user_id,
    spaceKind: r.space_kind as UploadSession['spaceKind'],
    spaceId: r.space_id,
    parentId: r.parent_id,
    libCode: r.lib_code,
    name: r.name,
    size: r.size,
    sha256: r.sha256,
    bucket: r.bucket,
    connectionId: r.connection_id,
    objectKey: r.object_key,
    partSize: r.part_size,
    partCount: r.part_count,
    uploadId: r.upload_id,
    conflict: r.conflict as UploadSession['conflict'],
    existingId: r.existing_id,
    reservedBytes: r.reserved_bytes,
    createdAt: r.created_at,
    updatedAt: r.updated_at,
    expiresAt: r.expires_at,
    writeMode: r.write_mode,
    signUntil: r.sign_until,
    endedAt: r.ended_at,
  };
}

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

type NewSession = Omit<
  UploadSession, 'id' | 'objectKey' | 'partSize' | 'partCount' | 'uploadId' | 'createdAt' | 'updatedAt' | 'expiresAt' | 'writeMode' | 'signUntil' | 'endedAt' | 'connectionId'
> & { connectionId?: string };

/**
 * `clientWrites`: the client uploads the bytes with requests the server signs (file-uploadable). Otherwise the
 * server writes them itself (bulk-upload) and nothing is ever signed for the session.
 */
export async function createSession(db: Db, s: NewSession & { clientWrites?: boolean }): Promise<UploadSession> {
  return (await createSessions(db, [s]))[0]!;
}

/** Rows per multi-row statement: 22 columns x 200 stays well under SQLite's bound parameters. */
const CHUNK = 200;

/** createSession for a batch (bulk-upload), in multi-row inserts; sessions come back in the order given. */
export async function createSessions(db: Db, sessions: (NewSession & { clientWrites?: boolean })[]): Promise<UploadSession[]> {
  const now = Date.now();
  const values = sessions.map((s) => {
    const id = newId();
    const partSize = partSizeFor(s.size);
    return {
      id,
      user_id: s.userId,
      space_kind: s.spaceKind,
      space_id: s.spaceId,
      parent_id: s.parentId,
      lib_code: s.libCode,
      name: s.name,
      size: s.size,
      sha256: s.sha256,
      bucket: s.bucket,
      connection_id: s.connectionId ?? '0',
      object_key: stagingKey(id),
      part_size: partSize,
      part_count: Math.max(1, Math.ceil(s.size / partSize)),
      upload_id: null,
      conflict: s.conflict,
      existing_id: s.existingId,
      reserved_bytes: s.reservedBytes,
      created_at: now,
      updated_at: now,
      expires_at: now + SESSION_TTL_MS,
      write_mode: s.clientWrites ? null : ('server' as const),
    };
  });
  const byId = new Map<string, UploadSession>();
  for (let i = 0; i < values.length; i += CHUNK) {
    for (const r of await db.insertInto('upload_sessions').values(values.slice(i, i + CHUNK)).returningAll().execute()) byId.set(r.id, toSession(r));
  }
  return values.map((v) => byId.get(v.id)!);
}

/** Sessions by id (bulk-upload's), in one query per 200. */
export async function getSessions(db: Db, ids: string[]): Promise<Map<string, UploadSession>> {
  const out = new Map<string, UploadSession>();
  for (let i = 0; i < ids.length; i += CHUNK) {
    for (const r of await db.selectFrom('upload_sessions').selectAll().where('id', 'in', ids.slice(i, i + CHUNK)).execute()) out.set(r.id, toSession(r));
  }
  return out;
}

/** Sessions of the user a client may still write to (the per-user cap counts these). */
export async function countOpenSessions(db: Db, userId: string, now = Date.now()): Promise<number> {
  const r = await db
    .selectFrom('upload_sessions')
    .select((eb) => eb.fn.countAll<number>().as('c'))
    .where('user_id', '=', userId)
    .where('ended_at', 'is', null)
    .where('expires_at', '>', now)
    .where((eb) => eb.or([eb('write_mode', 'is', null), eb('write_mode', '<>', 'server')]))
    .executeTakeFirstOrThrow();
  return Number(r.c);
}

/** Bytes of part `n` (1-based) in the session's layout: partSize, the last one what is left of the size. */
export function partLength(s: Pick<UploadSession, 'size' | 'partSize' | 'partCount'>, n: number): number {
  return n < s.partCount ? s.partSize : s.size - s.partSize * (s.partCount - 1);
}

/** The name of the lease a save-instance holds on a session while it hashes and files it (any node). */
export function savingLease(sessionId: string): string {
  return `upload-save:${sessionId}`;
}

/**
 * Records that a write request is being signed for the session: fixes its write mode (a session in the other
 * mode is refused) and extends sign_until, which must stay within the session's expiry. With `uploadId`, the
 * request must belong to the multipart upload recorded. Returns false when the session no longer allows it
 * (ended, expired, being saved on any node, or changed meanwhile); one statement, so it cannot interleave with
 * endSession.
 */
export async function claimWrite(db: Db, id: string, mode: 'put' | 'multipart', signUntil: number, uploadId?: string, now = Date.now()): Promise<boolean> {
  let q = db
    .updateTable('upload_sessions')
    .set({ write_mode: mode, sign_until: sql<number>`case when sign_until > ${signUntil} then sign_until else ${signUntil} end` })
    .where('id', '=', id)
    .where('ended_at', 'is', null)
    .where('expires_at', '>=', signUntil)
    .where((eb) => eb.or([eb('write_mode', 'is', null), eb('write_mode', '=', mode)]))
    .where(({ not, exists, selectFrom }) =>
      not(exists(selectFrom('leases').select('name').where('name', '=', savingLease(id)).where('expires_at', '>', now))),
    );
  if (uploadId !== undefined) q = q.where('upload_id', '=', uploadId);
  const r = await q.executeTakeFirst();
  return r.numUpdatedRows === 1n;
}

export async function getSession(db: Db, id: string): Promise<UploadSession | undefined> {
  const r = await db.selectFrom('upload_sessions').selectAll().where('id', '=', id).executeTakeFirst();
  return r ? toSession(r) : undefined;
}

/** An open session of this user, or undefined. */
export async function getUserSession(db: Db, userId: string, id: string, now = Date.now()): Promise<UploadSession | undefined> {
  const s = await getSession(db, id);
  return s && s.userId === userId && s.endedAt === null && s.expiresAt > now ? s : undefined;
}

export async function findResumable(db: Db, userId: string, sha256: string, parentId: string, name: string, now = Date.now()): Promise<UploadSession | undefined> {
  const r = await db
    .selectFrom('upload_sessions')
    .selectAll()
    .where('user_id', '=', userId)
    .where('sha256', '=', sha256)
    .where('parent_id', '=', parentId)
    .where('name', '=', name)
    .where('ended_at', 'is', null)
    .where('expires_at', '>', now)
    .orderBy('updated_at', 'desc')
    .limit(1)
    .executeTakeFirst();
  return r ? toSession(r) : undefined;
}

/** The open session uploading to this key. */
export async function findByObjectKey(db: Db, objectKey: string, now = Date.now()): Promise<UploadSession | undefined> {
  const r = await db
    .selectFrom('upload_sessions')
    .selectAll()
    .where('object_key', '=', objectKey)
    .where('ended_at', 'is', null)
    .where('expires_at', '>', now)
    .executeTakeFirst();
  return r ? toSession(r) : undefined;
}

/**
 * Records the session's multipart upload and the part layout the client chose (it may grow parts beyond the
 * suggestion), replacing `previous` (whose storage the caller has removed). False when the session changed
 * meanwhile: ended, in single-PUT mode, or another upload recorded. Call inside a transaction.
 */
export async function recordUpload(db: Db, id: string, previous: string | null, uploadId: string, partSize: number, partCount: number): Promise<boolean> {
  const r = await db
    .updateTable('upload_sessions')
    .set({ upload_id: uploadId, part_size: partSize, part_count: partCount, write_mode: 'multipart', updated_at: Date.now() })
    .where('id', '=', id)
    .where('ended_at', 'is', null)
    .where('upload_id', previous === null ? 'is' : '=', previous)
    .where((eb) => eb.or([eb('write_mode', 'is', null), eb('write_mode', '=', 'multipart')]))
    .executeTakeFirst();
  if (r.numUpdatedRows !== 1n) return false;
  await db.deleteFrom('upload_parts').where('session_id', '=', id).execute();
  return true;
}

/** Activity, for ordering resumable sessions; the expiry stays where it was set at creation. */
export async function touchSession(db: Db, id: string): Promise<void> {
  await db.updateTable('upload_sessions').set({ updated_at: Date.now() }).where('id', '=', id).execute();
}

export interface PartRecord {
  partNumber: number;
  etag: string;
  size: number;
}

export async function upsertParts(db: Db, id: string, parts: PartRecord[]): Promise<void> {
  if (parts.length > 0) {
    await db
      .insertInto('upload_parts')
      .values(parts.map((p) => ({ session_id: id, part_number: p.partNumber, etag: p.etag.replace(/^"|"$/g, ''), size: p.size })))
      .onConflict((oc) =>
        oc.columns(['session_id', 'part_number']).doUpdateSet((eb) => ({ etag: eb.ref('excluded.etag'), size: eb.ref('excluded.size') })),
      )
      .execute();
  }
  await touchSession(db, id);
}

export async function listParts(db: Db, id: string): Promise<PartRecord[]> {
  return db
    .selectFrom('upload_parts')
    .select(['part_number as partNumber', 'etag', 'size'])
    .where('session_id', '=', id)
    .orderBy('part_number')
    .execute();
}

export async function deleteParts(db: Db, id: string, partNumbers?: number[]): Promise<void> {
  let q = db.deleteFrom('upload_parts').where('session_id', '=', id);
  if (partNumbers) {
    if (partNumbers.length === 0) return;
    q = q.where('part_number', 'in', partNumbers);
  }
  await q.execute();
}

/** Removes session rows outright; only for sessions nothing was ever signed for (bulk-upload's). */
export async function deleteSessions(db: Db, ids: string[]): Promise<void> {
  for (let i = 0; i < ids.length; i += CHUNK) await db.deleteFrom('upload_sessions').where('id', 'in', ids.slice(i, i + CHUNK)).execute();
}

export async function deleteSession(db: Db, id: string): Promise<void> {
  await deleteSessions(db, [id]);
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
export async function endSession(db: Db, id: string, how: { filed: boolean; keyIsBlob?: boolean; stored?: boolean }, now = Date.now()): Promise<boolean> {
  const s = await getSession(db, id);
  if (!s) return false;
  const written = how.stored === true || s.writeMode === 'put' || s.writeMode === 'multipart';
  const cleanup = written && !how.keyIsBlob;
  await db.deleteFrom('proof_challenges').where('session_id', '=', id).execute();
  await db.deleteFrom('upload_parts').where('session_id', '=', id).execute();
  if (!cleanup && s.signUntil <= now) {
    await deleteSession(db, id);
    return false;
  }
  const keep = !how.filed && s.writeMode === 'put';
  await db
    .updateTable('upload_sessions')
    .set({
      ended_at: now,
      expires_at: sql<number>`case when sign_until > ${now} then sign_until else ${now} end`,
      reserved_bytes: keep ? s.reservedBytes : 0,
    })
    .where('id', '=', id)
    .execute();
  return cleanup;
}

/** Drops an ended session whose storage was cleaned, once no signed write of it can land any more. */
export async function forgetEnded(db: Db, id: string, now = Date.now()): Promise<void> {
  await db.deleteFrom('upload_sessions').where('id', '=', id).where('ended_at', 'is not', null).where('expires_at', '<=', now).execute();
}

/** Sessions past their expiry, oldest first: what the janitor cleans. */
export async function listExpiredSessions(
  db: Db, now: number, limit: number,
): Promise<{ id: string; objectKey: string; uploadId: string | null; connectionId: string; bucket: string }[]> {
  return db
    .selectFrom('upload_sessions')
    .select(['id', 'object_key as objectKey', 'upload_id as uploadId', 'connection_id as connectionId', 'bucket'])
    .where('expires_at', '<', now)
    .orderBy('expires_at')
    .limit(limit)
    .execute();
}

/** Removes an expired session's row, unless it changed meanwhile (no longer expired); true when it went. */
export async function deleteExpiredSession(db: Db, id: string, now: number): Promise<boolean> {
  const r = await db.deleteFrom('upload_sessions').where('id', '=', id).where('expires_at', '<', now).executeTakeFirst();
  return r.numDeletedRows > 0n;
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
export async function createProof(db: Db, userId: string, sessionId: string, blobId: string, size: number): Promise<ProofChallenge> {
  const length = size <= 1 ? size : Math.min(256 * 1024, Math.max(1, Math.floor(size / 2)), size - 1);
  const offset = size - length > 0 ? randomInt(0, size - length + 1) : 0;
  const id = newId();
  await db.deleteFrom('proof_challenges').where('session_id', '=', sessionId).execute();
  await db
    .insertInto('proof_challenges')
    .values({ id, user_id: userId, session_id: sessionId, blob_id: blobId, offset, length, expires_at: Date.now() + PROOF_TTL_MS })
    .execute();
  return { id, offset, length };
}

/** Takes the challenge out (single use): it is gone whether the answer is right or not. One statement. */
export async function takeProof(db: Db, id: string, userId: string, sessionId: string): Promise<(ProofChallenge & { blobId: string; expiresAt: number }) | undefined> {
  return db
    .deleteFrom('proof_challenges')
    .where('id', '=', id)
    .where('user_id', '=', userId)
    .where('session_id', '=', sessionId)
    .returning(['id', 'offset', 'length', 'blob_id as blobId', 'expires_at as expiresAt'])
    .executeTakeFirst();
}
