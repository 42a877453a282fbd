// Issue #14, the gaps of the first round: whole-folder deletes and moves obey the grants below the folder; results of
// create, rename, move and copy carry the caller's real flags; folder trees mark a node whose sub-folders are all
// hidden as a leaf; offset pages of a folder with hidden children come out full with the right total; getNPDept lists
// departments reached through a grant and their space leads to the granted folder; getParentAuth answers the
// caller's authorities on a folder; a session of an account an administrator stops ends at once on every node.
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { encodeName } from '@hcs/openapi/client';
import { startServer, type TestServer } from '../helpers/server.ts';
import { uploadFile, type ApiCall } from '../helpers/upload.ts';
import { apiAs, makeDept, makeUser, signInAdmin, type TestUser } from '../helpers/org.ts';
import { ON_POSTGRES } from '../helpers/db.ts';

let srv: TestServer;
let admin: TestUser;
let dora: TestUser; // member of d: owns the fixtures in d's space
let tina: TestUser; // member of t: reaches d's space only through grants
let dRoot: string;

const call = (u: TestUser): ApiCall => async (path, query, body) => u.api(path, query, body);

async function mkdir(u: TestUser, name: string, parentId?: string, instanceType?: string): Promise<string> {
  const r = await u.api('/hcs/controller/Instances', undefined, [{ classifierId: 'Folder', instanceName: encodeName(name), ...(parentId ? { parentId } : {}), ...(instanceType ? { instanceType } : {}) }]);
  expect(r.ret, JSON.stringify(r)).toBe(0);
  return r.data[0].instanceId;
}

async function fileIn(owner: TestUser, name: string, folder: string): Promise<string> {
  const id = await uploadFile(call(owner), name, Buffer.from(`${name} ${randomBytes(8).toString('hex')}`));
  const r = await owner.api('/hcs/controller/copyInstance', { ids: id, targetInstanceId: folder });
  expect(r.data?.done?.length, JSON.stringify(r)).toBe(1);
  return r.data.done[0].instanceId;
}

async function grant(instanceId: string, roleId: string, userIds: string[], by = admin): Promise<void> {
  const r = await by.api('/hcs/controller/SysRoleUser/setGroupRoleUser', undefined, { instanceId, roleId, userIds });
  expect(r.status, JSON.stringify(r)).toBe(200);
}

const names = (list: any[]) => list.map((r) => r.instanceName);

beforeAll(async () => {
  srv = await startServer();
  admin = await signInAdmin(srv);
  await makeDept(srv, 'd', 'Design');
  await makeDept(srv, 't', 'Testing');
  dora = await makeUser(srv, 'dora', 'd');
  tina = await makeUser(srv, 'tina', 't');
  dRoot = (await dora.api('/hcs/controller/Page', { instanceType: '3' })).data.parentId;
});
afterAll(async () => {
  expect(srv.violations).toEqual([]);
  await srv.close();
});

describe('deleting or moving a whole folder', () => {
  it('needs delete (recycle) and edit (move) on everything below it, and says why when refused', async () => {
    const work = await mkdir(dora, 'work', dRoot);
    await grant(work, 'operator', [tina.id]);
    const target = await mkdir(dora, 'target', work);
    // A narrower role nearer to an item, and a deny.
    const narrow = await mkdir(dora, 'narrow', work);
    const readOnly = await mkdir(dora, 'read-only', narrow);
    await fileIn(dora, 'kept.txt', readOnly);
    await grant(readOnly, 'reader', [tina.id]);
    const denying = await mkdir(dora, 'denying', work);
    await grant(await mkdir(dora, 'secret', denying), 'disable', [tina.id]);
    const editable = await mkdir(dora, 'editable', work);
    await grant(await mkdir(dora, 'edit-only', editable), 'editor', [tina.id]);
    const free = await mkdir(dora, 'free', work);
    await mkdir(dora, 'inside', free);

    for (const folder of [narrow, denying, editable]) {
      const r = await tina.api('/hcs/controller/delete', { ids: folder });
      expect(r.data.failed, JSON.stringify(r)).toEqual([{ instanceId: folder, code: 'FORBIDDEN', msg: 'the folder holds items you may not delete' }]);
    }
    for (const folder of [narrow, denying]) {
      const r = await tina.api('/hcs/controller/moveInstance', { ids: folder, targetInstanceId: target });
      expect(r.data.failed, JSON.stringify(r)).toEqual([{ instanceId: folder, code: 'FORBIDDEN', msg: 'the folder holds items you may not edit' }]);
    }
    // Nothing moved or went to the bin.
    expect(names((await dora.api('/hcs/controller/Page', { parentId: work })).data.list).sort()).toEqual(['denying', 'editable', 'free', 'narrow', 'target']);

    // Editing everywhere below is enough to move; a folder with no narrower grant below goes either way.
    expect((await tina.api('/hcs/controller/moveInstance', { ids: editable, targetInstanceId: target })).data.done).toHaveLength(1);
    expect((await tina.api('/hcs/controller/moveInstance', { ids: free, targetInstanceId: target })).data.done).toHaveLength(1);
    expect((await tina.api('/hcs/controller/delete', { ids: free })).data.done).toHaveLength(1);
    // The owner of a personal space deletes whatever grants say.
    const mine = await mkdir(tina, 'mine');
    await grant(await mkdir(tina, 'self-denied', mine), 'disable', [tina.id], tina);
    expect((await tina.api('/hcs/controller/delete', { ids: mine })).data.done).toHaveLength(1);
  });
});

