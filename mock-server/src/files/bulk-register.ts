// Filing the files of one bulk-upload request (handlers/bulk-upload.ts) in a few statements whatever their number:
// the same rules as registerFile (register.ts) for each file (a new version of the same-named file, keep both as
// "name (n).ext", or skip), quota reservations held by upload sessions, blob references, and one operation-log
// line per file. Phase A reserves before the body is read, phase C files what was received.
import type { SessionUser } from '../auth/types.ts';
import { transaction, type Db } from '../db/sql/tx.ts';
import { addBlobRefsBulk, findReachableBlobs, lockBlobsBySha, upsertVerifiedBlobs } from '../db/blobs-repo.ts';
import { addVersion, getInstanceRow, insertFiles, lockFolders, namesTaken, spaceOf, type InstanceRow } from '../db/instances-repo.ts';
import { addUsage, freeBytes, lockedSpaceUsage, type Space } from '../db/quota.ts';
import { createSessions, deleteSessions, getSessions, type UploadSession } from '../db/uploads-repo.ts';
import { insertOpLogs } from '../db/oplog-repo.ts';
import { AppError, type ErrorCode } from '../http/errors.ts';
import { resolveFolder, type Caller } from './access.ts';
import { decodeWireName, nameKey } from './names.ts';
import type { StoreLocation } from '../storage/object-store.ts';

export interface ManifestFile {
  fName: string;
  fSize: number;
  fMd5: string;
  parentId?: string;
}
export interface Manifest {
  parentId?: string;
  category?: string;
  instanceType?: string;
  conflict?: 'keepBoth' | 'newVersion' | 'skip';
  files: ManifestFile[];
}

export type BulkOutcome = 'uploaded' | 'instant' | 'skipped' | 'failed';
export interface FileResult {
  outcome: BulkOutcome;
  instanceId?: string;
  code?: ErrorCode;
  msg?: string;
}

export interface Entry {
  file: ManifestFile;
  name: string;
  result?: FileResult;
  session?: UploadSession;
  /** The content was already held when checked: bytes are verified, not stored. */
  instant: boolean;
  stored: boolean;
  /** conflict skip: a same-named entry that appeared since phase A still means skipped. */
  skipIfExists: boolean;
}

export function fail(e: Entry, code: ErrorCode, msg: string): void {
  e.result = { outcome: 'failed', code, msg };
}

/** The entry's staging key may name an object: stored, or a write that failed after storage got some of it. */
export function mayHoldObject(e: Entry): boolean {
  return e.stored || e.result?.code === 'STORAGE_ERROR';
}

export function failWith(e: Entry, err: unknown): void {
  if (err instanceof AppError) fail(e, err.code, err.message);
  else throw err;
}

/** One entry per manifest file, in order; a file whose name does not decode has failed already. */
export function entriesOf(m: Manifest): Entry[] {
  const skip = m.conflict === 'skip';
  return m.files.map((file) => {
    const e: Entry = { file, name: '', instant: false, stored: false, skipIfExists: skip };
    try {
      e.name = decodeWireName(file.fName, 'fName');
    } catch (err) {
      failWith(e, err);
    }
    return e;
  });
}

/**
 * Phase A of bulk-upload, in a few statements whatever the number of files: the folders, the names taken in them, the space rows
 * (locked), the contents the caller may be answered "instant" for, then every session in multi-row inserts.
 */
