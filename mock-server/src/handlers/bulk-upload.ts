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
// Phases A and C, the filing rules, are the domain's (files/bulk-register.ts); this file reads and stores the body.
import { createHash } from 'node:crypto';
import { Ajv2020 } from 'ajv/dist/2020.js';
import type { ValidateFunction } from 'ajv';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { AppContext, Handlers } from '../context.ts';
import { deleteSessions } from '../db/uploads-repo.ts';
import { uploadPlaces, type StoreLocation } from '../storage/routing.ts';
import { callerOf } from '../files/access.ts';
import { createBulkGate } from '../files/bulk-gate.ts';
import {
  entriesOf, fail, fileBulk, logBulk, mayHoldObject, reserveBulk, type Entry, type FileResult, type Manifest,
} from '../files/bulk-register.ts';
import { ClientGoneError, FrameReader } from '../files/frame-reader.ts';
import { loadContract, deref } from '../contract/contract.ts';
import { AppError } from '../http/errors.ts';
import { ok } from '../http/envelope.ts';

type Places = Awaited<ReturnType<typeof uploadPlaces>>;

/** Bytes of all files in one request. Files per request and bytes per file are limits of the contract's schema. */
const BULK_MAX_BYTES = 64 * 1024 * 1024;
const MANIFEST_MAX = 1024 * 1024;
const STORE_PARALLEL = 16;

let manifestValidator: ValidateFunction<Manifest> | undefined;

/** The manifest's validator, compiled once per process (the contract does not change while it runs). */
function compileManifestValidator(): ValidateFunction<Manifest> {
  if (manifestValidator) return manifestValidator;
  const doc = loadContract();
  const schema = deref(doc, doc.components.schemas.BulkUploadManifest);
  // OpenAPI 3.1 schemas are JSON Schema 2020-12.
  const ajv = new Ajv2020({ strict: false, allErrors: false });
  return (manifestValidator = ajv.compile<Manifest>(schema));
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

  /** Phase B: reads every file's bytes, verifies its hash and stores it unless the content is already held. */
  async function receive(reader: FrameReader, entries: Entry[], places: Places): Promise<void> {
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
        const write = ctx.store().at(e.session)
          .then((store) => store.putObject(key, bytes, { contentLength: bytes.length, sse: places(e.session!.libCode).sse }))
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

  /** Deletes staging objects, each from its session's place (the entries' sessions name them). */
  async function discard(keys: string[], entries: Entry[]): Promise<void> {
    if (keys.length === 0) return;
    const sessionOf = new Map(entries.flatMap((e) => (e.session ? [[e.session.objectKey, e.session] as const] : [])));
    const byPlace = new Map<string, { at: StoreLocation; keys: string[] }>();
    for (const key of keys) {
      const at = sessionOf.get(key) ?? { connectionId: '0', bucket: ctx.store().bucket };
      const group = byPlace.get(`${at.connectionId}\n${at.bucket}`) ?? { at, keys: [] };
      group.keys.push(key);
      byPlace.set(`${at.connectionId}\n${at.bucket}`, group);
    }
    for (const { at, keys: batch } of byPlace.values()) {
      const res = await ctx.store().at(at).then((s) => s.deleteObjects(batch))
        .catch((err: unknown) => ({ errors: [{ key: '*', code: 'Error', message: String(err) }] }));
      if (res.errors.length) ctx.log.warn({ errors: res.errors.slice(0, 5), count: res.errors.length }, 'bulk-upload: staging objects left for the sweeper');
    }
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
    const entries = entriesOf(manifest);
    const places = await uploadPlaces(ctx);
    await reserveBulk(db, user, places, manifest, entries);
    try {
      await receive(reader, entries, places);
      reply.removeHeader('connection');
    } catch (err) {
      if (reader.ended) reply.removeHeader('connection');
      // The body broke its framing or the client went away: undo phase A and drop what was stored.
      const staged = entries.filter((e) => e.session && mayHoldObject(e)).map((e) => e.session!.objectKey);
      await deleteSessions(db, entries.flatMap((e) => (e.session ? [e.session.id] : [])));
      await discard(staged, entries);
      throw err;
    }
    const redundant: string[] = [];
    try {
      await fileBulk(db, user.userId, entries, redundant);
    } catch (err) {
      // Phase C rolled back as a whole: release the reservations now instead of when the sessions expire.
      await deleteSessions(db, entries.flatMap((e) => (e.session ? [e.session.id] : [])));
      await discard(entries.filter((e) => e.session && mayHoldObject(e)).map((e) => e.session!.objectKey), entries);
      throw err;
    }
    await discard(redundant, entries);
    const results = entries.map((e) => e.result ?? ({ outcome: 'failed', code: 'INTERNAL', msg: 'not processed' } satisfies FileResult));
    await audit(req, entries, results);
    return ok({ files: results });
  }

  /** The files are filed whether or not their log lines could be written: a failed write is logged, not answered. */
  async function audit(req: FastifyRequest, entries: Entry[], results: FileResult[]): Promise<void> {
    const user = callerOf(req.user);
    const origin = { userId: user.userId, userName: user.userName, device: String(req.headers['user-agent'] ?? ''), ip: req.ip, traceId: req.traceId };
    try {
      await logBulk(db, origin, entries, results);
    } catch (err) {
      req.log.error({ err, traceId: req.traceId }, 'bulk-upload: operation log write failed');
    }
  }
}
