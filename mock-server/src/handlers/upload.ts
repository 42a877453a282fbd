// The upload protocol (contract tag "upload"): name check, upload-ability with quota reservation, signing of
// the S3 requests a client sends straight to storage, instant transfer with proof of possession, part
// records for resuming, and save-instance, which hashes the stored bytes itself before filing a blob.
// Signing is where a session's declared size is enforced (storage checks what is signed, external S3 too): a
// single PUT is signed for exactly the declared bytes, each part of the one recorded multipart upload for
// exactly its length in the layout, and nothing once the session ended or would end before the signature.
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { AppContext, Handlers } from '../context.ts';
import { configStore } from '../config-store.ts';
import type { SessionUser } from '../auth/types.ts';
import { AppError } from '../http/errors.ts';
import { done, ok } from '../http/envelope.ts';
import { transaction, type Db } from '../db/sql/tx.ts';
import { acquireLease, leaseHolder, releaseLease, renewLease } from '../db/sql/leases.ts';
import { addBlobRefs, findReachableBlob, getBlob, lockBlob, lockBlobBySha, upsertVerifiedBlob } from '../db/blobs-repo.ts';
import { nameTaken, spaceOf } from '../db/instances-repo.ts';
import { assertFits } from '../db/quota.ts';
import { lockUser } from '../db/users-repo.ts';
import {
  claimWrite, countOpenSessions, createProof, createSession, deleteParts, endSession, findByObjectKey, findResumable, forgetEnded, getUserSession,
  listParts, partLength, recordUpload, savingLease, takeProof, upsertParts, type UploadSession,
} from '../db/uploads-repo.ts';
import { decodeWireName } from '../files/names.ts';
import { callerOf, resolveFolder } from '../files/access.ts';
import { mayReadKey } from '../files/versioned-content.ts';
import { viewOf } from '../files/wire.ts';
import { cleanStaging } from '../files/janitor.ts';
import { registerFile } from '../files/register.ts';
import { checkUploadAttrs, writeUploadAttrs } from './business-libs.ts';
import { MAX_CLOCK_SKEW_MS, formatAmzDate, parseAmzDate, parseRawQuery } from '../storage/sigv4.ts';
import type { components } from '@hcs/openapi/schema';
import { sseHeaders, type ObjectStore, type Sse } from '../storage/object-store.ts';
import { clientEndpoint, inForceOf, keyLocation, uploadPlace, type InForce } from '../storage/routing.ts';
import { replicaKeyLocation, replicateFiled } from '../replication/runner.ts';

type Schemas = components['schemas'];


type UploadAction = 'initMultipart' | 'uploadPart' | 'listParts' | 'completeMultipart' | 'abortMultipart' | 'putObject' | 'getObject' | 'headObject';

/** The verb and query each signable action must have; anything else is refused. */
const ACTIONS: Record<UploadAction, { verb: string; required: string[]; optional: string[] }> = {
  initMultipart: { verb: 'POST', required: ['uploads'], optional: [] },
  uploadPart: { verb: 'PUT', required: ['partNumber', 'uploadId'], optional: [] },
  listParts: { verb: 'GET', required: ['uploadId'], optional: ['part-number-marker', 'max-parts'] },
  completeMultipart: { verb: 'POST', required: ['uploadId'], optional: [] },
  abortMultipart: { verb: 'DELETE', required: ['uploadId'], optional: [] },
  putObject: { verb: 'PUT', required: [], optional: [] },
  getObject: { verb: 'GET', required: [], optional: [] },
  headObject: { verb: 'HEAD', required: [], optional: [] },
};

async function sessionView(db: Db, s: UploadSession) {
  return {
    fId: s.id, objectKey: s.objectKey, bucketName: s.bucket, fSize: s.size, fMd5: s.sha256, fName: s.name, parentId: s.parentId,
    partSize: s.partSize, partCount: s.partCount, uploadId: s.uploadId, parts: await listParts(db, s.id), createTime: s.createdAt,
  } satisfies Schemas['UploadSession'];
}

