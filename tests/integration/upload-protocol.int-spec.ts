// The upload and download protocol against the real server (SQLite + embedded S3): section by section.
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { createHash, randomBytes } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execFileSync } from 'node:child_process';
import { encodeName } from '@hcs/openapi/client';
import { startServer, type TestServer } from '../helpers/server.ts';

const sha = (b: Buffer) => createHash('sha256').update(b).digest('hex');
type Env = { ret: number; msg: string; data: any };

let srv: TestServer;
let token: string;
let adminId: string;

async function api(path: string, init: { method?: string; query?: Record<string, string | number>; body?: unknown } = {}): Promise<Env & { status: number }> {
  const qs = init.query ? '?' + new URLSearchParams(Object.entries(init.query).map(([k, v]): [string, string] => [k, String(v)])).toString() : '';
  const res = await srv.call(path + qs, {
    method: init.method ?? (init.body !== undefined ? 'POST' : 'GET'),
    token,
    headers: init.body !== undefined ? { 'content-type': 'application/json' } : {},
    body: init.body !== undefined ? JSON.stringify(init.body) : undefined,
  });
  return { status: res.status, ...((await res.json()) as Env) };
}

async function signed(action: string, verb: string, fId: string, key: string, bucket: string, query = '', extra: Record<string, string> = {}) {
  const resourceUri = `/${bucket}/${key.split('/').map(encodeURIComponent).join('/')}${query ? '?' + query : ''}`;
  const r = await api('/hcs/controller/API/S3Cloud/StringToSign', { query: { httpVerb: verb, bucketName: bucket, resourceUri, action, fId, ...extra } });
  return r;
}

async function s3(action: string, verb: string, fId: string, key: string, bucket: string, query = '', body?: Buffer, headers: Record<string, string> = {}) {
  const s = await signed(action, verb, fId, key, bucket, query);
  expect(s.ret, JSON.stringify(s)).toBe(0);
  return fetch(s.data.url, {
    method: verb,
    headers: { authorization: s.data.authorization, 'x-amz-date': s.data.date, 'x-amz-content-sha256': s.data.contentSha256, ...headers },
    // A Buffer is a valid fetch body in Node; the DOM typing only lists web types.
    body: body as unknown as BodyInit | undefined,
  });
}

async function uploadable(name: string, bytes: Buffer, extra: Record<string, string> = {}, hash = sha(bytes)) {
  return api('/hcs/controller/API/file-uploadable', { query: { fSize: bytes.length, fName: encodeName(name), fMd5: hash, ...extra } });
}

async function save(u: any, name: string, bytes: Buffer, hash = sha(bytes)) {
  return api('/hcs/controller/API/save-instance', {
    body: { fId: u.fId, fMd5: hash, fSize: bytes.length, objectKey: u.objectKey, fName: encodeName(name), bucketName: u.bucketName, classifierId: 'File' },
  });
}

/** The whole small-file flow: upload-ability, then instant transfer with proof or a PUT and save-instance. */
async function upload(name: string, bytes: Buffer, extra: Record<string, string> = {}) {
  const u = (await uploadable(name, bytes, extra)).data;
  if (u.uploadflag === 1) {
    const proof = sha(bytes.subarray(u.proof.offset, u.proof.offset + u.proof.length));
    return api('/hcs/controller/API/second-transfer', { body: { fId: u.fId, proofId: u.proof.proofId, proof, instanceName: encodeName(name) } });
  }
  expect(u.uploadflag).toBe(3);
  const put = await s3('putObject', 'PUT', u.fId, u.objectKey, u.bucketName, '', bytes);
  expect(put.status).toBe(200);
  return save(u, name, bytes);
}

async function usedBytes(): Promise<number> {
  return ((await srv.sql.get('SELECT used_bytes AS u FROM users WHERE id = ?', adminId)) as { u: number }).u;
}

beforeAll(async () => {
  srv = await startServer();
  token = (await srv.login()).token;
  adminId = ((await srv.sql.get("SELECT id FROM users WHERE user_name = 'admin'")) as { id: string }).id;
});
afterAll(async () => {
  expect(srv.violations).toEqual([]);
  await srv.close();
});

