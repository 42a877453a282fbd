// bulk-upload (contract extension): many small files in one request. The server stores the bytes itself and files
// each one as save-instance would. First the manifest line is read; then the request waits for one of the few
// receiving slots, of which one user holds at most a share (files/bulk-gate.ts). The body must keep arriving
// (config bulkBody deadlines) or the request ends with REQUEST_TIMEOUT. Four phases, so a failure at any point
// leaves nothing half-done:
//   A. one transaction: names, folders, conflicts and quota checked; every accepted file gets an upload session
//      holding its quota reservation and staging key (what a crash leaves behind, the janitor sweeps);
//   B. the body is read in order; each file is hashed as it arrives and written to storage (16 writes at once);
//   C. one transaction: every stored file becomes a blob reference and a file (or version), sessions end;
//   D. staging objects that turned out redundant (failed, duplicate content) are deleted.
// A body that breaks the framing fails as a whole in B: sessions and staged objects are removed, nothing filed.
import { createHash } from 'node:crypto';
import { Ajv2020 } from 'ajv/dist/2020.js';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { AppContext, Handlers } from '../context.ts';
import { transaction } from '../db/sql/tx.ts';
import { addBlobRefsBulk, findReachableBlobs, lockBlobsBySha, upsertVerifiedBlobs } from '../db/blobs-repo.ts';
import { addVersion, getInstanceRow, insertFiles, lockFolders, namesTaken, spaceOf, type InstanceRow } from '../db/instances-repo.ts';
import { addUsage, freeBytes, lockedSpaceUsage, type Space } from '../db/quota.ts';
import { createSessions, deleteSessions, getSessions, type UploadSession } from '../db/uploads-repo.ts';
import { callerOf, resolveFolder } from '../files/access.ts';
import { createBulkGate } from '../files/bulk-gate.ts';
import { ClientGoneError, FrameReader } from '../files/frame-reader.ts';
import { decodeWireName, nameKey } from '../files/names.ts';
import { loadContract, deref } from '../contract/contract.ts';
import { AppError, type ErrorCode } from '../http/errors.ts';
import { ok } from '../http/envelope.ts';
import { insertOpLogs } from '../db/oplog-repo.ts';

/** Bytes of all files in one request. Files per request and bytes per file are limits of the contract's schema. */
const BULK_MAX_BYTES = 64 * 1024 * 1024;
const MANIFEST_MAX = 1024 * 1024;
const STORE_PARALLEL = 16;

interface ManifestFile {
  fName: string;
  fSize: number;
  fMd5: string;
  parentId?: string;
}
interface Manifest {
  parentId?: string;
  category?: string;
  instanceType?: string;
  conflict?: 'keepBoth' | 'newVersion' | 'skip';
  files: ManifestFile[];
}

export type BulkOutcome = 'uploaded' | 'instant' | 'skipped' | 'failed';
interface FileResult {
  outcome: BulkOutcome;
  instanceId?: string;
  code?: ErrorCode;
  msg?: string;
}

