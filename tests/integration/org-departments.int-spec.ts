// Departments (issue #14) through the real server: the tree and its calls, moves never under themselves, deletion
// only when empty, managers confined to their subtree, nested quota (a sub-department's quota bound by what its parent
// has left, uploads charged up the chain) and concurrent uploads into two sub-departments that share one parent quota.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHash } from 'node:crypto';
import { encodeName } from '@hcs/openapi/client';
import { startServer, type TestServer } from '../helpers/server.ts';
import { createUser } from '../../mock-server/src/db/users-repo.ts';

let s: TestServer;
let admin: string;

type Env = { ret: number; msg: string; data: any };

async function get(token: string, path: string, query: Record<string, string | number> = {}): Promise<{ status: number; body: Env }> {
  const qs = new URLSearchParams(Object.entries(query).map(([k, v]) => [k, String(v)])).toString();
  const res = await s.call(`/hcs/controller/${path}${qs ? `?${qs}` : ''}`, { token });
  return { status: res.status, body: (await res.json()) as Env };
}

async function post(token: string, path: string, body: unknown): Promise<{ status: number; body: Env }> {
  const res = await s.call(`/hcs/controller/${path}`, { token, method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  return { status: res.status, body: (await res.json()) as Env };
}

async function mkDept(name: string, parentId?: string, extra: Record<string, unknown> = {}): Promise<string> {
  const r = await post(admin, 'sysGroup/setGroupInfo', { name, ...(parentId ? { parentId } : {}), ...extra });
  expect(r.status, JSON.stringify(r.body)).toBe(200);
  return r.body.data.id as string;
}

async function member(name: string, deptId: string | null): Promise<{ id: string; token: string }> {
  const password = `${name}#Pass-word-1`;
  const u = await createUser(s.built.ctx.db, { userName: name, password, deptId });
  return { id: u.id, token: (await s.login(name, password)).token };
}

beforeAll(async () => {
  s = await startServer();
  admin = (await s.login()).token;
});
afterAll(async () => {
  await s?.close();
});

describe('the department tree', () => {
  it('creates, lists, counts, renames and moves departments, never under themselves', async () => {
    const sales = await mkDept('Sales');
    const east = await mkDept('East', sales);
    const north = await mkDept('North', east);
    await member('tree-a', east);

    const tree = await get(admin, 'sysGroup/treeGroup');
    expect(tree.body.data[0].id).toBe('root');
    const salesNode = tree.body.data[0].children.find((c: any) => c.id === sales);
    expect(salesNode.children[0]).toMatchObject({ id: east, name: 'East', memberCount: 1, children: [{ id: north }] });

    expect((await get(admin, 'sysGroup/getSubDeptNum', { id: sales })).body.data).toEqual({ deptNum: 1, allDeptNum: 2, userNum: 0, allUserNum: 1 });
    expect((await get(admin, 'sysGroup/getAllSubList', { id: sales })).body.data.map((d: any) => d.id)).toEqual([east]);
    const all = (await get(admin, 'sysGroup/getAllSubDept', { id: sales })).body.data;
    expect(all.map((d: any) => [d.id, d.depth])).toEqual([[east, 1], [north, 2]]);
    expect(all[1].pathNames).toEqual(['Company', 'Sales', 'East', 'North']);
    expect((await get(admin, 'sysGroup/treeData', { id: sales })).body.data).toEqual([{ id: east, name: 'East', kind: 'dept', parentId: sales, isLeaf: false }]);
    const level = (await get(admin, 'Users/treeData', { id: east })).body.data;
    expect(level.map((n: any) => [n.kind, n.name])).toEqual([['dept', 'North'], ['user', 'tree-a']]);

    // Names are unique among siblings, case-insensitively.
    const dup = await post(admin, 'sysGroup/setGroupInfo', { name: 'EAST', parentId: sales });
    expect([dup.status, dup.body.data.code]).toEqual([409, 'NAME_EXISTS']);
    const bad = await post(admin, 'sysGroup/setGroupInfo', { name: 'a/b', parentId: sales });
    expect([bad.status, bad.body.data.code]).toEqual([422, 'NAME_INVALID']);

    // Never under itself or one of its own sub-departments; the root never moves.
    for (const parentId of [east, north]) {
      const r = await post(admin, 'sysGroup/setGroupInfo', { id: east, parentId });
      expect([r.status, r.body.data.code]).toEqual([409, 'CONFLICT']);
    }
    const rootMove = await post(admin, 'sysGroup/setGroupInfo', { id: 'root', parentId: sales });
    expect(rootMove.status).toBe(409);

    const moved = await post(admin, 'sysGroup/setGroupInfo', { id: east, parentId: 'root', name: 'East Region' });
    expect(moved.body.data).toMatchObject({ id: east, parentId: 'root', name: 'East Region', path: ['root', east] });
    const northNow = (await get(admin, 'sysGroup/getGroupInfo', { id: north })).body.data;
    expect(northNow.path).toEqual(['root', east, north]);
    expect(northNow.pathNames).toEqual(['Company', 'East Region', 'North']);
  });

  it('deletes a department only when it is empty, or with its members moved', async () => {
    const ops = await mkDept('Ops');
    const infra = await mkDept('Infra', ops);
    const u = await member('ops-a', infra);

    const withChild = await post(admin, 'sysGroup/delGroupInfo', { id: ops });
    expect([withChild.status, withChild.body.data.code]).toEqual([409, 'DEPT_NOT_EMPTY']);
    const withMember = await post(admin, 'sysGroup/delGroupInfo', { id: infra });
    expect([withMember.status, withMember.body.data.code]).toEqual([409, 'DEPT_NOT_EMPTY']);
    const root = await post(admin, 'sysGroup/delGroupInfo', { id: 'root' });
    expect(root.status).toBe(409);

    // Files in the department's space keep it too.
    const folder = await s.call('/hcs/controller/Instances', {
      token: u.token, method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify([{ classifierId: 'Folder', instanceName: encodeName('plans'), instanceType: '3' }]),
    });
    expect(folder.status).toBe(200);
    const withFiles = await post(admin, 'sysGroup/delGroupInfo', { id: infra, moveMembersTo: ops });
    expect([withFiles.status, withFiles.body.data.code]).toEqual([409, 'DEPT_NOT_EMPTY']);
    const tools = await mkDept('Tools', ops);
    const t = await member('tools-a', tools);
    const gone = await post(admin, 'sysGroup/delGroupInfo', { id: tools, moveMembersTo: ops });
    expect(gone.status, JSON.stringify(gone.body)).toBe(200);
    expect((await get(admin, 'Users/userInfo', { userId: t.id })).body.data.deptId).toBe(ops);
    expect((await get(admin, 'sysGroup/getGroupInfo', { id: tools })).status).toBe(404);
    expect((await get(admin, 'Users/userInfo', { userId: u.id })).body.data.deptId).toBe(infra);
  });
});

describe('department spaces', () => {
  it('are addressed by deptId where no folder is given, for those who can reach them only', async () => {
    const lab = await mkDept('Lab');
    const shop = await mkDept('Shop');
    const m = await member('lab-member', lab);
    const outsider = await member('shop-member', shop);
    const made = await s.call(`/hcs/controller/Instances?deptId=${lab}`, {
      token: m.token, method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify([{ classifierId: 'Folder', instanceName: encodeName('samples'), instanceType: '3' }]),
    });
    expect(made.status).toBe(200);
    const listed = await get(m.token, 'Page', { instanceType: '3', deptId: lab });
    expect(listed.body.data.list.map((r: any) => [r.instanceName, r.instanceType])).toEqual([['samples', '3']]);
    expect((await get(admin, 'Page', { instanceType: '3', deptId: lab })).body.data.list.map((r: any) => r.instanceName)).toEqual(['samples']);
    for (const deptId of [lab, 'no-such-dept']) {
      const r = await get(outsider.token, 'Page', { instanceType: '3', deptId });
      expect([r.status, r.body.data.code]).toEqual([404, 'NOT_FOUND']);
    }
    const up = await get(outsider.token, 'API/file-uploadable', { fSize: 1, fName: encodeName('x.bin'), fMd5: 'a'.repeat(64), instanceType: '3', deptId: lab });
    expect(up.status).toBe(404);
  });

  it('drop their grants when the department is deleted', async () => {
    const temp = await mkDept('Temporary');
    await get(admin, 'Page');
    const rootId = (await s.sql.all<{ id: string }>("SELECT id FROM instances WHERE space_kind = 'user' AND parent_id IS NULL"))[0]!.id;
    const role = (await s.sql.all<{ id: string }>("SELECT id FROM roles WHERE code = 'reader'"))[0]!.id;
    await s.sql.run("INSERT INTO grants (id, role_id, subject_kind, subject_id, instance_id, created_by, created_at) VALUES (?, ?, 'dept', ?, ?, ?, ?)", 'g-temp', role, temp, rootId, 'x', Date.now());
    expect((await post(admin, 'sysGroup/delGroupInfo', { id: temp })).status).toBe(200);
    expect(await s.sql.all("SELECT id FROM grants WHERE id = 'g-temp'")).toEqual([]);
  });
});

describe('department managers', () => {
  it('administer their own subtree only', async () => {
    const rd = await mkDept('R&D');
    const web = await mkDept('Web', rd);
    const hr = await mkDept('HR');
    const boss = await member('rd-boss', rd);
    await post(admin, 'sysGroup/setGroupInfo', { id: rd, managerIds: [boss.id] });
    const plain = await member('rd-plain', web);

    // Inside: read, create below, change what is below.
    expect((await get(boss.token, 'sysGroup/getGroupInfo', { id: web })).status).toBe(200);
    const api = await post(boss.token, 'sysGroup/setGroupInfo', { name: 'API', parentId: web });
    expect(api.status).toBe(200);
    expect((await post(boss.token, 'sysGroup/setGroupInfo', { id: api.body.data.id, name: 'Public API' })).status).toBe(200);
    expect((await get(boss.token, 'sysGroup/groupRoleUserList', { id: rd })).body.data.list).toEqual([{ userId: boss.id, userName: 'rd-boss', realName: 'rd-boss', isManager: true }]);
    expect((await post(boss.token, 'sysGroup/delGroupInfo', { id: api.body.data.id })).status).toBe(200);

    // Their own department itself needs a manager above it (no raising one's own quota); outside is refused.
    const own = await post(boss.token, 'sysGroup/setGroupInfo', { id: rd, quotaBytes: 1 });
    expect([own.status, own.body.data.code]).toEqual([403, 'FORBIDDEN']);
    for (const r of [
      await get(boss.token, 'sysGroup/getGroupInfo', { id: hr }),
      await post(boss.token, 'sysGroup/setGroupInfo', { name: 'Sneaky', parentId: hr }),
      await post(boss.token, 'sysGroup/setGroupInfo', { id: web, parentId: hr }),
      await post(boss.token, 'sysGroup/delGroupInfo', { id: hr }),
      await post(boss.token, 'sysGroup/setGroupInfo', { name: 'Top' }),
    ]) {
      expect([r.status, r.body.data.code]).toEqual([403, 'FORBIDDEN']);
    }
    const unknown = await get(boss.token, 'sysGroup/getGroupInfo', { id: 'no-such-dept' });
    expect([unknown.status, unknown.body.data.code]).toEqual([404, 'NOT_FOUND']);

    // A plain member reads the chart but administers nothing.
    expect((await get(plain.token, 'sysGroup/treeGroup')).status).toBe(200);
    expect((await get(plain.token, 'sysGroup/getGroupInfo', { id: web })).status).toBe(403);
    expect((await post(plain.token, 'sysGroup/setGroupInfo', { name: 'Mine', parentId: web })).status).toBe(403);

    // getNPDept: own chain as a member, the managed subtree as a manager, everything for administrators.
    const reach = (await get(boss.token, 'sysGroup/getNPDept')).body.data;
    expect(reach.map((d: any) => [d.id, d.via])).toEqual(expect.arrayContaining([['root', 'member'], [rd, 'member'], [web, 'manager']]));
    expect(reach.some((d: any) => d.id === hr)).toBe(false);
    const plainReach = (await get(plain.token, 'sysGroup/getNPDept')).body.data.map((d: any) => d.id);
    expect(plainReach.sort()).toEqual(['root', rd, web].sort());
    expect((await get(admin, 'sysGroup/getNPDept')).body.data.every((d: any) => d.via === 'admin')).toBe(true);
  });

  it('lets managers appoint managers only from inside the subtree they manage; administrators appoint anyone', async () => {
    const ops = await mkDept('Support');
    const night = await mkDept('Night shift', ops);
    const finance = await mkDept('Treasury');
    const chief = await member('ops-chief', ops);
    await post(admin, 'sysGroup/setGroupInfo', { id: ops, managerIds: [chief.id] });
    const insider = await member('ops-insider', night);
    const outsider = await member('fin-outsider', finance);
    const homeless = await member('no-dept', null);

    for (const ids of [[outsider.id], [insider.id, outsider.id], [homeless.id]]) {
      const r = await post(chief.token, 'sysGroup/setGroupInfo', { id: night, managerIds: ids });
      expect([r.status, r.body.data.code]).toEqual([403, 'FORBIDDEN']);
      expect(r.body.msg).toMatch(/outside/);
    }
    const created = await post(chief.token, 'sysGroup/setGroupInfo', { name: 'Weekend', parentId: ops, managerIds: [outsider.id] });
    expect([created.status, created.body.data.code]).toEqual([403, 'FORBIDDEN']);
    // Nothing was appointed: the outsider still administers nothing there.
    expect((await get(outsider.token, 'sysGroup/getGroupInfo', { id: night })).status).toBe(403);

    expect((await post(chief.token, 'sysGroup/setGroupInfo', { id: night, managerIds: [insider.id] })).status).toBe(200);
    // An administrator appoints from anywhere, and a manager's later edit may keep that appointment.
    expect((await post(admin, 'sysGroup/setGroupInfo', { id: night, managerIds: [insider.id, outsider.id] })).status).toBe(200);
    expect((await post(chief.token, 'sysGroup/setGroupInfo', { id: night, name: 'Night', managerIds: [insider.id, outsider.id] })).status).toBe(200);
  });
});

describe('nested department quota', () => {
  const sha = (b: Buffer) => createHash('sha256').update(b).digest('hex');

  it("bounds a sub-department's quota by what its parent has left", async () => {
    const parent = await mkDept('Quota Parent', undefined, { quotaBytes: 1000 });
    const child = await mkDept('Quota Child', parent, { quotaBytes: 600 });
    const over = await post(admin, 'sysGroup/setGroupInfo', { name: 'Too Big', parentId: parent, quotaBytes: 1001 });
    expect([over.status, over.body.data.code]).toEqual([409, 'SPACE_NOT_ENOUGH']);
    const unlimited = await post(admin, 'sysGroup/setGroupInfo', { id: child, quotaBytes: null });
    expect([unlimited.status, unlimited.body.data.code]).toEqual([409, 'SPACE_NOT_ENOUGH']);

    // Uploads into the child are charged to it and to its parent, so the parent's room shrinks for every child.
    const u = await member('quota-up', child);
    const bytes = Buffer.alloc(500, 7);
    const up = (await get(u.token, 'API/file-uploadable', { fSize: bytes.length, fName: encodeName('a.bin'), fMd5: sha(bytes), instanceType: '3' })).body.data;
    expect(up.uploadflag).toBe(3);
    const parentInfo = (await get(admin, 'groupCapacity/groupCapInfo/' + parent + '/NetDisk')).body.data;
    expect(parentInfo.usedBytes).toBe(500);
    const sibling = await post(admin, 'sysGroup/setGroupInfo', { name: 'Sibling', parentId: parent, quotaBytes: 501 });
    expect([sibling.status, sibling.body.data.code]).toEqual([409, 'SPACE_NOT_ENOUGH']);
    expect((await post(admin, 'sysGroup/setGroupInfo', { name: 'Sibling', parentId: parent, quotaBytes: 500 })).status).toBe(200);
    // The child's own use counts as the parent's: raising its quota to all the parent has is allowed.
    expect((await post(admin, 'sysGroup/setGroupInfo', { id: child, quotaBytes: 1000 })).status).toBe(200);
    expect((await post(admin, 'sysGroup/setGroupInfo', { id: child, quotaBytes: 1001 })).status).toBe(409);
  });

  it('never lets concurrent uploads into two sub-departments take more than their common parent quota', async () => {
    const size = 3000;
    const parent = await mkDept('Race Parent', undefined, { quotaBytes: 10_000 });
    const left = await mkDept('Race Left', parent, { quotaBytes: 10_000 });
    const right = await mkDept('Race Right', parent, { quotaBytes: 10_000 });
    const a = await member('race-left', left);
    const b = await member('race-right', right);
    const attempt = (token: string, i: number) => {
      const bytes = Buffer.alloc(size, i);
      return get(token, 'API/file-uploadable', { fSize: size, fName: encodeName(`f${i}.bin`), fMd5: sha(bytes), instanceType: '3' });
    };
    const results = await Promise.all(Array.from({ length: 8 }, (_, i) => attempt(i % 2 ? a.token : b.token, i)));
    const flags = results.map((r) => r.body.data.uploadflag);
    // 3 x 3000 fit in 10,000; a fourth never does, whichever department asks.
    expect(flags.filter((f) => f === 3).length).toBe(3);
    expect(flags.filter((f) => f === 2).length).toBe(5);
    const cap = (await get(admin, `groupCapacity/groupCapInfo/${parent}/NetDisk`)).body.data;
    expect(cap.usedBytes).toBe(9000);
  });
});
