// Issue #17 part 4: DLP rules and approval through the real HTTP API, on SQLite and PostgreSQL (tests/pg/suite.ts).
// The administrators' rule calls and their denials, checkDLP hitting each kind of rule (also below a shared folder),
// checkAuth routing a blocked share to the department manager (nearest above when the department has none), the
// state machine pending -> approved | rejected decided once (also by two managers at once), and who may see or
// decide a request: its requester sees but never decides it, a manager of another department gets NOT_FOUND.
import { randomBytes } from 'node:crypto';
import sharp from 'sharp';
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { startServer, type TestServer } from '../helpers/server.ts';
import { makeDept, makeManager, makeUser, mkdir, outcome, signInAdmin, type TestUser } from '../helpers/org.ts';
import { uploadFile, type ApiCall } from '../helpers/upload.ts';

let srv: TestServer;
let admin: TestUser;
let alice: TestUser; // in eng-web, which has no manager: her requests go to eng's manager
let bob: TestUser; // manages eng
let carol: TestUser; // manages ops
let dave: TestUser; // in ops, plain
let nomad: TestUser; // in no department

const FS = '/hcs/controller/FileShare';
const call = (u: TestUser): ApiCall => (path, query, body) => u.api(path, query, body);
const put = (u: TestUser, name: string, size = 64, parentId?: string) =>
  uploadFile(call(u), name, randomBytes(size), parentId ? { query: { parentId } } : {});

async function rule(kind: string, value: string, extra: Record<string, unknown> = {}): Promise<any> {
  const r = await admin.api(`${FS}/dlpRule/save`, undefined, { kind, value, ...extra });
  expect(r.status, JSON.stringify(r)).toBe(200);
  return r.data;
}

const check = (u: TestUser, instanceIds: string[]) => u.api(`${FS}/checkDLP`, undefined, { instanceIds });
const askFor = (u: TestUser, instanceIds: string[], reason?: string) => u.api(`${FS}/checkAuth`, undefined, { instanceIds, ...(reason ? { reason } : {}) });
const statusOf = (u: TestUser, checkId: string) => u.api(`${FS}/getCheckStatus`, undefined, { checkId });
const decide = (u: TestUser, checkId: string, approve: boolean, comment?: string) =>
  u.api(`${FS}/dlpCheck/decide`, undefined, { checkId, approve, ...(comment ? { comment } : {}) });

let files: { exe: string; big: string; labelled: string; secret: string; clean: string; folder: string; nested: string; cleanFolder: string };

beforeAll(async () => {
  srv = await startServer();
  admin = await signInAdmin(srv);
  await makeDept(srv, 'eng', 'Engineering');
  await makeDept(srv, 'eng-web', 'Web', 'eng');
  await makeDept(srv, 'ops', 'Ops');
  alice = await makeUser(srv, 'dlpalice', 'eng-web');
  bob = await makeUser(srv, 'dlpbob', 'eng');
  carol = await makeUser(srv, 'dlpcarol', 'ops');
  dave = await makeUser(srv, 'dlpdave', 'ops');
  nomad = await makeUser(srv, 'dlpnomad', null);
  await makeManager(srv, 'eng', bob.id);
  await makeManager(srv, 'ops', carol.id);

  const folder = await mkdir(alice, 'Plans');
  const cleanFolder = await mkdir(alice, 'Public');
  files = {
    exe: await put(alice, 'setup.EXE'),
    big: await put(alice, 'video.bin', 2048),
    labelled: await put(alice, 'notes.txt'),
    secret: await put(alice, 'Top-Secret plan.docx'),
    clean: await put(alice, 'readme.txt'),
    folder,
    nested: await put(alice, 'tool.bat', 64, folder),
    cleanFolder,
  };
  await put(alice, 'ok.txt', 64, cleanFolder);
  const label = await alice.api('/hcs/controller/labels', undefined, { name: 'Confidential' });
  expect(label.ret, JSON.stringify(label)).toBe(0);
  expect((await alice.api('/hcs/controller/saveInstanceLabel', undefined, { instanceId: files.labelled, labelIds: [label.data.labelId] })).ret).toBe(0);
});
afterAll(async () => {
  expect(srv.violations).toEqual([]);
  await srv.close();
});