interface Entry {
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

function fail(e: Entry, code: ErrorCode, msg: string): void {
  e.result = { outcome: 'failed', code, msg };
}

/** The entry's staging key may name an object: stored, or a write that failed after storage got some of it. */
function mayHoldObject(e: Entry): boolean {
  return e.stored || e.result?.code === 'STORAGE_ERROR';
}

function failWith(e: Entry, err: unknown): void {
  if (err instanceof AppError) fail(e, err.code, err.message);
  else throw err;
}

function compileManifestValidator() {
  const doc = loadContract();
  const schema = deref(doc, doc.components.schemas.BulkUploadManifest);
  // OpenAPI 3.1 schemas are JSON Schema 2020-12.
  const ajv = new Ajv2020({ strict: false, allErrors: false });
  return ajv.compile<Manifest>(schema);
}

export function bulkUploadHandlers(ctx: AppContext): Handlers {
  const { db } = ctx;
  const validate = compileManifestValidator();

  async function readManifest(reader: FrameReader): Promise<Manifest> {
    const line = await reader.line(MANIFEST_MAX, 'the manifest line');
    let manifest: unknown;
    try {
      manifest = JSON.parse(line.toString('utf8'));
    } catch {
      throw new AppError('BAD_REQUEST', 'the first line of the body is not JSON (the BulkUploadManifest)');
    }
    if (!validate(manifest)) {
      const fields = (validate.errors ?? []).map((e) => ({ field: `manifest${e.instancePath.replace(/\//g, '.')}`, message: e.message ?? 'invalid' }));
      throw new AppError('VALIDATION_FAILED', `the manifest is not valid: ${fields.map((f) => `${f.field} ${f.message}`).join('; ')}`, { fields });
    }
    const total = manifest.files.reduce((sum, f) => sum + f.fSize, 0);
    if (total > BULK_MAX_BYTES) throw new AppError('PAYLOAD_TOO_LARGE', `the files hold ${total} bytes; one request takes at most ${BULK_MAX_BYTES}`);
    return manifest;
  }

  /**
   * Phase A, in a few statements whatever the number of files: the folders, the names taken in them, the space rows
   * (locked), the contents the caller may be answered "instant" for, then every session in multi-row inserts.
   */
  async function reserve(req: FastifyRequest, m: Manifest, entries: Entry[]): Promise<void> {
    const user = callerOf(req.user);
    const libCode = m.category?.replace(/\d+$/, '') || 'NetDisk';
    const conflict = m.conflict ?? 'keepBoth';
    const bucket = ctx.store().bucket;
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
          return {
            userId: user.userId, spaceKind: space.kind, spaceId: space.id, parentId: folder.id, libCode: folder.libCode, name: e.name,
            size: e.file.fSize, sha256: e.file.fMd5, bucket, conflict: conflict === 'newVersion' ? ('newVersion' as const) : ('keepBoth' as const),
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

  /** Phase B: reads every file's bytes, verifies its hash and stores it unless the content is already held. */
  async function receive(reader: FrameReader, entries: Entry[]): Promise<void> {
    const store = ctx.store();
    const writes = new Set<Promise<void>>();
    let storageError: unknown;
    try {
      for (let i = 0; i < entries.length; i++) {
        const e = entries[i]!;
        const bytes = await reader.take(e.file.fSize, `file ${i + 1} of the manifest`);
        if (!e.session) continue; // refused in phase A: its bytes are read and dropped
        const sha = createHash('sha256').update(bytes).digest('hex');
        if (sha !== e.file.fMd5) {
          fail(e, 'HASH_MISMATCH', 'the bytes sent do not have the declared SHA-256; recompute the hash and upload again');
          continue;
        }
        if (e.instant) continue;
        const key = e.session.objectKey;
        const write = store
          .putObject(key, bytes, { contentLength: bytes.length })
          .then(() => {
            e.stored = true;
          })
          .catch((err: unknown) => {
            storageError ??= err;
            fail(e, 'STORAGE_ERROR', 'the file could not be written to storage');
          })
          .finally(() => writes.delete(write));
        writes.add(write);
        if (writes.size >= STORE_PARALLEL) await Promise.race(writes);
      }
      await reader.end();
    } finally {
      await Promise.all(writes);
    }
    if (storageError) ctx.log.warn({ err: storageError }, 'bulk-upload: storage write failed');
  }

  /**
   * Phase C, in a few statements whatever the number of files, one transaction: the sessions, the names that
   * appeared since phase A (conflict skip), the folders (each must still be live), the blobs (locked, then filed
   * verified, or checked for "instant"), their references, the spaces' usage, the files (new versions one by one,
   * new files in multi-row inserts) and the sessions' end. A file that can no longer be filed fails alone (its
   * result says why); anything else rolls the phase back as a whole.
   */
  async function file(userId: string, entries: Entry[], redundant: string[]): Promise<void> {
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
        filing.filter((f) => !f.e.instant).map(({ s }) => ({ sha256: s.sha256, size: s.size, bucket: s.bucket, objectKey: locked.get(s.sha256)?.objectKey ?? s.objectKey })),
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

  async function discard(keys: string[]): Promise<void> {
    if (keys.length === 0) return;
    const res = await ctx.store().deleteObjects(keys).catch((err: unknown) => ({ errors: [{ key: '*', code: 'Error', message: String(err) }] }));
    if (res.errors.length) ctx.log.warn({ errors: res.errors.slice(0, 5), count: res.errors.length }, 'bulk-upload: staging objects left for the sweeper');
  }

  // Requests receiving files at once, and one user's share of them (see bulk-gate.ts).
  const gate = createBulkGate();

  return {
    async bulkUpload(req, reply) {
      const user = callerOf(req.user);
      // Any other type met a body parser (text, JSON) that has read the body already: the frames are gone.
      if (!/^application\/octet-stream\s*(;|$)/i.test(req.headers['content-type'] ?? '')) {
        throw new AppError('BAD_REQUEST', 'the body must be application/octet-stream (a manifest line, then the files)', { status: 415 });
      }
      // A refusal before the body is read to its end (manifest, Content-Length, framing, deadline) would leave the
      // rest of it unread on a paused keep-alive connection (Node drains only bodies nobody started to read): the
      // client's next request on that connection would hang. Such a reply closes the connection; cleared once the
      // body is read.
      reply.header('connection', 'close');
      const reader = new FrameReader(req.raw, ctx.config.bulkBody);
      try {
        const manifest = await readManifest(reader);
        const total = manifest.files.reduce((sum, f) => sum + f.fSize, 0);
        const declared = req.headers['content-length'];
        if (declared !== undefined && Number(declared) !== reader.consumed + total) {
          throw new AppError('BAD_REQUEST', `Content-Length ${declared} does not match the manifest (${reader.consumed + total} bytes)`);
        }
        // A slot only once the manifest is in: a client slow to send it holds none while it dawdles.
        const release = await gate.acquire(user.userId, { bytes: reader.consumed, signal: whileConnected(reply) });
        try {
          return await handle(req, reply, reader, manifest);
        } finally {
          release();
        }
      } catch (err) {
        // Neither is a fault of the server: no error log (and a client that left gets no answer anyway).
        if (err instanceof ClientGoneError) req.log.info({ traceId: req.traceId }, 'bulk-upload: the client went away mid-body; nothing was filed');
        else if (err instanceof AppError && err.code === 'REQUEST_TIMEOUT') req.log.info({ traceId: req.traceId, userId: user.userId }, `bulk-upload: ${err.message}; nothing was filed`);
        throw err;
      }
    },
  };

  /** Aborts when the connection closes before the reply is sent, so a request waiting for a slot stops waiting. */
  function whileConnected(reply: FastifyReply): AbortSignal {
    const left = new AbortController();
    reply.raw.once('close', () => {
      if (!reply.raw.writableFinished) left.abort(new ClientGoneError(new Error('closed while waiting for a slot')));
    });
    return left.signal;
  }

  /** One admitted request whose manifest is read: the four phases of the file comment. */
  async function handle(req: FastifyRequest, reply: FastifyReply, reader: FrameReader, manifest: Manifest) {
    const user = callerOf(req.user);
    const skip = manifest.conflict === 'skip';
    const entries: Entry[] = manifest.files.map((file) => {
      const e: Entry = { file, name: '', instant: false, stored: false, skipIfExists: skip };
      try {
        e.name = decodeWireName(file.fName, 'fName');
      } catch (err) {
        failWith(e, err);
      }
      return e;
    });
    await reserve(req, manifest, entries);
    try {
      await receive(reader, entries);
      reply.removeHeader('connection');
    } catch (err) {
      if (reader.ended) reply.removeHeader('connection');
      // The body broke its framing or the client went away: undo phase A and drop what was stored.
      const staged = entries.filter((e) => e.session && mayHoldObject(e)).map((e) => e.session!.objectKey);
      await deleteSessions(db, entries.flatMap((e) => (e.session ? [e.session.id] : [])));
      await discard(staged);
      throw err;
    }
    const redundant: string[] = [];
    try {
      await file(user.userId, entries, redundant);
    } catch (err) {
      // Phase C rolled back as a whole: release the reservations now instead of when the sessions expire.
      await deleteSessions(db, entries.flatMap((e) => (e.session ? [e.session.id] : [])));
      await discard(entries.filter((e) => e.session && mayHoldObject(e)).map((e) => e.session!.objectKey));
      throw err;
    }
    await discard(redundant);
    const results = entries.map((e) => e.result ?? ({ outcome: 'failed', code: 'INTERNAL', msg: 'not processed' } satisfies FileResult));
    await audit(req, entries, results);
    return ok({ files: results });
  }

  /** One operation-log line per file (the request's own line names no file): who filed what, or why not. */
  async function audit(req: FastifyRequest, entries: Entry[], results: FileResult[]): Promise<void> {
    const user = callerOf(req.user);
    try {
      await insertOpLogs(
        db,
        results.map((r, i) => {
          const e = entries[i]!;
          return {
            userId: user.userId,
            userName: user.userName,
            opType: 'bulkUpload',
            opSubject: 'upload',
            objectId: r.instanceId ?? '',
            objectName: e.name || e.file.fName,
            device: String(req.headers['user-agent'] ?? ''),
            ip: req.ip,
            traceId: req.traceId,
            result: r.outcome === 'failed' ? 'failure' : 'success',
            detail: r.outcome === 'failed' ? `${r.code ?? ''}` : r.outcome,
          };
        }),
      );
    } catch (err) {
      req.log.error({ err, traceId: req.traceId }, 'bulk-upload: operation log write failed');
    }
  }
}
