// Issue #17 part 2: public links through the real HTTP API, on SQLite and PostgreSQL (tests/pg/suite.ts). Every
// owner call with its refusals for other users' ids; visitors who trade the extraction code for a share token that
// reaches only that link's items (fuzzed ids: other files, other links' items, parents, made-up ids); downloads
// counted once per visitor and file, resumable by range, limited exactly under concurrency; cancel, expiry, a new
// code and a new address taking effect at once, also for download URLs handed out before; presigned storage URLs
// scoped to one range and short-lived; the verify code after 3 wrong codes; the share log and the operation log;
// the administrators' link policy.
import { createHash, randomBytes } from 'node:crypto';
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { encodeName } from '@hcs/openapi/client';
import { startServer, type TestServer } from '../helpers/server.ts';
import { makeUser, mkdir, signInAdmin, type Env, type TestUser } from '../helpers/org.ts';
import { uploadFile, type ApiCall } from '../helpers/upload.ts';
import { captchaAnswerHash } from '../../mock-server/src/auth/captcha.ts';

let srv: TestServer;
let admin: TestUser;
let owner: TestUser;
let outsider: TestUser;
const FS = '/hcs/controller/FileShare';
const VS = '/hcs/services/FileShare';
const API = '/hcs/services/ShareAPI';
const call = (u: TestUser): ApiCall => (path, query, body) => u.api(path, query, body);

let ipSeq = 0;
/** A fresh visitor address per use (the server believes X-Forwarded-For from 127.0.0.1): lockouts stay per test. */
const freshIp = () => `198.51.100.${++ipSeq}`;

interface VisitOpts { query?: Record<string, string | number>; body?: unknown; token?: string; ip?: string; headers?: Record<string, string> }
async function visit(path: string, o: VisitOpts = {}): Promise<Env & { headers: Headers }> {
  const qs = o.query ? `?${new URLSearchParams(Object.entries(o.query).map(([k, v]) => [k, String(v)])).toString()}` : '';
  const headers: Record<string, string> = { 'x-forwarded-for': o.ip ?? '203.0.113.1', ...(o.headers ?? {}) };
  if (o.token) headers.shareToken = o.token;
  if (o.body !== undefined) headers['content-type'] = 'application/json';
  const res = await srv.call(`${path}${qs}`, { method: o.body !== undefined ? 'POST' : 'GET', headers, ...(o.body !== undefined ? { body: JSON.stringify(o.body) } : {}) });
  return { status: res.status, headers: res.headers, ...((await res.json()) as object) } as Env & { headers: Headers };
}

/** A raw GET of a download URL the server handed out (a browser navigating: no CSRF header needed). */
async function fetchUrl(url: string, headers: Record<string, string> = {}): Promise<{ status: number; bytes: Buffer; json?: any }> {
  const res = await fetch(url.startsWith('http') ? url : srv.baseUrl + url, { headers: { 'x-forwarded-for': '203.0.113.9', ...headers } });
  const bytes = Buffer.from(await res.arrayBuffer());
  let json: any;
  if ((res.headers.get('content-type') ?? '').includes('json')) json = JSON.parse(bytes.toString());
  return { status: res.status, bytes, json };
}

async function createLink(u: TestUser, body: Record<string, unknown>): Promise<any> {
  const r = await u.api(FS, undefined, body);
  expect(r.status, JSON.stringify(r)).toBe(200);
  return r.data;
}

async function login(link: string, code?: string, ip = freshIp()): Promise<string> {
  const r = await visit(`${VS}/loginShare`, { body: { link, ...(code ? { code } : {}) }, ip });
  expect(r.status, JSON.stringify(r)).toBe(200);
  return r.data.token;
}

let docs: string; // owner's folder Docs (shared)
let sub: string; // Docs/Sub
let aTxt: string; // Docs/a.txt
let bTxt: string; // Docs/Sub/b.txt
let secret: string; // owner's file outside Docs
let foreign: string; // outsider's file
const aBytes = randomBytes(3000);
const bBytes = randomBytes(500);

beforeAll(async () => {
  srv = await startServer({ env: { HCS_TRUST_PROXY: '127.0.0.1' } });
  admin = await signInAdmin(srv);
  owner = await makeUser(srv, 'lowner', null);
  outsider = await makeUser(srv, 'loutsider', null);
  docs = await mkdir(owner, 'Docs');
  sub = await mkdir(owner, 'Sub', docs);
  aTxt = await uploadFile(call(owner), 'a.txt', aBytes, { query: { parentId: docs } });
  bTxt = await uploadFile(call(owner), 'b.txt', bBytes, { query: { parentId: sub } });
  secret = await uploadFile(call(owner), 'secret.txt', randomBytes(100));
  foreign = await uploadFile(call(outsider), 'foreign.txt', randomBytes(100));
});
afterAll(async () => {
  expect(srv.violations).toEqual([]);
  await srv.close();
});

