// Issue #20 part 1, encryption at rest: with a library's policy at aes256-gcm the embedded store keeps only
// ciphertext on disk (a grep of the whole data dir for a known plaintext finds nothing), yet files download
// byte-identical, ranges included (across the 64 KiB chunks and the segments of a multipart object), and SHA-256
// integrity, dedup and instant transfer with proof of possession keep working on the plaintext. Rotating the master
// key re-wraps the data keys without rewriting any content file. A file stored before encryption was on stays
// readable (and in plaintext: nothing is rewritten behind the administrator's back).
import { createHash, randomBytes } from 'node:crypto';
import { readdir, readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { encodeName } from '@hcs/openapi/client';
import { startServer, type TestServer } from '../helpers/server.ts';
import { apiAs, type TestUser } from '../helpers/org.ts';
import { uploadFile, type ApiCall } from '../helpers/upload.ts';

let srv: TestServer;
let admin: TestUser;
const C = '/hcs/controller';
const sha = (b: Buffer) => createHash('sha256').update(b).digest('hex');
const MiB = 1024 * 1024;

function marked(marker: string, size: number): Buffer {
  const out = Buffer.alloc(size);
  const unit = Buffer.from(`${marker}|`);
  for (let i = 0; i < size; i += unit.length) unit.copy(out, i, 0, Math.min(unit.length, size - i));
  return out;
}

async function filesUnder(dir: string): Promise<string[]> {
  const out: string[] = [];
  for (const e of await readdir(dir, { withFileTypes: true, recursive: true })) if (e.isFile()) out.push(join(e.parentPath, e.name));
  return out;
}

/** Every file of the data dir holding `needle`. */
async function grepDataDir(needle: string): Promise<string[]> {
  const hits: string[] = [];
  for (const f of await filesUnder(srv.dataDir)) if ((await readFile(f)).includes(Buffer.from(needle))) hits.push(f);
  return hits;
}

async function downloadUrl(instanceId: string): Promise<string> {
  const r = await admin.api(`${C}/API/getS3DownloadUrl`, { instanceId });
  expect(r.ret, JSON.stringify(r)).toBe(0);
  return r.data.url;
}

async function fetchRange(url: string, range?: string): Promise<Buffer> {
  const res = await fetch(url, range ? { headers: { range } } : {});
  expect(res.status, await res.clone().text().catch(() => '')).toBe(range ? 206 : 200);
  return Buffer.from(await res.arrayBuffer());
}

const api: ApiCall = (path, query, body) => admin.api(path, query, body);

beforeAll(async () => {
  srv = await startServer();
  const { token } = await srv.login();
  admin = { id: '', name: 'admin', token, api: apiAs(srv, token) };
});
afterAll(async () => {
  expect(srv.violations).toEqual([]);
  await srv.close();
});

describe('encryption at rest in the embedded store', () => {
  const before = `BEFORE-ENCRYPTION-${randomBytes(6).toString('hex')}`;
  const small = `SMALL-PLAINTEXT-${randomBytes(6).toString('hex')}`;
  const large = `LARGE-PLAINTEXT-${randomBytes(6).toString('hex')}`;
  let beforeId: string;
  let beforeBytes: Buffer;

  it('without a policy, objects are stored as they came (the grep finds the plaintext)', async () => {
    beforeBytes = marked(before, 200_000);
    beforeId = await uploadFile(api, 'before.txt', beforeBytes);
    expect((await grepDataDir(before)).length).toBeGreaterThan(0);
    const u = await admin.api(`${C}/API/file-uploadable`, { fSize: 10, fName: encodeName('x.bin'), fMd5: sha(randomBytes(10)) });
    expect(u.data.storeEncryption).toBe(0);
    await admin.api(`${C}/API/destroyPartInfo`, undefined, { fId: u.data.fId, abort: true });
  });

  it('with aes256-gcm, new objects are unreadable on disk and download byte-identical, ranges included', async () => {
    const set = await admin.api(`${C}/storagePolicy/set`, undefined, { libCode: 'NetDisk', cloudId: '0', encryption: 'aes256-gcm' });
    expect(set.data).toMatchObject({ encryption: 'aes256-gcm', inForce: 'aes256-gcm' });
    const u = await admin.api(`${C}/API/file-uploadable`, { fSize: 10, fName: encodeName('y.bin'), fMd5: sha(randomBytes(10)) });
    expect(u.data.storeEncryption).toBe(1);
    await admin.api(`${C}/API/destroyPartInfo`, undefined, { fId: u.data.fId, abort: true });

    const smallBytes = marked(small, 300_001);
    const largeBytes = marked(large, 12 * MiB + 12_345);
    const smallId = await uploadFile(api, 'small.txt', smallBytes);
    const largeId = await uploadFile(api, 'large.txt', largeBytes);
    expect(await grepDataDir(small)).toEqual([]);
    expect(await grepDataDir(large)).toEqual([]);

    // What the data dir holds for them is ciphertext plus one tag per 64 KiB chunk.
    const objects = await filesUnder(join(srv.dataDir, 'objects'));
    const metas = await Promise.all(objects.filter((f) => /\/[0-9a-f]{64}\.json$/.test(f))
      .map(async (f) => JSON.parse(await readFile(f, 'utf8'))));
    const encrypted = metas.filter((m) => m.enc);
    expect(encrypted.length).toBe(2);
    for (const m of encrypted) {
      expect(m.enc.alg).toBe('aes-256-gcm-chunked');
      expect(m.enc.wrappedKey).toMatch(/^v1:[0-9a-f]{16}:/);
    }

    const smallUrl = await downloadUrl(smallId);
    expect((await fetchRange(smallUrl)).equals(smallBytes)).toBe(true);
    const largeUrl = await downloadUrl(largeId);
    const whole = await fetchRange(largeUrl);
    expect(sha(whole)).toBe(sha(largeBytes));
    const partSize = 5 * MiB;
    const ranges: Array<[number, number]> = [
      [0, 0], [65_535, 65_536], [65_530, 131_080], [partSize - 10, partSize + 10], [2 * partSize - 70_000, 2 * partSize + 70_000],
      [largeBytes.length - 100, largeBytes.length - 1], [1_000_003, 1_000_003 + 333_333],
    ];
    for (const [a, b] of ranges) {
      const got = await fetchRange(largeUrl, `bytes=${a}-${b}`);
      expect(got.equals(largeBytes.subarray(a, b + 1)), `bytes ${a}-${b}`).toBe(true);
    }
    expect((await fetchRange(smallUrl, 'bytes=-1000')).equals(smallBytes.subarray(-1000))).toBe(true);
    // The file stored before encryption was switched on is still read as it is.
    expect((await fetchRange(await downloadUrl(beforeId))).equals(beforeBytes)).toBe(true);

    // The server's own reads (SHA-256 of the stored bytes) see the plaintext.
    const row = await srv.sql.get<{ sha256: string; verified: number }>('SELECT b.sha256, b.verified FROM instances i JOIN blobs b ON b.id = i.blob_id WHERE i.id = ?', largeId);
    expect(row).toEqual({ sha256: sha(largeBytes), verified: 1 });
  });

  it('dedup and instant transfer with proof of possession work on encrypted content', async () => {
    const bytes = marked(`DEDUP-${randomBytes(4).toString('hex')}`, 150_000);
    await uploadFile(api, 'dedup-1.txt', bytes);
    const u = (await admin.api(`${C}/API/file-uploadable`, { fSize: bytes.length, fName: encodeName('dedup-2.txt'), fMd5: sha(bytes) })).data;
    expect(u.uploadflag).toBe(1);
    const proof = sha(bytes.subarray(u.proof.offset, u.proof.offset + u.proof.length));
    const done = await admin.api(`${C}/API/second-transfer`, undefined, { fId: u.fId, proofId: u.proof.proofId, proof, instanceName: encodeName('dedup-2.txt') });
    expect(done.ret, JSON.stringify(done)).toBe(0);
    const blobs = await srv.sql.get<{ c: number }>('SELECT count(*) AS c FROM blobs WHERE sha256 = ?', sha(bytes));
    expect(Number(blobs!.c)).toBe(1);
  });

  it('rotating the master key re-wraps every data key and rewrites no content file', async () => {
    const bytes = marked(`ROTATE-${randomBytes(4).toString('hex')}`, 140_000);
    const id = await uploadFile(api, 'rotate.txt', bytes);
    const dataFiles = (await filesUnder(join(srv.dataDir, 'objects'))).filter((f) => f.endsWith('.data'));
    const mtimes = new Map(await Promise.all(dataFiles.map(async (f) => [f, (await stat(f)).mtimeMs] as const)));
    const keyBefore = await readFile(join(srv.dataDir, 'master.key'), 'utf8');

    const r = await admin.api(`${C}/storage/rotateMasterKey`, undefined, {});
    expect(r.ret, JSON.stringify(r)).toBe(0);
    expect(r.data.objects).toBeGreaterThanOrEqual(4);
    const keyAfter = await readFile(join(srv.dataDir, 'master.key'), 'utf8');
    expect(keyAfter).not.toBe(keyBefore);
    for (const [f, m] of mtimes) expect((await stat(f)).mtimeMs, f).toBe(m);
    expect((await stat(join(srv.dataDir, 'master.key'))).mode & 0o777).toBe(0o600);

    expect((await fetchRange(await downloadUrl(id))).equals(bytes)).toBe(true);
    expect((await fetchRange(await downloadUrl(id), 'bytes=70000-70100')).equals(bytes.subarray(70_000, 70_101))).toBe(true);
    // The key that sealed them is gone from the data dir: everything opens under the new one alone.
    const { Keyring } = await import('../../mock-server/src/storage/master-key.ts');
    const current = Keyring.load(srv.dataDir, {});
    for (const f of (await filesUnder(join(srv.dataDir, 'objects'))).filter((x) => /\/[0-9a-f]{64}\.json$/.test(x))) {
      const meta = JSON.parse(await readFile(f, 'utf8'));
      if (meta.enc) expect(current.sealsUnderCurrent(meta.enc.wrappedKey), f).toBe(true);
    }
  });

  it('is for administrators only', async () => {
    const plain = await (await import('../helpers/org.ts')).makeUser(srv, 'encplain', null);
    expect((await plain.api(`${C}/storage/rotateMasterKey`, undefined, {})).data.code).toBe('FORBIDDEN');
  });
});