describe('results of create, rename, move and copy', () => {
  it('carry editIsDisabled and isDisabled from the caller\'s permissions where the item now is', async () => {
    const up = await mkdir(dora, 'drop-box', dRoot);
    await grant(up, 'uploader', [tina.id]); // view, preview, upload, create
    const ed = await mkdir(dora, 'edit-here', dRoot);
    await grant(ed, 'editor', [tina.id]); // no delete
    const op = await mkdir(dora, 'ops-here', dRoot);
    await grant(op, 'operator', [tina.id]); // editor + delete

    const created = await tina.api('/hcs/controller/Instances', undefined, [{ classifierId: 'Folder', instanceName: encodeName('new'), parentId: up }]);
    expect(created.data[0]).toMatchObject({ instanceName: 'new', editIsDisabled: true, isDisabled: true });
    const inOps = await tina.api('/hcs/controller/Instances', undefined, [{ classifierId: 'Folder', instanceName: encodeName('new'), parentId: op }]);
    expect(inOps.data[0]).toMatchObject({ editIsDisabled: false, isDisabled: false });

    const file = await fileIn(dora, 'a.txt', op);
    const renamed = await tina.api(`/hcs/controller/Instances/${file}`, undefined, { instanceName: encodeName('b.txt') });
    expect(renamed.data).toMatchObject({ instanceName: 'b.txt', editIsDisabled: false, isDisabled: false });
    // Moved from where tina may delete to where she may not.
    const moved = await tina.api('/hcs/controller/moveInstance', { ids: file, targetInstanceId: ed });
    expect(moved.data.done[0]).toMatchObject({ instanceId: file, editIsDisabled: false, isDisabled: true });
    const renamedThere = await tina.api(`/hcs/controller/Instances/${file}`, undefined, { instanceName: encodeName('c.txt') });
    expect(renamedThere.data).toMatchObject({ editIsDisabled: false, isDisabled: true });
    const own = await uploadFile(call(tina), 'own.txt', Buffer.from('tina own'));
    const copied = await tina.api('/hcs/controller/copyInstance', { ids: own, targetInstanceId: up });
    expect(copied.data.done[0]).toMatchObject({ instanceName: 'own.txt', editIsDisabled: true, isDisabled: true });
    // In her own space she holds everything; a library root is never renamed or deleted.
    const mine = await tina.api('/hcs/controller/Instances', undefined, [{ classifierId: 'Folder', instanceName: encodeName('mine2') }]);
    expect(mine.data[0]).toMatchObject({ editIsDisabled: false, isDisabled: false });
  });
});

describe('folder trees', () => {
  it('mark a node whose sub-folders are all hidden from the caller as a leaf', async () => {
    const top = await mkdir(dora, 'tree-top', dRoot);
    await grant(top, 'editor', [tina.id]);
    const allHidden = await mkdir(dora, 'all-hidden', top);
    await grant(await mkdir(dora, 'x', allHidden), 'disable', [tina.id]);
    await grant(await mkdir(dora, 'y', allHidden), 'disable', [tina.id]);
    const someSeen = await mkdir(dora, 'some-seen', top);
    await grant(await mkdir(dora, 'x', someSeen), 'disable', [tina.id]);
    await mkdir(dora, 'y', someSeen);

    const leaf = (nodes: any[]) => Object.fromEntries(nodes.map((n) => [n.instanceName, n.isLeaf]));
    expect(leaf((await tina.api('/hcs/controller/tree/folderData', { id: top })).data)).toEqual({ 'all-hidden': true, 'some-seen': false });
    expect(leaf((await tina.api('/hcs/controller/getTreeFolder', undefined, { parentId: top })).data)).toEqual({ 'all-hidden': true, 'some-seen': false });
    expect(leaf((await dora.api('/hcs/controller/tree/folderData', { id: top })).data)).toEqual({ 'all-hidden': false, 'some-seen': false });
  });
});