describe('owners: create, read, modify, list, cancel, delete', () => {
  it('createShare answers the code once; getShare, getShareItem and sLink never carry it; other users get NOT_FOUND', async () => {
    const l = await createLink(owner, { instanceIds: [docs], code: 'Ab12', days: 7, maxDownloads: 5 });
    expect(l).toMatchObject({ shareType: 'download', status: 'active', hasCode: true, code: 'Ab12', maxDownloads: 5, viewCount: 0, downloadCount: 0, userId: owner.id });
    expect(l.fullLink).toBe(`${srv.baseUrl}/drive/fileDownload?link=${l.link}`);
    expect(l.items.map((i: any) => i.instanceName)).toEqual(['Docs']);
    expect(l.expireTime).toBeGreaterThan(Date.now() + 6 * 86400_000);
    const got = await owner.api(`${FS}/${l.shareId}`);
    expect(got.status).toBe(200);
    expect(got.data.code).toBeUndefined();
    expect(JSON.stringify(got.data)).not.toContain('Ab12');
    const stored = (await srv.sql.get('SELECT code_hash FROM links WHERE id = ?', l.shareId)) as { code_hash: string };
    expect(stored.code_hash).toMatch(/^[0-9a-f]{64}$/);
    expect(stored.code_hash).not.toContain('Ab12');
    expect((await owner.api(`${FS}/${l.shareId}/${docs}`)).data.items.map((i: any) => i.instanceId)).toEqual([docs]);
    expect((await owner.api(`${FS}/${l.shareId}/${secret}`)).data.code).toBe('NOT_FOUND');
    expect((await owner.api(`${FS}/sLink`, { shareId: l.shareId })).data).toEqual({ shareId: l.shareId, link: l.link, fullLink: l.fullLink });
    for (const r of [
      await outsider.api(`${FS}/${l.shareId}`),
      await outsider.api(`${FS}/${l.shareId}`, undefined, { maxViews: 1 }),
      await outsider.api(`${FS}/${l.shareId}/${docs}`),
      await outsider.api(`${FS}/sLink`, { shareId: l.shareId }),
      await outsider.api(`${FS}/shareLog`, { shareId: l.shareId }),
      await outsider.api(`${FS}/addLink`, undefined, { shareId: l.shareId }),
    ]) expect([r.status, r.data.code]).toEqual([404, 'NOT_FOUND']);
    // Administrators reach every link.
    expect((await admin.api(`${FS}/${l.shareId}`)).status).toBe(200);
  });

  it('createShare refuses items the caller may not share (another user\'s file: NOT_FOUND) and a library root', async () => {
    const r = await outsider.api(FS, undefined, { instanceIds: [aTxt], code: 'abcd' });
    expect([r.status, r.data.code]).toEqual([404, 'NOT_FOUND']);
    const root = (await owner.api('/hcs/controller/Page')).data.parentId;
    expect((await owner.api(FS, undefined, { instanceIds: [root] })).data.code).toBe('FORBIDDEN');
    expect((await owner.api(FS, undefined, { instanceIds: [aTxt], code: 'ab' })).status).toBe(422);
    expect((await owner.api(FS, undefined, { instanceIds: [aTxt], expireTime: Date.now() - 1000 })).data.code).toBe('VALIDATION_FAILED');
    expect((await owner.api(FS, undefined, { instanceIds: [aTxt], shareType: 'upload' })).data.code).toBe('VALIDATION_FAILED');
  });

  it('generateCode draws a 6-character code that opens the link; page lists the caller\'s links only, with keyword and status', async () => {
    const l = await createLink(owner, { instanceIds: [aTxt], generateCode: true });
    expect(l.code).toMatch(/^[a-z2-9]{6}$/);
    await login(l.link, l.code.toUpperCase());
    const mine = await owner.api(`${FS}/page`, { pageSize: 100 });
    expect(mine.data.list.some((x: any) => x.shareId === l.shareId)).toBe(true);
    expect(mine.data.list.every((x: any) => x.userId === owner.id)).toBe(true);
    expect((await outsider.api(`${FS}/page`)).data.list.some((x: any) => x.shareId === l.shareId)).toBe(false);
    const byName = await owner.api(`${FS}/page`, { keyword: 'A.TX', pageSize: 100 });
    expect(byName.data.list.map((x: any) => x.shareId)).toContain(l.shareId);
    expect(byName.data.list.every((x: any) => x.items.some((i: any) => i.instanceName === 'a.txt'))).toBe(true);
    expect((await admin.api(`${FS}/page`, { all: 'true', pageSize: 100 })).data.list.map((x: any) => x.shareId)).toContain(l.shareId);
  });

  it('modifyShare changes limits and options at once; a new code revokes earlier visitor tokens', async () => {
    const l = await createLink(owner, { instanceIds: [docs], code: 'old1' });
    const t = await login(l.link, 'old1');
    const m = await owner.api(`${FS}/${l.shareId}`, undefined, { maxDownloads: 2, previewOnly: true });
    expect(m.data).toMatchObject({ maxDownloads: 2, previewOnly: true, hasCode: true });
    expect(m.data.code).toBeUndefined();
    expect((await visit(`${API}/triggerShareLimit`, { query: { instanceId: aTxt }, token: t, body: {} })).data.code).toBe('SHARE_PREVIEW_ONLY');
    const c = await owner.api(`${FS}/${l.shareId}`, undefined, { code: 'new2' });
    expect(c.data.code).toBe('new2');
    expect((await visit(`${VS}/Link`, { token: t })).data.code).toBe('SHARE_TOKEN_INVALID');
    expect((await visit(`${VS}/loginShare`, { body: { link: l.link, code: 'old1' }, ip: freshIp() })).data.code).toBe('SHARE_CODE_WRONG');
    await login(l.link, 'new2');
  });

  it('cancelShare and deleteShares answer done/failed per id; other users\' ids fail with NOT_FOUND and stay untouched', async () => {
    const mine = await createLink(owner, { instanceIds: [aTxt] });
    const theirs = await createLink(outsider, { instanceIds: [foreign] });
    const c = await owner.api(`${FS}/cancelShare`, undefined, { shareIds: [mine.shareId, theirs.shareId] });
    expect(c.data).toEqual({ done: [mine.shareId], failed: [{ id: theirs.shareId, code: 'NOT_FOUND' }] });
    expect((await owner.api(`${FS}/${mine.shareId}`)).data.status).toBe('cancelled');
    expect((await outsider.api(`${FS}/${theirs.shareId}`)).data.status).toBe('active');
    expect((await owner.api(`${FS}/${mine.shareId}`, undefined, { maxViews: 3 })).data.code).toBe('CONFLICT');
    const d = await owner.api(`${FS}/delete`, { shareIds: `${mine.shareId},${theirs.shareId}` });
    expect(d.data).toEqual({ done: [mine.shareId], failed: [{ id: theirs.shareId, code: 'NOT_FOUND' }] });
    expect((await owner.api(`${FS}/${mine.shareId}`)).data.code).toBe('NOT_FOUND');
    expect((await visit(`${VS}/checklink`, { query: { link: mine.link } })).data.code).toBe('SHARE_NOT_FOUND');
    expect((await outsider.api(`${FS}/${theirs.shareId}`)).status).toBe(200);
  });

  it('deleteParentShareInfo cancels the caller\'s links on the item and on folders above it', async () => {
    const onDocs = await createLink(owner, { instanceIds: [docs] });
    const onB = await createLink(owner, { instanceIds: [bTxt] });
    const elsewhere = await createLink(owner, { instanceIds: [secret] });
    const r = await owner.api(`${FS}/deleteParentShareInfo`, { instanceId: bTxt });
    expect(r.data.done).toEqual(expect.arrayContaining([onDocs.shareId, onB.shareId]));
    expect(r.data.done).not.toContain(elsewhere.shareId);
    expect((await owner.api(`${FS}/${onDocs.shareId}`)).data.status).toBe('cancelled');
    expect((await owner.api(`${FS}/${elsewhere.shareId}`)).data.status).toBe('active');
    expect((await outsider.api(`${FS}/deleteParentShareInfo`, { instanceId: bTxt })).data.code).toBe('NOT_FOUND');
  });

  it('addLink gives the link a new address: the old one is unknown and its visitors\' tokens are dead', async () => {
    const l = await createLink(owner, { instanceIds: [aTxt] });
    const t = await login(l.link);
    const n = await owner.api(`${FS}/addLink`, undefined, { shareId: l.shareId });
    expect(n.data.link).not.toBe(l.link);
    expect((await visit(`${VS}/checklink`, { query: { link: l.link } })).data.code).toBe('SHARE_NOT_FOUND');
    expect((await visit(`${VS}/Link`, { token: t })).data.code).toBe('SHARE_TOKEN_INVALID');
    expect((await visit(`${VS}/checklink`, { query: { link: n.data.link } })).data).toEqual({ shareType: 'download', needCode: false, needVerifyCode: false });
  });
});

