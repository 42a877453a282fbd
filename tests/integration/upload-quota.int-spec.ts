// Issue #11 findings 2 and 4 against the real server: an upload session can never make storage hold more bytes than
// its quota reservation, and the upload protocol does not tell a user whether another user's content is stored.
// Runs on the embedded store, and again on an external S3 (radosgw) when HCS_TEST_S3_ENDPOINT is set: storage
// itself enforces what the server signs (Content-Length, the payload SHA-256), so both must refuse the same requests.
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { createHash, randomBytes } from 'node:crypto';
import { encodeName } from '@hcs/openapi/client';
import { startServer, type TestServer } from '../helpers/server.ts';
import { createUser } from '../../mock-server/src/db/users-repo.ts';
import { spaceUsage } from '../../mock-server/src/db/quota.ts';

const sha = (b: Buffer) => createHash('sha256').update(b).digest('hex');
type Env = { status: number; ret: number; msg: string; data: any };
type Signed = { url: string; authorization: string; date: string; contentSha256: string };
const MIN = 60_000;

let srv: TestServer;
let token: string;
let adminId: string;

async function api(path: string, init: { query?: Record<string, string | number>; body?: unknown; as?: string; server?: TestServer } = {}): Promise<Env> {
  const qs = init.query ? '?' + new URLSearchParams(Object.entries(init.query).map(([k, v]): [string, string] => [k, String(v)])).toString() : '';
  const res = await (init.server ?? srv).call(path + qs, {
    method: init.body !== undefined ? 'POST' : 'GET',
    token: init.as ?? token,
    headers: init.body !== undefined ? { 'content-type': 'application/json' } : {},
    body: init.body !== undefined ? JSON.stringify(init.body) : undefined,
  });
  return { status: res.status, ...((await res.json()) as Omit<Env, 'status'>) };
}

async function uploadable(name: string, size: number, hash: string, extra: Record<string, string> = {}, as = token): Promise<Env> {
  return api('/hcs/controller/API/file-uploadable', { query: { fSize: size, fName: encodeName(name), fMd5: hash, ...extra }, as });
}

/** A session for `bytes` that must upload (flag 3). */
async function session(name: string, bytes: Buffer, as = token): Promise<any> {
  const u = await uploadable(name, bytes.length, sha(bytes), {}, as);
  expect([u.ret, u.data.uploadflag], JSON.stringify(u)).toEqual([0, 3]);
  return u.data;
}

async function sign(u: any, action: string, verb: string, query = '', as = token): Promise<Env> {
  const resourceUri = `/${u.bucketName}/${u.objectKey.split('/').map(encodeURIComponent).join('/')}${query ? '?' + query : ''}`;
  return api('/hcs/controller/API/S3Cloud/StringToSign', { query: { httpVerb: verb, bucketName: u.bucketName, resourceUri, action, fId: u.fId }, as });
}

/** Sends a signed request to storage exactly as a client does; the same `signed` may be sent again (a replay). */
function send(signed: Signed, verb: string, body?: Buffer): Promise<Response> {
  return fetch(signed.url, {
    method: verb,
    headers: { authorization: signed.authorization, 'x-amz-date': signed.date, 'x-amz-content-sha256': signed.contentSha256 },
    // A Buffer is a valid fetch body in Node (fetch sends its length as Content-Length); the DOM typing lists web types.
    body: body as unknown as BodyInit | undefined,
  });
}

async function signAndSend(u: any, action: string, verb: string, query = '', body?: Buffer, as = token): Promise<Response> {
  const s = await sign(u, action, verb, query, as);
  expect(s.ret, JSON.stringify(s)).toBe(0);
  return send(s.data, verb, body);
}

async function initMultipart(u: any, as = token): Promise<string> {
  const res = await signAndSend(u, 'initMultipart', 'POST', 'uploads', undefined, as);
  expect(res.status).toBe(200);
  return /<UploadId>([^<]+)<\/UploadId>/.exec(await res.text())![1]!;
}

const partQuery = (n: number, uploadId: string) => `partNumber=${n}&uploadId=${encodeURIComponent(uploadId)}`;

