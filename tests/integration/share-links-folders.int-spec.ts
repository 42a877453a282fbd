// Issue #17, folders through public links, on SQLite and PostgreSQL (tests/pg/suite.ts): a visitor takes shared
// folders as one streamed zip (one download counted per zip, logged, refused exactly as a single file's download
// is: outside the link, another link's token, preview-only, limits used up, a link cancelled after the zip URL was
// handed out); an upload link receives a folder tree (recreated under the link's folder, charged to the owner),
// and a tree that would pass the link's caps or the owner's quota, or names its way out of the folder, creates
// nothing at all. The share callback: a link made for a registered platform is POSTed to the platform's URL, signed
// with the secret only the administrator saw; unknown platforms refuse the link, failures are tried 3 times.
import { createHash, createHmac, randomBytes } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { encodeName } from '@hcs/openapi/client';
import { startServer, type TestServer } from '../helpers/server.ts';
import { makeUser, mkdir, signInAdmin, type Env, type TestUser } from '../helpers/org.ts';
import { uploadFile, type ApiCall } from '../helpers/upload.ts';

let srv: TestServer;
let owner: TestUser;
let outsider: TestUser;
const FS = '/hcs/controller/FileShare';
const VS = '/hcs/services/FileShare';
const API = '/hcs/services/ShareAPI';
const call = (u: TestUser): ApiCall => (path, query, body) => u.api(path, query, body);

let ipSeq = 0;
const freshIp = () => `198.51.100.${++ipSeq}`;

async function visit(path: string, o: { query?: Record<string, string | number>; body?: unknown; token?: string } = {}): Promise<Env> {
  const qs = o.query ? `?${new URLSearchParams(Object.entries(o.query).map(([k, v]) => [k, String(v)])).toString()}` : '';
  const headers: Record<string, string> = { 'x-forwarded-for': freshIp() };
  if (o.token) headers.shareToken = o.token;
  if (o.body !== undefined) headers['content-type'] = 'application/json';
  const res = await srv.call(`${path}${qs}`, { method: o.body !== undefined ? 'POST' : 'GET', headers, ...(o.body !== undefined ? { body: JSON.stringify(o.body) } : {}) });
  return { status: res.status, ...((await res.json()) as object) } as Env;
}

async function createLink(body: Record<string, unknown>): Promise<any> {
  const r = await owner.api(FS, undefined, body);
  expect(r.status, JSON.stringify(r)).toBe(200);
  return r.data;
}

async function login(link: string, code?: string): Promise<string> {
  const r = await visit(`${VS}/loginShare`, { body: { link, ...(code ? { code } : {}) } });
  expect(r.status, JSON.stringify(r)).toBe(200);
  return r.data.token;
}

/** The entries of a stored (uncompressed) zip, read from its central directory: name -> bytes ('' for folders). */
function unzip(buf: Buffer): Map<string, Buffer> {
  const eocd = buf.lastIndexOf(Buffer.from([0x50, 0x4b, 0x05, 0x06]));
  expect(eocd).toBeGreaterThan(-1);
  const count = buf.readUInt16LE(eocd + 10);
  let at = buf.readUInt32LE(eocd + 16);
  const out = new Map<string, Buffer>();
  for (let i = 0; i < count; i++) {
    expect(buf.readUInt32LE(at)).toBe(0x02014b50);
    const size = buf.readUInt32LE(at + 20);
    const nameLen = buf.readUInt16LE(at + 28);
    const extraLen = buf.readUInt16LE(at + 30);
    const commentLen = buf.readUInt16LE(at + 32);
    const local = buf.readUInt32LE(at + 42);
    const name = buf.subarray(at + 46, at + 46 + nameLen).toString('utf8');
    const dataAt = local + 30 + buf.readUInt16LE(local + 26) + buf.readUInt16LE(local + 28);
    out.set(name, buf.subarray(dataAt, dataAt + size));
    at += 46 + nameLen + extraLen + commentLen;
  }
  return out;
}

async function fetchRaw(url: string): Promise<{ status: number; bytes: Buffer; json?: any; type: string }> {
  const res = await fetch(srv.baseUrl + url);
  const bytes = Buffer.from(await res.arrayBuffer());
  const type = res.headers.get('content-type') ?? '';
  return { status: res.status, bytes, type, ...(type.includes('json') ? { json: JSON.parse(bytes.toString()) } : {}) };
}

const downloadCount = async (shareId: string) => (await owner.api(`${FS}/${shareId}`)).data.downloadCount as number;
const childNames = async (parentId: string) => ((await owner.api('/hcs/controller/Page', { parentId })).data.list as any[]).map((r) => r.instanceName).sort();

