// Issue #14: roles, the authority catalogue, grants and the access explanation through the real HTTP API: every
// call, with its denials (non-administrators, callers without `manage`, items they cannot see, other items' grant ids).
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { startServer, type TestServer } from '../helpers/server.ts';
import { deptRoot, makeDept, makeUser, mkdir, signInAdmin, type TestUser } from '../helpers/org.ts';

let srv: TestServer;
let admin: TestUser;
let ann: TestUser; // member of sales
let bob: TestUser; // member of sales
let cy: TestUser; // member of ops (another department)
let salesFolder: string;
let annPrivate: string;

const R = '/hcs/controller/SysRole';
const RU = '/hcs/controller/SysRoleUser';

beforeAll(async () => {
  srv = await startServer();
  admin = await signInAdmin(srv);
  await makeDept(srv, 'sales', 'Sales');
  await makeDept(srv, 'ops', 'Ops');
  ann = await makeUser(srv, 'ann', 'sales');
  bob = await makeUser(srv, 'bob', 'sales');
  cy = await makeUser(srv, 'cy', 'ops');
  salesFolder = await mkdir(ann, 'plans', await deptRoot(ann), '3');
  annPrivate = await mkdir(ann, 'diary');
});
afterAll(async () => {
  expect(srv.violations).toEqual([]);
  await srv.close();
});

describe('SysAuth getAllAuth', () => {
  it('lists the eleven authorities in catalogue order with Chinese and English names', async () => {
    const r = await bob.api('/hcs/controller/SysAuth/getAllAuth');
    expect(r.status).toBe(200);
    expect(r.data.map((a: any) => a.code)).toEqual(['view', 'preview', 'download', 'upload', 'create', 'edit', 'delete', 'version', 'share', 'shareExternal', 'manage']);
    expect(r.data[1]).toMatchObject({ code: 'preview', name: '预览', nameEn: 'Preview', sort: 2 });
    expect(r.data[10]).toMatchObject({ code: 'manage', name: '权限管理' });
  });
});

describe('SysRole reads', () => {
  it('getAllRoleInfo answers the seeded catalogue with the design table to any signed-in user', async () => {
    const r = await bob.api(`${R}/getAllRoleInfo`);
    expect(r.status).toBe(200);
    const by = new Map<string, any>(r.data.map((x: any) => [x.roleCode, x]));
    expect(by.size).toBe(29);
    expect(by.get('observer')).toMatchObject({ roleId: 'observer', kind: 'file', builtin: true, deny: false, authorities: ['view'] });
    expect(by.get('uploader').authorities).toEqual(['view', 'preview', 'upload', 'create']);
    expect(by.get('operator').authorities).toEqual(['view', 'preview', 'download', 'upload', 'create', 'edit', 'delete', 'version']);
    expect(by.get('sharer').authorities).toEqual(['view', 'preview', 'download', 'share', 'shareExternal']);
    expect(by.get('disable')).toMatchObject({ deny: true, authorities: [] });
    expect(by.get('manager').authorities).toHaveLength(11);
    expect(by.get('group_leader')).toMatchObject({ kind: 'group', authorities: ['view', 'preview', 'download', 'upload', 'create', 'edit', 'delete', 'version', 'share', 'shareExternal'] });
    expect(by.get('groupShare_view_only')).toMatchObject({ kind: 'groupShare', authorities: ['view'] });
    const groupOnly = await bob.api(`${R}/getAllRoleInfo`, { kind: 'group' });
    expect(groupOnly.data.map((x: any) => x.roleCode).sort()).toEqual(['file_leader', 'group_administrator', 'group_leader', 'group_ordinary_members']);
  });

  it('fileSharingRoleList offers file roles with view, without deny roles and implicit defaults', async () => {
    const r = await bob.api(`${R}/fileSharingRoleList`);
    const codes = r.data.map((x: any) => x.roleCode);
    expect(codes).toEqual(['observer', 'reader', 'downloader', 'uploader', 'editor', 'operator', 'manager', 'sharer', 'sharedby', 'design']);
  });

  it('pageRoleInfo pages and filters for administrators, 403 for others', async () => {
    const p1 = await admin.api(`${R}/pageRoleInfo`, { pageNo: 1, pageSize: 5 });
    expect(p1.data).toMatchObject({ total: 29, pageNo: 1, pageSize: 5 });
    expect(p1.data.list).toHaveLength(5);
    const p2 = await admin.api(`${R}/pageRoleInfo`, { pageNo: 2, pageSize: 5 });
    expect(p2.data.list[0].roleCode).not.toBe(p1.data.list[0].roleCode);
    const found = await admin.api(`${R}/pageRoleInfo`, { keyword: '阅读', kind: 'file' });
    expect(found.data.list.map((x: any) => x.roleCode)).toEqual(['reader']);
    const denied = await bob.api(`${R}/pageRoleInfo`);
    expect([denied.status, denied.data.code]).toEqual([403, 'FORBIDDEN']);
  });
});

