// bulk-upload (contract extension) against the real server (SQLite + embedded S3): every result is checked
// against what the server really did — the folder listing, the bytes downloaded back, the blob, version and
// session rows, and the objects left in the bucket.
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { createHash, randomBytes, randomInt } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { encodeName } from '@hcs/openapi/client';
import { startServer, type TestServer } from '../helpers/server.ts';
import { ON_POSTGRES } from '../helpers/db.ts';
import { createUser } from '../../mock-server/src/db/users-repo.ts';

const BULK = '/hcs/controller/API/bulk-upload';
const sha = (b: Buffer) => createHash('sha256').update(b).digest('hex');
type Env = { status: number; ret: number; msg: string; data: any; connection?: string | null };
type Result = { outcome: 'uploaded' | 'instant' | 'skipped' | 'failed'; instanceId?: string; code?: string; msg?: string };

let srv: TestServer;
let token: string;
let adminId: string;

/** One manifest entry plus its bytes; `hash`/`encoded` override what a well-behaved client would send. */
interface Part {
  name: string;
  bytes: Buffer;
  parentId?: string;
  hash?: string;
  encoded?: string;
}

function manifestOf(parts: Part[], extra: Record<string, unknown> = {}) {
  return {
    ...extra,
    files: parts.map((p) => ({
      fName: p.encoded ?? encodeName(p.name),
      fSize: p.bytes.length,
      fMd5: p.hash ?? sha(p.bytes),
      ...(p.parentId ? { parentId: p.parentId } : {}),
    })),
  };
}

function frame(manifest: unknown, bodies: Buffer[]): Buffer {
  return Buffer.concat([Buffer.from(JSON.stringify(manifest) + '\n'), ...bodies]);
}

async function envelope(res: Response): Promise<Env> {
  return { status: res.status, connection: res.headers.get('connection'), ...((await res.json()) as Omit<Env, 'status'>) };
}

/** A raw bulk-upload request; `body` is sent as is. */
async function post(body: BodyInit, opts: { as?: string | null; headers?: Record<string, string>; duplex?: boolean } = {}): Promise<Env> {
  const init: RequestInit & { token?: string; duplex?: 'half' } = {
    method: 'POST',
    headers: { 'content-type': 'application/octet-stream', ...opts.headers },
    body,
  };
  if (opts.as !== null) init.token = opts.as ?? token;
  if (opts.duplex) init.duplex = 'half';
  return envelope(await srv.call(BULK, init));
}

/** A well-formed bulk upload; asserts the request as a whole succeeded and returns the per-file results. */
async function bulk(parts: Part[], extra: Record<string, unknown> = {}, as = token): Promise<Result[]> {
  // A Buffer is a valid fetch body in Node; the DOM typing only lists web types.
  const r = await post(frame(manifestOf(parts, extra), parts.map((p) => p.bytes)) as unknown as BodyInit, { as });
  expect([r.status, r.ret], JSON.stringify(r)).toEqual([200, 0]);
  expect(r.connection).not.toBe('close');
  expect(r.data.files).toHaveLength(parts.length);
  return r.data.files as Result[];
}

async function api(path: string, init: { query?: Record<string, string | number>; body?: unknown; as?: string } = {}): Promise<Env> {
  const qs = init.query ? '?' + new URLSearchParams(Object.entries(init.query).map(([k, v]): [string, string] => [k, String(v)])).toString() : '';
  return envelope(
    await srv.call(path + qs, {
      method: init.body !== undefined ? 'POST' : 'GET',
      token: init.as ?? token,
      headers: init.body !== undefined ? { 'content-type': 'application/json' } : {},
      body: init.body !== undefined ? JSON.stringify(init.body) : undefined,
    }),
  );
}

async function mkdir(name: string, parentId?: string, as = token): Promise<string> {
  const r = await api('/hcs/controller/Instances', { body: [{ classifierId: 'Folder', instanceName: encodeName(name), ...(parentId ? { parentId } : {}) }], as });
  expect(r.ret, JSON.stringify(r)).toBe(0);
  return r.data[0].instanceId as string;
}

/** The folder's entries through the listing call: name -> { id, size }. */
async function listing(parentId: string, as = token): Promise<Map<string, { id: string; size: number; sha: string | null }>> {
  const r = await api('/hcs/controller/Page', { query: { parentId, pageSize: 1000 }, as });
  expect(r.ret, JSON.stringify(r)).toBe(0);
  expect(r.data.list.length).toBe(r.data.total ?? r.data.list.length);
  return new Map(r.data.list.map((x: any) => [x.instanceName, { id: x.instanceId, size: x.fSize, sha: x.fMd5 ?? null }]));
}

/** The file's whole content through the download path a client uses. */
async function download(instanceId: string, as = token): Promise<Buffer> {
  const info = await api('/hcs/controller/API/getDownloadFileInfo', { query: { instanceId }, as });
  expect(info.ret, JSON.stringify(info)).toBe(0);
  const url = await api('/hcs/controller/API/getS3DownloadUrl', { query: { instanceId }, as });
  expect(url.ret, JSON.stringify(url)).toBe(0);
  const res = await fetch(url.data.url);
  expect(res.status).toBe(200);
  const bytes = Buffer.from(await res.arrayBuffer());
  expect(bytes.length).toBe(info.data.fileSize);
  return bytes;
}