export async function reserveBulk(
  db: Db, user: Caller & Pick<SessionUser, 'isAdmin'>, placeOf: (libCode: string) => StoreLocation, m: Manifest, entries: Entry[],
): Promise<void> {
  const libCode = m.category?.replace(/\d+$/, '') || 'NetDisk';
  const conflict = m.conflict ?? 'keepBoth';
  await transaction(db, async (trx) => {
    const folders = new Map<string, InstanceRow | AppError>();
    const folderOf = new Map<Entry, InstanceRow>();
    for (const e of entries) {
      if (e.result) continue;
      const parentKey = e.file.parentId ?? m.parentId ?? '';
      let folder = folders.get(parentKey);
      if (!folder) {
        try {
          folder = await resolveFolder(trx, user, parentKey || undefined, libCode, m.instanceType, 'write');
        } catch (err) {
          if (!(err instanceof AppError)) throw err;
          folder = err;
        }
        folders.set(parentKey, folder);
      }
      if (folder instanceof AppError) failWith(e, folder);
      else folderOf.set(e, folder);
    }
    const taken = new Map<string, Map<string, { id: string; isFolder: boolean }>>();
    for (const folder of new Set(folderOf.values())) {
      const names = [...folderOf].filter(([, f]) => f === folder).map(([e]) => e.name);
      taken.set(folder.id, await namesTaken(trx, folder.id, names));
    }
    const free = new Map<string, { space: Space; bytes: number }>();
    const accepted: { e: Entry; folder: InstanceRow; existing: { id: string; isFolder: boolean } | undefined }[] = [];
    for (const [e, folder] of folderOf) {
      const existing = taken.get(folder.id)!.get(nameKey(e.name));
      if (existing && conflict === 'skip') {
        e.result = { outcome: 'skipped', instanceId: existing.id };
        continue;
      }
      if (existing?.isFolder && conflict === 'newVersion') {
        fail(e, 'NAME_EXISTS', `"${e.name}" is a folder in this folder`);
        continue;
      }
      const space = spaceOf(folder);
      const spaceKey = `${space.kind}:${space.id}`;
      let room = free.get(spaceKey);
      if (!room) {
        // Locked until the sessions holding the reservations are in: another request (any node) checks after.
        room = { space, bytes: freeBytes(await lockedSpaceUsage(trx, space)) };
        free.set(spaceKey, room);
      }
      if (e.file.fSize > room.bytes) {
        fail(e, 'SPACE_NOT_ENOUGH', `not enough space: ${e.file.fSize} bytes needed, ${room.bytes} free`);
        continue;
      }
      room.bytes -= e.file.fSize;
      accepted.push({ e, folder, existing });
    }
    // "instant" only for content the caller can read: other content is stored, then deduplicated in phase C.
    const reachable = await findReachableBlobs(trx, user.userId, accepted.map(({ e }) => ({ sha256: e.file.fMd5, size: e.file.fSize })));
    const sessions = await createSessions(
      trx,
      accepted.map(({ e, folder, existing }) => {
        const space = spaceOf(folder);
        // Each file's bytes go where its library's policy says.
        const { bucket, connectionId } = placeOf(folder.libCode);
        return {
          userId: user.userId, spaceKind: space.kind, spaceId: space.id, parentId: folder.id, libCode: folder.libCode, name: e.name,
          size: e.file.fSize, sha256: e.file.fMd5, bucket, connectionId, conflict: conflict === 'newVersion' ? ('newVersion' as const) : ('keepBoth' as const),
          existingId: conflict === 'newVersion' && existing ? existing.id : null, reservedBytes: e.file.fSize,
        };
      }),
    );
    accepted.forEach(({ e }, i) => {
      e.instant = reachable.has(`${e.file.fMd5}:${e.file.fSize}`);
      e.session = sessions[i];
    });
  });
}

/**
 * Phase C of bulk-upload, in a few statements whatever the number of files, one transaction: the sessions, the names that
 * appeared since phase A (conflict skip), the folders (each must still be live), the blobs (locked, then filed
 * verified, or checked for "instant"), their references, the spaces' usage, the files (new versions one by one,
 * new files in multi-row inserts) and the sessions' end. A file that can no longer be filed fails alone (its
 * result says why); anything else rolls the phase back as a whole. Keys of staging objects no file needs (failed,
 * duplicate content) are added to `redundant`.
 */