describe('DLP rules (administrators)', () => {
  it('administrators add, change, page and delete rules; values are checked against their kind', async () => {
    const r = await rule('keyword', 'draft', { remark: 'temporary' });
    expect(r).toMatchObject({ kind: 'keyword', value: 'draft', enabled: true, remark: 'temporary' });
    const changed = await admin.api(`${FS}/dlpRule/save`, undefined, { ruleId: r.ruleId, kind: 'keyword', value: 'drafts', enabled: false });
    expect(changed.data).toMatchObject({ ruleId: r.ruleId, value: 'drafts', enabled: false });
    const pageOne = await admin.api(`${FS}/dlpRule/page`, { pageSize: 100 });
    expect(pageOne.data.list.map((x: any) => x.ruleId)).toContain(r.ruleId);
    expect((await admin.api(`${FS}/dlpRule/delete`, undefined, { ruleIds: [r.ruleId, 'nosuchrule'] })).ret).toBe(0);
    const after = await admin.api(`${FS}/dlpRule/page`, { pageSize: 100 });
    expect(after.data.list.map((x: any) => x.ruleId)).not.toContain(r.ruleId);

    for (const [kind, value] of [['maxSize', '10MB'], ['maxSize', '0'], ['extension', 'e x e'], ['keyword', '   ']]) {
      const bad = await admin.api(`${FS}/dlpRule/save`, undefined, { kind, value });
      expect([bad.status, bad.data.code], `${kind}=${value}`).toEqual([422, 'VALIDATION_FAILED']);
    }
    const missing = await admin.api(`${FS}/dlpRule/save`, undefined, { ruleId: 'nosuchrule', kind: 'keyword', value: 'x' });
    expect(missing.data.code).toBe('NOT_FOUND');
  });

  it('refuses everyone else, managers included', async () => {
    for (const u of [alice, bob]) {
      expect(outcome(await u.api(`${FS}/dlpRule/page`))).toBe('F');
      expect(outcome(await u.api(`${FS}/dlpRule/save`, undefined, { kind: 'keyword', value: 'x' }))).toBe('F');
      expect(outcome(await u.api(`${FS}/dlpRule/delete`, undefined, { ruleIds: ['x'] }))).toBe('F');
    }
  });
});