const count = async (sql: string, ...args: (string | number)[]) => ((await srv.sql.get(sql, ...args)) as { c: number }).c;

async function bucketKeys(): Promise<string[]> {
  const keys: string[] = [];
  for await (const page of srv.built.ctx.store().list('')) keys.push(...page.objects.map((o) => o.key));
  return keys.sort();
}

/** Objects in the bucket that no blob row points at: what a bulk upload must never leave behind. */
async function orphans(): Promise<string[]> {
  const held = new Set(((await srv.sql.all('SELECT object_key AS k FROM blobs')) as { k: string }[]).map((r) => r.k));
  return (await bucketKeys()).filter((k) => !held.has(k));
}

/** Everything a whole-request failure must leave untouched. */
async function snapshot() {
  return {
    // A library root is created on a user's first use of the library, by whichever call comes first: it holds
    // nothing, so it is not a change a failed upload must undo (and the count must not depend on test order).
    instances: await count('SELECT COUNT(*) AS c FROM instances WHERE parent_id IS NOT NULL'),
    sessions: await count('SELECT COUNT(*) AS c FROM upload_sessions'),
    blobs: await count('SELECT COUNT(*) AS c FROM blobs'),
    used: await count('SELECT COALESCE(SUM(used_bytes), 0) AS c FROM users'),
    keys: await bucketKeys(),
  };
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

describe('bulk-upload: a batch of small files', () => {
  let batch: Part[];
  let results: Result[];
  let folders: [string, string];

  it('files ~50 files of 0..64 KiB over two folders; listing and downloads show exactly what was sent', async () => {
    const root = await mkdir('bulk');
    folders = [await mkdir('a', root), await mkdir('b', root)];
    batch = Array.from({ length: 50 }, (_, i) => ({
      name: `f${String(i).padStart(2, '0')}.bin`,
      bytes: i === 7 ? Buffer.alloc(0) : i === 8 ? randomBytes(64 * 1024) : randomBytes(randomInt(0, 64 * 1024 + 1)),
      parentId: folders[i % 2],
    }));
    const blobsBefore = await count('SELECT COUNT(*) AS c FROM blobs');
    results = await bulk(batch);
    for (const r of results) {
      expect(r.outcome, JSON.stringify(r)).toBe('uploaded');
      expect(r.instanceId).toEqual(expect.any(String));
    }
    expect(new Set(results.map((r) => r.instanceId)).size).toBe(50);
    expect(await count('SELECT COUNT(*) AS c FROM blobs')).toBe(blobsBefore + 50);
    expect(await count('SELECT COUNT(*) AS c FROM upload_sessions')).toBe(0);

    for (const [k, folder] of folders.entries()) {
      const listed = await listing(folder);
      const expected = batch.filter((_, i) => i % 2 === k);
      expect([...listed.keys()].sort()).toEqual(expected.map((p) => p.name).sort());
      for (const p of expected) {
        const i = batch.indexOf(p);
        expect(listed.get(p.name), p.name).toEqual({ id: results[i]!.instanceId, size: p.bytes.length, sha: sha(p.bytes) });
      }
    }
    for (const i of [0, 7, 8, 49]) expect((await download(results[i]!.instanceId!)).equals(batch[i]!.bytes), batch[i]!.name).toBe(true);
    expect(await orphans()).toEqual([]);
  });

  it('the same content again is filed as instant: no new blob, no new object, still downloadable', async () => {
    const blobs = await count('SELECT COUNT(*) AS c FROM blobs');
    const keys = await bucketKeys();
    const used = await count('SELECT used_bytes AS c FROM users WHERE id = ?', adminId);
    const copies = await mkdir('copies');
    const again = batch.map((p, i) => ({ ...p, name: `copy-${i}.bin`, parentId: copies }));
    const res = await bulk(again);
    for (const r of res) expect(r.outcome, JSON.stringify(r)).toBe('instant');
    expect(await count('SELECT COUNT(*) AS c FROM blobs')).toBe(blobs);
    expect(await bucketKeys()).toEqual(keys);
    // Every copy is a file of the user's like any other: it counts against their space.
    expect(await count('SELECT used_bytes AS c FROM users WHERE id = ?', adminId)).toBe(used + batch.reduce((s, p) => s + p.bytes.length, 0));
    expect((await listing(copies)).size).toBe(50);
    for (const i of [3, 7, 8]) {
      expect((await download(res[i]!.instanceId!)).equals(batch[i]!.bytes)).toBe(true);
      const ref = await count('SELECT ref_count AS c FROM blobs WHERE sha256 = ?', sha(batch[i]!.bytes));
      expect(ref).toBeGreaterThanOrEqual(2);
    }
  });

  it('the same new content twice in one batch is stored once, with no staging object left over', async () => {
    const folder = await mkdir('twins');
    const bytes = randomBytes(5000);
    const res = await bulk([{ name: 'one.bin', bytes, parentId: folder }, { name: 'two.bin', bytes, parentId: folder }]);
    expect(res.map((r) => r.outcome)).toEqual(['uploaded', 'uploaded']);
    expect(await srv.sql.all('SELECT ref_count AS r FROM blobs WHERE sha256 = ?', sha(bytes))).toEqual([{ r: 2 }]);
    expect((await download(res[1]!.instanceId!)).equals(bytes)).toBe(true);
    expect(await orphans()).toEqual([]);
  });
});

describe('bulk-upload: many requests at once', () => {
  it('more concurrent requests than the server admits at once all complete (the rest wait their turn)', async () => {
    const root = await mkdir('crowd');
    const batches = Array.from({ length: 20 }, (_, b) =>
      Array.from({ length: 5 }, (_, i) => ({ name: `c${b}-${i}.bin`, bytes: randomBytes(1000 + b * 10 + i), parentId: root })),
    );
    const all = await Promise.all(batches.map((parts) => bulk(parts)));
    expect(all.flat().map((r) => r.outcome)).toEqual(Array(100).fill('uploaded'));
    expect((await listing(root)).size).toBe(100);
    expect(await count('SELECT COUNT(*) AS c FROM upload_sessions')).toBe(0);
  });
});

describe('bulk-upload: framing', () => {
  it('reads a body that arrives in small pieces cut anywhere (inside the manifest line, across files)', async () => {
    const folder = await mkdir('pieces');
    const parts = Array.from({ length: 12 }, (_, i) => ({ name: `p${i}.bin`, bytes: randomBytes(i === 5 ? 0 : randomInt(1, 3000)), parentId: folder }));
    const body = frame(manifestOf(parts), parts.map((p) => p.bytes));
    let at = 0;
    const pieces = new ReadableStream<Uint8Array>({
      async pull(ctrl) {
        if (at >= body.length) return ctrl.close();
        const n = randomInt(1, 700);
        ctrl.enqueue(new Uint8Array(body.subarray(at, at + n)));
        at += n;
        // Separate network writes, so the server really sees the pieces apart.
        if (randomInt(0, 4) === 0) await sleep(1);
      },
    });
    const r = await post(pieces, { duplex: true });
    expect([r.status, r.ret], JSON.stringify(r)).toEqual([200, 0]);
    const listed = await listing(folder);
    for (const [i, p] of parts.entries()) {
      expect(['uploaded', 'instant']).toContain(r.data.files[i].outcome);
      expect(listed.get(p.name)).toEqual({ id: r.data.files[i].instanceId, size: p.bytes.length, sha: sha(p.bytes) });
    }
    expect((await download(r.data.files[11].instanceId)).equals(parts[11]!.bytes)).toBe(true);
    expect(await orphans()).toEqual([]);
  });
});

describe('bulk-upload: name conflicts', () => {
  let folder: string;
  let original: Buffer;
  let originalId: string;

  beforeAll(async () => {
    folder = await mkdir('conflicts');
    original = randomBytes(3000);
    const [r] = await bulk([{ name: 'report.txt', bytes: original, parentId: folder }]);
    expect(r!.outcome).toBe('uploaded');
    originalId = r!.instanceId!;
  });

  it('skip leaves the existing file alone and answers with its id; new names are still filed', async () => {
    const other = randomBytes(100);
    const fresh = randomBytes(200);
    const res = await bulk(
      [
        { name: 'REPORT.txt', bytes: other },
        { name: 'fresh.txt', bytes: fresh },
      ],
      { parentId: folder, conflict: 'skip' },
    );
    expect(res[0]).toEqual({ outcome: 'skipped', instanceId: originalId });
    expect(res[1]!.outcome).toBe('uploaded');
    expect((await download(originalId)).equals(original)).toBe(true);
    expect(await count('SELECT COUNT(*) AS c FROM blobs WHERE sha256 = ?', sha(other))).toBe(0);
    expect([...(await listing(folder)).keys()].sort()).toEqual(['fresh.txt', 'report.txt']);
    expect(await orphans()).toEqual([]);
  });

  it('skip within one batch: the second of two same-named files is skipped in favour of the first', async () => {
    const a = randomBytes(10);
    const res = await bulk(
      [
        { name: 'dup.txt', bytes: a },
        { name: 'Dup.txt', bytes: randomBytes(11) },
      ],
      { parentId: folder, conflict: 'skip' },
    );
    expect(res[0]!.outcome).toBe('uploaded');
    expect(res[1]).toEqual({ outcome: 'skipped', instanceId: res[0]!.instanceId });
    expect((await download(res[0]!.instanceId!)).equals(a)).toBe(true);
    expect(await orphans()).toEqual([]);
  });

  it('keepBoth (the default) files the upload as "name (1).ext", also for same names within the batch', async () => {
    const b1 = randomBytes(400);
    const b2 = randomBytes(401);
    const res = await bulk([
      { name: 'report.txt', bytes: b1, parentId: folder },
      { name: 'report.txt', bytes: b2, parentId: folder },
    ]);
    expect(res.map((r) => r.outcome)).toEqual(['uploaded', 'uploaded']);
    const listed = await listing(folder);
    expect(listed.get('report.txt')).toMatchObject({ id: originalId, size: 3000 });
    expect(listed.get('report (1).txt')).toMatchObject({ id: res[0]!.instanceId, size: 400 });
    expect(listed.get('report (2).txt')).toMatchObject({ id: res[1]!.instanceId, size: 401 });
    expect((await download(res[1]!.instanceId!)).equals(b2)).toBe(true);
    expect((await download(originalId)).equals(original)).toBe(true);
  });

  it('newVersion keeps the instance id, replaces the content and keeps the old content as a history version', async () => {
    const v2 = randomBytes(1234);
    const used = await count('SELECT used_bytes AS c FROM users WHERE id = ?', adminId);
    const res = await bulk([{ name: 'report.txt', bytes: v2 }], { parentId: folder, conflict: 'newVersion' });
    expect(res).toEqual([{ outcome: 'uploaded', instanceId: originalId }]);
    expect((await download(originalId)).equals(v2)).toBe(true);
    expect((await listing(folder)).get('report.txt')).toEqual({ id: originalId, size: 1234, sha: sha(v2) });
    const hist = (await srv.sql.all('SELECT version, size, blob_id AS b FROM file_versions WHERE instance_id = ?', originalId)) as any[];
    expect(hist.map((h) => [h.version, h.size])).toEqual([[1, 3000]]);
    expect(await count('SELECT COUNT(*) AS c FROM blobs WHERE id = ? AND sha256 = ?', hist[0].b, sha(original))).toBe(1);
    expect(await count('SELECT version AS c FROM instances WHERE id = ?', originalId)).toBe(2);
    expect(await count('SELECT used_bytes AS c FROM users WHERE id = ?', adminId)).toBeGreaterThanOrEqual(used + 1234);
  });

  it('newVersion onto a folder\'s name fails for that file only', async () => {
    await mkdir('sub', folder);
    const ok = randomBytes(50);
    const res = await bulk(
      [
        { name: 'sub', bytes: randomBytes(5) },
        { name: 'ok.txt', bytes: ok },
      ],
      { parentId: folder, conflict: 'newVersion' },
    );
    expect(res[0]).toMatchObject({ outcome: 'failed', code: 'NAME_EXISTS' });
    expect(res[1]!.outcome).toBe('uploaded');
    expect((await download(res[1]!.instanceId!)).equals(ok)).toBe(true);
    expect(await count('SELECT COUNT(*) AS c FROM upload_sessions')).toBe(0);
  });
});

describe('bulk-upload: one file failing does not fail the others', () => {
  it('wrong hash, invalid names and unusable folders fail per file; the rest are filed', async () => {
    const folder = await mkdir('mixed');
    const aFile = (await bulk([{ name: 'plain.txt', bytes: randomBytes(20), parentId: folder }]))[0]!.instanceId!;
    const gone = await mkdir('gone', folder);
    expect((await api('/hcs/controller/delete', { query: { ids: gone } })).ret).toBe(0);
    const liar = randomBytes(2000);
    const claimed = sha(randomBytes(2000));
    const good = [randomBytes(100), randomBytes(0), randomBytes(60_000), randomBytes(7)];
    const parts: Part[] = [
      { name: 'good0.bin', bytes: good[0]! },
      { name: 'liar.bin', bytes: liar, hash: claimed },
      { name: 'good1.bin', bytes: good[1]! },
      { name: 'a/b.bin', bytes: randomBytes(30) },
      { name: '   ', bytes: randomBytes(31) },
      { name: 'line\nbreak.txt', bytes: randomBytes(32) },
      { name: 'good2.bin', bytes: good[2]! },
      { name: '..', bytes: randomBytes(36) },
      { name: 'nowhere.bin', bytes: randomBytes(33), parentId: 'no-such-folder-id' },
      { name: 'recycled.bin', bytes: randomBytes(34), parentId: gone },
      { name: 'in-a-file.bin', bytes: randomBytes(35), parentId: aFile },
      { name: 'good3.bin', bytes: good[3]! },
    ];
    const before = await count('SELECT COUNT(*) AS c FROM instances');
    const used = await count('SELECT used_bytes AS c FROM users WHERE id = ?', adminId);
    const res = await bulk(parts, { parentId: folder });
    const failed = { 1: 'HASH_MISMATCH', 3: 'NAME_INVALID', 4: 'NAME_INVALID', 5: 'NAME_INVALID', 7: 'NAME_INVALID', 8: 'NOT_FOUND', 9: 'NOT_FOUND', 10: 'CONFLICT' };
    for (const [i, code] of Object.entries(failed)) {
      expect(res[Number(i)], parts[Number(i)]!.name).toEqual({ outcome: 'failed', code, msg: expect.any(String) });
    }
    const goodIdx = [0, 2, 6, 11];
    for (const [k, i] of goodIdx.entries()) {
      // The empty file's content has been held since the first batch.
      expect(res[i]!.outcome, JSON.stringify(res[i])).toBe(good[k]!.length === 0 ? 'instant' : 'uploaded');
      expect((await download(res[i]!.instanceId!)).equals(good[k]!)).toBe(true);
    }
    expect(await count('SELECT COUNT(*) AS c FROM instances')).toBe(before + 4);
    expect([...(await listing(folder)).keys()].sort()).toEqual(['good0.bin', 'good1.bin', 'good2.bin', 'good3.bin', 'plain.txt']);
    // Only the files filed count against the quota; the liar's bytes were neither stored nor charged.
    expect(await count('SELECT used_bytes AS c FROM users WHERE id = ?', adminId)).toBe(used + 100 + 60_000 + 7);
    expect(await count('SELECT COUNT(*) AS c FROM blobs WHERE sha256 IN (?, ?)', claimed, sha(liar))).toBe(0);
    expect(await count('SELECT COUNT(*) AS c FROM upload_sessions')).toBe(0);
    expect(await orphans()).toEqual([]);
  });
});

describe('bulk-upload: storage failing', () => {
  it('a write that fails after storage took the bytes fails that file only and leaves no object behind', async () => {
    const store = srv.built.ctx.store();
    const original = store.putObject.bind(store);
    let calls = 0;
    // The second write lands in storage and then reports failure (a lost reply): the object exists, unfiled.
    store.putObject = async (key, body, opts) => {
      const out = await original(key, body, opts);
      if (++calls === 2) throw new Error('connection reset after the upload');
      return out;
    };
    try {
      const folder = await mkdir('flaky');
      const parts = [0, 1, 2].map((i) => ({ name: `s${i}.bin`, bytes: randomBytes(2000 + i), parentId: folder }));
      const results = await bulk(parts);
      expect(results.map((r) => r.outcome).sort()).toEqual(['failed', 'uploaded', 'uploaded']);
      expect(results.find((r) => r.outcome === 'failed')).toMatchObject({ code: 'STORAGE_ERROR' });
      expect((await listing(folder)).size).toBe(2);
      expect(await count('SELECT COUNT(*) AS c FROM upload_sessions')).toBe(0);
      expect(await orphans()).toEqual([]);
    } finally {
      store.putObject = original;
    }
  });
});

describe('bulk-upload: operation log', () => {
  it('logs one line per file: who filed which file, and why one was refused', async () => {
    const folder = await mkdir('audited');
    const good = { name: 'audit-ok.bin', bytes: randomBytes(300), parentId: folder };
    const bad = { name: 'audit-bad.bin', bytes: randomBytes(300), parentId: folder, hash: '0'.repeat(64) };
    const [ok, refused] = await bulk([good, bad]);
    const rows = (await srv.sql.all(`SELECT user_id AS "userId", object_id AS "objectId", object_name AS "objectName", result, detail FROM op_logs WHERE op_type = 'bulkUpload' AND object_name LIKE 'audit-%' ORDER BY id`)) as Array<Record<string, string>>;
    expect(rows).toEqual([
      { userId: adminId, objectId: ok!.instanceId, objectName: 'audit-ok.bin', result: 'success', detail: 'uploaded' },
      { userId: adminId, objectId: '', objectName: 'audit-bad.bin', result: 'failure', detail: refused!.code },
    ]);
    expect(refused!.code).toBe('HASH_MISMATCH');
  });
});

describe('bulk-upload: quota', () => {
  let carol: string;
  let carolId: string;
  const carolUsed = () => count('SELECT used_bytes AS c FROM users WHERE id = ?', carolId);

  beforeAll(async () => {
    carolId = (await createUser(srv.built.ctx.db, { userName: 'carol', password: 'Carol#pass-123', quotaBytes: 10_000 })).id;
    carol = (await srv.login('carol', 'Carol#pass-123')).token;
  });

  it('files what fits in order, fails the rest with SPACE_NOT_ENOUGH, never exceeds the quota', async () => {
    const sizes = [4000, 4000, 4000, 1500, 0, 600];
    const parts = sizes.map((n, i) => ({ name: `q${i}.bin`, bytes: randomBytes(n) }));
    const res = await bulk(parts, {}, carol);
    // The empty file's content is held since the first batch, but in admin's files: for carol it is "uploaded"
    // (then deduplicated), since "instant" would tell her what another user stores.
    expect(res.map((r) => r.outcome)).toEqual(['uploaded', 'uploaded', 'failed', 'uploaded', 'uploaded', 'failed']);
    expect(res[2]!.code).toBe('SPACE_NOT_ENOUGH');
    expect(res[5]!.code).toBe('SPACE_NOT_ENOUGH');
    expect(await carolUsed()).toBe(9500);
    const root = (await api('/hcs/controller/Page', { query: { pageSize: 100 }, as: carol })).data.parentId as string;
    expect([...(await listing(root, carol)).keys()].sort()).toEqual(['q0.bin', 'q1.bin', 'q3.bin', 'q4.bin']);
    expect(await count('SELECT COUNT(*) AS c FROM blobs WHERE sha256 = ?', sha(parts[2]!.bytes))).toBe(0);

    // Exactly the rest fits; a byte more does not; content the server already holds costs space all the same.
    const over = await bulk([{ name: 'over.bin', bytes: randomBytes(501) }], {}, carol);
    expect(over[0]).toMatchObject({ outcome: 'failed', code: 'SPACE_NOT_ENOUGH' });
    const exact = await bulk([{ name: 'last.bin', bytes: randomBytes(500) }], {}, carol);
    expect(exact[0]!.outcome).toBe('uploaded');
    expect(await carolUsed()).toBe(10_000);
    const instant = await bulk([{ name: 'again.bin', bytes: parts[0]!.bytes }], {}, carol);
    expect(instant[0]).toMatchObject({ outcome: 'failed', code: 'SPACE_NOT_ENOUGH' });
    expect(await carolUsed()).toBe(10_000);
    expect(await count('SELECT COUNT(*) AS c FROM upload_sessions')).toBe(0);
    expect(await orphans()).toEqual([]);
  });

  it('two concurrent batches cannot overshoot the quota between them', async () => {
    const used = await carolUsed();
    await srv.sql.run('UPDATE users SET quota_bytes = ? WHERE id = ?', used + 6000, carolId);
    const [a, b] = await Promise.all([
      bulk([{ name: 'c1.bin', bytes: randomBytes(4000) }, { name: 'c2.bin', bytes: randomBytes(1000) }], {}, carol),
      bulk([{ name: 'd1.bin', bytes: randomBytes(4000) }, { name: 'd2.bin', bytes: randomBytes(1000) }], {}, carol),
    ]);
    const outcomes = [...a, ...b].map((r) => r.outcome);
    expect(outcomes.filter((o) => o === 'uploaded').length).toBe(3);
    expect([...a, ...b].filter((r) => r.outcome === 'failed').map((r) => r.code)).toEqual(['SPACE_NOT_ENOUGH']);
    expect(await carolUsed()).toBe(used + 6000);
    expect(await count('SELECT COUNT(*) AS c FROM upload_sessions')).toBe(0);
  });
});

describe('bulk-upload: a broken request fails as a whole and changes nothing', () => {
  const two = () => {
    const parts = [
      { name: 'w1.bin', bytes: randomBytes(3000) },
      { name: 'w2.bin', bytes: randomBytes(5000) },
    ];
    return { parts, manifest: manifestOf(parts), bodies: parts.map((p) => p.bytes) };
  };

  /** A chunked body: buffers are sent, functions are awaited in between (to let the server get somewhere first). */
  function stream(steps: (Buffer | (() => Promise<void>))[], opts: { fail?: boolean } = {}): ReadableStream<Uint8Array> {
    let i = 0;
    return new ReadableStream<Uint8Array>({
      async pull(ctrl) {
        while (i < steps.length) {
          const step = steps[i++]!;
          if (typeof step === 'function') await step();
          else return ctrl.enqueue(new Uint8Array(step));
        }
        if (opts.fail) ctrl.error(new Error('client went away'));
        else ctrl.close();
      },
    });
  }

  /** Waits until the server has staged `n` objects of this request: the clean-up below then has work to do. */
  const staged = (n: number) => async () => {
    // Bounded by a generous deadline, not a count of short sleeps that a loaded machine might run out of.
    for (const deadline = Date.now() + 60_000; Date.now() < deadline; ) {
      if ((await orphans()).length >= n) return;
      await sleep(25);
    }
    throw new Error(`the server never staged ${n} objects`);
  };

  async function expectUnchanged(before: Awaited<ReturnType<typeof snapshot>>) {
    expect(await snapshot()).toEqual(before);
  }

  it('a chunked body that ends early (after some files were stored) undoes everything', async () => {
    const parts = Array.from({ length: 40 }, (_, i) => ({ name: `short${i}.bin`, bytes: randomBytes(2000 + i) }));
    const full = frame(manifestOf(parts), parts.map((p) => p.bytes));
    const cut = full.length - parts[39]!.bytes.length - parts[38]!.bytes.length - 10;
    const before = await snapshot();
    const r = await post(stream([full.subarray(0, cut), staged(37)]), { duplex: true });
    expect([r.status, r.ret, r.data.code]).toEqual([400, 1, 'BAD_REQUEST']);
    expect(r.msg).toMatch(/ends inside file 38 of the manifest/);
    await expectUnchanged(before);
  });

  it('a failure while filing (phase C) rolls the whole batch back: no file, session, blob, charge or object stays', async () => {
    // The database refuses one file's row half-way through filing, as a full disk or a lost connection would.
    const trigger = ON_POSTGRES
      ? [
          `CREATE FUNCTION hcs_test_boom() RETURNS trigger AS $$ BEGIN IF NEW.name = 'boom.bin' THEN RAISE EXCEPTION 'boom'; END IF; RETURN NEW; END $$ LANGUAGE plpgsql`,
          'CREATE TRIGGER hcs_test_boom BEFORE INSERT ON instances FOR EACH ROW EXECUTE FUNCTION hcs_test_boom()',
        ]
      : ["CREATE TRIGGER hcs_test_boom BEFORE INSERT ON instances WHEN NEW.name = 'boom.bin' BEGIN SELECT RAISE(ABORT, 'boom'); END"];
    const drop = ON_POSTGRES ? ['DROP TRIGGER hcs_test_boom ON instances', 'DROP FUNCTION hcs_test_boom()'] : ['DROP TRIGGER hcs_test_boom'];
    const parts = ['first.bin', 'boom.bin', 'last.bin'].map((name, i) => ({ name, bytes: randomBytes(3000 + i) }));
    const before = await snapshot();
    for (const stmt of trigger) await srv.sql.run(stmt);
    try {
      const r = await post(frame(manifestOf(parts), parts.map((p) => p.bytes)) as unknown as BodyInit);
      expect([r.status, r.ret, r.data.code], JSON.stringify(r)).toEqual([500, 1, 'INTERNAL']);
      expect(r.msg).not.toMatch(/boom|trigger|instances/);
    } finally {
      for (const stmt of drop) await srv.sql.run(stmt);
    }
    await expectUnchanged(before);
    // The same batch goes through once the database accepts it: nothing of the failed attempt is in its way.
    expect((await bulk(parts)).map((f) => f.outcome)).toEqual(['uploaded', 'uploaded', 'uploaded']);
  });

  it('a body shorter than its manifest with a matching Content-Length is refused before anything is reserved', async () => {
    const { manifest, bodies } = two();
    const before = await snapshot();
    const body = frame(manifest, [bodies[0]!, bodies[1]!.subarray(0, 4000)]);
    const r = await post(body as unknown as BodyInit);
    expect([r.status, r.data.code]).toEqual([400, 'BAD_REQUEST']);
    expect(r.msg).toMatch(/Content-Length/);
    await expectUnchanged(before);
  });

  it('extra bytes after the last file', async () => {
    const { manifest, bodies } = two();
    const before = await snapshot();
    const chunked = await post(stream([frame(manifest, bodies), staged(2), Buffer.from('trailing')]), { duplex: true });
    expect([chunked.status, chunked.data.code]).toEqual([400, 'BAD_REQUEST']);
    expect(chunked.msg).toMatch(/longer than its manifest/);
    const sized = await post(frame(manifest, [...bodies, Buffer.from('x')]) as unknown as BodyInit);
    expect([sized.status, sized.data.code]).toEqual([400, 'BAD_REQUEST']);
    await expectUnchanged(before);
  });

  it('a first line that is not JSON, or no line feed at all', async () => {
    const before = await snapshot();
    for (const body of ['not json\nabc', '{"files":[', '', '\n']) {
      const r = await post(body);
      expect([r.status, r.data.code], JSON.stringify(body)).toEqual([400, 'BAD_REQUEST']);
    }
    await expectUnchanged(before);
  });

  it('a manifest that breaks the contract (sizes, counts, fields) is refused with its field named', async () => {
    const before = await snapshot();
    const f = (o: Record<string, unknown> = {}) => ({ fName: encodeName('m.bin'), fSize: 1, fMd5: sha(Buffer.from('a')), ...o });
    const bad: [unknown, string, number, RegExp][] = [
      [{ files: [f({ fSize: 1024 * 1024 + 1 })] }, 'VALIDATION_FAILED', 422, /files\.0\.fSize/],
      [{ files: Array.from({ length: 1001 }, () => f()) }, 'VALIDATION_FAILED', 422, /files/],
      [{ files: [] }, 'VALIDATION_FAILED', 422, /files/],
      [{ files: [{ fName: encodeName('m.bin'), fSize: 1 }] }, 'VALIDATION_FAILED', 422, /fMd5/],
      [{ files: [f({ fMd5: 'ABC' })] }, 'VALIDATION_FAILED', 422, /fMd5/],
      [{ files: [f({ fSize: -1 })] }, 'VALIDATION_FAILED', 422, /fSize/],
      [{ files: [f({ extra: 1 })] }, 'VALIDATION_FAILED', 422, /files\.0/],
      [{ files: [f({ fName: 'not base64!' })] }, 'VALIDATION_FAILED', 422, /files\.0\.fName/],
      [{ files: [f()], conflict: 'overwrite' }, 'VALIDATION_FAILED', 422, /conflict/],
      [[f()], 'VALIDATION_FAILED', 422, /manifest/],
      // 65 files of 1 MiB: each is allowed, the request is not (64 MiB at most).
      [{ files: Array.from({ length: 65 }, () => f({ fSize: 1024 * 1024 })) }, 'PAYLOAD_TOO_LARGE', 413, /at most/],
    ];
    for (const [manifest, code, status, msg] of bad) {
      const r = await post(JSON.stringify(manifest) + '\n' + 'a');
      expect([r.status, r.ret, r.data.code], JSON.stringify(manifest).slice(0, 200)).toEqual([status, 1, code]);
      expect(r.msg).toMatch(msg);
    }
    await expectUnchanged(before);
  });

  it('a Content-Length that does not match the manifest', async () => {
    const { manifest, bodies } = two();
    const before = await snapshot();
    // Declares one byte more than the manifest adds up to; the body really is that long (one trailing byte).
    const r = await post(frame(manifest, [...bodies, Buffer.from('z')]) as unknown as BodyInit);
    expect([r.status, r.data.code]).toEqual([400, 'BAD_REQUEST']);
    expect(r.msg).toMatch(/Content-Length \d+ does not match/);
    await expectUnchanged(before);
  });

  it('a client that goes away mid-body leaves no session, object or file behind', async () => {
    const parts = Array.from({ length: 30 }, (_, i) => ({ name: `gone${i}.bin`, bytes: randomBytes(20_000) }));
    const full = frame(manifestOf(parts), parts.map((p) => p.bytes));
    const before = await snapshot();
    await expect(post(stream([full.subarray(0, full.length - 30_000), staged(28)], { fail: true }), { duplex: true })).rejects.toThrow();
    // The server notices on its own schedule: wait (bounded, generously for a loaded machine) until it has cleaned up.
    await expect.poll(() => snapshot(), { timeout: 60_000, interval: 50 }).toEqual(before);
  });

  it('a body that is not application/octet-stream is refused as such, whatever parser it would have met', async () => {
    const { manifest, bodies } = two();
    const before = await snapshot();
    for (const type of ['text/plain', 'application/json', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=x', '']) {
      for (const body of [frame(manifest, bodies), Buffer.from(JSON.stringify(manifest))]) {
        const r = await post(body as unknown as BodyInit, { headers: { 'content-type': type } });
        // 415, or 400 where the framework's own parser already choked on the body (JSON that is not JSON).
        expect([400, 415], `${type}: ${JSON.stringify(r)}`).toContain(r.status);
        expect([r.ret, r.data.code]).toEqual([1, 'BAD_REQUEST']);
      }
    }
    const plain = await post(frame(manifest, bodies) as unknown as BodyInit, { headers: { 'content-type': 'text/plain' } });
    expect([plain.status, plain.msg]).toEqual([415, expect.stringMatching(/application\/octet-stream/)]);
    await expectUnchanged(before);
  });

  it('a refused manifest followed by megabytes of file bytes gets its envelope, and the client can go on', async () => {
    await api('/hcs/controller/Page', { query: { pageSize: 1 } }); // the personal root exists before the snapshot
    const before = await snapshot();
    const bytes = randomBytes(3 * 1024 * 1024);
    const manifest = { files: [{ fName: encodeName('big.bin'), fSize: bytes.length, fMd5: sha(bytes) }] };
    const r = await post(frame(manifest, [bytes]) as unknown as BodyInit);
    expect([r.status, r.data.code]).toEqual([422, 'VALIDATION_FAILED']);
    expect(r.msg).toMatch(/fSize/);
    // The unread rest of that body must not stall the connection the next requests go out on.
    const next = frame(manifestOf([{ name: 'after.bin', bytes: Buffer.from('after') }]), [Buffer.from('after')]);
    for (let i = 0; i < 3; i++) {
      const res = await srv.call(BULK, { method: 'POST', token: 'not-a-token', headers: { 'content-type': 'application/octet-stream' }, body: next as unknown as BodyInit, signal: AbortSignal.timeout(5000) });
      expect(res.status).toBe(401);
      await res.body?.cancel();
      expect((await api('/hcs/controller/Page', { query: { pageSize: 1 } })).ret).toBe(0);
    }
    await expectUnchanged(before);
  });
});

describe('bulk-upload: security', () => {
  const body = () => {
    const p = [{ name: 'sec.bin', bytes: randomBytes(100) }];
    return frame(manifestOf(p), [p[0]!.bytes]) as unknown as BodyInit;
  };

  it('needs a session', async () => {
    const before = await snapshot();
    const r = await post(body(), { as: null });
    expect([r.status, r.data.code]).toEqual([401, 'UNAUTHENTICATED']);
    const forged = await post(body(), { as: 'not-a-real-token' });
    expect([forged.status, forged.data.code]).toEqual([401, 'UNAUTHENTICATED']);
    expect(await snapshot()).toEqual(before);
  });

  it('needs the CSRF header', async () => {
    const before = await snapshot();
    const res = await fetch(srv.baseUrl + BULK, { method: 'POST', headers: { token, 'content-type': 'application/octet-stream' }, body: body() });
    const r = await envelope(res);
    expect([r.status, r.data.code]).toEqual([403, 'CSRF_HEADER_MISSING']);
    expect(await snapshot()).toEqual(before);
  });

  it('cannot write into another user\'s folder, by file or by the manifest default', async () => {
    const mine = await mkdir('admin-private');
    const carol = (await srv.login('carol', 'Carol#pass-123')).token;
    await srv.sql.run('UPDATE users SET quota_bytes = NULL WHERE user_name = ?', 'carol');
    const intruder = randomBytes(64);
    const own = randomBytes(65);
    const perFile = await bulk(
      [
        { name: 'planted.bin', bytes: intruder, parentId: mine },
        { name: 'own.bin', bytes: own },
      ],
      {},
      carol,
    );
    expect(perFile[0]).toMatchObject({ outcome: 'failed', code: 'NOT_FOUND' });
    expect(perFile[1]!.outcome).toBe('uploaded');
    const byDefault = await bulk([{ name: 'planted2.bin', bytes: intruder }], { parentId: mine }, carol);
    expect(byDefault[0]).toMatchObject({ outcome: 'failed', code: 'NOT_FOUND' });
    expect((await listing(mine)).size).toBe(0);
    expect(await count('SELECT COUNT(*) AS c FROM blobs WHERE sha256 = ?', sha(intruder))).toBe(0);
    // Carol's own file is hers alone.
    expect((await api('/hcs/controller/API/getDownloadFileInfo', { query: { instanceId: perFile[1]!.instanceId! } })).status).toBe(404);
    expect((await download(perFile[1]!.instanceId!, carol)).equals(own)).toBe(true);
    expect(await orphans()).toEqual([]);
  });
});