describe('visitors: the code, the token and what it reaches', () => {
  let l: any;
  let token: string;
  beforeAll(async () => {
    l = await createLink(owner, { instanceIds: [docs], code: 'k3y9' });
    token = await login(l.link, 'k3y9');
  });

  it('checklink tells only whether a code and a verify code are needed; a wrong code is SHARE_CODE_WRONG', async () => {
    const c = await visit(`${VS}/checklink`, { query: { link: l.link } });
    expect(c.data).toEqual({ shareType: 'download', needCode: true, needVerifyCode: false });
    expect((await visit(`${VS}/checklink`, { query: { link: 'x'.repeat(22) } })).data.code).toBe('SHARE_NOT_FOUND');
    const w = await visit(`${VS}/loginShare`, { body: { link: l.link, code: 'nope' }, ip: freshIp() });
    expect([w.status, w.data.code]).toEqual([403, 'SHARE_CODE_WRONG']);
    expect(JSON.stringify(w.data)).not.toContain('Docs');
  });

  it('the token reads the link, lists its items and the folders below them, and renews', async () => {
    const info = await visit(`${VS}/Link`, { token });
    expect(info.data).toMatchObject({ shareType: 'download', previewOnly: false, userName: 'lowner' });
    expect(info.data.items.map((i: any) => i.instanceId)).toEqual([docs]);
    expect((await visit(`${VS}/token`, { token })).data.token).toBe(token);
    expect((await visit(`${API}/getToken`, { token })).data.expiresAt).toBeGreaterThan(Date.now());
    const root = await visit(`${API}/instance/page`, { token });
    expect(root.data.list.map((i: any) => i.instanceName)).toEqual(['Docs']);
    const inDocs = await visit(`${API}/instance/page`, { token, query: { parentId: docs } });
    expect(inDocs.data.list.map((i: any) => i.instanceName)).toEqual(['Sub', 'a.txt']);
    const inSub = await visit(`${API}/instance/page`, { token, query: { parentId: sub } });
    expect(inSub.data.list.map((i: any) => i.instanceId)).toEqual([bTxt]);
    expect((await visit(`${API}/GetFileInfoById/${bTxt}`, { token })).data).toMatchObject({ instanceName: 'b.txt', fSize: 500 });
    const renewed = await visit(`${VS}/loginShareToken`, { token, body: {} });
    expect(renewed.status).toBe(200);
    expect((await visit(`${VS}/Link`, { token })).data.code).toBe('SHARE_TOKEN_INVALID');
    token = renewed.data.token;
    expect((await visit(`${VS}/Link`, { token })).status).toBe(200);
  });

  it('the token reaches nothing outside the link: fuzzed ids all answer NOT_FOUND, exactly like made-up ids', async () => {
    const otherLink = await createLink(owner, { instanceIds: [secret] });
    const root = (await owner.api('/hcs/controller/Page')).data.parentId;
    const ids = [secret, foreign, root, ...Array.from({ length: 40 }, () => randomBytes(8).toString('base64url')), otherLink.shareId, l.shareId];
    const calls = (id: string) => [
      visit(`${API}/instance/page`, { token, query: { parentId: id } }),
      visit(`${API}/GetFileInfoById/${id}`, { token }),
      visit(`${API}/getDownloadFileInfo`, { token, query: { instanceId: id } }),
      visit(`${API}/triggerShareLimit`, { token, query: { instanceId: id }, body: {} }),
      visit(`${API}/preview`, { token, query: { instanceId: id } }),
      visit(`${API}/StringToSign`, { token, query: { instanceId: id, range: 'bytes=0-9' } }),
      visit(`${API}/renameInstance`, { token, body: { instanceId: id, instanceName: encodeName('x.txt') } }),
      visit('/hcs/services/sysOptLog/addLog', { token, body: { optType: 'download', optObj: id } }),
    ];
    for (const id of ids) {
      for (const r of await Promise.all(calls(id))) expect([r.status, r.data.code], id).toEqual([404, 'NOT_FOUND']);
      const dl = await fetchUrl(`${API}/shareDownload?instanceId=${id}&token=${encodeURIComponent(token)}`);
      expect([dl.status, dl.json?.data?.code]).toEqual([404, 'NOT_FOUND']);
    }
    // The visitor token is no session: signed-in calls refuse it, and a session is no visitor token.
    const asSession = await srv.call(`/hcs/controller/Page?parentId=${docs}`, { token });
    expect(asSession.status).toBe(401);
    expect((await visit(`${VS}/Link`, { token: owner.token })).data.code).toBe('SHARE_TOKEN_INVALID');
    expect((await visit(`${VS}/Link`)).data.code).toBe('SHARE_TOKEN_INVALID');
  });

  it('renameInstance reaches only what the visitor uploaded through the link', async () => {
    const r = await visit(`${API}/renameInstance`, { token, body: { instanceId: aTxt, instanceName: encodeName('z.txt') } });
    expect([r.status, r.data.code]).toEqual([403, 'FORBIDDEN']);
  });
});