let album: string; // owner's Album/ (a.txt, Sub/b.txt, Sub/Deeper/)
let other: string; // owner's folder outside every link
const aBytes = randomBytes(3000);
const bBytes = randomBytes(700);

beforeAll(async () => {
  srv = await startServer({ env: { HCS_TRUST_PROXY: '127.0.0.1' } });
  owner = await makeUser(srv, 'fowner', null);
  outsider = await makeUser(srv, 'foutsider', null);
  album = await mkdir(owner, 'Album');
  const sub = await mkdir(owner, 'Sub', album);
  await mkdir(owner, 'Deeper', sub);
  await uploadFile(call(owner), 'a.txt', aBytes, { query: { parentId: album } });
  await uploadFile(call(owner), 'b.txt', bBytes, { query: { parentId: sub } });
  other = await mkdir(owner, 'Other');
});
afterAll(async () => {
  expect(srv.violations).toEqual([]);
  await srv.close();
});

describe('visitors download a folder as one zip', () => {
  it('the zip holds the tree, counts one download for all its files, is logged, and its URL works once', async () => {
    const l = await createLink({ instanceIds: [album], code: 'zip1', maxDownloads: 3 });
    const t = await login(l.link, 'zip1');
    const r = await visit(`${API}/zipDownloadUrl`, { token: t, body: { instanceIds: [album] } });
    expect(r.status, JSON.stringify(r)).toBe(200);
    expect(r.data.downloadsLeft).toBe(2);
    const zip = await fetchRaw(r.data.url);
    expect([zip.status, zip.type]).toEqual([200, 'application/zip']);
    const entries = unzip(zip.bytes);
    expect([...entries.keys()].sort()).toEqual(['Album/', 'Album/Sub/', 'Album/Sub/Deeper/', 'Album/Sub/b.txt', 'Album/a.txt']);
    expect(entries.get('Album/a.txt')!.equals(aBytes)).toBe(true);
    expect(entries.get('Album/Sub/b.txt')!.equals(bBytes)).toBe(true);
    expect(await downloadCount(l.shareId)).toBe(1);
    const again = await fetchRaw(r.data.url);
    expect([again.status, again.json?.data?.code]).toEqual([404, 'NOT_FOUND']);
    const log = await owner.api(`${FS}/shareLog`, { shareId: l.shareId, optType: 'download' });
    expect(log.data.list.map((x: any) => x.optObjName)).toEqual(['Album.zip']);
    // A folder below the shared one zips too, under its own name.
    const sub = (await visit(`${API}/instance/page`, { token: t, query: { parentId: album } })).data.list.find((x: any) => x.instanceName === 'Sub').instanceId;
    const r2 = await visit(`${API}/zipDownloadUrl`, { token: t, body: { instanceIds: [sub], name: 'mine' } });
    expect([...unzip((await fetchRaw(r2.data.url)).bytes).keys()].sort()).toEqual(['Sub/', 'Sub/Deeper/', 'Sub/b.txt']);
    expect(await downloadCount(l.shareId)).toBe(2);
  });

  it('a folder the link does not cover, another link\'s token and made-up ids are NOT_FOUND, and nothing is counted', async () => {
    const l = await createLink({ instanceIds: [album], maxDownloads: 5 });
    const t = await login(l.link);
    const foreign = await mkdir(outsider, 'Theirs');
    const otherLink = await createLink({ instanceIds: [other] });
    const otherToken = await login(otherLink.link);
    for (const [token, id] of [[t, other], [t, foreign], [t, 'madeUpId123'], [otherToken, album]] as const) {
      const r = await visit(`${API}/zipDownloadUrl`, { token, body: { instanceIds: [id] } });
      expect([r.status, r.data.code], id).toEqual([404, 'NOT_FOUND']);
    }
    // One id outside among good ones refuses the whole zip.
    expect((await visit(`${API}/zipDownloadUrl`, { token: t, body: { instanceIds: [album, other] } })).data.code).toBe('NOT_FOUND');
    expect(await downloadCount(l.shareId)).toBe(0);
    expect(await downloadCount(otherLink.shareId)).toBe(0);
    expect((await visit(`${API}/zipDownloadUrl`, { body: { instanceIds: [album] } })).data.code).toBe('SHARE_TOKEN_INVALID');
  });

  it('used-up limits, preview-only links and upload links without listing are refused before anything is counted', async () => {
    const one = await createLink({ instanceIds: [album], maxDownloads: 1 });
    const t = await login(one.link);
    expect((await visit(`${API}/zipDownloadUrl`, { token: t, body: { instanceIds: [album] } })).status).toBe(200);
    const spent = await visit(`${API}/zipDownloadUrl`, { token: t, body: { instanceIds: [album] } });
    expect([spent.status, spent.data.code]).toEqual([410, 'SHARE_LIMIT_REACHED']);
    expect(await downloadCount(one.shareId)).toBe(1);
    const preview = await createLink({ instanceIds: [album], previewOnly: true });
    const pt = await login(preview.link);
    expect((await visit(`${API}/zipDownloadUrl`, { token: pt, body: { instanceIds: [album] } })).data.code).toBe('SHARE_PREVIEW_ONLY');
    const up = await createLink({ instanceIds: [album], shareType: 'upload' });
    const ut = await login(up.link);
    expect((await visit(`${API}/zipDownloadUrl`, { token: ut, body: { instanceIds: [album] } })).data.code).toBe('FORBIDDEN');
    expect(await downloadCount(preview.shareId)).toBe(0);
  });

  it('a cancel after the URL was handed out stops the zip; the signed-in zip route does not take a visitor\'s ticket', async () => {
    const l = await createLink({ instanceIds: [album] });
    const t = await login(l.link);
    const r = await visit(`${API}/zipDownloadUrl`, { token: t, body: { instanceIds: [album] } });
    const ticket = r.data.url.split('/').pop();
    const signedIn = await fetchRaw(`/hcs/services/API/zip/${ticket}`);
    expect(signedIn.status).toBe(404);
    expect(await owner.api(`${FS}/cancelShare`, undefined, { shareIds: [l.shareId] })).toMatchObject({ status: 200 });
    const zip = await fetchRaw(r.data.url);
    expect([zip.status, zip.json?.data?.code]).toEqual([410, 'SHARE_CANCELLED']);
  });
});