describe('paging a folder with hidden children', () => {
  it('gives full offset pages and the right total, folders then files, and the same rows by cursor', async () => {
    const f = await mkdir(dora, 'paged', dRoot);
    await grant(f, 'reader', [tina.id]);
    for (const n of ['f0', 'f1', 'f2', 'f3']) {
      const id = await mkdir(dora, n, f);
      if (n === 'f1') await grant(id, 'disable', [tina.id]);
    }
    for (const n of ['x0.txt', 'x1.txt', 'x2.txt', 'x3.txt']) {
      const id = await fileIn(dora, n, f);
      if (n === 'x1.txt') await grant(id, 'disable', [tina.id]);
    }
    const seen = ['f0', 'f2', 'f3', 'x0.txt', 'x2.txt', 'x3.txt'];
    const pages: string[][] = [];
    for (let pageNo = 1; pageNo <= 4; pageNo++) {
      const p = (await tina.api('/hcs/controller/Page', { parentId: f, pageNo, pageSize: 2 })).data;
      expect(p.total).toBe(6);
      pages.push(names(p.list));
    }
    expect(pages).toEqual([['f0', 'f2'], ['f3', 'x0.txt'], ['x2.txt', 'x3.txt'], []]);

    const byCursor: string[][] = [];
    let cursor: string | undefined;
    do {
      const p = (await tina.api('/hcs/controller/Page', { parentId: f, pageSize: 2, cursor })).data;
      byCursor.push(names(p.list));
      cursor = p.nextCursor ?? undefined;
    } while (cursor);
    expect(byCursor.flat()).toEqual(seen);
    expect(byCursor.slice(0, -1).every((p) => p.length === 2)).toBe(true);

    // A search and a category count only what the caller sees.
    const search = (await tina.api('/hcs/controller/Page', { parentId: f, keyword: '1', pageSize: 10 })).data;
    expect([search.total, names(search.list)]).toEqual([0, []]);
    const folders = (await tina.api('/hcs/controller/Page', { parentId: f, fileFilter: 1, pageNo: 2, pageSize: 2 })).data;
    expect([folders.total, names(folders.list)]).toEqual([3, ['f3']]);
    // The owner sees everything.
    const forDora = (await dora.api('/hcs/controller/Page', { parentId: f, pageNo: 2, pageSize: 3 })).data;
    expect([forDora.total, names(forDora.list)]).toEqual([8, ['f3', 'x0.txt', 'x1.txt']]);
  });
});

describe('departments reached through a grant', () => {
  it('are listed by getNPDept (via grant) and their space leads the caller down to the granted folder', async () => {
    await makeDept(srv, 'g', 'Gallery');
    const gus = await makeUser(srv, 'gus', 'g');
    const gRoot = (await gus.api('/hcs/controller/Page', { instanceType: '3' })).data.parentId;
    const outer = await mkdir(gus, 'outer', gRoot);
    await mkdir(gus, 'unrelated', gRoot);
    const inner = await mkdir(gus, 'inner', outer);
    await mkdir(gus, 'sibling', outer);
    const before = (await tina.api('/hcs/controller/sysGroup/getNPDept')).data;
    expect(before.map((d: any) => d.id)).not.toContain('g');
    expect((await tina.api('/hcs/controller/Page', { instanceType: '3', deptId: 'g' })).status).toBe(404);
    // A grant that gives no view does not lead anywhere.
    await grant(await mkdir(gus, 'denied', gRoot), 'disable', [tina.id]);
    expect((await tina.api('/hcs/controller/sysGroup/getNPDept')).data.map((d: any) => d.id)).not.toContain('g');
    await grant(inner, 'reader', [tina.id]);
    // A deny stays a wall: what is granted behind it is reached by id only, never listed on the way.
    const walled = await mkdir(gus, 'walled', gRoot);
    const behind = await mkdir(gus, 'behind', walled);
    await grant(walled, 'disable', [tina.id]);
    await grant(behind, 'reader', [tina.id]);
    expect((await tina.api('/hcs/controller/Page', { parentId: walled })).status).toBe(404);
    expect((await tina.api('/hcs/controller/Page', { parentId: behind })).status).toBe(200);

    const reached = (await tina.api('/hcs/controller/sysGroup/getNPDept')).data;
    expect(reached.find((d: any) => d.id === 'g')).toEqual({ id: 'g', name: 'Gallery', path: ['root', 'g'], pathNames: expect.any(Array), via: 'grant' });
    expect(reached.find((d: any) => d.id === 't')).toMatchObject({ via: 'member' });

    // The space's root and the folders on the way list only what leads to the granted folder, and grant nothing.
    const root = (await tina.api('/hcs/controller/Page', { instanceType: '3', deptId: 'g' })).data;
    expect(root.parentId).toBe(gRoot);
    expect([root.total, names(root.list)]).toEqual([1, ['outer']]);
    expect(root.list[0]).toMatchObject({ instanceId: outer, editIsDisabled: true, isDisabled: true });
    const way = (await tina.api('/hcs/controller/Page', { parentId: outer })).data;
    expect([way.total, names(way.list)]).toEqual([1, ['inner']]);
    expect((await tina.api('/hcs/controller/Page', { parentId: inner })).status).toBe(200);
    // Passing through is not seeing: no properties, no folder made on the way.
    expect((await tina.api(`/hcs/controller/Instances/${outer}`)).status).toBe(404);
    expect((await tina.api('/hcs/controller/Instances', undefined, [{ classifierId: 'Folder', instanceName: encodeName('no'), parentId: outer }])).status).toBe(404);
    // A department with no grant for her stays out of reach.
    await makeDept(srv, 'q', 'Quiet');
    expect((await tina.api('/hcs/controller/Page', { instanceType: '3', deptId: 'q' })).status).toBe(404);
  });
});