describe('upload', () => {
  it('uploads a file, and a signed ranged GET returns the right bytes', async () => {
    const bytes = randomBytes(100_000);
    const saved = await upload('data.bin', bytes);
    expect(saved.ret, JSON.stringify(saved)).toBe(0);
    expect(saved.data).toMatchObject({ instanceName: 'data.bin', fSize: 100_000, fMd5: sha(bytes), classifierId: 'File' });
    const info = await api('/hcs/controller/API/getDownloadFileInfo', { query: { instanceId: saved.data.instanceId } });
    expect(info.data).toMatchObject({ fileSize: 100_000, fMd5: sha(bytes), partNum: 1, lastPartSize: 100_000 });
    const s = await api('/hcs/controller/API/S3Cloud/StringToSign', {
      query: { httpVerb: 'GET', bucketName: info.data.bucketName, resourceUri: info.data.resourceUri, action: 'getObject', fId: saved.data.instanceId },
    });
    expect(s.ret).toBe(0);
    const res = await fetch(s.data.url, { headers: { authorization: s.data.authorization, 'x-amz-date': s.data.date, 'x-amz-content-sha256': s.data.contentSha256, range: 'bytes=1000-1999' } });
    expect(res.status).toBe(206);
    expect(Buffer.from(await res.arrayBuffer()).equals(bytes.subarray(1000, 2000))).toBe(true);
    const url = await api('/hcs/controller/API/getS3DownloadUrl', { query: { instanceId: saved.data.instanceId, fileName: encodeURIComponent('报告.bin') } });
    const direct = await fetch(url.data.url, { headers: { range: 'bytes=0-9' } });
    expect(Buffer.from(await direct.arrayBuffer()).equals(bytes.subarray(0, 10))).toBe(true);
    expect(direct.headers.get('content-disposition')).toContain("filename*=UTF-8''%E6%8A%A5%E5%91%8A.bin");
  });

  it('refuses to sign what is not the caller\'s: other keys, wrong verbs, other files', async () => {
    const u = (await uploadable('x.bin', randomBytes(10))).data;
    expect((await signed('putObject', 'PUT', u.fId, 'objects/someone/else', u.bucketName)).data.code).toBe('FORBIDDEN');
    expect((await signed('putObject', 'GET', u.fId, u.objectKey, u.bucketName)).data.code).toBe('FORBIDDEN');
    expect((await signed('putObject', 'PUT', u.fId, u.objectKey, u.bucketName, 'acl')).data.code).toBe('FORBIDDEN');
    expect((await signed('getObject', 'GET', u.fId, u.objectKey, u.bucketName)).status).toBe(404);
    await api('/hcs/controller/API/destroyPartInfo', { body: { fId: u.fId, abort: true } });
  });

  it('instant transfer needs a proof of possession; a wrong answer is refused and spends the challenge', async () => {
    const bytes = randomBytes(50_000);
    expect((await upload('orig.bin', bytes)).ret).toBe(0);
    const u = (await uploadable('copy.bin', bytes)).data;
    expect(u.uploadflag).toBe(1);
    expect(u.proof.length).toBeLessThan(bytes.length);
    const wrong = await api('/hcs/controller/API/second-transfer', { body: { fId: u.fId, proofId: u.proof.proofId, proof: sha(bytes), instanceName: encodeName('copy.bin') } });
    expect([wrong.status, wrong.ret, wrong.data.code]).toEqual([403, 1, 'PROOF_REJECTED']);
    const right = sha(bytes.subarray(u.proof.offset, u.proof.offset + u.proof.length));
    const replay = await api('/hcs/controller/API/second-transfer', { body: { fId: u.fId, proofId: u.proof.proofId, proof: right, instanceName: encodeName('copy.bin') } });
    expect(replay.data.code).toBe('PROOF_REJECTED');
    const used = await usedBytes();
    const ok = await upload('copy.bin', bytes);
    expect(ok.ret).toBe(0);
    expect(ok.data.fMd5).toBe(sha(bytes));
    expect(await usedBytes()).toBe(used + bytes.length);
    const blobs = (await srv.sql.all('SELECT ref_count AS r FROM blobs WHERE sha256 = ?', sha(bytes))) as { r: number }[];
    expect(blobs).toEqual([{ r: 2 }]);
  });

  it('a lying hash is rejected with ret 404 and stores nothing', async () => {
    const bytes = randomBytes(4096);
    const claimed = sha(randomBytes(4096));
    const u = (await uploadable('liar.bin', bytes, {}, claimed)).data;
    expect(u.uploadflag).toBe(3);
    // Uploaded in parts, which carry no hash (a single PUT is signed with the declared SHA-256, so storage itself
    // refuses other bytes): save-instance hashes what was stored.
    const init = await s3('initMultipart', 'POST', u.fId, u.objectKey, u.bucketName, 'uploads');
    const uploadId = /<UploadId>([^<]+)<\/UploadId>/.exec(await init.text())![1]!;
    expect((await api('/hcs/controller/API/initPartInfo', { body: { fId: u.fId, uploadId, partSize: 4096, partCount: 1 } })).ret).toBe(0);
    const part = await s3('uploadPart', 'PUT', u.fId, u.objectKey, u.bucketName, `partNumber=1&uploadId=${encodeURIComponent(uploadId)}`, bytes);
    const xml = `<CompleteMultipartUpload><Part><PartNumber>1</PartNumber><ETag>${part.headers.get('etag')}</ETag></Part></CompleteMultipartUpload>`;
    expect((await s3('completeMultipart', 'POST', u.fId, u.objectKey, u.bucketName, `uploadId=${encodeURIComponent(uploadId)}`, Buffer.from(xml))).status).toBe(200);
    const r = await save(u, 'liar.bin', bytes, claimed);
    expect([r.ret, r.data.code]).toEqual([404, 'HASH_MISMATCH']);
    expect(await srv.sql.get("SELECT COUNT(*) AS c FROM instances WHERE name = 'liar.bin'")).toEqual({ c: 0 });
    expect(await srv.sql.get('SELECT COUNT(*) AS c FROM blobs WHERE sha256 = ?', claimed)).toEqual({ c: 0 });
    expect(await srv.built.ctx.store().headObject(u.objectKey)).toBeNull();
  });

  it('same name: a new version keeps the old content as history; keep both names it "name (1).ext"', async () => {
    const v1 = randomBytes(1000);
    const first = await upload('doc.txt', v1);
    const v2 = randomBytes(1200);
    const exists = await api('/hcs/controller/API/check-file-exist', { query: { instanceName: encodeName('DOC.txt') } });
    expect([exists.data.data, exists.msg]).toEqual([1, first.data.instanceId]);
    const nv = await upload('doc.txt', v2, { conflict: 'newVersion' });
    expect([nv.data.instanceId, nv.data.version, nv.data.fMd5]).toEqual([first.data.instanceId, 2, sha(v2)]);
    const hist = await srv.sql.all('SELECT version, size FROM file_versions WHERE instance_id = ?', first.data.instanceId);
    expect(hist).toEqual([{ version: 1, size: 1000 }]);
    const kb = await upload('doc.txt', randomBytes(10));
    expect(kb.data.instanceName).toBe('doc (1).txt');
  });

  it('quota: flag 2 when space runs out, and two concurrent checks cannot overshoot', async () => {
    const db = srv.sql;
    const used = await usedBytes();
    await db.run('UPDATE users SET quota_bytes = ? WHERE id = ?', used + 100, adminId);
    try {
      expect((await uploadable('big.bin', randomBytes(101))).data.uploadflag).toBe(2);
      const [a, b] = await Promise.all([uploadable('c1.bin', randomBytes(60)), uploadable('c2.bin', randomBytes(60))]);
      expect([a.data.uploadflag, b.data.uploadflag].sort()).toEqual([2, 3]);
      const live = a.data.uploadflag === 3 ? a.data : b.data;
      // Releasing the reservation frees the space again.
      await api('/hcs/controller/API/destroyPartInfo', { body: { fId: live.fId, abort: true } });
      expect((await uploadable('c3.bin', randomBytes(60))).data.uploadflag).toBe(3);
    } finally {
      await db.run('UPDATE users SET quota_bytes = NULL WHERE id = ?', adminId);
      await db.run('DELETE FROM upload_sessions WHERE user_id = ?', adminId);
    }
  });

  it('multipart: resume after pause from the part records and ListParts, more than 1000 parts listed', async () => {
    const total = 1001;
    const bytes = randomBytes(total);
    const u = (await uploadable('many.bin', bytes)).data;
    const init = await s3('initMultipart', 'POST', u.fId, u.objectKey, u.bucketName, 'uploads');
    const uploadId = /<UploadId>([^<]+)<\/UploadId>/.exec(await init.text())![1]!;
    expect((await api('/hcs/controller/API/initPartInfo', { body: { fId: u.fId, uploadId, partSize: 1, partCount: total } })).ret).toBe(0);
    const parts: { partNumber: number; etag: string; size: number }[] = [];
    for (let n = 1; n <= total; n++) {
      const q = `partNumber=${n}&uploadId=${encodeURIComponent(uploadId)}`;
      const put = await s3('uploadPart', 'PUT', u.fId, u.objectKey, u.bucketName, q, bytes.subarray(n - 1, n));
      expect(put.status).toBe(200);
      parts.push({ partNumber: n, etag: put.headers.get('etag')!.replace(/"/g, ''), size: 1 });
      if (n === 600) await api('/hcs/controller/API/setPartInfo', { body: { fId: u.fId, parts } }); // then "paused"
    }
    // Another tab finds the session by content, folder and name; its record has the first 600 parts.
    const found = await api('/hcs/controller/API/getPartInfo', { query: { fMd5: sha(bytes), fName: encodeName('many.bin') } });
    expect([found.data.fId, found.data.uploadId, found.data.parts.length]).toEqual([u.fId, uploadId, 600]);
    // Storage stays authoritative: ListParts pages of 1000 by part-number-marker.
    const listed: number[] = [];
    let marker = '';
    for (;;) {
      const q = `${marker ? `part-number-marker=${marker}&` : ''}uploadId=${encodeURIComponent(uploadId)}`;
      const xml = await (await s3('listParts', 'GET', u.fId, u.objectKey, u.bucketName, q)).text();
      listed.push(...[...xml.matchAll(/<PartNumber>(\d+)<\/PartNumber>/g)].map((m) => Number(m[1])));
      if (!/<IsTruncated>true<\/IsTruncated>/.test(xml)) break;
      marker = /<NextPartNumberMarker>(\d+)<\/NextPartNumberMarker>/.exec(xml)![1]!;
    }
    expect(listed.length).toBe(total);
    expect(new Set(listed).size).toBe(total);
    expect((await api('/hcs/controller/API/destroyPartInfo', { body: { fId: u.fId, abort: true } })).ret).toBe(0);
    expect((await api('/hcs/controller/API/getPartInfo', { query: { fId: u.fId } })).data).toBeNull();
  }, 120_000);

  it('multipart: completes and saves a file of several parts', async () => {
    const bytes = randomBytes(5 * 1024 * 1024 * 2 + 12345);
    const u = (await uploadable('parts.bin', bytes)).data;
    const init = await s3('initMultipart', 'POST', u.fId, u.objectKey, u.bucketName, 'uploads');
    const uploadId = /<UploadId>([^<]+)<\/UploadId>/.exec(await init.text())![1]!;
    const chunk = 5 * 1024 * 1024;
    // Parts are signed only for the recorded upload and its layout.
    expect((await api('/hcs/controller/API/initPartInfo', { body: { fId: u.fId, uploadId, partSize: chunk, partCount: 3 } })).ret).toBe(0);
    const etags: string[] = [];
    for (let n = 1; n * chunk - chunk < bytes.length; n++) {
      const put = await s3('uploadPart', 'PUT', u.fId, u.objectKey, u.bucketName, `partNumber=${n}&uploadId=${encodeURIComponent(uploadId)}`, bytes.subarray((n - 1) * chunk, n * chunk));
      etags.push(put.headers.get('etag')!);
    }
    const xml = `<CompleteMultipartUpload>${etags.map((e, i) => `<Part><PartNumber>${i + 1}</PartNumber><ETag>${e}</ETag></Part>`).join('')}</CompleteMultipartUpload>`;
    const done = await s3('completeMultipart', 'POST', u.fId, u.objectKey, u.bucketName, `uploadId=${encodeURIComponent(uploadId)}`, Buffer.from(xml));
    expect(done.status).toBe(200);
    await done.text();
    const saved = await save(u, 'parts.bin', bytes);
    expect([saved.ret, saved.data.fSize, saved.data.fMd5]).toEqual([0, bytes.length, sha(bytes)]);
  });
});

describe('download', () => {
  it('streams a folder as a zip that unzips to the same bytes, empty folders kept, UTF-8 names', async () => {
    const mk = async (parentId: string | undefined, name: string) =>
      (await api('/hcs/controller/Instances', { body: [{ classifierId: 'Folder', instanceName: encodeName(name), ...(parentId ? { parentId } : {}) }] })).data[0].instanceId as string;
    const top = await mk(undefined, '照片 zip');
    const sub = await mk(top, 'sub');
    await mk(top, 'empty');
    const a = randomBytes(300_000);
    const b = randomBytes(7);
    expect((await upload('a.bin', a, { parentId: top })).ret).toBe(0);
    expect((await upload('日本.txt', b, { parentId: sub })).ret).toBe(0);
    expect((await upload('zero', Buffer.alloc(0), { parentId: sub })).ret).toBe(0);
    const link = await api('/hcs/controller/API/getZipDownloadUrl', { query: { ids: top } });
    expect(link.ret).toBe(0);
    const res = await fetch(srv.baseUrl + link.data.url);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-disposition')).toContain("filename*=UTF-8''");
    const dir = mkdtempSync(join(tmpdir(), 'hcs-zip-'));
    const file = join(dir, 'out.zip');
    writeFileSync(file, Buffer.from(await res.arrayBuffer()));
    execFileSync('unzip', ['-tq', file]);
    const list = execFileSync('unzip', ['-Z1', file]).toString('utf8').trim().split('\n').sort();
    expect(list).toEqual(['照片 zip/', '照片 zip/a.bin', '照片 zip/empty/', '照片 zip/sub/', '照片 zip/sub/zero', '照片 zip/sub/日本.txt'].sort());
    expect(execFileSync('unzip', ['-p', file, '照片 zip/a.bin'], { maxBuffer: 1 << 24 }).equals(a)).toBe(true);
    expect(execFileSync('unzip', ['-p', file, '照片 zip/sub/日本.txt']).equals(b)).toBe(true);
    // The ticket is single-use.
    expect((await fetch(srv.baseUrl + link.data.url)).status).toBe(404);
  });

  it('previews small files inline through a ticket URL with a safe content type', async () => {
    const bytes = Buffer.from('<script>alert(1)</script>');
    const saved = await upload('page.html', bytes);
    const p = await api('/hcs/controller/API/1.0/preview', { query: { instanceId: saved.data.instanceId } });
    expect(p.data.inline).toBe(true);
    const res = await fetch(srv.baseUrl + p.data.url);
    expect(res.headers.get('content-type')).toMatch(/^text\/plain/);
    expect(res.headers.get('content-security-policy')).toContain('sandbox');
    expect(Buffer.from(await res.arrayBuffer()).equals(bytes)).toBe(true);
    expect((await fetch(srv.baseUrl + p.data.url.slice(0, -3) + 'AAA')).status).toBe(404);
  });
});

describe('expired upload sessions', () => {
  it('are cleaned: multipart aborted, staging object deleted, reservation released; saved blobs are kept', async () => {
    const s = await startServer({ env: { HCS_DEFAULT_QUOTA_GB: '1' } });
    try {
      const { token } = await s.login();
      const db = s.sql;
      const store = s.built.ctx.store();
      const sha = createHash('sha256').update('abandoned').digest('hex');
      const up = (await (await s.call(`/hcs/controller/API/file-uploadable?fSize=${6 * 1024 * 1024}&fName=${encodeName('abandoned.bin')}&fMd5=${sha}`, { token })).json()) as any;
      expect(up.data.uploadflag).toBe(3);
      const mp = await store.createMultipart(up.data.objectKey);
      await db.run('UPDATE upload_sessions SET upload_id = ? WHERE id = ?', mp, up.data.fId);
      await store.putObject(up.data.objectKey, Buffer.from('staged bytes'), { contentLength: 12 });
      const reserved = async () => ((await db.get('SELECT COALESCE(SUM(reserved_bytes), 0) AS r FROM upload_sessions')) as { r: number }).r;
      expect(await reserved()).toBe(6 * 1024 * 1024);

      // Not expired yet: nothing happens.
      expect(await s.built.janitor().sweep()).toBe(0);
      expect(await store.headObject(up.data.objectKey)).not.toBeNull();

      await db.run('UPDATE upload_sessions SET expires_at = ? WHERE id = ?', Date.now() - 1, up.data.fId);
      expect(await s.built.janitor().sweep()).toBe(1);
      expect(await store.headObject(up.data.objectKey)).toBeNull();
      expect(await reserved()).toBe(0);
      await expect(store.listParts(up.data.objectKey, mp).next()).rejects.toMatchObject({ code: 'NoSuchUpload' });

      // A session whose staging key became a blob keeps its object.
      const up2 = (await (await s.call(`/hcs/controller/API/file-uploadable?fSize=5&fName=${encodeName('kept.txt')}&fMd5=${createHash('sha256').update('kept!').digest('hex')}`, { token })).json()) as any;
      await store.putObject(up2.data.objectKey, Buffer.from('kept!'), { contentLength: 5 });
      await db.run('INSERT INTO blobs (id, sha256, size, bucket, object_key, ref_count, verified, created_at) VALUES (?, ?, ?, ?, ?, 1, 1, ?)', 'blob-kept', createHash('sha256').update('kept!').digest('hex'), 5, store.bucket, up2.data.objectKey, Date.now());
      await db.run('UPDATE upload_sessions SET expires_at = ? WHERE id = ?', Date.now() - 1, up2.data.fId);
      expect(await s.built.janitor().sweep()).toBe(1);
      expect(await store.headObject(up2.data.objectKey)).not.toBeNull();
      expect(s.violations).toEqual([]);
    } finally {
      await s.close();
    }
  });
});