describe('downloads: counted once, resumable, limited, previews', () => {
  it('triggerShareLimit counts one download and its URL streams the file; ranges resume it without counting again', async () => {
    const l = await createLink(owner, { instanceIds: [docs], maxDownloads: 2 });
    const t = await login(l.link);
    const info = await visit(`${API}/getDownloadFileInfo`, { token: t, query: { instanceId: aTxt } });
    expect(info.data).toMatchObject({ instanceId: aTxt, fileSize: 3000, filename: 'a.txt' });
    const g = await visit(`${API}/triggerShareLimit`, { token: t, query: { instanceId: aTxt }, body: {} });
    expect(g.data).toMatchObject({ instanceId: aTxt, downloadsLeft: 1 });
    const whole = await fetchUrl(g.data.url);
    expect(whole.status).toBe(200);
    expect(whole.bytes.equals(aBytes)).toBe(true);
    const part = await fetchUrl(g.data.url, { range: 'bytes=1000-1999' });
    expect(part.status).toBe(206);
    expect(part.bytes.equals(aBytes.subarray(1000, 2000))).toBe(true);
    const tail = await fetchUrl(g.data.url, { range: 'bytes=2500-' });
    expect(tail.bytes.equals(aBytes.subarray(2500))).toBe(true);
    expect((await owner.api(`${FS}/${l.shareId}`)).data.downloadCount).toBe(1);
    // A second file is a second download; the limit then refuses a third, for this visitor and any other.
    const b = await fetchUrl(`${API}/shareDownload?instanceId=${bTxt}&token=${encodeURIComponent(t)}`);
    expect(b.bytes.equals(bBytes)).toBe(true);
    const t2 = await visit(`${VS}/loginShare`, { body: { link: l.link }, ip: freshIp() });
    expect(t2.data.code).toBe('SHARE_LIMIT_REACHED');
    const again = await fetchUrl(`${API}/shareDownload?instanceId=${aTxt}&token=${encodeURIComponent(t)}`, { range: 'bytes=0-9' });
    expect(again.status).toBe(206);
    expect((await owner.api(`${FS}/${l.shareId}`)).data).toMatchObject({ downloadCount: 2, status: 'exhausted' });
  });

  it('with a download limit of N, N+1 visitors downloading at once get exactly N grants', async () => {
    const N = 4;
    const l = await createLink(owner, { instanceIds: [aTxt], maxDownloads: N });
    const tokens = await Promise.all(Array.from({ length: N + 1 }, () => login(l.link)));
    const results = await Promise.all(tokens.map((t) => visit(`${API}/triggerShareLimit`, { token: t, query: { instanceId: aTxt }, body: {} })));
    const codes = results.map((r) => (r.status === 200 ? 'ok' : r.data.code)).sort();
    expect(codes).toEqual([...Array(N).fill('ok'), 'SHARE_LIMIT_REACHED'].sort());
    expect((await owner.api(`${FS}/${l.shareId}`)).data.downloadCount).toBe(N);
  });

  it('the view limit counts accepted codes, exactly under concurrency', async () => {
    const l = await createLink(owner, { instanceIds: [aTxt], maxViews: 3, code: 'view' });
    const rs = await Promise.all(Array.from({ length: 5 }, () => visit(`${VS}/loginShare`, { body: { link: l.link, code: 'view' }, ip: freshIp() })));
    expect(rs.map((r) => (r.status === 200 ? 'ok' : r.data.code)).sort()).toEqual(['SHARE_LIMIT_REACHED', 'SHARE_LIMIT_REACHED', 'ok', 'ok', 'ok']);
    expect((await visit(`${VS}/checklink`, { query: { link: l.link } })).data.code).toBe('SHARE_LIMIT_REACHED');
  });

  it('preview-only links preview but never download; previews are logged', async () => {
    const l = await createLink(owner, { instanceIds: [docs], previewOnly: true });
    const t = await login(l.link);
    const p = await visit(`${API}/preview`, { token: t, query: { instanceId: aTxt } });
    expect(p.data).toMatchObject({ inline: true, size: 3000 });
    expect(p.data.expiresAt - Date.now()).toBeLessThanOrEqual(2 * 60_000);
    expect((await fetchUrl(p.data.url)).bytes.equals(aBytes)).toBe(true);
    for (const r of [
      await visit(`${API}/triggerShareLimit`, { token: t, query: { instanceId: aTxt }, body: {} }),
      await visit(`${API}/getCDNDownload`, { token: t, query: { instanceId: aTxt } }),
      await visit(`${API}/getDownloadFileInfo`, { token: t, query: { instanceId: aTxt } }),
    ]) expect(r.data.code).toBe('SHARE_PREVIEW_ONLY');
    expect((await fetchUrl(`${API}/shareDownload?instanceId=${aTxt}&token=${encodeURIComponent(t)}`)).json.data.code).toBe('SHARE_PREVIEW_ONLY');
    const owners = await owner.api(`${FS}/preview`, { shareId: l.shareId, instanceId: aTxt });
    expect(owners.data.inline).toBe(true);
    expect((await outsider.api(`${FS}/preview`, { shareId: l.shareId, instanceId: aTxt })).status).toBe(404);
  });

  it('StringToSign signs one range of a granted file for 60 seconds; without a grant it is refused', async () => {
    const l = await createLink(owner, { instanceIds: [aTxt] });
    const t = await login(l.link);
    expect((await visit(`${API}/StringToSign`, { token: t, query: { instanceId: aTxt, range: 'bytes=0-99' } })).data.code).toBe('FORBIDDEN');
    await visit(`${API}/getCDNDownload`, { token: t, query: { instanceId: aTxt } });
    const s = await visit(`${API}/StringToSign`, { token: t, query: { instanceId: aTxt, range: 'bytes=100-199' } });
    expect(s.data.size).toBe(100);
    expect(s.data.expiresAt - Date.now()).toBeLessThanOrEqual(60_000);
    expect(new URL(s.data.url).searchParams.get('X-Amz-Expires')).toBe('60');
    const got = await fetch(s.data.url, { headers: { range: 'bytes=100-199' } });
    expect(Buffer.from(await got.arrayBuffer()).equals(aBytes.subarray(100, 200))).toBe(true);
    // The signature covers the range: another range of the object is refused by storage.
    expect((await fetch(s.data.url, { headers: { range: 'bytes=0-2999' } })).status).toBe(403);
    // A node without a site (HCS_SITE) answers its embedded store, as the address the visitor reached it by.
    const provider = (await visit(`${API}/getCloudProvider`, { token: t })).data;
    expect(provider).toEqual({ cloudProvider: 's3', host: `${srv.baseUrl}/s3`, region: expect.any(String), bucketName: srv.built.ctx.store().bucket, pathStyle: true });
  });
});