describe('getParentAuth', () => {
  it('answers the caller\'s authorities on a folder, from the same decision', async () => {
    const up = await mkdir(dora, 'auth-box', dRoot);
    await grant(up, 'uploader', [tina.id]);
    const r = await tina.api('/hcs/controller/getParentAuth', { instanceId: up });
    expect([r.status, r.data]).toEqual([200, { instanceId: up, authorities: ['view', 'preview', 'upload', 'create'], source: 'grant' }]);
    const forDora = await dora.api('/hcs/controller/getParentAuth', { instanceId: up });
    expect(forDora.data).toEqual({ instanceId: up, authorities: ['view', 'preview', 'download', 'upload', 'create', 'edit', 'version', 'share'], source: 'default' });
    const mine = await mkdir(tina, 'auth-own');
    expect((await tina.api('/hcs/controller/getParentAuth', { instanceId: mine })).data.source).toBe('owner');
    const hidden = await mkdir(dora, 'auth-hidden', dRoot);
    expect((await tina.api('/hcs/controller/getParentAuth', { instanceId: hidden })).status).toBe(404);
  });
});

describe('sessions of accounts an administrator stops', () => {
  // On PostgreSQL a second server on the same database plays the other node; on SQLite the one server is both.
  let other: TestServer | undefined;
  let otherDir: string | undefined;
  beforeAll(async () => {
    if (!ON_POSTGRES) return;
    otherDir = mkdtempSync(join(tmpdir(), 'hcs-node-b-'));
    writeFileSync(join(otherDir, 'test-database-url'), readFileSync(join(srv.dataDir, 'test-database-url'), 'utf8'), { mode: 0o600 });
    for (const f of ['server-secret', 'rsa-private.pem']) copyFileSync(join(srv.dataDir, f), join(otherDir, f));
    other = await startServer({ dataDir: otherDir });
  });
  afterAll(async () => {
    await other?.close({ keepData: true });
    if (otherDir) rmSync(otherDir, { recursive: true, force: true });
  });

  async function signedIn(name: string): Promise<{ id: string; onA: TestUser['api']; onB: TestUser['api'] }> {
    const u = await makeUser(srv, name, 'd');
    return { id: u.id, onA: u.api, onB: apiAs(other ?? srv, u.token) };
  }
  const refused = async (api: TestUser['api']) => {
    const r = await api('/hcs/controller/Page');
    return [r.status, r.data?.code];
  };

  it('ends it on every node at its next request: disabled, expired, deleted, purged', async () => {
    const users = { off: await signedIn('s-off'), old: await signedIn('s-old'), del: await signedIn('s-del'), gone: await signedIn('s-gone') };
    for (const u of Object.values(users)) expect((await u.onB('/hcs/controller/Page')).status).toBe(200);

    expect((await admin.api('/hcs/controller/Users/setUserState', undefined, { userIds: [users.off.id], enabled: false })).status).toBe(200);
    expect((await admin.api('/hcs/controller/Users/setUserInfo', undefined, { userId: users.old.id, userExpiredTime: Date.now() - 60_000 })).status).toBe(200);
    expect((await admin.api('/hcs/controller/Users/delUserInfo', undefined, { userIds: [users.del.id] })).status).toBe(200);
    expect((await admin.api('/hcs/controller/Users/delUserInfo', undefined, { userIds: [users.gone.id] })).status).toBe(200);
    expect((await admin.api('/hcs/controller/Users/realDeleteUser', undefined, { userId: users.gone.id })).status).toBe(200);

    for (const api of [users.off.onB, users.off.onA]) expect(await refused(api)).toEqual([401, 'UNAUTHENTICATED']);
    for (const api of [users.old.onB, users.old.onA]) expect(await refused(api)).toEqual([403, 'ACCOUNT_EXPIRED']);
    for (const u of [users.del, users.gone]) for (const api of [u.onB, u.onA]) expect(await refused(api)).toEqual([401, 'UNAUTHENTICATED']);
  });
});