describe('checkDLP, checkAuth and the approval state machine', () => {
  let rules: Record<string, string>;
  beforeAll(async () => {
    rules = {
      ext: (await rule('extension', 'exe, .bat')).ruleId,
      size: (await rule('maxSize', '1024')).ruleId,
      label: (await rule('label', 'confidential')).ruleId,
      keyword: (await rule('keyword', 'SECRET')).ruleId,
    };
    // A disabled rule hits nothing.
    await rule('keyword', 'readme', { enabled: false });
  });

  it('passes clean items and reports what each kind of rule hits, also below a shared folder', async () => {
    expect((await check(alice, [files.clean, files.cleanFolder])).data).toEqual({ pass: true, hits: [] });
    const v = await check(alice, [files.exe, files.big, files.labelled, files.secret, files.folder, files.clean]);
    expect(v.data.pass).toBe(false);
    const byId = Object.fromEntries(v.data.hits.map((h: any) => [h.instanceId, [h.ruleId, h.kind]]));
    expect(byId).toEqual({
      [files.exe]: [rules.ext, 'extension'],
      [files.big]: [rules.size, 'maxSize'],
      [files.labelled]: [rules.label, 'label'],
      [files.secret]: [rules.keyword, 'keyword'],
      [files.nested]: [rules.ext, 'extension'],
    });
    expect(v.data.hits.find((h: any) => h.instanceId === files.nested).instanceName).toBe('tool.bat');
  });

  it('needs shareExternal on every item: another user\'s item answers NOT_FOUND', async () => {
    expect(outcome(await check(dave, [files.clean]))).toBe('N');
    expect(outcome(await askFor(dave, [files.exe]))).toBe('N');
  });

  it('sends a blocked share to the nearest manager above, once; clean items and manager-less departments are refused', async () => {
    const clean = await askFor(alice, [files.clean]);
    expect([clean.status, clean.data.code]).toEqual([409, 'CONFLICT']);

    const first = await askFor(alice, [files.exe, files.clean], 'customer needs the installer');
    expect(first.status, JSON.stringify(first)).toBe(200);
    expect(first.data).toMatchObject({
      status: 'pending', requesterId: alice.id, deptId: 'eng', deptName: 'Engineering', instanceIds: [files.exe, files.clean],
      items: ['setup.EXE', 'readme.txt'], reason: 'customer needs the installer',
    });
    expect(first.data.hits).toHaveLength(1);
    const again = await askFor(alice, [files.clean, files.exe]);
    expect(again.data.checkId).toBe(first.data.checkId);

    const mine = await put(nomad, 'x.exe');
    const none = await askFor(nomad, [mine]);
    expect([none.status, none.data.code]).toEqual([409, 'DLP_NO_APPROVER']);
  });

  it('shows a request to its requester, its department\'s managers and administrators only', async () => {
    const req = (await askFor(alice, [files.big])).data;
    for (const u of [alice, bob, admin]) expect((await statusOf(u, req.checkId)).data).toMatchObject({ checkId: req.checkId, status: 'pending' });
    for (const u of [carol, dave, nomad]) expect(outcome(await statusOf(u, req.checkId)), u.name).toBe('N');
    expect(outcome(await statusOf(bob, 'nosuchcheck'))).toBe('N');

    const todoBob = await bob.api(`${FS}/dlpCheck/page`, { box: 'todo', status: 'pending' });
    expect(todoBob.data.list.map((c: any) => c.checkId)).toContain(req.checkId);
    const todoCarol = await carol.api(`${FS}/dlpCheck/page`, { box: 'todo' });
    expect(todoCarol.data.list.map((c: any) => c.checkId)).not.toContain(req.checkId);
    expect((await dave.api(`${FS}/dlpCheck/page`)).data).toMatchObject({ list: [], total: 0 });
    const mine = await alice.api(`${FS}/dlpCheck/page`, { box: 'mine' });
    expect(mine.data.list.map((c: any) => c.checkId)).toContain(req.checkId);
    const all = await admin.api(`${FS}/dlpCheck/page`, { box: 'todo', pageSize: 100 });
    expect(all.data.list.map((c: any) => c.checkId)).toContain(req.checkId);
  });

  it('approval is decided once by a manager; the requester never decides; then checkDLP passes for those items', async () => {
    const req = (await askFor(alice, [files.labelled, files.secret])).data;
    expect(outcome(await decide(alice, req.checkId, true))).toBe('F');
    expect(outcome(await decide(carol, req.checkId, true))).toBe('N');
    expect((await check(alice, [files.labelled])).data.pass).toBe(false);

    const yes = await decide(bob, req.checkId, true, 'ok for the audit');
    expect(yes.data).toMatchObject({ status: 'approved', comment: 'ok for the audit', deciderName: 'dlpbob' });
    expect(yes.data.decideTime).toBeGreaterThan(0);
    const twice = await decide(admin, req.checkId, false);
    expect([twice.status, twice.data.code]).toEqual([409, 'CONFLICT']);
    expect((await statusOf(alice, req.checkId)).data.status).toBe('approved');

    expect((await check(alice, [files.labelled])).data).toMatchObject({ pass: true, approvedCheckId: req.checkId });
    expect((await check(alice, [files.labelled, files.secret])).data.pass).toBe(true);
    // An approval covers what it named, nothing more.
    expect((await check(alice, [files.labelled, files.exe])).data.pass).toBe(false);
  });

  it('a rejected request leaves the share blocked', async () => {
    const req = (await askFor(alice, [files.folder])).data;
    const no = await decide(admin, req.checkId, false, 'no installers outside');
    expect(no.data).toMatchObject({ status: 'rejected', comment: 'no installers outside' });
    expect((await check(alice, [files.folder])).data.pass).toBe(false);
  });

  it('two managers deciding at once: exactly one decision wins', async () => {
    const eve = await makeUser(srv, 'dlpeve', 'eng');
    await makeManager(srv, 'eng-web', eve.id);
    const req = (await askFor(alice, [files.big, files.exe])).data;
    const results = await Promise.all([decide(bob, req.checkId, true), decide(eve, req.checkId, false)]);
    expect(results.map((r) => r.status).sort()).toEqual([200, 409]);
    const winner = results.find((r) => r.status === 200)!;
    expect((await statusOf(alice, req.checkId)).data.status).toBe(winner.data.status);
  });
});