describe('cancel and expiry take effect at once', () => {
  it('a cancel stops tokens and download URLs handed out before, and the link reveals nothing', async () => {
    const l = await createLink(owner, { instanceIds: [docs] });
    const t = await login(l.link);
    const g = await visit(`${API}/triggerShareLimit`, { token: t, query: { instanceId: aTxt }, body: {} });
    expect((await fetchUrl(g.data.url, { range: 'bytes=0-9' })).status).toBe(206);
    await owner.api(`${FS}/cancelShare`, undefined, { shareIds: [l.shareId] });
    const dl = await fetchUrl(g.data.url, { range: 'bytes=10-19' });
    expect([dl.status, dl.json.data.code]).toEqual([410, 'SHARE_CANCELLED']);
    for (const r of [await visit(`${VS}/Link`, { token: t }), await visit(`${VS}/checklink`, { query: { link: l.link } }), await visit(`${VS}/loginShare`, { body: { link: l.link }, ip: freshIp() })]) {
      expect([r.status, r.data.code]).toEqual([410, 'SHARE_CANCELLED']);
      expect(JSON.stringify(r)).not.toMatch(/Docs|a\.txt|lowner/);
    }
  });

  it('an expiry passing stops tokens and download URLs handed out before', async () => {
    const l = await createLink(owner, { instanceIds: [docs], days: 1 });
    const t = await login(l.link);
    const g = await visit(`${API}/triggerShareLimit`, { token: t, query: { instanceId: aTxt }, body: {} });
    expect((await fetchUrl(g.data.url)).status).toBe(200);
    // Time passing, as the database sees it.
    await srv.sql.run('UPDATE links SET expire_at = ? WHERE id = ?', Date.now() - 1, l.shareId);
    const dl = await fetchUrl(g.data.url);
    expect([dl.status, dl.json.data.code]).toEqual([410, 'SHARE_EXPIRED']);
    expect((await visit(`${VS}/checklink`, { query: { link: l.link } })).data.code).toBe('SHARE_EXPIRED');
    expect((await owner.api(`${FS}/${l.shareId}`)).data.status).toBe('expired');
  });
});