export async function fileBulk(db: Db, userId: string, entries: Entry[], redundant: string[]): Promise<void> {
  await transaction(db, async (trx) => {
    const live = entries.filter((e) => e.session);
    const sessions = await getSessions(trx, live.map((e) => e.session!.id));
    const ended: string[] = [];
    let filing: { e: Entry; s: UploadSession }[] = [];
    for (const e of live) {
      const s = sessions.get(e.session!.id);
      if (!s) {
        // Swept meanwhile (cannot happen within a request's lifetime, but never file without a reservation).
        if (mayHoldObject(e)) redundant.push(e.session!.objectKey);
        if (!e.result) fail(e, 'UPLOAD_SESSION_MISSING', 'the upload session expired');
        continue;
      }
      ended.push(s.id);
      if (e.result) {
        if (mayHoldObject(e)) redundant.push(s.objectKey);
        continue;
      }
      filing.push({ e, s });
    }
    const byParent = (list: typeof filing) => {
      const out = new Map<string, typeof filing>();
      for (const f of list) out.set(f.s.parentId, [...(out.get(f.s.parentId) ?? []), f]);
      return out;
    };
    // Names taken now: a skipped file's name may have appeared since phase A; a new version needs its file.
    const taken = new Map<string, Map<string, { id: string; isFolder: boolean }>>();
    for (const [parentId, list] of byParent(filing)) taken.set(parentId, await namesTaken(trx, parentId, list.map((f) => f.s.name)));
    // A file of this batch whose name an earlier one takes, with conflict skip, is skipped in its favour.
    const claimed = new Map<string, Entry>();
    const skippedForEarlier: { e: Entry; first: Entry }[] = [];
    filing = filing.filter(({ e, s }) => {
      const key = nameKey(s.name);
      const existing = e.skipIfExists ? taken.get(s.parentId)!.get(key) : undefined;
      const first = claimed.get(`${s.parentId}\u0000${key}`);
      if (!existing && !(first && e.skipIfExists)) {
        if (!first) claimed.set(`${s.parentId}\u0000${key}`, e);
        return true;
      }
      if (e.stored) redundant.push(s.objectKey);
      if (existing) e.result = { outcome: 'skipped', instanceId: existing.id };
      else skippedForEarlier.push({ e, first: first! });
      return false;
    });
    const refuse = (f: (typeof filing)[number], err: AppError) => {
      failWith(f.e, err);
      if (f.e.stored) redundant.push(f.s.objectKey);
    };
    // Blobs first (the lock order of blobs-repo.ts): a collection of one either finished or waits for this filing.
    const locked = await lockBlobsBySha(trx, filing.map((f) => f.s.sha256));
    filing = filing.filter((f) => {
      if (!f.e.instant) return true;
      const b = locked.get(f.s.sha256);
      if (b && b.verified && b.size === f.s.size && b.refCount > 0) return true;
      refuse(f, new AppError('CONFLICT', 'the stored content it matched was removed meanwhile; upload the file again'));
      return false;
    });
    const parents = new Map<string, InstanceRow>();
    for (const parentId of byParent(filing).keys()) {
      const parent = await getInstanceRow(trx, parentId);
      if (parent && parent.isFolder && parent.deletedAt === null) parents.set(parentId, parent);
    }
    filing = filing.filter((f) => {
      if (parents.has(f.s.parentId)) return true;
      refuse(f, new AppError('NOT_FOUND', 'the target folder no longer exists'));
      return false;
    });
    const filed = await upsertVerifiedBlobs(
      trx,
      filing.filter((f) => !f.e.instant).map(({ s }) => ({
        sha256: s.sha256, size: s.size, bucket: s.bucket, connectionId: s.connectionId, objectKey: locked.get(s.sha256)?.objectKey ?? s.objectKey,
      })),
    );
    const blobOf = new Map<Entry, string>();
    const refs = new Map<string, number>();
    for (const { e, s } of filing) {
      const blob = e.instant ? locked.get(s.sha256)! : filed.get(s.sha256)!;
      if (!e.instant && blob.objectKey !== s.objectKey) redundant.push(s.objectKey);
      blobOf.set(e, blob.id);
      refs.set(blob.id, (refs.get(blob.id) ?? 0) + 1);
    }
    await addBlobRefsBulk(trx, refs);
    // Space rows before folder rows (the lock order of instances-repo.ts).
    const usage = new Map<string, { space: Space; bytes: number }>();
    for (const { s } of filing) {
      const key = `${s.spaceKind}:${s.spaceId}`;
      usage.set(key, { space: { kind: s.spaceKind, id: s.spaceId }, bytes: (usage.get(key)?.bytes ?? 0) + s.size });
    }
    for (const { space, bytes } of usage.values()) await addUsage(trx, space, bytes);
    await lockFolders(trx, [...parents.keys()]);
    const done = (e: Entry, instanceId: string) => (e.result = { outcome: e.instant ? 'instant' : 'uploaded', instanceId });
    for (const [parentId, list] of byParent(filing)) {
      const parent = parents.get(parentId)!;
      const fresh: typeof filing = [];
      // A name a file of this same batch takes first: such a file is filed after it, as if it came in a later
      // request (new version: a version of it; keep both: "name (n)"; skip was settled above).
      const later: typeof filing = [];
      const firstOf = new Map<string, Entry>();
      for (const f of list) {
        const key = nameKey(f.s.name);
        if (firstOf.has(key)) {
          later.push(f);
          continue;
        }
        firstOf.set(key, f.e);
        const existing = f.s.conflict === 'newVersion' ? taken.get(parentId)!.get(key) : undefined;
        if (existing && !existing.isFolder) done(f.e, (await addVersion(trx, (await getInstanceRow(trx, existing.id))!, blobOf.get(f.e)!, f.s.size)).id);
        else fresh.push(f);
      }
      const rows = await insertFiles(trx, parent, fresh.map(({ e, s }) => ({ name: s.name, size: s.size, blobId: blobOf.get(e)!, createdBy: userId })));
      fresh.forEach(({ e }, i) => done(e, rows[i]!.id));
      for (const f of later) {
        const earlier = firstOf.get(nameKey(f.s.name))!.result?.instanceId;
        const current = earlier ? await getInstanceRow(trx, earlier) : undefined;
        if (f.s.conflict === 'newVersion' && current && !current.isFolder) {
          done(f.e, (await addVersion(trx, current, blobOf.get(f.e)!, f.s.size)).id);
        } else {
          done(f.e, (await insertFiles(trx, parent, [{ name: f.s.name, size: f.s.size, blobId: blobOf.get(f.e)!, createdBy: userId }]))[0]!.id);
        }
      }
    }
    for (const { e, first } of skippedForEarlier) {
      if (first.result?.instanceId) e.result = { outcome: 'skipped', instanceId: first.result.instanceId };
      else fail(e, 'CONFLICT', 'a file of the same name in this request could not be filed; upload this one again');
    }
    // Server-written sessions were never signed for a client: nothing can land after them, the rows go.
    await deleteSessions(trx, ended);
  });
}

/** Who sent a request, as the operation log records it. */
export interface Origin {
  userId: string;
  userName: string;
  device: string;
  ip: string;
  traceId: string;
}

/** One operation-log line per file (the request's own line names no file): who filed what, or why not. */
export async function logBulk(db: Db, origin: Origin, entries: Entry[], results: FileResult[]): Promise<void> {
  await insertOpLogs(
    db,
    results.map((r, i) => {
      const e = entries[i]!;
      return {
        userId: origin.userId,
        userName: origin.userName,
        opType: 'bulkUpload',
        opSubject: 'upload',
        objectId: r.instanceId ?? '',
        objectName: e.name || e.file.fName,
        device: origin.device,
        ip: origin.ip,
        traceId: origin.traceId,
        result: r.outcome === 'failed' ? 'failure' : 'success',
        detail: r.outcome === 'failed' ? `${r.code ?? ''}` : r.outcome,
      };
    }),
  );
}