describe('SysRole changes (administrators)', () => {
  it('creates, updates and deletes a role; refuses builtin roles, duplicate codes, bad input and non-administrators', async () => {
    const made = await admin.api(`${R}/roleInfo`, undefined, { roleCode: 'auditor', roleName: '审计员', roleNameEn: 'Auditor', authorities: ['preview', 'view'] });
    expect(made.status, JSON.stringify(made)).toBe(200);
    expect(made.data).toMatchObject({ roleCode: 'auditor', kind: 'file', builtin: false, deny: false, authorities: ['view', 'preview'], grantCount: 0 });
    const id = made.data.roleId;
    expect(id).not.toBe('auditor');

    const dup = await admin.api(`${R}/roleInfo`, undefined, { roleCode: 'AUDITOR', roleName: 'x', authorities: [] });
    expect([dup.status, dup.data.code]).toEqual([409, 'ROLE_EXISTS']);
    const dupBuiltin = await admin.api(`${R}/roleInfo`, undefined, { roleCode: 'Reader', roleName: 'x', authorities: [] });
    expect(dupBuiltin.data.code).toBe('ROLE_EXISTS');

    const upd = await admin.api(`${R}/roleInfo`, undefined, { roleId: id, roleCode: 'auditor', roleName: '审计', authorities: ['view', 'download'], sort: 5 });
    expect(upd.data).toMatchObject({ roleId: id, roleName: '审计', authorities: ['view', 'download'], sort: 5 });
    const renamed = await admin.api(`${R}/roleInfo`, undefined, { roleId: id, roleCode: 'other', roleName: 'x', authorities: [] });
    expect([renamed.status, renamed.data.code]).toEqual([422, 'VALIDATION_FAILED']);

    const builtin = await admin.api(`${R}/roleInfo`, undefined, { roleId: 'reader', roleCode: 'reader', roleName: 'x', authorities: ['view'] });
    expect([builtin.status, builtin.data.code]).toEqual([409, 'ROLE_BUILTIN']);
    const unknown = await admin.api(`${R}/roleInfo`, undefined, { roleId: 'nope', roleCode: 'nope', roleName: 'x', authorities: [] });
    expect([unknown.status, unknown.data.code]).toEqual([404, 'NOT_FOUND']);
    const denyWith = await admin.api(`${R}/roleInfo`, undefined, { roleCode: 'blocked', roleName: 'x', deny: true, authorities: ['view'] });
    expect([denyWith.status, denyWith.data.code]).toEqual([422, 'VALIDATION_FAILED']);
    const blank = await admin.api(`${R}/roleInfo`, undefined, { roleCode: 'blank', roleName: '   ', authorities: [] });
    expect(blank.data.code).toBe('VALIDATION_FAILED');
    const badPerm = await admin.api(`${R}/roleInfo`, undefined, { roleCode: 'bad', roleName: 'x', authorities: ['fly'] });
    expect([badPerm.status, badPerm.data.code]).toEqual([422, 'VALIDATION_FAILED']);
    const byUser = await bob.api(`${R}/roleInfo`, undefined, { roleCode: 'mine', roleName: 'x', authorities: ['view'] });
    expect([byUser.status, byUser.data.code]).toEqual([403, 'FORBIDDEN']);

    // A role in use cannot go; once its grant is revoked it can.
    const granted = await admin.api(`${RU}/setGroupRoleUser`, undefined, { instanceId: salesFolder, roleId: id, userIds: [cy.id] });
    expect(granted.status, JSON.stringify(granted)).toBe(200);
    const inUse = await admin.api(`${R}/deleteRoleInfo`, undefined, { roleId: id });
    expect([inUse.status, inUse.data.code]).toEqual([409, 'ROLE_IN_USE']);
    expect((await admin.api(`${R}/getAllRoleInfo`)).data.find((r: any) => r.roleId === id).grantCount).toBe(1);
    // The role's new authorities apply at once: cy (outside sales) now downloads what the grant reaches.
    expect((await cy.api(`${RU}/explainAccess`, { instanceId: salesFolder })).data.allowed).toEqual(['view', 'download']);
    await admin.api(`${RU}/delGroupRoleUser`, undefined, { instanceId: salesFolder, grantIds: [granted.data[0].grantId] });
    const byBob = await bob.api(`${R}/deleteRoleInfo`, undefined, { roleId: id });
    expect([byBob.status, byBob.data.code]).toEqual([403, 'FORBIDDEN']);
    const gone = await admin.api(`${R}/deleteRoleInfo`, undefined, { roleId: id });
    expect(gone.status).toBe(200);
    expect((await admin.api(`${R}/getAllRoleInfo`)).data.some((r: any) => r.roleId === id)).toBe(false);
    const again = await admin.api(`${R}/deleteRoleInfo`, undefined, { roleId: id });
    expect([again.status, again.data.code]).toEqual([404, 'NOT_FOUND']);
    const builtinDel = await admin.api(`${R}/deleteRoleInfo`, undefined, { roleId: 'observer' });
    expect([builtinDel.status, builtinDel.data.code]).toEqual([409, 'ROLE_BUILTIN']);
  });
});