async function save(u: any, name: string, bytes: Buffer, over: Record<string, unknown> = {}, as = token): Promise<Env> {
  return api('/hcs/controller/API/save-instance', {
    body: { fId: u.fId, fMd5: sha(bytes), fSize: bytes.length, objectKey: u.objectKey, fName: encodeName(name), bucketName: u.bucketName, classifierId: 'File', ...over },
    as,
  });
}

/** What storage holds at the session's key and in its multipart upload (null when the upload is gone). */
async function staged(u: any, uploadId?: string): Promise<{ object: number | null; parts: number | null }> {
  const store = srv.built.ctx.store();
  const head = await store.headObject(u.objectKey);
  let parts: number | null = null;
  if (uploadId) {
    try {
      parts = 0;
      for await (const p of store.listParts(u.objectKey, uploadId)) parts += p.size;
    } catch (err) {
      if ((err as { code?: string }).code !== 'NoSuchUpload') throw err;
      parts = null;
    }
  }
  return { object: head?.size ?? null, parts };
}

/** A user of its own, so the reservations a test measures are its own. */
async function freshUser(name: string): Promise<{ token: string; id: string }> {
  const id = (await createUser(srv.built.ctx.db, { userName: name, password: 'Fresh#pass-123' })).id;
  return { id, token: (await srv.login(name, 'Fresh#pass-123')).token };
}

const reserved = async (userId = adminId, now = Date.now()) => (await spaceUsage(srv.built.ctx.db, { kind: 'user', id: userId }, now)).reservedBytes;
const sessionRow = (fId: string) => srv.sql.get<{ expires_at: number }>('SELECT expires_at FROM upload_sessions WHERE id = ?', fId);

