// Accounts (issue #14) through the real server: administration calls and their denials, account states that stop
// sign-in and old sessions at once (disabled, expired, deleted), a reset password that must be changed before anything
// else, restore with every file back, purge with hand-over or to the second-level recycle bin, and the CSV import.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHcsClient, encodeName, unwrap } from '@hcs/openapi/client';
import { encryptForServer, startServer, type TestServer } from '../helpers/server.ts';
import { uploadFile, type ApiCall } from '../helpers/upload.ts';

let s: TestServer;
let admin: string;
let publicKey: string;

type Env = { ret: number; msg: string; data: any };
type Res = { status: number; body: Env };

async function get(token: string, path: string, query: Record<string, string | number> = {}): Promise<Res> {
  const qs = new URLSearchParams(Object.entries(query).map(([k, v]) => [k, String(v)])).toString();
  const res = await s.call(`/hcs/controller/${path}${qs ? `?${qs}` : ''}`, { token });
  return { status: res.status, body: (await res.json()) as Env };
}

async function post(token: string, path: string, body: unknown): Promise<Res> {
  const res = await s.call(`/hcs/controller/${path}`, { token, method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  return { status: res.status, body: (await res.json()) as Env };
}

const as = (token: string): ApiCall => async (path, query, body) => {
  const r = body === undefined ? await get(token, path.replace('/hcs/controller/', ''), query) : await post(token, path.replace('/hcs/controller/', ''), body);
  return r.body;
};

/** Signs in, answering the failure's status and code instead of throwing. */
async function signIn(user: string, password: string): Promise<{ token?: string; status: number; code?: string }> {
  const anon = createHcsClient({ baseUrl: s.baseUrl });
  const res = await anon.GET('/hcs/services/System/Token', {
    params: { query: { username: user, password: await encryptForServer(publicKey, password) } },
    headers: { 'X-HCS-Client': 'cli' },
  });
  const body = (res.data ?? res.error) as any;
  return { token: body?.data?.token, status: res.response.status, code: body?.data?.code };
}

async function newUser(userName: string, extra: Record<string, unknown> = {}): Promise<{ id: string; password: string; token: string }> {
  const password = `${userName}#Pass-word-1`;
  const r = await post(admin, 'Users/setUserInfo', { userName, password: await encryptForServer(publicKey, password), ...extra });
  expect(r.status, JSON.stringify(r.body)).toBe(200);
  const t = await signIn(userName, password);
  return { id: r.body.data.userId, password, token: t.token! };
}

const me = (token: string) => get(token, '../controller/System/Current/User');

beforeAll(async () => {
  s = await startServer();
  admin = (await s.login()).token;
  const anon = createHcsClient({ baseUrl: s.baseUrl });
  publicKey = unwrap(await anon.GET('/hcs/services/System/platformInfo', {})).data!.publicKey;
});
afterAll(async () => {
  await s?.close();
});

describe('account administration', () => {
  it('creates, reads, lists, labels and edits accounts; refuses non-administrators', async () => {
    const dept = (await post(admin, 'sysGroup/setGroupInfo', { name: 'Finance' })).body.data.id;
    const ann = await newUser('ann', { realName: 'Ann Lee', deptId: dept, email: 'ann@example.com', quotaBytes: 1024 ** 3, labels: ['VIP', 'vip', 'Remote'] });
    const info = (await get(admin, 'Users/userInfo', { userId: ann.id })).body.data;
    expect(info).toMatchObject({ userName: 'ann', realName: 'Ann Lee', deptId: dept, deptPathNames: ['Company', 'Finance'], email: 'ann@example.com', quotaBytes: 1024 ** 3, labels: ['Remote', 'VIP'], state: 'active', isAdmin: false });
    expect(JSON.stringify(info)).not.toMatch(/hash|scrypt/i);

    const page = (await get(admin, 'Users/listByGroupId', { deptId: dept })).body.data;
    expect(page.list.map((u: any) => u.userName)).toEqual(['ann']);
    expect((await get(admin, 'Users/listByGroupId', { label: 'remote' })).body.data.list.map((u: any) => u.userName)).toEqual(['ann']);
    expect((await post(admin, 'Users/userLabels', { userId: ann.id, labels: ['Audit'] })).body.data).toEqual(['Audit']);
    expect((await get(admin, 'Users/userLabels', { userId: ann.id })).body.data).toEqual(['Audit']);
    expect((await get(ann.token, 'Users/group/users', { keyword: 'ann' })).body.data).toEqual([{ userId: ann.id, userName: 'ann', realName: 'Ann Lee', deptId: dept }]);
    const tree = (await get(ann.token, 'Users/treeGroupAndUser', { keyword: 'ann' })).body.data;
    expect(tree.tree[0].children.find((d: any) => d.id === dept).users[0].userName).toBe('ann');

    expect((await post(admin, 'Users/setUserQuota', { userIds: [ann.id], quotaBytes: 5 })).body.data).toEqual({ done: [ann.id], failed: [] });
    expect((await get(admin, 'Users/userInfo', { userId: ann.id })).body.data.quotaBytes).toBe(5);
    const other = (await post(admin, 'sysGroup/setGroupInfo', { name: 'Legal' })).body.data.id;
    expect((await post(admin, 'Users/moveUsers', { userIds: [ann.id], deptId: other })).body.data.done).toEqual([ann.id]);
    expect((await me(ann.token)).body.data.userDeptId).toBe(other);

    const taken = await post(admin, 'Users/setUserInfo', { userName: 'ANN', password: await encryptForServer(publicKey, 'Another#Pass-1') });
    expect([taken.status, taken.body.data.code]).toEqual([409, 'NAME_EXISTS']);
    const weak = await post(admin, 'Users/setUserInfo', { userName: 'weak', password: await encryptForServer(publicKey, 'short') });
    expect([weak.status, weak.body.data.code]).toEqual([422, 'PASSWORD_POLICY']);

    // A plain account administers nothing, and another user's ids reveal nothing beyond a refusal.
    for (const [i, r] of [
      await get(ann.token, 'Users/userInfo', { userId: ann.id }),
      await get(ann.token, 'Users/listByGroupId', { deptId: other }),
      await get(ann.token, 'Users/listByGroupId'),
      await get(ann.token, 'Users/deletedUsers'),
      await post(ann.token, 'Users/setUserInfo', { userId: ann.id, quotaBytes: null }),
      await post(ann.token, 'Users/realDeleteUser', { userId: ann.id }),
    ].entries()) {
      expect(r.status, `call ${i}`).toBe(403);
    }
    const batch = (await post(ann.token, 'Users/delUserInfo', { userIds: [ann.id] })).body.data;
    expect(batch).toEqual({ done: [], failed: [{ userId: ann.id, code: 'FORBIDDEN', message: expect.any(String) }] });
  });

  it('lets a department manager administer accounts in their subtree only', async () => {
    const eng = (await post(admin, 'sysGroup/setGroupInfo', { name: 'Engineering' })).body.data.id;
    const ops = (await post(admin, 'sysGroup/setGroupInfo', { name: 'Operations' })).body.data.id;
    const lead = await newUser('eng-lead', { deptId: eng });
    await post(admin, 'sysGroup/setGroupInfo', { id: eng, managerIds: [lead.id] });
    const dev = await newUser('eng-dev', { deptId: eng });
    const op = await newUser('ops-one', { deptId: ops });

    expect((await get(lead.token, 'Users/listByGroupId', { deptId: eng })).body.data.list.map((u: any) => u.userName).sort()).toEqual(['eng-dev', 'eng-lead']);
    expect((await get(lead.token, 'Users/userInfo', { userId: dev.id })).status).toBe(200);
    expect((await get(lead.token, 'Users/userInfo', { userId: op.id })).status).toBe(403);
    expect((await get(lead.token, 'Users/userInfo', { userId: 'no-such-user' })).status).toBe(404);
    expect((await get(lead.token, 'Users/listByGroupId', { deptId: ops })).status).toBe(403);
    const made = await post(lead.token, 'Users/setUserInfo', { userName: 'eng-new', password: await encryptForServer(publicKey, 'Eng#New-pass-1'), deptId: eng });
    expect(made.status).toBe(200);
    expect((await post(lead.token, 'Users/setUserInfo', { userName: 'eng-out', password: await encryptForServer(publicKey, 'Eng#Out-pass-1'), deptId: ops })).status).toBe(403);
    expect((await post(lead.token, 'Users/setUserInfo', { userName: 'eng-top', password: await encryptForServer(publicKey, 'Eng#Top-pass-1') })).status).toBe(403);
    // Not their own quota, and not into a department outside their subtree.
    expect((await post(lead.token, 'Users/setUserInfo', { userId: lead.id, quotaBytes: null })).status).toBe(403);
    expect((await post(lead.token, 'Users/moveUsers', { userIds: [dev.id], deptId: ops })).status).toBe(403);

    const mixed = (await post(lead.token, 'Users/setUserState', { userIds: [dev.id, op.id], enabled: false })).body.data;
    expect(mixed.done).toEqual([dev.id]);
    expect(mixed.failed).toEqual([{ userId: op.id, code: 'FORBIDDEN', message: expect.any(String) }]);
  });
});

describe('account states', () => {
  it('stops a disabled account at sign-in and on its existing session, until it is enabled again', async () => {
    const u = await newUser('dora');
    expect((await me(u.token)).status).toBe(200);
    expect((await post(admin, 'Users/setUserState', { userIds: [u.id], enabled: false })).body.data.done).toEqual([u.id]);
    const old = await me(u.token);
    expect(old.status).toBe(401);
    expect(await signIn('dora', u.password)).toMatchObject({ status: 403, code: 'ACCOUNT_FROZEN' });
    expect((await get(admin, 'Users/listByGroupId', { state: 'disabled' })).body.data.list.map((x: any) => x.userName)).toContain('dora');
    await post(admin, 'Users/setUserState', { userIds: [u.id], enabled: true });
    const again = await signIn('dora', u.password);
    expect((await me(again.token!)).status).toBe(200);

    // An administrator cannot disable themselves.
    const self = (await me(admin)).body.data.userId;
    expect((await post(admin, 'Users/setUserState', { userIds: [self], enabled: false })).body.data.failed[0].code).toBe('FORBIDDEN');
  });

  it('stops an expired account, on its old session too', async () => {
    const u = await newUser('eve');
    const past = Date.now() - 60_000;
    expect((await post(admin, 'Users/setUserInfo', { userId: u.id, userExpiredTime: past })).status).toBe(200);
    const old = await me(u.token);
    expect([old.status, old.body.data.code]).toEqual([403, 'ACCOUNT_EXPIRED']);
    expect(await signIn('eve', u.password)).toMatchObject({ status: 403, code: 'ACCOUNT_EXPIRED' });
    expect((await get(admin, 'Users/userInfo', { userId: u.id })).body.data.state).toBe('expired');
    await post(admin, 'Users/setUserInfo', { userId: u.id, userExpiredTime: 1 });
    expect((await signIn('eve', u.password)).status).toBe(200);
  });

  it('forces a reset password to be changed before anything else', async () => {
    const u = await newUser('rita');
    const temp = 'Temporary#Pass-9';
    expect((await post(admin, 'Users/resetPassword', { userId: u.id, password: await encryptForServer(publicKey, temp) })).status).toBe(200);
    expect((await me(u.token)).status).toBe(401);
    const t = (await signIn('rita', temp)).token!;
    const current = await me(t);
    expect([current.status, current.body.data.mustChangePassword]).toEqual([200, true]);
    const blocked = await get(t, 'Page');
    expect([blocked.status, blocked.body.data.code]).toEqual([403, 'PASSWORD_CHANGE_REQUIRED']);
    const changed = await post(t, 'Users/userPassword', {
      userId: u.id, oldPassword: await encryptForServer(publicKey, temp), newPassword: await encryptForServer(publicKey, 'Rita#Own-pass-42'),
    });
    expect(changed.status, JSON.stringify(changed.body)).toBe(200);
    expect((await get(t, 'Page')).status).toBe(200);
  });

  it('deletes an account into the deleted list, stops it, and restores it with all its files', async () => {
    const u = await newUser('dan');
    const file = await uploadFile(as(u.token), 'report.txt', Buffer.from('quarterly numbers'));
    expect((await post(admin, 'Users/delUserInfo', { userIds: [u.id] })).body.data.done).toEqual([u.id]);
    expect((await me(u.token)).status).toBe(401);
    expect(await signIn('dan', u.password)).toMatchObject({ status: 401, code: 'LOGIN_FAILED' });
    expect((await get(admin, 'Users/deletedUsers')).body.data.list.map((x: any) => [x.userName, x.state])).toContainEqual(['dan', 'deleted']);
    expect((await get(admin, 'Users/listByGroupId')).body.data.list.map((x: any) => x.userName)).not.toContain('dan');
    expect((await post(admin, 'Users/delUserInfo', { userIds: [u.id] })).body.data.failed[0].code).toBe('NOT_FOUND');

    expect((await post(admin, 'Users/restoreDelUser', { userIds: [u.id] })).body.data.done).toEqual([u.id]);
    const back = (await signIn('dan', u.password)).token!;
    const listed = (await get(back, 'Page')).body.data;
    expect(listed.list.map((r: any) => [r.instanceId, r.instanceName])).toEqual([[file, 'report.txt']]);
  });
});

describe('purging accounts', () => {
  it('hands the files over to another account, in a folder named after the purged one', async () => {
    const gone = await newUser('leaver');
    const heir = await newUser('heir');
    const dir = (await post(gone.token, 'Instances', [{ classifierId: 'Folder', instanceName: encodeName('projects') }])).body.data[0].instanceId;
    const f = await uploadFile(as(gone.token), 'plan.txt', Buffer.from('the plan'), { query: { parentId: dir } });
    const notDeleted = await post(admin, 'Users/realDeleteUser', { userId: gone.id, handOverTo: heir.id });
    expect([notDeleted.status, notDeleted.body.data.code]).toEqual([409, 'CONFLICT']);
    await post(admin, 'Users/delUserInfo', { userIds: [gone.id] });
    const toSelf = await post(admin, 'Users/realDeleteUser', { userId: gone.id, handOverTo: gone.id });
    expect(toSelf.status).toBe(404);

    const purged = await post(admin, 'Users/realDeleteUser', { userId: gone.id, handOverTo: heir.id });
    expect(purged.status, JSON.stringify(purged.body)).toBe(200);
    expect(purged.body.data).toMatchObject({ userId: gone.id, files: 2, bytes: 8, handedOverTo: heir.id });
    const root = (await get(heir.token, 'Page')).body.data.list;
    expect(root.map((r: any) => r.instanceName)).toEqual(['leaver']);
    const inside = (await get(heir.token, 'Page', { parentId: root[0].instanceId })).body.data.list;
    expect(inside.map((r: any) => r.instanceName)).toEqual(['projects']);
    const deeper = (await get(heir.token, 'Page', { parentId: dir })).body.data.list;
    expect(deeper.map((r: any) => r.instanceId)).toEqual([f]);
    expect((await get(admin, 'Users/userInfo', { userId: heir.id })).body.data.usedBytes).toBe(8);
    expect((await get(admin, 'Users/userInfo', { userId: gone.id })).status).toBe(404);
    expect(await signIn('leaver', gone.password)).toMatchObject({ status: 401 });
  });

  it("sends the files to the administrators' second-level recycle bin without a receiver", async () => {
    const gone = await newUser('quitter');
    const f = await uploadFile(as(gone.token), 'notes.txt', Buffer.from('notes'));
    await post(admin, 'Users/delUserInfo', { userIds: [gone.id] });
    const purged = await post(admin, 'Users/realDeleteUser', { userId: gone.id });
    expect(purged.body.data).toMatchObject({ files: 1, handedOverTo: null, folderId: null });
    const entries = await s.sql.all<{ instance_id: string; level: number }>('SELECT instance_id, level FROM recycle_entries WHERE space_id = ?', gone.id);
    expect(entries).toEqual([{ instance_id: f, level: 2 }]);
    expect(await s.sql.all('SELECT id FROM users WHERE id = ?', gone.id)).toEqual([]);
  });
});

describe('CSV import', () => {
  it('creates the good rows and reports each bad one with its code', async () => {
    const dept = (await post(admin, 'sysGroup/setGroupInfo', { name: 'Imported' })).body.data.id;
    await post(admin, 'sysGroup/setGroupInfo', { name: 'Sub', parentId: dept });
    const csv = [
      'userName,password,realName,dept,quota,expires,labels',
      'imp-one,Imp#One-pass-1,One,Imported,10G,2099-12-31,a;b',
      'imp-two,"Imp#Two,pass-2",Two,Imported/Sub,,,',
      'imp-one,Imp#One-pass-1,Dup,,,,',
      'bad/name,Imp#Bad-pass-3,,,,,',
      'imp-weak,short,,,,,',
      'imp-nodept,Imp#Nod-pass-4,,Nowhere,,,',
      'imp-date,Imp#Dat-pass-5,,,,2099-02-30,',
    ].join('\r\n');
    const res = await s.call(`/hcs/controller/Users/importUsers?deptId=${dept}`, { token: admin, method: 'POST', headers: { 'content-type': 'text/csv' }, body: csv });
    const report = ((await res.json()) as Env).data;
    expect(res.status).toBe(200);
    expect(report.created).toBe(2);
    expect(report.rows.map((r: any) => [r.row, r.userName, r.status, r.code])).toEqual([
      [2, 'imp-one', 'created', undefined],
      [3, 'imp-two', 'created', undefined],
      [4, 'imp-one', 'failed', 'NAME_EXISTS'],
      [5, 'bad/name', 'failed', 'NAME_INVALID'],
      [6, 'imp-weak', 'failed', 'PASSWORD_POLICY'],
      [7, 'imp-nodept', 'failed', 'NOT_FOUND'],
      [8, 'imp-date', 'failed', 'VALIDATION_FAILED'],
    ]);
    const one = (await get(admin, 'Users/userInfo', { userId: report.rows[0].userId })).body.data;
    expect(one).toMatchObject({ realName: 'One', deptPathNames: ['Company', 'Imported'], quotaBytes: 10 * 1024 ** 3, labels: ['a', 'b'], mustChangePassword: true });
    const two = await signIn('imp-two', 'Imp#Two,pass-2');
    expect((await get(two.token!, 'Page')).body.data.code).toBe('PASSWORD_CHANGE_REQUIRED');

    const noHeader = await s.call('/hcs/controller/Users/importUsers', { token: admin, method: 'POST', headers: { 'content-type': 'text/csv' }, body: 'a,b\n1,2' });
    expect(noHeader.status).toBe(422);
    const big = await s.call('/hcs/controller/Users/importUsers', { token: admin, method: 'POST', headers: { 'content-type': 'text/csv' }, body: 'userName\n' + 'x'.repeat(1024 * 1024 + 10) });
    expect(big.status).toBe(413);
  });
});