describe('upload links receive folders', () => {
  const asVisitor = (token: string): ApiCall => async (path, query, body) => visit(path.replace('/hcs/controller/API/', '/hcs/services/API/'), { query, body, token });
  const names = (...segments: string[][]) => segments.map((s) => s.map(encodeName));
  const used = async () => Number(((await srv.sql.get('SELECT used_bytes FROM users WHERE id = ?', owner.id)) as { used_bytes: number }).used_bytes);

  it('the tree is recreated under the link\'s folder and its files land in it, charged to the owner; a taken name gets (1)', async () => {
    const inbox = await mkdir(owner, 'Inbox');
    await mkdir(owner, 'Photos', inbox);
    const l = await createLink({ instanceIds: [inbox], shareType: 'upload', uploadMaxFiles: 10 });
    const t = await login(l.link);
    const before = await used();
    const one = randomBytes(400);
    const two = randomBytes(300);
    // Parents may come after their children, and missing parents are made.
    const r = await visit(`${API}/createFolders`, { token: t, body: { folders: names(['Photos', '2024', 'May'], ['Photos'], ['Photos', 'Empty']), files: 2, bytes: 700 } });
    expect(r.status, JSON.stringify(r)).toBe(200);
    const [may, top] = r.data.folders;
    expect(r.data.folders.map((f: any) => f.instanceName)).toEqual(['May', 'Photos (1)', 'Empty']);
    await uploadFile(asVisitor(t), 'one.bin', one, { query: { parentId: top.instanceId } });
    await uploadFile(asVisitor(t), 'two.bin', two, { query: { parentId: may.instanceId } });
    expect(await childNames(inbox)).toEqual(['Photos', 'Photos (1)']);
    expect(await childNames(top.instanceId)).toEqual(['2024', 'Empty', 'one.bin']);
    const y2024 = ((await owner.api('/hcs/controller/Page', { parentId: top.instanceId })).data.list as any[]).find((x) => x.instanceName === '2024').instanceId;
    expect(await childNames(y2024)).toEqual(['May']);
    expect(await childNames(may.instanceId)).toEqual(['two.bin']);
    expect(await used()).toBe(before + 700);
    expect((await owner.api(`${FS}/${l.shareId}`)).data).toMatchObject({ uploadCount: 2, uploadBytes: 700 });
    const log = await owner.api(`${FS}/shareLog`, { shareId: l.shareId, optType: 'upload' });
    expect(log.data.list.map((x: any) => x.optObjName).sort()).toEqual(['Photos (1)', 'one.bin', 'two.bin']);
  });

  it('names that would leave the folder, caps, quota, another link\'s folder and download links create nothing', async () => {
    const box = await mkdir(owner, 'Box');
    const l = await createLink({ instanceIds: [box], shareType: 'upload', uploadMaxFiles: 3, uploadMaxBytes: 5000 });
    const t = await login(l.link);
    const tryTree = (body: Record<string, unknown>, token = t) => visit(`${API}/createFolders`, { token, body: { files: 1, bytes: 10, ...body } });
    for (const bad of [[['ok'], ['..']], [['ok', '..', 'x']], [['a/b']], [['.']], [['ok'], ['ok', 'b\\c']]]) {
      const r = await tryTree({ folders: bad.map((p) => p.map(encodeName)) });
      expect([r.status, r.data.code], JSON.stringify(bad)).toEqual([422, 'NAME_INVALID']);
    }
    expect((await tryTree({ folders: names(['f']), files: 4 })).data.code).toBe('SHARE_UPLOAD_LIMIT');
    expect((await tryTree({ folders: names(['f']), bytes: 5001 })).data.code).toBe('SHARE_UPLOAD_LIMIT');
    // The owner's quota: the whole folder's bytes must fit.
    const free = 20_000;
    await srv.sql.run('UPDATE users SET quota_bytes = used_bytes + ? WHERE id = ?', free, owner.id);
    try {
      const open = await createLink({ instanceIds: [box], shareType: 'upload' });
      const ot = await login(open.link);
      const r = await tryTree({ folders: names(['big']), files: 2, bytes: free + 1 }, ot);
      expect([r.status, r.data.code]).toEqual([409, 'SPACE_NOT_ENOUGH']);
    } finally {
      await srv.sql.run('UPDATE users SET quota_bytes = NULL WHERE id = ?', owner.id);
    }
    // Another folder of the owner, and a download link: no.
    expect((await tryTree({ folders: names(['f']), parentId: other })).data.code).toBe('NOT_FOUND');
    const dl = await login((await createLink({ instanceIds: [album] })).link);
    expect((await tryTree({ folders: names(['f']) }, dl)).data.code).toBe('FORBIDDEN');
    expect(await childNames(box)).toEqual([]);
    expect(await childNames(other)).toEqual([]);
    // Within the caps the same link still takes a folder.
    expect((await tryTree({ folders: names(['fine']), files: 3, bytes: 5000 })).status).toBe(200);
    expect(await childNames(box)).toEqual(['fine']);
  });

  it('System/Token answers an upload link\'s visitor their token and the room left; download links and no token are refused', async () => {
    const room = await mkdir(owner, 'Room');
    const l = await createLink({ instanceIds: [room], shareType: 'upload', uploadMaxFiles: 4, uploadMaxBytes: 9000 });
    const t = await login(l.link);
    await uploadFile(asVisitor(t), 'x.bin', randomBytes(1000), { query: {} });
    const r = await visit('/hcs/services/API/System/Token', { token: t });
    expect(r.status, JSON.stringify(r)).toBe(200);
    expect(r.data).toMatchObject({ token: t, shareType: 'upload', uploadFilesLeft: 3, uploadBytesLeft: 8000 });
    const dl = await login((await createLink({ instanceIds: [album] })).link);
    expect((await visit('/hcs/services/API/System/Token', { token: dl })).data.code).toBe('FORBIDDEN');
    expect((await visit('/hcs/services/API/System/Token')).data.code).toBe('SHARE_TOKEN_INVALID');
  });

  it('the caps hold file by file inside a folder: the file past the count is refused and nothing of it is filed', async () => {
    const drop = await mkdir(owner, 'Drop');
    const l = await createLink({ instanceIds: [drop], shareType: 'upload', uploadMaxFiles: 1 });
    const t = await login(l.link);
    const [dir] = (await visit(`${API}/createFolders`, { token: t, body: { folders: names(['d']), files: 1, bytes: 5 } })).data.folders;
    await uploadFile(asVisitor(t), 'first.bin', randomBytes(5), { query: { parentId: dir.instanceId } });
    const second = randomBytes(6);
    const r = await visit('/hcs/services/API/file-uploadable', {
      token: t, query: { fSize: 6, fName: encodeName('second.bin'), fMd5: createHash('sha256').update(second).digest('hex'), parentId: dir.instanceId },
    });
    expect(r.data.code).toBe('SHARE_UPLOAD_LIMIT');
    expect(await childNames(dir.instanceId)).toEqual(['first.bin']);
  });
});