async function sessionOf(db: Db, user: SessionUser, fId: string): Promise<UploadSession> {
  const s = await getUserSession(db, user.userId, fId);
  if (!s) throw new AppError('UPLOAD_SESSION_MISSING', 'the upload session does not exist or has expired; check upload-ability again');
  return s;
}

async function drain(body: AsyncIterable<unknown>): Promise<Buffer> {
  const hash = createHash('sha256');
  for await (const chunk of body) hash.update(chunk as Buffer);
  return hash.digest();
}

/** How long a save-instance's claim on its session lasts between renewals (hashing 80 GB takes minutes). */
const SAVE_LEASE_MS = 60_000;

export function uploadHandlers(ctx: AppContext): Handlers {
  const { db } = ctx;

  /**
   * While a session is being saved (hashed, filed), nothing else may sign writes to it, replace its upload or end
   * it, on any node: the save holds a lease on the session (renewed while it runs) and the others check for it.
   */
  const isSaving = async (sessionId: string): Promise<boolean> => (await leaseHolder(db, savingLease(sessionId))) !== undefined;

  async function holdSaving(sessionId: string): Promise<() => Promise<void>> {
    const name = savingLease(sessionId);
    const holder = randomBytes(12).toString('base64url');
    if (!(await acquireLease(db, name, holder, SAVE_LEASE_MS))) throw new AppError('CONFLICT', 'this upload is already being saved');
    const timer = setInterval(() => {
      renewLease(db, name, holder, SAVE_LEASE_MS).catch((err: unknown) => ctx.log.warn({ err, fId: sessionId }, 'could not renew the save lease'));
    }, SAVE_LEASE_MS / 3);
    timer.unref();
    return async () => {
      clearInterval(timer);
      await releaseLease(db, name, holder).catch((err: unknown) => ctx.log.warn({ err, fId: sessionId }, 'could not release the save lease'));
    };
  }

  /**
   * Removes what an ended session left in storage, then its row when no signed write of it can land any more.
   * A failure is logged and left to the janitor, which cleans the ended row again at its expiry.
   */
  async function discardStorage(s: UploadSession): Promise<void> {
    try {
      await cleanStaging(db, await ctx.store().at(s), s);
      await forgetEnded(db, s.id);
    } catch (err) {
      ctx.log.warn({ err, fId: s.id }, 'could not clean an upload session\'s storage; the janitor retries');
    }
  }

  /**
   * Where a session's bytes go and what protects them: its library's policy while the policy still names the place
   * the session was made for; a session made under an earlier policy keeps its place and asks for no SSE.
   */
  async function sessionPlace(s: Pick<UploadSession, 'libCode' | 'connectionId' | 'bucket'>): Promise<{ store: ObjectStore; sse: Sse | undefined; inForce: InForce }> {
    const place = await uploadPlace(ctx, s.libCode);
    if (place.connectionId === s.connectionId && place.bucket === s.bucket) return place;
    return {
      store: await ctx.store().at(s), sse: undefined,
      inForce: inForceOf(ctx.store(), { connection_id: s.connectionId, bucket: s.bucket, encryption: 'none', kms_key_id: '' }),
    };
  }

  /** Ends a session that files nothing (refused, cancelled, replaced): one transaction, then its storage. */
  async function abandon(s: UploadSession, stored = false): Promise<void> {
    if (await transaction(db, (trx) => endSession(trx, s.id, { filed: false, stored }))) await discardStorage(s);
  }

  return {
    async checkFileExist(req) {
      const user = callerOf(req.user);
      const q = req.query;
      const folder = await resolveFolder(db, user, q.parentId, undefined, undefined, 'read');
      const hit = await nameTaken(db, folder.id, decodeWireName(q.instanceName));
      return ok(
        { ret: 0, data: hit ? 1 : 0, instanceId: hit?.id ?? null, classifierId: hit ? (hit.isFolder ? 'Folder' : 'File') : null },
        hit?.id ?? '',
      );
    },

    async getFileUploadable(req) {
      const user = callerOf(req.user);
      const q = req.query;
      const name = decodeWireName(q.fName, 'fName');
      const libCode = q.category?.replace(/\d+$/, '') || 'NetDisk';
      const folder = await resolveFolder(db, user, q.parentId, libCode, q.instanceType, 'write', q.deptId);
      // New uploads go where the library's policy says (a resumed session stays where it was made).
      const place = await uploadPlace(ctx, folder.libCode);
      const conflict = q.conflict ?? 'keepBoth';
      const existing = await nameTaken(db, folder.id, name);
      if (conflict === 'newVersion' && existing?.isFolder) throw new AppError('NAME_EXISTS', `"${name}" is a folder in this folder`);
      const space = spaceOf(folder);
      const out = await transaction(db, async (trx): Promise<{ s?: UploadSession; proof?: { id: string; offset: number; length: number }; replaced?: UploadSession }> => {
        // The caller's row first: their open sessions are counted and added to one at a time, on any node.
        await lockUser(trx, user.userId);
        // Content the caller cannot read is answered as unknown content (flag 3): see findReachableBlob.
        const blob = await findReachableBlob(trx, user.userId, q.fMd5, q.fSize);
        let s = await findResumable(trx, user.userId, q.fMd5, folder.id, name);
        let replaced: UploadSession | undefined;
        if (s && s.conflict !== conflict) {
          replaced = (await endSession(trx, s.id, { filed: false })) ? s : undefined;
          s = undefined;
        }
        if (!s) {
          if ((await countOpenSessions(trx, user.userId)) >= ctx.config.maxUploadSessions) {
            throw new AppError('TOO_MANY_UPLOADS', `at most ${ctx.config.maxUploadSessions} unfinished uploads at a time; finish or cancel one first`);
          }
          try {
            await assertFits(trx, space, q.fSize);
          } catch (e) {
            if (e instanceof AppError && e.code === 'SPACE_NOT_ENOUGH') return { replaced };
            throw e;
          }
          s = await createSession(trx, {
            userId: user.userId, spaceKind: space.kind, spaceId: space.id, parentId: folder.id, libCode: folder.libCode, name, size: q.fSize,
            sha256: q.fMd5, bucket: place.bucket, connectionId: place.connectionId, conflict, existingId: conflict === 'newVersion' && existing ? existing.id : null, reservedBytes: q.fSize,
            clientWrites: true,
          });
        }
        const proof = blob ? await createProof(trx, user.userId, s.id, blob.id, blob.size) : undefined;
        return { s, proof, replaced };
      });
      if (out.replaced) await discardStorage(out.replaced);
      // The spec's [002] names group files' space.
      if (!out.s) return ok({ uploadflag: 2 }, space.kind === 'group' ? 'group space not enough' : 'space not enough');
      const { s, proof } = out;
      const { store, inForce } = await sessionPlace(s);
      return ok({
        uploadflag: proof ? 1 : 3,
        fId: s.id,
        objectKey: s.objectKey,
        bucketName: s.bucket,
        storeEncryption: inForce === 'none' ? 0 : 1,
        storeShards: 0,
        syncSpeed: await configStore(ctx).get('upload.syncSpeed'),
        partSize: s.partSize,
        partCount: s.partCount,
        cloudProvider: 's3',
        host: clientEndpoint(s, store, ctx.storageEndpoint(req)),
        region: store.region,
        existingId: s.existingId,
        ...(proof ? { proof: { proofId: proof.id, offset: proof.offset, length: proof.length } } : {}),
      });
    },

    async signStorageRequest(req) {
      const user = callerOf(req.user);
      const q = req.query;
      const forbidden = (why: string) => new AppError('FORBIDDEN', `this request cannot be signed: ${why}`);
      const rule = ACTIONS[q.action];
      if (q.httpVerb !== rule.verb) throw forbidden(`${q.action} is a ${rule.verb} request`);
      const [rawPath = '', rawQuery = ''] = q.resourceUri.split('?', 2) as [string?, string?];
      // The bucket is checked below against the place of the content or session named (each records its own).
      const prefix = `/${q.bucketName}/`;
      if (!rawPath.startsWith(prefix)) throw forbidden('resourceUri must be /{bucket}/{key}');
      let key: string;
      let query: Array<[string, string]>;
      try {
        key = rawPath.slice(prefix.length).split('/').map(decodeURIComponent).join('/');
        query = parseRawQuery(rawQuery);
      } catch {
        throw new AppError('BAD_REQUEST', 'resourceUri is not correctly URI-encoded');
      }
      const names = query.map(([k]) => k);
      if (new Set(names).size !== names.length) throw forbidden('repeated query parameter');
      for (const r of rule.required) if (!names.includes(r)) throw forbidden(`${q.action} needs ${r}`);
      for (const n of names) if (!rule.required.includes(n) && !rule.optional.includes(n)) throw forbidden(`unexpected query parameter ${n}`);
      const param = (n: string) => query.find(([k]) => k === n)?.[1];
      if (q.action === 'initMultipart' && param('uploads') !== '') throw forbidden('uploads takes no value');
      if (q.action === 'uploadPart') {
        const n = Number(param('partNumber'));
        if (!Number.isInteger(n) || n < 1 || n > 10000 || String(n) !== param('partNumber')) throw forbidden('partNumber must be 1-10000');
      }
      let amzDate = q.amzDate;
      let signedAt: number;
      if (amzDate) {
        const t = parseAmzDate(amzDate);
        if (t === null || Math.abs(t - Date.now()) > MAX_CLOCK_SKEW_MS) throw new AppError('BAD_REQUEST', 'amzDate is more than 15 minutes from the server clock');
        signedAt = t;
      } else {
        signedAt = Date.now();
        amzDate = formatAmzDate(new Date(signedAt));
      }
      const headers: Record<string, string> = q.contentType ? { 'content-type': q.contentType } : {};
      let payloadHash: string | undefined;
      let at: { connectionId: string; bucket: string };
      let store: ObjectStore;
      if (q.action === 'getObject' || q.action === 'headObject') {
        // Reads: the key must be content of a file the caller may read (current, a history version, or in their bin).
        if (!(await mayReadKey(db, user, q.fId, key))) throw forbidden('not the content of a file you may read (pass its instanceId as fId)');
        // The content where it was stored, or the copy at this node's site that the download information named.
        at = (await keyLocation(db, key, q.bucketName)) ?? (await replicaKeyLocation(ctx, key, q.bucketName)) ?? { connectionId: '0', bucket: ctx.store().bucket };
        if (at.bucket !== q.bucketName) throw forbidden('unknown bucket');
        store = await ctx.store().at(at);
      } else {
        if (!q.fId) throw forbidden('upload actions need the fId of the upload session');
        const s = await sessionOf(db, user, q.fId);
        if (s.bucket !== q.bucketName) throw forbidden('unknown bucket');
        if (s.objectKey !== key) throw forbidden('the key is not the upload session\'s object key');
        if (s.writeMode === 'server') throw forbidden('the server stores this upload itself');
        if (await isSaving(s.id)) throw new AppError('CONFLICT', 'the upload is being saved');
        const uploadId = param('uploadId');
        // Parts, listing and completion only for the upload initPartInfo recorded: an unrecorded upload never holds bytes.
        if (q.action === 'uploadPart' || q.action === 'listParts' || q.action === 'completeMultipart') {
          if (s.uploadId === null || uploadId !== s.uploadId) throw forbidden('uploadId is not the multipart upload recorded with initPartInfo');
        }
        if (q.action === 'abortMultipart' && s.uploadId !== null && uploadId !== s.uploadId) throw forbidden('uploadId is not the session\'s multipart upload');
        const place = await sessionPlace(s);
        at = s;
        store = place.store;
        // SSE is asked for where an object is created; x-amz-* headers are signed, so the client must send exactly these.
        if (q.action === 'putObject' || q.action === 'initMultipart') Object.assign(headers, sseHeaders(place.sse));
        let mode: 'put' | 'multipart' | undefined;
        if (q.action === 'putObject') {
          if (s.uploadId !== null || s.partCount !== 1) throw forbidden('content of more than one part is uploaded in parts (multipart upload)');
          // Exactly the declared bytes: storage refuses another length and, with the SHA-256 signed, other content,
          // so a copy of this request replayed later can only ever store the declared content again.
          headers['content-length'] = String(s.size);
          payloadHash = s.sha256;
          mode = 'put';
        } else if (q.action === 'uploadPart') {
          const n = Number(param('partNumber'));
          if (n > s.partCount) throw forbidden(`the upload has ${s.partCount} parts`);
          headers['content-length'] = String(partLength(s, n));
          mode = 'multipart';
        } else if (q.action === 'completeMultipart' || q.action === 'initMultipart') {
          mode = 'multipart';
        }
        if (mode) {
          // Storage accepts a signed request for 15 minutes after its date: no signature may outlive the session.
          const until = q.action === 'initMultipart' ? 0 : signedAt + MAX_CLOCK_SKEW_MS;
          if (until > s.expiresAt) throw new AppError('UPLOAD_SESSION_MISSING', 'the upload session ends before this request could be sent; check upload-ability again');
          if (!(await claimWrite(db, s.id, mode, until, q.action === 'initMultipart' ? undefined : uploadId))) {
            throw forbidden(s.writeMode && s.writeMode !== mode ? `this upload is a ${s.writeMode === 'put' ? 'single PUT' : 'multipart upload'}` : 'the upload session changed meanwhile');
          }
        }
      }
      const signed = store.signRequest({
        method: q.httpVerb, key, query, amzDate, endpoint: clientEndpoint(at, store, ctx.storageEndpoint(req)), headers, ...(payloadHash ? { payloadHash } : {}),
      });
      const sse = Object.fromEntries(Object.entries(headers).filter(([k]) => k.startsWith('x-amz-server-side-encryption')));
      return ok({
        host: signed.host, url: signed.url, authorization: signed.authorization, date: signed.amzDate, bucketName: store.bucket,
        contentSha256: signed.contentSha256, ...(Object.keys(sse).length ? { headers: sse } : {}),
      });
    },

    async secondTransfer(req) {
      const user = callerOf(req.user);
      const b = req.body;
      const name = decodeWireName(b.instanceName);
      const s = await sessionOf(db, user, b.fId);
      // Checked before the proof is used up: refused values leave the challenge for a corrected retry.
      const attrs = await checkUploadAttrs(db, s.libCode, b.attrs);
      const challenge = await takeProof(db, b.proofId, user.userId, s.id);
      if (!challenge || challenge.expiresAt < Date.now()) throw new AppError('PROOF_REJECTED', 'the proof challenge is unknown, used or expired; check upload-ability again');
      const blob = await getBlob(db, challenge.blobId);
      if (!blob) throw new AppError('CONFLICT', 'the stored content is gone; upload the file');
      const expected =
        challenge.length === 0
          ? createHash('sha256').digest()
          : await drain((await (await ctx.store().at(blob)).getObject(blob.objectKey, { start: challenge.offset, end: challenge.offset + challenge.length - 1 })).body);
      const given = Buffer.from(b.proof, 'hex');
      if (given.length !== expected.length || !timingSafeEqual(given, expected)) {
        throw new AppError('PROOF_REJECTED', 'the proof of possession does not match the content');
      }
      const row = await transaction(db, async (trx) => {
        // Locked first: a collection of this blob (any node) either finished before (no row) or waits for this filing.
        if (!(await lockBlob(trx, blob.id))) throw new AppError('CONFLICT', 'the stored content is gone; upload the file');
        await addBlobRefs(trx, blob.id, 1);
        const filed = await registerFile(trx, await sessionOf(trx, user, s.id), blob.id, name, user.userId);
        if (attrs) await writeUploadAttrs(trx, filed.id, attrs.classifier, attrs.values, 'attrs.values');
        return filed;
      });
      // Whatever the client was signed to write to the staging key is not needed.
      if (row.cleanup) await discardStorage(s);
      return ok(await viewOf(db, row));
    },

    async initPartInfo(req) {
      const user = callerOf(req.user);
      const b = req.body;
      const s = await sessionOf(db, user, b.fId);
      if (b.objectKey !== undefined && b.objectKey !== s.objectKey) throw new AppError('FORBIDDEN', 'objectKey is not the session\'s key');
      if (s.writeMode === 'put' || s.writeMode === 'server') throw new AppError('FORBIDDEN', 'this upload is not a multipart upload');
      if (await isSaving(s.id)) throw new AppError('CONFLICT', 'the upload is being saved');
      const partSize = b.partSize ?? s.partSize;
      const partCount = b.partCount ?? Math.max(1, Math.ceil(s.size / partSize));
      if (partSize < 1 || partCount < 1 || partCount > 10000 || partSize * partCount < s.size || partSize * (partCount - 1) >= Math.max(1, s.size)) {
        throw new AppError('VALIDATION_FAILED', `partSize ${partSize} x partCount ${partCount} does not cover ${s.size} bytes in at most 10000 parts`);
      }
      if (s.uploadId === b.uploadId) {
        // Other part sizes under the same upload would leave the old parts beside the new ones.
        if (partSize !== s.partSize || partCount !== s.partCount) {
          throw new AppError('VALIDATION_FAILED', 'the part layout of a recorded multipart upload cannot change; start a new multipart upload');
        }
        return ok(await sessionView(db, s));
      }
      if (s.uploadId !== null) {
        // A new upload replaces the recorded one: first its parts and whatever a completed one stored go, so the
        // session never holds more than one upload's bytes. Storage must confirm, or the new one is not recorded.
        try {
          await cleanStaging(db, await ctx.store().at(s), s);
        } catch (err) {
          ctx.log.warn({ err, fId: s.id }, 'could not remove the multipart upload being replaced');
          throw new AppError('STORAGE_ERROR', 'the previous multipart upload could not be removed; try again');
        }
      }
      if (!(await transaction(db, (trx) => recordUpload(trx, s.id, s.uploadId, b.uploadId, partSize, partCount)))) {
        throw new AppError('CONFLICT', 'the upload session changed meanwhile; read it again with getPartInfo');
      }
      return ok(await sessionView(db, await sessionOf(db, user, s.id)));
    },

    async setPartInfo(req) {
      const user = callerOf(req.user);
      const b = req.body;
      const s = await sessionOf(db, user, b.fId);
      const misfit = b.parts.find((p) => p.partNumber > s.partCount || p.size !== partLength(s, p.partNumber));
      if (misfit) {
        throw new AppError('VALIDATION_FAILED', `part ${misfit.partNumber} of ${misfit.size} bytes does not fit the session (${s.partCount} parts of ${s.partSize} bytes)`);
      }
      await transaction(db, (trx) => upsertParts(trx, s.id, b.parts));
      return done();
    },

    async getPartInfo(req) {
      const user = callerOf(req.user);
      const q = req.query;
      if (q.fId) {
        const s = await getUserSession(db, user.userId, q.fId);
        return ok(s ? await sessionView(db, s) : null);
      }
      if (!q.fMd5 || !q.fName) throw new AppError('BAD_REQUEST', 'pass fId, or fMd5 with parentId and fName');
      const folder = await resolveFolder(db, user, q.parentId, undefined, undefined, 'read');
      const s = await findResumable(db, user.userId, q.fMd5, folder.id, decodeWireName(q.fName, 'fName'));
      return ok(s ? await sessionView(db, s) : null);
    },

    async deletePartInfo(req) {
      const user = callerOf(req.user);
      const b = req.body;
      const s = await sessionOf(db, user, b.fId);
      await deleteParts(db, s.id, b.partNumbers);
      return done();
    },

    async destroyPartInfo(req) {
      const user = callerOf(req.user);
      const b = req.body;
      const s = await getUserSession(db, user.userId, b.fId);
      if (!s) return done(); // already gone: ending it twice is not an error
      if (await isSaving(s.id)) throw new AppError('CONFLICT', 'the upload is being saved');
      // With or without abort: bytes no session owns would be stored without being counted anywhere.
      await abandon(s);
      return done();
    },

    async saveInstance(req) {
      const user = callerOf(req.user);
      const b = req.body;
      const s = await sessionOf(db, user, b.fId);
      if (b.objectKey !== s.objectKey) throw new AppError('FORBIDDEN', 'objectKey is not the upload session\'s key');
      const name = decodeWireName(b.fName, 'fName');
      // Attribute values are checked before the content is: a refused value stores nothing and keeps the session.
      const attrs = await checkUploadAttrs(db, s.libCode, b.attrs);
      const stopSaving = await holdSaving(s.id);
      try {
        // A refused upload stores nothing: the session ends with its reservation, its bytes are deleted, and the
        // client checks upload-ability again (after recomputing the hash).
        const refuse = async (err: AppError): Promise<never> => {
          await abandon(s, true);
          throw err;
        };
        if (b.fMd5 !== s.sha256 || b.fSize !== s.size) {
          await refuse(new AppError('VALIDATION_FAILED', 'fMd5/fSize differ from the upload session; check upload-ability again for this content'));
        }
        const store = await ctx.store().at(s);
        const head = await store.headObject(s.objectKey);
        if (!head) throw new AppError('NOT_FOUND', 'the uploaded object is not in storage; finish the upload first');
        if (head.size !== s.size) await refuse(new AppError('CONFLICT', `the stored object has ${head.size} bytes, ${s.size} were declared`));
        const actual = await store.sha256(s.objectKey);
        if (actual !== s.sha256) {
          await refuse(new AppError('HASH_MISMATCH', 'the stored content does not have the declared SHA-256; recompute the hash and upload again'));
        }
        // Equal content is stored once, whoever stored it first: the new upload's bytes go once they were hashed.
        const row = await transaction(db, async (trx) => {
          // The blob's row is locked first (any node): a collection of it either finished (no row: this upload's
          // key becomes the blob) or waits until this reference is filed.
          const known = await lockBlobBySha(trx, s.sha256);
          const blob = await upsertVerifiedBlob(trx, {
            sha256: s.sha256, size: s.size, bucket: s.bucket, connectionId: s.connectionId, objectKey: known?.objectKey ?? s.objectKey,
          });
          await addBlobRefs(trx, blob.id, 1);
          const current = (await getUserSession(trx, user.userId, s.id)) ?? s;
          const filed = await registerFile(trx, current, blob.id, name, user.userId, { keyIsBlob: blob.objectKey === s.objectKey });
          if (attrs) await writeUploadAttrs(trx, filed.id, attrs.classifier, attrs.values, 'attrs.values');
          return filed;
        });
        // The completed multipart upload is gone already: only the staging object may need deleting.
        if (row.cleanup) await discardStorage({ ...s, uploadId: null });
        await replicateFiled(ctx, s.libCode);
        return ok(await viewOf(db, row));
      } finally {
        await stopSaving();
      }
    },

    async recycleStorageFile(req) {
      const user = callerOf(req.user);
      const b = req.body;
      const s = await findByObjectKey(db, b.objectKey);
      // Only the caller's own unfinished uploads: stored content is released through the recycle bin.
      if (!s || s.userId !== user.userId || (b.fId !== undefined && b.fId !== s.id)) throw new AppError('NOT_FOUND', 'no unfinished upload of yours has this key');
      if (await isSaving(s.id)) throw new AppError('CONFLICT', 'the upload is being saved');
      await abandon(s);
      return done();
    },

    async getLibCode(req) {
      callerOf(req.user);
      return ok('NetDisk');
    },
  };
}