function suite(label: string, env: Record<string, string>) {
  describe(label, () => {
    beforeAll(async () => {
      srv = await startServer({ env });
      token = (await srv.login()).token;
      adminId = ((await srv.sql.get("SELECT id FROM users WHERE user_name = 'admin'")) as { id: string }).id;
    });
    afterAll(async () => {
      expect(srv.violations).toEqual([]);
      await srv.close();
    });

    describe('finding 2: a session stores at most what it declared', () => {
      it('a single PUT is signed for exactly the declared size: 64 KiB on a 1-byte session is refused by storage', async () => {
        const one = randomBytes(1);
        const u = await session('one.bin', one);
        const s = await sign(u, 'putObject', 'PUT');
        expect(s.ret).toBe(0);
        const big = await send(s.data, 'PUT', randomBytes(64 * 1024));
        expect(big.status).toBe(403);
        expect(await big.text()).toContain('SignatureDoesNotMatch');
        expect(await staged(u)).toEqual({ object: null, parts: null });
        // The declared byte goes through with the same signature.
        expect((await send(s.data, 'PUT', one)).status).toBe(200);
        expect((await save(u, 'one.bin', one)).ret).toBe(0);
      });

      it('multipart: only the recorded upload, only part numbers of the layout, each exactly its size', async () => {
        const bytes = randomBytes(9);
        const u = await session('parts.bin', bytes);
        const uploadId = await initMultipart(u);
        // Not recorded yet: no part of it can be signed, so unrecorded uploads never hold bytes.
        expect((await sign(u, 'uploadPart', 'PUT', partQuery(1, uploadId))).data.code).toBe('FORBIDDEN');
        expect((await api('/hcs/controller/API/initPartInfo', { body: { fId: u.fId, uploadId, partSize: 5, partCount: 2 } })).ret).toBe(0);
        expect((await sign(u, 'uploadPart', 'PUT', partQuery(3, uploadId))).data.code).toBe('FORBIDDEN');
        const part1 = await sign(u, 'uploadPart', 'PUT', partQuery(1, uploadId));
        expect((await send(part1.data, 'PUT', randomBytes(6))).status).toBe(403);
        expect((await send(part1.data, 'PUT', bytes.subarray(0, 5))).status).toBe(200);
        const part2 = await sign(u, 'uploadPart', 'PUT', partQuery(2, uploadId));
        expect((await send(part2.data, 'PUT', randomBytes(5))).status).toBe(403);
        expect((await send(part2.data, 'PUT', bytes.subarray(5))).status).toBe(200);
        expect(await staged(u, uploadId)).toEqual({ object: null, parts: 9 });
        // Part records must match the layout too (the last part is 4 bytes).
        const bad = await api('/hcs/controller/API/setPartInfo', { body: { fId: u.fId, parts: [{ partNumber: 2, etag: 'x', size: 5 }] } });
        expect([bad.status, bad.data.code]).toEqual([422, 'VALIDATION_FAILED']);
        // The layout of a recorded upload is fixed: bigger parts under the same upload would add to what it holds.
        const relayout = await api('/hcs/controller/API/initPartInfo', { body: { fId: u.fId, uploadId, partSize: 9, partCount: 1 } });
        expect(relayout.ret).not.toBe(0);
        await api('/hcs/controller/API/destroyPartInfo', { body: { fId: u.fId, abort: true } });
        expect(await staged(u, uploadId)).toEqual({ object: null, parts: null });
      });

      it('a new multipart upload replaces the recorded one: the old one and its parts are gone', async () => {
        const bytes = randomBytes(9);
        const u = await session('again.bin', bytes);
        const first = await initMultipart(u);
        expect((await api('/hcs/controller/API/initPartInfo', { body: { fId: u.fId, uploadId: first, partSize: 5, partCount: 2 } })).ret).toBe(0);
        expect((await signAndSend(u, 'uploadPart', 'PUT', partQuery(1, first), bytes.subarray(0, 5))).status).toBe(200);
        const second = await initMultipart(u);
        expect((await api('/hcs/controller/API/initPartInfo', { body: { fId: u.fId, uploadId: second, partSize: 5, partCount: 2 } })).ret).toBe(0);
        expect((await signAndSend(u, 'uploadPart', 'PUT', partQuery(1, second), bytes.subarray(0, 5))).status).toBe(200);
        expect(await staged(u, first)).toEqual({ object: null, parts: null });
        expect(await staged(u, second)).toEqual({ object: null, parts: 5 });
        await api('/hcs/controller/API/destroyPartInfo', { body: { fId: u.fId, abort: true } });
      });

      it('a session is either one PUT or one multipart upload, never both (that would stage twice the size)', async () => {
        const bytes = randomBytes(9);
        const put = await session('put-first.bin', bytes);
        expect((await signAndSend(put, 'putObject', 'PUT', '', bytes)).status).toBe(200);
        expect((await sign(put, 'initMultipart', 'POST', 'uploads')).data.code).toBe('FORBIDDEN');
        await api('/hcs/controller/API/destroyPartInfo', { body: { fId: put.fId, abort: true } });

        const other = randomBytes(9);
        const mp = await session('multipart-first.bin', other);
        const uploadId = await initMultipart(mp);
        expect((await api('/hcs/controller/API/initPartInfo', { body: { fId: mp.fId, uploadId, partSize: 5, partCount: 2 } })).ret).toBe(0);
        expect((await sign(mp, 'putObject', 'PUT')).data.code).toBe('FORBIDDEN');
        await api('/hcs/controller/API/destroyPartInfo', { body: { fId: mp.fId, abort: true } });
      });

      it('the expiry is absolute: recording parts does not move it, and no signature outlives the session', async () => {
        const db = srv.sql;
        const bytes = randomBytes(9);
        const u = await session('expiry.bin', bytes);
        const created = (await sessionRow(u.fId))!.expires_at;
        expect(created).toBeGreaterThan(Date.now() + 23 * 60 * MIN);
        // As if the session were 23 hours old: one hour left.
        const end = Date.now() + 60 * MIN;
        await db.run('UPDATE upload_sessions SET expires_at = ? WHERE id = ?', end, u.fId);
        const uploadId = await initMultipart(u);
        expect((await api('/hcs/controller/API/initPartInfo', { body: { fId: u.fId, uploadId, partSize: 5, partCount: 2 } })).ret).toBe(0);
        const etag = (await signAndSend(u, 'uploadPart', 'PUT', partQuery(1, uploadId), bytes.subarray(0, 5))).headers.get('etag')!;
        expect((await api('/hcs/controller/API/setPartInfo', { body: { fId: u.fId, parts: [{ partNumber: 1, etag, size: 5 }] } })).ret).toBe(0);
        expect((await sessionRow(u.fId))!.expires_at).toBe(end);
        // Storage accepts a signed request for 15 minutes after its date: with 10 minutes left, nothing more is signed.
        await db.run('UPDATE upload_sessions SET expires_at = ? WHERE id = ?', Date.now() + 10 * MIN, u.fId);
        const late = await sign(u, 'uploadPart', 'PUT', partQuery(2, uploadId));
        expect([late.status, late.data.code]).toEqual([404, 'UPLOAD_SESSION_MISSING']);
        await api('/hcs/controller/API/destroyPartInfo', { body: { fId: u.fId, abort: true } });
      });

      it('save-instance refusing the upload deletes the staged object and the session and releases the reservation', async () => {
        const dave = await freshUser('dave');
        const bytes = randomBytes(9);
        const u = await session('refused.bin', bytes, dave.token);
        expect(await reserved(dave.id)).toBe(9);
        expect((await signAndSend(u, 'putObject', 'PUT', '', bytes, dave.token)).status).toBe(200);
        const r = await save(u, 'refused.bin', bytes, { fSize: 10 }, dave.token);
        expect([r.status, r.data.code]).toEqual([422, 'VALIDATION_FAILED']);
        expect(await staged(u)).toEqual({ object: null, parts: null });
        expect((await api('/hcs/controller/API/getPartInfo', { query: { fId: u.fId }, as: dave.token })).data).toBeNull();

        // A multipart upload that was never completed is aborted with it, and its reservation released at once.
        const other = randomBytes(9);
        const m = await session('refused-mp.bin', other, dave.token);
        const uploadId = await initMultipart(m, dave.token);
        expect((await api('/hcs/controller/API/initPartInfo', { body: { fId: m.fId, uploadId, partSize: 5, partCount: 2 }, as: dave.token })).ret).toBe(0);
        expect((await signAndSend(m, 'uploadPart', 'PUT', partQuery(1, uploadId), other.subarray(0, 5), dave.token)).status).toBe(200);
        const before = await reserved(dave.id);
        const r2 = await save(m, 'refused-mp.bin', other, { fMd5: sha(randomBytes(9)) }, dave.token);
        expect([r2.status, r2.data.code]).toEqual([422, 'VALIDATION_FAILED']);
        expect(await staged(m, uploadId)).toEqual({ object: null, parts: null });
        expect(await reserved(dave.id)).toBe(before - 9);
        // Once no signed request of either session can reach storage, nothing is held or reserved.
        await srv.built.janitor().sweep(Date.now() + 16 * MIN);
        expect(await reserved(dave.id, Date.now() + 16 * MIN)).toBe(0);
        expect(await staged(u)).toEqual({ object: null, parts: null });
      });

      it('a signed PUT replayed after the upload was cancelled stays counted until the janitor removes it', async () => {
        const erin = await freshUser('erin');
        const bytes = randomBytes(9);
        const u = await session('replayed.bin', bytes, erin.token);
        const s = await sign(u, 'putObject', 'PUT', '', erin.token);
        expect((await send(s.data, 'PUT', bytes)).status).toBe(200);
        expect((await api('/hcs/controller/API/destroyPartInfo', { body: { fId: u.fId, abort: true }, as: erin.token })).ret).toBe(0);
        expect(await staged(u)).toEqual({ object: null, parts: null });
        expect((await api('/hcs/controller/API/getPartInfo', { query: { fId: u.fId }, as: erin.token })).data).toBeNull();
        // Storage accepts the same request for 15 minutes after its x-amz-date: the bytes come back...
        expect((await send(s.data, 'PUT', bytes)).status).toBe(200);
        expect(await staged(u)).toEqual({ object: 9, parts: null });
        // ...and are counted until no signed request of the session can land any more, when the janitor deletes them.
        expect(await reserved(erin.id)).toBe(9);
        expect(await srv.built.janitor().sweep(Date.now() + 16 * MIN)).toBeGreaterThanOrEqual(1);
        expect(await staged(u)).toEqual({ object: null, parts: null });
        expect(await reserved(erin.id, Date.now() + 16 * MIN)).toBe(0);
      });

      it('a replayed PUT cannot change the content of a saved file (storage checks the signed SHA-256)', async () => {
        const bytes = randomBytes(4096);
        const u = await session('sealed.bin', bytes);
        const s = await sign(u, 'putObject', 'PUT');
        expect(s.data.contentSha256).toBe(sha(bytes));
        expect((await send(s.data, 'PUT', bytes)).status).toBe(200);
        const saved = await save(u, 'sealed.bin', bytes);
        expect(saved.ret).toBe(0);
        const forged = await send(s.data, 'PUT', randomBytes(4096));
        expect(forged.status).toBe(400);
        expect(await forged.text()).toContain('XAmzContentSHA256Mismatch');
        const { body } = await srv.built.ctx.store().getObject(u.objectKey);
        const hash = createHash('sha256');
        for await (const chunk of body) hash.update(chunk as Buffer);
        expect(hash.digest('hex')).toBe(sha(bytes));
      });

      it('asking again with another conflict choice ends the old session with its staged bytes', async () => {
        const bytes = randomBytes(9);
        const u = await session('conflict.bin', bytes);
        expect((await signAndSend(u, 'putObject', 'PUT', '', bytes)).status).toBe(200);
        const again = await uploadable('conflict.bin', 9, sha(bytes), { conflict: 'newVersion' });
        expect(again.data.fId).not.toBe(u.fId);
        expect(await staged(u)).toEqual({ object: null, parts: null });
        await api('/hcs/controller/API/destroyPartInfo', { body: { fId: again.data.fId, abort: true } });
      });

      it('open upload sessions per user are capped (HCS_MAX_UPLOAD_SESSIONS): TOO_MANY_UPLOADS, resuming still works', async () => {
        const s = await startServer({ env: { ...env, HCS_MAX_UPLOAD_SESSIONS: '2' } });
        try {
          const { token: t } = await s.login();
          const ask = (name: string, bytes: Buffer) =>
            api('/hcs/controller/API/file-uploadable', { query: { fSize: bytes.length, fName: encodeName(name), fMd5: sha(bytes) }, as: t, server: s });
          const a = randomBytes(10);
          const first = await ask('a.bin', a);
          const second = await ask('b.bin', randomBytes(10));
          expect([first.data.uploadflag, second.data.uploadflag]).toEqual([3, 3]);
          const third = await ask('c.bin', randomBytes(10));
          expect([third.status, third.ret, third.data.code]).toEqual([409, 1, 'TOO_MANY_UPLOADS']);
          // The same upload asked for again resumes its session: no new one.
          expect((await ask('a.bin', a)).data.fId).toBe(first.data.fId);
          await api('/hcs/controller/API/destroyPartInfo', { body: { fId: second.data.fId, abort: true }, as: t, server: s });
          expect((await ask('c.bin', randomBytes(10))).data.uploadflag).toBe(3);
          expect(s.violations).toEqual([]);
        } finally {
          await s.close();
        }
      });
    });

    describe("finding 4: no oracle for other users' content", () => {
      let bob: string;
      let carol: string;
      let bobId: string;

      beforeAll(async () => {
        const db = srv.built.ctx.db;
        bobId = (await createUser(db, { userName: 'bob', password: 'Bob#pass-1234' })).id;
        await createUser(db, { userName: 'carol', password: 'Carol#pass-123' });
        bob = (await srv.login('bob', 'Bob#pass-1234')).token;
        carol = (await srv.login('carol', 'Carol#pass-123')).token;
      });

      async function uploadAs(as: string, name: string, bytes: Buffer): Promise<Env> {
        const u = await session(name, bytes, as);
        expect((await signAndSend(u, 'putObject', 'PUT', '', bytes, as)).status).toBe(200);
        return save(u, name, bytes, {}, as);
      }

      it("file-uploadable answers another user's content exactly as unknown content; it is deduplicated once its bytes arrived", async () => {
        const doc = randomBytes(20_000);
        const bobs = await uploadAs(bob, 'secret.pdf', doc);
        expect(bobs.ret).toBe(0);

        const probe = await uploadable('probe.pdf', doc.length, sha(doc), {}, carol);
        const unknown = await uploadable('unknown.pdf', doc.length, sha(randomBytes(20_000)), {}, carol);
        expect(probe.data.uploadflag).toBe(3);
        expect(probe.data.proof).toBeUndefined();
        expect(Object.keys(probe.data).sort()).toEqual(Object.keys(unknown.data).sort());
        await api('/hcs/controller/API/destroyPartInfo', { body: { fId: unknown.data.fId, abort: true }, as: carol });

        // Carol uploads the bytes; the server verifies them and then keeps one copy.
        expect((await signAndSend(probe.data, 'putObject', 'PUT', '', doc, carol)).status).toBe(200);
        const saved = await save(probe.data, 'probe.pdf', doc, {}, carol);
        expect(saved.ret, JSON.stringify(saved)).toBe(0);
        const blobs = await srv.sql.all('SELECT ref_count AS r FROM blobs WHERE sha256 = ?', sha(doc));
        expect(blobs).toEqual([{ r: 2 }]);
        expect(await staged(probe.data)).toEqual({ object: null, parts: null });
        const url = await api('/hcs/controller/API/getS3DownloadUrl', { query: { instanceId: saved.data.instanceId }, as: carol });
        expect(Buffer.from(await (await fetch(url.data.url)).arrayBuffer()).equals(doc)).toBe(true);
        // The storage key Carol's file now has does not name the user who first stored the content.
        const info = await api('/hcs/controller/API/getDownloadFileInfo', { query: { instanceId: saved.data.instanceId }, as: carol });
        expect(JSON.stringify(info.data)).not.toContain(bobId);

        // Content the caller can read still transfers instantly, with a proof of possession.
        const own = await uploadable('mine-again.pdf', doc.length, sha(doc), {}, carol);
        expect(own.data.uploadflag).toBe(1);
        expect(own.data.proof).toEqual({ proofId: expect.any(String), offset: expect.any(Number), length: expect.any(Number) });
        await api('/hcs/controller/API/destroyPartInfo', { body: { fId: own.data.fId, abort: true }, as: carol });
      });

      it("bulk-upload reports another user's content as uploaded, the caller's own as instant", async () => {
        const bytes = randomBytes(3000);
        expect((await uploadAs(bob, 'bulk-secret.bin', bytes)).ret).toBe(0);
        const bulk = async (as: string, name: string) => {
          const manifest = { files: [{ fName: encodeName(name), fSize: bytes.length, fMd5: sha(bytes) }] };
          const res = await srv.call('/hcs/controller/API/bulk-upload', {
            method: 'POST',
            token: as,
            headers: { 'content-type': 'application/octet-stream' },
            body: Buffer.concat([Buffer.from(JSON.stringify(manifest) + '\n'), bytes]) as unknown as BodyInit,
          });
          const env = (await res.json()) as Env;
          expect(env.ret, JSON.stringify(env)).toBe(0);
          return env.data.files[0] as { outcome: string };
        };
        expect((await bulk(carol, 'bulk-probe.bin')).outcome).toBe('uploaded');
        expect((await bulk(bob, 'bulk-own.bin')).outcome).toBe('instant');
        expect(await srv.sql.all('SELECT ref_count AS r FROM blobs WHERE sha256 = ?', sha(bytes))).toEqual([{ r: 3 }]);
      });
    });
  });
}

suite('on the embedded store', {});
const external = process.env.HCS_TEST_S3_ENDPOINT;
if (external) {
  suite(`on external S3 (${process.env.HCS_TEST_S3_FLAVOR ?? 's3'} at ${external})`, {
    HCS_S3_ENDPOINT: external,
    HCS_S3_ACCESS_KEY: process.env.HCS_TEST_S3_ACCESS_KEY ?? '',
    HCS_S3_SECRET_KEY: process.env.HCS_TEST_S3_SECRET_KEY ?? '',
    HCS_S3_BUCKET: process.env.HCS_TEST_S3_BUCKET ?? 'hcs-quota-suite',
    HCS_S3_REGION: process.env.HCS_TEST_S3_REGION ?? 'us-east-1',
  });
} else {
  describe('on external S3', () => {
    it.skip('skipped: set HCS_TEST_S3_ENDPOINT (+ _ACCESS_KEY, _SECRET_KEY, _BUCKET, _REGION), e.g. eval "$(bash tests/s3/radosgw.sh env)"', () => {});
  });
}