describe('SysRoleUser grants', () => {
  it('administrators grant to users and departments on department folders; grants are idempotent and listed', async () => {
    const a = await admin.api(`${RU}/setGroupRoleUser`, undefined, { instanceId: salesFolder, roleId: 'reader', userIds: [cy.id] });
    expect(a.status, JSON.stringify(a)).toBe(200);
    expect(a.data).toHaveLength(1);
    expect(a.data[0]).toMatchObject({ instanceId: salesFolder, instanceName: 'plans', roleCode: 'reader', subjectKind: 'user', subjectId: cy.id, subjectName: 'cy', createdBy: admin.id });
    const twice = await admin.api(`${RU}/setGroupRoleUser`, undefined, { instanceId: salesFolder, roleId: 'reader', userIds: [cy.id] });
    expect(twice.data[0].grantId).toBe(a.data[0].grantId);

    const d = await admin.api(`${RU}/setGroupRoleGroup`, undefined, { instanceId: salesFolder, roleId: 'observer', deptIds: ['ops'] });
    expect(d.data[0]).toMatchObject({ subjectKind: 'dept', subjectId: 'ops', subjectName: 'Ops', roleCode: 'observer' });

    const users = await admin.api(`${RU}/pageGroupRoleList`, { instanceId: salesFolder });
    expect(users.data).toMatchObject({ total: 1, pageNo: 1, pageSize: 20 });
    expect(users.data.list[0].grantId).toBe(a.data[0].grantId);
    const depts = await admin.api(`${RU}/pageGroupRoleGroupList`, { instanceId: salesFolder });
    expect(depts.data.list.map((g: any) => g.subjectId)).toEqual(['ops']);
    const byRole = await admin.api(`${RU}/pageGroupRoleList`, { roleId: 'reader' });
    expect(byRole.data.list.map((g: any) => g.grantId)).toContain(a.data[0].grantId);
    const acrossByUser = await ann.api(`${RU}/pageGroupRoleList`, { roleId: 'reader' });
    expect([acrossByUser.status, acrossByUser.data.code]).toEqual([403, 'FORBIDDEN']);

    await admin.api(`${RU}/setGroupAuth`, undefined, { instanceId: salesFolder, grants: [] });
    expect((await admin.api(`${RU}/pageGroupRoleList`, { instanceId: salesFolder })).data.total).toBe(0);
  });

  it('refuses callers without manage (403), items they cannot see (404), unknown subjects and roles, group roles', async () => {
    const member = await ann.api(`${RU}/setGroupRoleUser`, undefined, { instanceId: salesFolder, roleId: 'reader', userIds: [cy.id] });
    expect([member.status, member.data.code]).toEqual([403, 'FORBIDDEN']);
    const memberList = await bob.api(`${RU}/pageGroupRoleList`, { instanceId: salesFolder });
    expect([memberList.status, memberList.data.code]).toEqual([403, 'FORBIDDEN']);
    const outsider = await cy.api(`${RU}/setGroupRoleUser`, undefined, { instanceId: salesFolder, roleId: 'reader', userIds: [cy.id] });
    expect([outsider.status, outsider.data.code]).toEqual([404, 'NOT_FOUND']);
    // Administrators do not reach other people's personal files, grants included.
    const adminPersonal = await admin.api(`${RU}/setGroupRoleUser`, undefined, { instanceId: annPrivate, roleId: 'reader', userIds: [bob.id] });
    expect([adminPersonal.status, adminPersonal.data.code]).toEqual([404, 'NOT_FOUND']);
    const adminPersonalList = await admin.api(`${RU}/pageGroupRoleList`, { instanceId: annPrivate });
    expect(adminPersonalList.status).toBe(404);

    const noUser = await admin.api(`${RU}/setGroupRoleUser`, undefined, { instanceId: salesFolder, roleId: 'reader', userIds: [cy.id, 'nobody'] });
    expect([noUser.status, noUser.data.code]).toEqual([404, 'NOT_FOUND']);
    const noDept = await admin.api(`${RU}/setGroupRoleGroup`, undefined, { instanceId: salesFolder, roleId: 'reader', deptIds: ['nowhere'] });
    expect([noDept.status, noDept.data.code]).toEqual([404, 'NOT_FOUND']);
    const noRole = await admin.api(`${RU}/setGroupRoleUser`, undefined, { instanceId: salesFolder, roleId: 'ghost', userIds: [cy.id] });
    expect([noRole.status, noRole.data.code]).toEqual([404, 'NOT_FOUND']);
    const groupRole = await admin.api(`${RU}/setGroupRoleUser`, undefined, { instanceId: salesFolder, roleId: 'group_leader', userIds: [cy.id] });
    expect([groupRole.status, groupRole.data.code]).toEqual([422, 'VALIDATION_FAILED']);
    const noItem = await admin.api(`${RU}/setGroupRoleUser`, undefined, { instanceId: 'no-such-item', roleId: 'reader', userIds: [cy.id] });
    expect(noItem.status).toBe(404);
    const tooMany = await admin.api(`${RU}/setGroupRoleUser`, undefined, { instanceId: salesFolder, roleId: 'reader', userIds: [] });
    expect([tooMany.status, tooMany.data.code]).toEqual([422, 'VALIDATION_FAILED']);
    // Nothing was granted by any refused call (all or nothing: cy's grant in the unknown-user call did not land).
    expect((await admin.api(`${RU}/pageGroupRoleList`, { instanceId: salesFolder })).data.total).toBe(0);
  });

  it('the owner of a personal folder grants on it; a manager grant lets its holder grant further', async () => {
    const own = await ann.api(`${RU}/setGroupRoleUser`, undefined, { instanceId: annPrivate, roleId: 'manager', userIds: [bob.id] });
    expect(own.status, JSON.stringify(own)).toBe(200);
    const further = await bob.api(`${RU}/setGroupRoleUser`, undefined, { instanceId: annPrivate, roleId: 'reader', userIds: [cy.id] });
    expect(further.status, JSON.stringify(further)).toBe(200);
    expect((await cy.api('/hcs/controller/Page', { parentId: annPrivate })).status).toBe(200);
    await ann.api(`${RU}/setGroupAuth`, undefined, { instanceId: annPrivate, grants: [] });
    expect((await cy.api('/hcs/controller/Page', { parentId: annPrivate })).status).toBe(404);
  });

  it('modGroupRoleUser changes a grant, refuses a clash and another item\'s grant id; delGroupRoleUser is all or nothing', async () => {
    const other = await mkdir(ann, 'other', await deptRoot(ann), '3');
    const g1 = (await admin.api(`${RU}/setGroupRoleUser`, undefined, { instanceId: salesFolder, roleId: 'reader', userIds: [cy.id] })).data[0];
    const g2 = (await admin.api(`${RU}/setGroupRoleUser`, undefined, { instanceId: salesFolder, roleId: 'editor', userIds: [cy.id] })).data[0];
    const gOther = (await admin.api(`${RU}/setGroupRoleUser`, undefined, { instanceId: other, roleId: 'reader', userIds: [cy.id] })).data[0];

    const mod = await admin.api(`${RU}/modGroupRoleUser`, undefined, { instanceId: salesFolder, grantId: g1.grantId, roleId: 'downloader' });
    expect(mod.data[0]).toMatchObject({ grantId: g1.grantId, roleCode: 'downloader', subjectId: cy.id });
    const clash = await admin.api(`${RU}/modGroupRoleUser`, undefined, { instanceId: salesFolder, grantId: g1.grantId, roleId: 'editor' });
    expect([clash.status, clash.data.code]).toEqual([409, 'GRANT_EXISTS']);
    const foreign = await admin.api(`${RU}/modGroupRoleUser`, undefined, { instanceId: salesFolder, grantId: gOther.grantId, roleId: 'editor' });
    expect([foreign.status, foreign.data.code]).toEqual([404, 'NOT_FOUND']);
    const byMember = await ann.api(`${RU}/modGroupRoleUser`, undefined, { instanceId: salesFolder, grantId: g1.grantId, roleId: 'manager' });
    expect([byMember.status, byMember.data.code]).toEqual([403, 'FORBIDDEN']);

    const mixed = await admin.api(`${RU}/delGroupRoleUser`, undefined, { instanceId: salesFolder, grantIds: [g1.grantId, gOther.grantId] });
    expect([mixed.status, mixed.data.code]).toEqual([404, 'NOT_FOUND']);
    expect((await admin.api(`${RU}/pageGroupRoleList`, { instanceId: salesFolder })).data.total).toBe(2);
    const byMemberDel = await bob.api(`${RU}/delGroupRoleUser`, undefined, { instanceId: salesFolder, grantIds: [g1.grantId] });
    expect(byMemberDel.status).toBe(403);
    const del = await admin.api(`${RU}/delGroupRoleUser`, undefined, { instanceId: salesFolder, grantIds: [g1.grantId, g2.grantId] });
    expect(del.status).toBe(200);
    expect((await admin.api(`${RU}/pageGroupRoleList`, { instanceId: salesFolder })).data.total).toBe(0);
    await admin.api(`${RU}/setGroupAuth`, undefined, { instanceId: other, grants: [] });
  });

  it('setGroupAuth replaces the whole set atomically and keeps the ids of grants that stay', async () => {
    const first = await admin.api(`${RU}/setGroupAuth`, undefined, {
      instanceId: salesFolder,
      grants: [{ roleId: 'reader', subjectKind: 'user', subjectId: cy.id }, { roleId: 'observer', subjectKind: 'dept', subjectId: 'ops' }],
    });
    expect(first.data).toHaveLength(2);
    const kept = first.data.find((g: any) => g.roleCode === 'reader').grantId;
    const second = await admin.api(`${RU}/setGroupAuth`, undefined, {
      instanceId: salesFolder,
      grants: [{ roleId: 'reader', subjectKind: 'user', subjectId: cy.id }, { roleId: 'disable', subjectKind: 'user', subjectId: bob.id }],
    });
    expect(second.data.map((g: any) => g.roleCode).sort()).toEqual(['disable', 'reader']);
    expect(second.data.find((g: any) => g.roleCode === 'reader').grantId).toBe(kept);
    const bad = await admin.api(`${RU}/setGroupAuth`, undefined, {
      instanceId: salesFolder, grants: [{ roleId: 'manager', subjectKind: 'user', subjectId: cy.id }, { roleId: 'reader', subjectKind: 'user', subjectId: 'ghost' }],
    });
    expect(bad.status).toBe(404);
    expect((await admin.api(`${RU}/pageGroupRoleList`, { instanceId: salesFolder })).data.list.map((g: any) => g.roleCode).sort()).toEqual(['disable', 'reader']);
    const byMember = await ann.api(`${RU}/setGroupAuth`, undefined, { instanceId: salesFolder, grants: [] });
    expect(byMember.status).toBe(403);
    await admin.api(`${RU}/setGroupAuth`, undefined, { instanceId: salesFolder, grants: [] });
  });
});