describe('the share callback', () => {
  let platform: Server;
  let platformUrl = '';
  let answer = 200;
  const received: { headers: IncomingHttpHeaders; body: string }[] = [];
  let admin: TestUser;

  beforeAll(async () => {
    admin = await signInAdmin(srv);
    platform = createServer((req, res) => {
      let body = '';
      req.on('data', (c) => (body += c));
      req.on('end', () => {
        received.push({ headers: req.headers, body });
        res.writeHead(answer).end();
      });
    });
    await new Promise<void>((r) => platform.listen(0, '127.0.0.1', r));
    platformUrl = `http://127.0.0.1:${(platform.address() as AddressInfo).port}/hook`;
  });
  afterAll(() => new Promise<void>((r) => platform.close(() => r())));

  const verifies = (secret: string, r: { headers: IncomingHttpHeaders; body: string }) =>
    r.headers['x-hcs-signature'] === `sha256=${createHmac('sha256', secret).update(`${r.headers['x-hcs-timestamp']}.${r.body}`).digest('hex')}`;
  const statusOf = async (shareId: string) => (await owner.api(`${FS}/${shareId}`)).data.callbackStatus;

  it('administrators register a platform; a link made for it is POSTed there, signed with the secret shown once', async () => {
    expect((await owner.api(`${FS}/callbacks`, undefined, { platformId: 'chat', url: platformUrl })).data.code).toBe('FORBIDDEN');
    expect((await owner.api(`${FS}/callbacks`)).data.code).toBe('FORBIDDEN');
    const reg = await admin.api(`${FS}/callbacks`, undefined, { platformId: 'chat', url: platformUrl });
    expect(reg.status, JSON.stringify(reg)).toBe(200);
    const secret = reg.data.secret as string;
    expect(secret.length).toBeGreaterThanOrEqual(32);
    const listed = await admin.api(`${FS}/callbacks`);
    expect(listed.data).toEqual([{ platformId: 'chat', url: platformUrl, createTime: expect.any(Number), updateTime: expect.any(Number) }]);
    expect(JSON.stringify(listed)).not.toContain(secret);

    const l = await createLink({ instanceIds: [album], callback: { platformId: 'chat', token: 'pending-42' } });
    await expect.poll(() => statusOf(l.shareId)).toBe('delivered');
    const got = received.at(-1)!;
    expect(JSON.parse(got.body)).toEqual({ token: 'pending-42', instanceIds: [album], fileId: album, shareId: l.shareId, shareUrl: l.fullLink });
    expect(verifies(secret, got)).toBe(true);
    // A link made without a callback has none.
    expect((await createLink({ instanceIds: [album] })).callbackStatus).toBeNull();

    // Registering again draws a new secret: the old one no longer verifies what is sent.
    const again = (await admin.api(`${FS}/callbacks`, undefined, { platformId: 'chat', url: platformUrl })).data.secret;
    expect(again).not.toBe(secret);
    const l2 = await createLink({ instanceIds: [album], callback: { platformId: 'chat', token: 't2' } });
    await expect.poll(() => statusOf(l2.shareId)).toBe('delivered');
    expect(verifies(again, received.at(-1)!)).toBe(true);
    expect(verifies(secret, received.at(-1)!)).toBe(false);
  });

  it('an unknown platform refuses the link before anything is made; failures are tried 3 times, then failed', async () => {
    const count = async () => Number(((await srv.sql.get('SELECT count(*) AS n FROM links WHERE owner_id = ?', owner.id)) as { n: number }).n);
    const before = await count();
    const r = await owner.api(FS, undefined, { instanceIds: [album], callback: { platformId: 'nobody', token: 'x' } });
    expect([r.status, r.data.code]).toEqual([422, 'VALIDATION_FAILED']);
    expect(await count()).toBe(before);

    await admin.api(`${FS}/callbacks`, undefined, { platformId: 'down', url: platformUrl });
    answer = 500;
    const tries = received.length;
    try {
      const l = await createLink({ instanceIds: [album], callback: { platformId: 'down', token: 'y' } });
      await expect.poll(() => statusOf(l.shareId), { timeout: 10_000 }).toBe('failed');
      expect(received.length - tries).toBe(3);
      // The link itself stands.
      expect((await owner.api(`${FS}/${l.shareId}`)).data.status).toBe('active');
    } finally {
      answer = 200;
    }
    expect((await admin.api(`${FS}/callbacks/delete`, undefined, { platformId: 'down' })).status).toBe(200);
    expect((await admin.api(`${FS}/callbacks/delete`, undefined, { platformId: 'down' })).data.code).toBe('NOT_FOUND');
    expect((await owner.api(`${FS}/callbacks/delete`, undefined, { platformId: 'chat' })).data.code).toBe('FORBIDDEN');
  });
});