describe('the verify code', () => {
  it('after 3 wrong codes the next attempt needs the CAPTCHA; a solved one with the right code opens the link', async () => {
    const l = await createLink(owner, { instanceIds: [aTxt], code: 'good' });
    const ip = freshIp();
    for (let i = 0; i < 3; i++) expect((await visit(`${VS}/loginShare`, { body: { link: l.link, code: 'bad0' }, ip })).data.code).toBe('SHARE_CODE_WRONG');
    expect((await visit(`${VS}/checklink`, { query: { link: l.link }, ip })).data.needVerifyCode).toBe(true);
    expect((await visit(`${VS}/loginShare`, { body: { link: l.link, code: 'good' }, ip })).data.code).toBe('CAPTCHA_REQUIRED');
    const ch = await visit(`${VS}/verifyCode/${l.link}`, { ip });
    expect(ch.data.image).toMatch(/^data:image\/svg\+xml;base64,/);
    await srv.sql.run('UPDATE captchas SET answer_hash = ? WHERE id = ?', captchaAnswerHash(srv.built.ctx.secret, ch.data.captchaId, 'zzzz'), ch.data.captchaId);
    const ok = await visit(`${VS}/loginShare`, { body: { link: l.link, code: 'good', captchaId: ch.data.captchaId, captchaAnswer: 'zzzz' }, ip });
    expect(ok.status, JSON.stringify(ok)).toBe(200);
    // Single use: the same challenge again is refused.
    expect((await visit(`${VS}/loginShare`, { body: { link: l.link, code: 'good', captchaId: ch.data.captchaId, captchaAnswer: 'zzzz' }, ip })).data.code).toBe('CAPTCHA_INVALID');
  });

  it('an owner who asks for it gets the CAPTCHA from every visitor', async () => {
    const l = await createLink(owner, { instanceIds: [aTxt], verifyCode: true });
    expect((await visit(`${VS}/checklink`, { query: { link: l.link } })).data.needVerifyCode).toBe(true);
    expect((await visit(`${VS}/loginShare`, { body: { link: l.link }, ip: freshIp() })).data.code).toBe('CAPTCHA_REQUIRED');
  });
});

describe('share logs and link policy', () => {
  it('every visit, code attempt, preview and download is in the owner\'s share log and in the operation log', async () => {
    const l = await createLink(owner, { instanceIds: [docs], code: 'logs' });
    const ip = freshIp();
    await visit(`${VS}/checklink`, { query: { link: l.link }, ip, headers: { 'user-agent': 'visitor-agent/1' } });
    await visit(`${VS}/loginShare`, { body: { link: l.link, code: 'bad1' }, ip });
    const t = await login(l.link, 'logs', ip);
    await visit(`${API}/preview`, { token: t, query: { instanceId: aTxt } });
    await visit(`${API}/triggerShareLimit`, { token: t, query: { instanceId: bTxt }, body: {} });
    expect((await visit('/hcs/services/sysOptLog/addLog', { token: t, body: { optType: 'download', optObj: bTxt, optSubject: 'guest' } })).status).toBe(200);
    const log = await owner.api(`${FS}/shareLog`, { shareId: l.shareId, pageSize: 50 });
    const types = log.data.list.map((x: any) => x.optType).reverse();
    expect(types).toEqual(['visit', 'codeWrong', 'codeRight', 'preview', 'download', 'download']);
    expect(log.data.list.find((x: any) => x.optType === 'visit')).toMatchObject({ ip, optDevice: 'visitor-agent/1', optSubject: 'visitor' });
    expect(log.data.list.find((x: any) => x.optType === 'preview')).toMatchObject({ optObj: aTxt, optObjName: 'a.txt' });
    expect(log.data.list[0]).toMatchObject({ optSubject: 'guest', optObj: bTxt });
    expect((await owner.api(`${FS}/shareLog`, { shareId: l.shareId, optType: 'codeWrong' })).data.total).toBe(1);
    const ops = (await srv.sql.all("SELECT op_type, ip FROM op_logs WHERE detail = ? ORDER BY id", `link ${l.shareId}`)) as { op_type: string; ip: string }[];
    expect(ops.map((o) => o.op_type)).toEqual(['share.visit', 'share.codeWrong', 'share.codeRight', 'share.preview', 'share.download', 'share.download']);
    expect(JSON.stringify(log.data)).not.toContain(t);
  });

  it('administrators set the policy (code required, longest expiry); others may read it, not set it', async () => {
    expect((await owner.api(`${FS}/linkPolicy`, undefined, { codeRequired: false, maxExpireDays: null, allowedRoles: [] })).data.code).toBe('FORBIDDEN');
    const set = await admin.api(`${FS}/linkPolicy`, undefined, { codeRequired: true, maxExpireDays: 7, allowedRoles: [] });
    expect(set.data).toEqual({ codeRequired: true, maxExpireDays: 7, allowedRoles: [] });
    try {
      expect((await owner.api(`${FS}/linkPolicy`)).data.maxExpireDays).toBe(7);
      expect((await owner.api(FS, undefined, { instanceIds: [aTxt], days: 3 })).data.code).toBe('VALIDATION_FAILED');
      expect((await owner.api(FS, undefined, { instanceIds: [aTxt], code: 'pol1' })).data.code).toBe('VALIDATION_FAILED');
      expect((await owner.api(FS, undefined, { instanceIds: [aTxt], code: 'pol1', days: 30 })).data.code).toBe('VALIDATION_FAILED');
      expect((await owner.api(FS, undefined, { instanceIds: [aTxt], code: 'pol1', days: 7 })).status).toBe(200);
      await admin.api(`${FS}/linkPolicy`, undefined, { codeRequired: false, maxExpireDays: null, allowedRoles: ['manager'] });
      expect((await owner.api(FS, undefined, { instanceIds: [aTxt] })).data.code).toBe('FORBIDDEN');
    } finally {
      await admin.api(`${FS}/linkPolicy`, undefined, { codeRequired: false, maxExpireDays: null, allowedRoles: [] });
    }
  });
});