describe('SysRoleUser under concurrent calls', () => {
  it('identical replacements and grants sent at once all succeed and leave one grant each', async () => {
    const folder = await mkdir(ann, 'busy', await deptRoot(ann));
    const body = { instanceId: folder, grants: [{ roleId: 'reader', subjectKind: 'user', subjectId: cy.id }, { roleId: 'observer', subjectKind: 'dept', subjectId: 'ops' }] };
    const answers = await Promise.all([
      ...Array.from({ length: 6 }, () => admin.api(`${RU}/setGroupAuth`, undefined, body)),
      ...Array.from({ length: 6 }, () => admin.api(`${RU}/setGroupRoleUser`, undefined, { instanceId: folder, roleId: 'reader', userIds: [cy.id] })),
    ]);
    expect(answers.map((a) => a.status)).toEqual(answers.map(() => 200));
    const now = await admin.api(`${RU}/pageGroupRoleList`, { instanceId: folder });
    expect(now.data.total).toBe(1);
    expect((await admin.api(`${RU}/pageGroupRoleGroupList`, { instanceId: folder })).data.total).toBe(1);
  });
});

describe('SysRoleUser explainAccess', () => {
  it('explains the caller\'s own access, and another user\'s to administrators and managers only', async () => {
    const mine = await ann.api(`${RU}/explainAccess`, { instanceId: annPrivate });
    expect(mine.data).toMatchObject({ userId: ann.id, userName: 'ann', instanceId: annPrivate, source: 'owner', denied: false, chain: [] });
    expect(mine.data.allowed).toHaveLength(11);

    const member = await bob.api(`${RU}/explainAccess`, { instanceId: salesFolder });
    expect(member.data).toMatchObject({ source: 'default', defaultRole: 'defaultrole', allowed: ['view', 'preview', 'download', 'upload', 'create', 'edit', 'version', 'share'] });

    const byAdmin = await admin.api(`${RU}/explainAccess`, { instanceId: salesFolder, userId: cy.id });
    expect(byAdmin.data).toMatchObject({ userId: cy.id, userName: 'cy', source: 'none', allowed: [] });
    const adminSelf = await admin.api(`${RU}/explainAccess`, { instanceId: salesFolder });
    expect(adminSelf.data).toMatchObject({ source: 'default', defaultRole: 'manager' });

    const notManager = await bob.api(`${RU}/explainAccess`, { instanceId: salesFolder, userId: ann.id });
    expect([notManager.status, notManager.data.code]).toEqual([403, 'FORBIDDEN']);
    const unseen = await cy.api(`${RU}/explainAccess`, { instanceId: salesFolder });
    expect([unseen.status, unseen.data.code]).toEqual([404, 'NOT_FOUND']);
    const noUser = await admin.api(`${RU}/explainAccess`, { instanceId: salesFolder, userId: 'ghost' });
    expect([noUser.status, noUser.data.code]).toEqual([404, 'NOT_FOUND']);
    const othersPersonal = await admin.api(`${RU}/explainAccess`, { instanceId: annPrivate, userId: ann.id });
    expect(othersPersonal.status).toBe(404);
    // The owner manages their folder, so they may ask about someone else there.
    const ownerAsks = await ann.api(`${RU}/explainAccess`, { instanceId: annPrivate, userId: bob.id });
    expect(ownerAsks.data).toMatchObject({ userId: bob.id, source: 'none', allowed: [] });
  });
});