describe('the link calls honour DLP, and the protection option (upHikShield)', () => {
  let blocked: string;
  let clean: string;
  beforeAll(async () => {
    await rule('keyword', 'payroll');
    blocked = await put(dave, 'payroll 2026.xlsx');
    clean = await put(dave, 'menu.txt');
  });
  const link = (u: TestUser, instanceIds: string[], extra: Record<string, unknown> = {}) =>
    u.api(FS, undefined, { instanceIds, generateCode: true, days: 1, ...extra });

  it('createShare refuses a download link to blocked items (DLP_BLOCKED) until a manager approves them', async () => {
    const refused = await link(dave, [blocked]);
    expect([refused.status, refused.data.code]).toEqual([403, 'DLP_BLOCKED']);
    expect((await link(dave, [clean])).status).toBe(200);
    const req = (await askFor(dave, [blocked])).data;
    expect(req.deptId).toBe('ops');
    expect((await decide(carol, req.checkId, true)).data.status).toBe('approved');
    expect((await link(dave, [blocked])).status).toBe(200);
  });

  it('upHikShield turns the watermark on (the link becomes preview-only) and off, for the owner only', async () => {
    const s = (await link(dave, [clean])).data;
    expect((await dave.api(`${FS}/getHikShield`, undefined, { shareId: s.shareId })).data).toEqual({ shareId: s.shareId, watermark: false, previewOnly: false });
    const on = await dave.api(`${FS}/upHikShield`, undefined, { shareId: s.shareId, watermark: true });
    expect(on.data).toEqual({ shareId: s.shareId, watermark: true, previewOnly: true });
    const seen = await dave.api(`${FS}/${s.shareId}`);
    expect(seen.data).toMatchObject({ watermark: true, previewOnly: true });
    const off = await dave.api(`${FS}/upHikShield`, undefined, { shareId: s.shareId, watermark: false });
    expect(off.data.watermark).toBe(false);
    for (const u of [alice, carol]) {
      expect(outcome(await u.api(`${FS}/upHikShield`, undefined, { shareId: s.shareId, watermark: true })), u.name).toBe('N');
      expect(outcome(await u.api(`${FS}/getHikShield`, undefined, { shareId: s.shareId })), u.name).toBe('N');
    }
    expect(outcome(await dave.api(`${FS}/getHikShield`, undefined, { shareId: 'nosuchlink' }))).toBe('N');
    expect((await admin.api(`${FS}/getHikShield`, undefined, { shareId: s.shareId })).data.watermark).toBe(false);
  });
});

describe('the watermark on a protected link\'s previews', () => {
  const visitorCall = async (path: string, token?: string, body?: unknown) => {
    const res = await srv.call(path, {
      method: body === undefined ? 'GET' : 'POST',
      headers: { ...(token ? { shareToken: token } : {}), ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    return { status: res.status, ...((await res.json()) as { ret: number; data: any }) };
  };

  it('an image preview carries the visitor\'s mark; other types are not previewed unmarked', async () => {
    const png = await sharp({ create: { width: 320, height: 240, channels: 3, background: '#ffffff' } }).png().toBuffer();
    const image = await uploadFile(call(dave), 'diagram.png', png);
    const text = await put(dave, 'notes-for-visitors.txt');
    const s = (await dave.api(FS, undefined, { instanceIds: [image, text], code: 'wm12', days: 1 })).data;
    expect((await dave.api(`${FS}/upHikShield`, undefined, { shareId: s.shareId, watermark: true })).data.watermark).toBe(true);

    const login = await visitorCall('/hcs/services/FileShare/loginShare', undefined, { link: s.link, code: 'wm12' });
    expect(login.status, JSON.stringify(login)).toBe(200);
    const token = login.data.token as string;
    const preview = await visitorCall(`/hcs/services/ShareAPI/preview?instanceId=${image}`, token);
    expect(preview.status, JSON.stringify(preview)).toBe(200);
    const res = await srv.call(preview.data.url);
    expect(res.status).toBe(200);
    const served = Buffer.from(await res.arrayBuffer());
    const meta = await sharp(served).metadata();
    expect([meta.format, meta.width, meta.height]).toEqual(['png', 320, 240]);
    // The original is plain white; the served picture is not.
    const { data } = await sharp(served).removeAlpha().raw().toBuffer({ resolveWithObject: true });
    expect(data.some((b) => b < 250)).toBe(true);

    const other = await visitorCall(`/hcs/services/ShareAPI/preview?instanceId=${text}`, token);
    expect([other.status, other.data.code]).toEqual([403, 'SHARE_PREVIEW_ONLY']);
  });
});