describe('upload links', () => {
  /** The upload helper's calls, sent as the link's visitor to the anonymous endpoints. */
  const asVisitor = (token: string, ip = freshIp()): ApiCall => async (path, query, body) =>
    visit(path.replace('/hcs/controller/API/', '/hcs/services/API/'), { query, body, token, ip });

  it('visitors upload into the folder (charged to the owner) within the file-count cap, without listing or downloading it', async () => {
    const inbox = await mkdir(owner, 'Inbox');
    const kept = await uploadFile(call(owner), 'kept.txt', randomBytes(50), { query: { parentId: inbox } });
    const l = await createLink(owner, { instanceIds: [inbox], shareType: 'upload', code: 'upld', uploadMaxFiles: 2 });
    const t = await login(l.link, 'upld');
    const used = async () => ((await srv.sql.get('SELECT used_bytes FROM users WHERE id = ?', owner.id)) as { used_bytes: number }).used_bytes;
    const before = Number(await used());
    const one = randomBytes(700);
    const id = await uploadFile(asVisitor(t), 'from-visitor.bin', one, { query: {} });
    const filed = await owner.api('/hcs/controller/Page', { parentId: inbox });
    expect(filed.data.list.map((r: any) => r.instanceName).sort()).toEqual(['from-visitor.bin', 'kept.txt']);
    expect(Number(await used())).toBe(before + 700);
    // The visitor renames what they uploaded, and nothing else.
    expect((await visit(`${API}/renameInstance`, { token: t, body: { instanceId: id, instanceName: encodeName('renamed.bin') } })).status).toBe(200);
    expect((await visit(`${API}/renameInstance`, { token: t, body: { instanceId: kept, instanceName: encodeName('x.txt') } })).data.code).toBe('FORBIDDEN');
    // No listing, no download without uploadAllowList.
    expect((await visit(`${API}/instance/page`, { token: t, query: { parentId: inbox } })).data.code).toBe('FORBIDDEN');
    expect((await visit(`${API}/triggerShareLimit`, { token: t, query: { instanceId: kept }, body: {} })).data.code).toBe('FORBIDDEN');
    await uploadFile(asVisitor(t), 'second.bin', randomBytes(10), { query: {} });
    const third = await visit('/hcs/services/API/file-uploadable', { token: t, query: { fSize: 5, fName: encodeName('third.bin'), fMd5: 'a'.repeat(64) } });
    expect(third.data.code).toBe('SHARE_UPLOAD_LIMIT');
    const log = await owner.api(`${FS}/shareLog`, { shareId: l.shareId, optType: 'upload' });
    expect(log.data.list.map((x: any) => x.optObjName).sort()).toEqual(['from-visitor.bin', 'second.bin']);
    expect((await owner.api(`${FS}/${l.shareId}`)).data).toMatchObject({ uploadCount: 2, uploadBytes: 710 });
  });

  it('the byte cap holds, uploads stay inside the folder, and instant transfer is never offered (it would tell what the owner holds)', async () => {
    const box = await mkdir(owner, 'Box');
    const l = await createLink(owner, { instanceIds: [box], shareType: 'upload', uploadMaxBytes: 1000 });
    const t = await login(l.link);
    const big = await visit('/hcs/services/API/file-uploadable', { token: t, query: { fSize: 1001, fName: encodeName('big.bin'), fMd5: 'b'.repeat(64) } });
    expect(big.data.code).toBe('SHARE_UPLOAD_LIMIT');
    const outside = await visit('/hcs/services/API/file-uploadable', { token: t, query: { fSize: 5, fName: encodeName('x.bin'), fMd5: 'c'.repeat(64), parentId: docs } });
    expect(outside.data.code).toBe('NOT_FOUND');
    // Content the owner already stores (a.txt) is answered as unknown content.
    const t2 = await login((await createLink(owner, { instanceIds: [box], shareType: 'upload' })).link);
    const known = await visit('/hcs/services/API/file-uploadable', { token: t2, query: { fSize: aBytes.length, fName: encodeName('copy.txt'), fMd5: createHash('sha256').update(aBytes).digest('hex') } });
    expect(known.data.uploadflag, JSON.stringify(known)).toBe(3);
    expect(known.data.proof).toBeUndefined();
    expect((await visit('/hcs/services/API/second-transfer', { token: t2, body: { fId: known.data.fId, proofId: 'x', proof: 'f'.repeat(64), instanceName: encodeName('copy.txt') } })).status).toBe(403);
    // The owner's own upload sessions are out of the visitor's reach.
    const own = (await owner.api('/hcs/controller/API/file-uploadable', { fSize: 10, fName: encodeName('own.bin'), fMd5: 'd'.repeat(64), parentId: box })).data;
    expect((await visit('/hcs/services/API/destroyPartInfo', { token: t, body: { fId: own.fId } })).data.code).toBe('UPLOAD_SESSION_MISSING');
    expect((await visit('/hcs/services/API/getPartInfo', { token: t, query: { fId: own.fId } })).data.code).toBe('UPLOAD_SESSION_MISSING');
    // A download link takes no uploads.
    const dl = await createLink(owner, { instanceIds: [docs] });
    const dt = await login(dl.link);
    expect((await visit('/hcs/services/API/file-uploadable', { token: dt, query: { fSize: 5, fName: encodeName('x.bin'), fMd5: 'e'.repeat(64) } })).data.code).toBe('FORBIDDEN');
  });
});

describe('links made by someone who is not the space owner', () => {
  it('visitors see only what the link\'s maker sees, and download only what the maker may download', async () => {
    const team = await mkdir(owner, 'Team');
    const open = await uploadFile(call(owner), 'open.txt', randomBytes(40), { query: { parentId: team } });
    const closed = await mkdir(owner, 'Closed', team);
    const maker = await makeUser(srv, 'lmaker', null);
    const grant = (instanceId: string, roleId: string) => owner.api('/hcs/controller/SysRoleUser/setGroupRoleUser', undefined, { instanceId, roleId, userIds: [maker.id] });
    expect((await grant(team, 'sharer')).status).toBe(200);
    expect((await grant(closed, 'disable')).status).toBe(200);
    const l = await createLink(maker, { instanceIds: [team] });
    const t = await login(l.link);
    const page = await visit(`${API}/instance/page`, { token: t, query: { parentId: team } });
    expect(page.data.list.map((r: any) => r.instanceName)).toEqual(['open.txt']);
    expect(page.data.total).toBe(1);
    expect((await visit(`${API}/instance/page`, { token: t, query: { parentId: closed } })).data.code).toBe('NOT_FOUND');
    expect((await visit(`${API}/triggerShareLimit`, { token: t, query: { instanceId: open }, body: {} })).status).toBe(200);
    // The maker loses download on the file (observer there, the nearer grant: view and preview only): visitors lose
    // it with them, at once.
    expect((await grant(open, 'observer')).status).toBe(200);
    const t2 = await login(l.link);
    expect((await visit(`${API}/triggerShareLimit`, { token: t2, query: { instanceId: open }, body: {} })).data.code).toBe('FORBIDDEN');
  });
});

describe('housekeeping', () => {
  it('pruning drops expired visitor tokens (with their grants) and spent wrong-code counts, and keeps live ones', async () => {
    const l = await createLink(owner, { instanceIds: [aTxt] });
    const live = await login(l.link);
    await visit(`${API}/triggerShareLimit`, { token: live, query: { instanceId: aTxt }, body: {} });
    const now = Date.now();
    await srv.sql.run('INSERT INTO link_tokens (id, link_id, epoch, ip, created_at, expires_at, revoked) VALUES (?, ?, 0, ?, ?, ?, 0)', 'f'.repeat(64), l.shareId, '198.51.100.250', now - 10_000, now - 1);
    await srv.sql.run('INSERT INTO link_grants (token_id, instance_id, created_at) VALUES (?, ?, ?)', 'f'.repeat(64), aTxt, now - 5000);
    await srv.sql.run('INSERT INTO link_lockouts (key, failures, last_at, locked_until) VALUES (?, 5, ?, ?)', 'ip:198.51.100.251', now - 16 * 60_000, now - 1);
    await srv.sql.run('INSERT INTO link_lockouts (key, failures, last_at, locked_until) VALUES (?, 25, ?, ?)', 'ip:198.51.100.252', now - 16 * 60_000, now + 60_000);
    const { pruneLinkState } = await import('../../mock-server/src/db/links-repo.ts');
    expect(await pruneLinkState(srv.built.ctx.db, 15 * 60_000, now)).toBeGreaterThanOrEqual(2);
    expect(await srv.sql.get('SELECT id FROM link_tokens WHERE id = ?', 'f'.repeat(64))).toBeUndefined();
    expect(await srv.sql.get('SELECT token_id FROM link_grants WHERE token_id = ?', 'f'.repeat(64))).toBeUndefined();
    expect(await srv.sql.get('SELECT key FROM link_lockouts WHERE key = ?', 'ip:198.51.100.251')).toBeUndefined();
    expect(await srv.sql.get('SELECT key FROM link_lockouts WHERE key = ?', 'ip:198.51.100.252')).toBeDefined();
    expect((await visit(`${VS}/Link`, { token: live })).status).toBe(200);
  });
});
