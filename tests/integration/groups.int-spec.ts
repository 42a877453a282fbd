// Issue #15: groups through the real HTTP API, on SQLite and PostgreSQL (tests/pg/suite.ts). Every groupFile and
// groupUser call with its denials (members without the group role for it, outsiders, other groups' ids), what each
// group role may do inside the group space (a hand-written expected table), second-level members limited to their
// folders, the capacity charged to the group, handover decided by the receiver only, the last administrator who may
// not quit, and dissolve cutting every former member off (listings, old tickets, open upload sessions).
import { createHash, randomBytes } from 'node:crypto';
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { encodeName } from '@hcs/openapi/client';
import { startServer, type TestServer } from '../helpers/server.ts';
import { makeDept, makeUser, mkdir, outcome, signInAdmin, type Env, type TestUser } from '../helpers/org.ts';
import { uploadFile, type ApiCall } from '../helpers/upload.ts';

let srv: TestServer;
let admin: TestUser;
let owner: TestUser; // creates the groups
let leader: TestUser;
let fileLeader: TestUser;
let member: TestUser; // group_ordinary_members
let plain: TestUser; // groupdefaultrole (the default)
let second: TestUser; // second-level member
let outsider: TestUser;
let other: TestUser; // owner of another group

const GF = '/hcs/controller/groupFile';
const GU = '/hcs/controller/groupUser';
const sha = (b: Buffer) => createHash('sha256').update(b).digest('hex');
const call = (u: TestUser): ApiCall => (path, query, body) => u.api(path, query, body);

async function newGroup(u: TestUser, groupName: string, extra: Record<string, unknown> = {}): Promise<any> {
  const r = await u.api(`${GF}/newGroup`, undefined, { groupName, ...extra });
  expect(r.status, JSON.stringify(r)).toBe(200);
  return r.data;
}

const fileIn = (u: TestUser, name: string, parentId: string, bytes = randomBytes(64)) => uploadFile(call(u), name, bytes, { query: { parentId } });

async function addUsers(by: TestUser, groupId: string, users: TestUser[], roleCode?: string): Promise<Env> {
  return by.api(`${GF}/addUserForLarge`, undefined, { groupId, userIds: users.map((u) => u.id), ...(roleCode ? { roleCode } : {}) });
}

beforeAll(async () => {
  srv = await startServer();
  admin = await signInAdmin(srv);
  await makeDept(srv, 'eng', 'Engineering');
  await makeDept(srv, 'eng-web', 'Web', 'eng');
  await makeDept(srv, 'ops', 'Ops');
  owner = await makeUser(srv, 'gowner', 'eng');
  leader = await makeUser(srv, 'gleader', 'eng');
  fileLeader = await makeUser(srv, 'gfilelead', 'eng-web');
  member = await makeUser(srv, 'gmember', 'eng-web');
  plain = await makeUser(srv, 'gplain', 'ops');
  second = await makeUser(srv, 'gsecond', 'ops');
  outsider = await makeUser(srv, 'goutsider', 'ops');
  other = await makeUser(srv, 'gother', 'ops');
});
afterAll(async () => {
  expect(srv.violations).toEqual([]);
  await srv.close();
});

describe('groups: create, read, update', () => {
  it('newGroup makes the caller its administrator with a space of instanceType 2 and the default capacity', async () => {
    const g = await newGroup(owner, 'Apollo', { description: 'moon' });
    expect(g).toMatchObject({ groupName: 'Apollo', description: 'moon', capacity: 10 * 1024 ** 3, usedSize: 0, ownerId: owner.id, memberCount: 1, instanceType: '2', myRole: 'group_administrator', myLevel: 1 });
    const root = await owner.api('/hcs/controller/Page', { parentId: g.rootId });
    expect(root.status).toBe(200);
    expect(root.data.parentId).toBe(g.rootId);
    const page = await owner.api(`${GF}/pageGroupFile`, { groupId: g.groupId });
    expect(page.data).toMatchObject({ parentId: g.rootId, total: 0 });
    const inst = await owner.api('/hcs/controller/addOrUpdateGroupInstance', undefined, { groupId: g.groupId });
    expect(inst.data).toMatchObject({ instanceId: g.rootId, instanceType: '2', classifierId: 'Folder' });
    expect(outcome(await outsider.api('/hcs/controller/addOrUpdateGroupInstance', undefined, { groupId: g.groupId }))).toBe('N');
  });

  it('refuses a taken name (any case), a bad name and a capacity beyond policy', async () => {
    await newGroup(owner, 'Gemini');
    expect((await owner.api(`${GF}/newGroup`, undefined, { groupName: 'gemini' })).data.code).toBe('NAME_EXISTS');
    expect((await owner.api(`${GF}/newGroup`, undefined, { groupName: 'a/b' })).data.code).toBe('VALIDATION_FAILED');
    expect((await owner.api(`${GF}/newGroup`, undefined, { groupName: ' pad' })).data.code).toBe('VALIDATION_FAILED');
    expect((await owner.api(`${GF}/newGroup`, undefined, { groupName: 'Huge', capacity: 200 * 1024 ** 3 })).data.code).toBe('VALIDATION_FAILED');
    // System administrators are not bound by the policy, and may leave a group unlimited.
    const big = await newGroup(admin, 'Huge', { capacity: 200 * 1024 ** 3 });
    expect(big.capacity).toBe(200 * 1024 ** 3);
    expect((await newGroup(admin, 'Unlimited')).capacity).toBeNull();
  });

  it('searchGroup lists only the caller\'s groups (all for administrators with all=true), by keyword', async () => {
    const mine = await owner.api(`${GF}/searchGroup`);
    expect(mine.data.list.map((g: any) => g.groupName)).toEqual(['Apollo', 'Gemini']);
    expect(mine.data.list[0].groupName).toBe('Apollo');
    expect((await owner.api(`${GF}/searchGroup`, { keyword: 'pol' })).data.list.map((g: any) => g.groupName)).toEqual(['Apollo']);
    expect((await outsider.api(`${GF}/searchGroup`)).data).toMatchObject({ total: 0, list: [] });
    // all=true is an administrator's view; anyone else still gets their own groups.
    expect((await outsider.api(`${GF}/searchGroup`, { all: 'true' })).data.total).toBe(0);
    // LIKE's wildcards in a keyword are plain characters.
    await newGroup(owner, 'Under_score');
    await newGroup(owner, 'Underxscore');
    expect((await owner.api(`${GF}/searchGroup`, { keyword: 'r_s' })).data.list.map((g: any) => g.groupName)).toEqual(['Under_score']);
    expect((await owner.api(`${GU}/searchAll`, { groupId: mine.data.list[0].groupId, keyword: '%' })).data.users).toEqual([]);
    const all = await admin.api(`${GF}/searchGroup`, { all: 'true' });
    expect(all.data.list.map((g: any) => g.groupName)).toEqual(expect.arrayContaining(['Apollo', 'Gemini', 'Huge', 'Unlimited']));
    // groupId finds one group however many the caller is in (the group page's lookup); a non-member finds nothing.
    const gemini = mine.data.list[1].groupId;
    expect((await owner.api(`${GF}/searchGroup`, { groupId: gemini, pageSize: 1 })).data).toMatchObject({ total: 1, list: [{ groupId: gemini, groupName: 'Gemini' }] });
    expect((await outsider.api(`${GF}/searchGroup`, { groupId: gemini })).data).toMatchObject({ total: 0, list: [] });
    expect((await admin.api(`${GF}/searchGroup`, { groupId: gemini, all: 'true' })).data.total).toBe(1);
  });

  it('updateGroup: administrators rename and resize; members may not; outsiders and other groups\' ids are not found', async () => {
    const g = await newGroup(owner, 'Mercury');
    expect((await addUsers(owner, g.groupId, [member])).status).toBe(200);
    const renamed = await owner.api(`${GF}/updateGroup`, undefined, { groupId: g.groupId, groupName: 'Mercury 7', description: 'seven', capacity: 2 * 1024 ** 3 });
    expect(renamed.data).toMatchObject({ groupName: 'Mercury 7', description: 'seven', capacity: 2 * 1024 ** 3 });
    expect(outcome(await member.api(`${GF}/updateGroup`, undefined, { groupId: g.groupId, groupName: 'Mine' }))).toBe('F');
    expect(outcome(await outsider.api(`${GF}/updateGroup`, undefined, { groupId: g.groupId, groupName: 'Mine' }))).toBe('N');
    const theirs = await newGroup(other, 'Vostok');
    expect(outcome(await owner.api(`${GF}/updateGroup`, undefined, { groupId: theirs.groupId, groupName: 'Taken' }))).toBe('N');
    expect(outcome(await owner.api(`${GF}/updateGroup`, undefined, { groupId: 'no-such-group', groupName: 'X' }))).toBe('N');
    expect((await owner.api(`${GF}/updateGroup`, undefined, { groupId: g.groupId, unlimited: true })).data.code).toBe('FORBIDDEN');
    expect((await admin.api(`${GF}/updateGroup`, undefined, { groupId: g.groupId, unlimited: true })).data.capacity).toBeNull();
    expect((await owner.api(`${GF}/updateGroup`, undefined, { groupId: g.groupId, groupName: 'apollo' })).data.code).toBe('NAME_EXISTS');
  });
});

describe('groups: members', () => {
  let g: any;
  beforeAll(async () => {
    g = await newGroup(owner, 'Members');
  });

  it('addUserForLarge adds by user and by department subtree; searchGroupUser, getUserCount and searchAll read them', async () => {
    const r = await owner.api(`${GF}/addUserForLarge`, undefined, { groupId: g.groupId, userIds: [leader.id, owner.id], deptIds: ['eng-web'] });
    expect(r.data).toEqual({ added: 3, skipped: 0 }); // leader, and eng-web's gfilelead and gmember; the owner is already in
    const list = await owner.api(`${GU}/searchGroupUser`, { groupId: g.groupId });
    expect(list.data.list.map((m: any) => m.userName)).toEqual(['gowner', 'gfilelead', 'gleader', 'gmember']);
    expect(list.data.list[1]).toMatchObject({ roleCode: 'groupdefaultrole', level: 1, folders: [], deptName: 'Web', deptIsRoot: false });
    expect((await member.api(`${GU}/searchGroupUser`, { groupId: g.groupId, keyword: 'LEAD' })).data.total).toBe(2);
    expect((await member.api(`${GU}/getUserCount`, { groupId: g.groupId })).data).toEqual({ total: 4, first: 4, second: 0, administrators: 1 });
    const found = await member.api(`${GU}/searchAll`, { groupId: g.groupId, keyword: 'gplain' });
    expect(found.data.users).toEqual([expect.objectContaining({ userId: plain.id, member: false })]);
    const depts = await member.api(`${GU}/searchAll`, { groupId: g.groupId, keyword: 'web' });
    expect(depts.data.depts).toEqual([{ deptId: 'eng-web', deptName: 'Web', deptIsRoot: false, hasChildren: false, userCount: 2 }]);
    const sub = await member.api(`${GU}/getSubDepartment`, { deptId: 'eng' });
    expect(sub.data).toEqual([{ deptId: 'eng-web', deptName: 'Web', deptIsRoot: false, hasChildren: false, userCount: 2 }]);
    // The root department is marked, so clients name the company in their own language.
    const rooted = await makeUser(srv, 'grooted', 'root');
    expect((await member.api(`${GU}/searchAll`, { groupId: g.groupId, keyword: 'grooted' })).data.users).toEqual([expect.objectContaining({ userId: rooted.id, deptIsRoot: true })]);
    const top = await member.api(`${GU}/getSubDepartment`);
    expect(top.data.find((d: any) => d.deptId === 'eng')).toMatchObject({ hasChildren: true, userCount: 4 });
  });

  it('only administrators and leaders add or remove; leaders neither make nor remove administrators; outsiders see nothing', async () => {
    expect(outcome(await owner.api(`${GU}/modGroupUser`, undefined, { groupId: g.groupId, userId: leader.id, roleCode: 'group_leader' }))).toBe('Y');
    expect(outcome(await addUsers(member, g.groupId, [plain]))).toBe('F');
    expect(outcome(await addUsers(leader, g.groupId, [plain], 'group_administrator'))).toBe('F');
    expect((await addUsers(leader, g.groupId, [plain])).data).toEqual({ added: 1, skipped: 0 });
    expect(outcome(await leader.api(`${GU}/deleteGroupUser`, undefined, { groupId: g.groupId, userIds: [owner.id] }))).toBe('F');
    expect(outcome(await leader.api(`${GU}/modGroupUser`, undefined, { groupId: g.groupId, userId: member.id, roleCode: 'file_leader' }))).toBe('F');
    expect(outcome(await outsider.api(`${GU}/searchGroupUser`, { groupId: g.groupId }))).toBe('N');
    expect(outcome(await outsider.api(`${GU}/getUserCount`, { groupId: g.groupId }))).toBe('N');
    expect(outcome(await outsider.api(`${GU}/searchAll`, { groupId: g.groupId, keyword: 'g' }))).toBe('N');
    expect(outcome(await addUsers(outsider, g.groupId, [outsider]))).toBe('N');
    expect(outcome(await leader.api(`${GU}/deleteGroupUser`, undefined, { groupId: g.groupId, userIds: [plain.id] }))).toBe('Y');
    expect((await member.api(`${GU}/getUserCount`, { groupId: g.groupId })).data.total).toBe(4);
    // Another group's id with a member's role in this one does not carry over.
    const theirs = await newGroup(other, 'Voskhod');
    expect(outcome(await addUsers(owner, theirs.groupId, [member]))).toBe('N');
    expect(outcome(await owner.api(`${GU}/modGroupUser`, undefined, { groupId: g.groupId, userId: outsider.id, roleCode: 'file_leader' }))).toBe('N');
  });

  it('the last administrator can neither quit nor be demoted or removed; once another is made, they can', async () => {
    const q = await owner.api(`${GU}/quitGroup`, undefined, { groupId: g.groupId });
    expect(q.status).toBe(409);
    expect(q.data.code).toBe('GROUP_LAST_ADMIN');
    expect((await owner.api(`${GU}/modGroupUser`, undefined, { groupId: g.groupId, userId: owner.id, roleCode: 'group_leader' })).data.code).toBe('GROUP_LAST_ADMIN');
    expect((await owner.api(`${GU}/deleteGroupUser`, undefined, { groupId: g.groupId, userIds: [owner.id] })).data.code).toBe('GROUP_LAST_ADMIN');
    expect(outcome(await member.api(`${GU}/quitGroup`, undefined, { groupId: g.groupId }))).toBe('Y');
    expect(outcome(await member.api(`${GU}/searchGroupUser`, { groupId: g.groupId }))).toBe('N');
    expect(outcome(await owner.api(`${GU}/modGroupUser`, undefined, { groupId: g.groupId, userId: leader.id, roleCode: 'group_administrator' }))).toBe('Y');
    expect(outcome(await owner.api(`${GU}/quitGroup`, undefined, { groupId: g.groupId }))).toBe('Y');
    expect((await leader.api(`${GU}/getUserCount`, { groupId: g.groupId })).data).toMatchObject({ administrators: 1 });
  });

  it('addUserForLarge adds 5,000 users in one request', async () => {
    // 5,000 accounts in one statement (the test's setup, not the server's).
    const now = Date.now();
    await srv.sql.run(
      `WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 5000)
       INSERT INTO users (id, user_name, user_name_key, password_hash, password_changed_at, created_at, updated_at)
       SELECT 'bulk' || i, 'bulk' || i, 'bulk' || i, 'x', ?, ?, ? FROM n`,
      now, now, now,
    );
    const big = await newGroup(owner, 'Five thousand');
    const ids = Array.from({ length: 5000 }, (_, i) => `bulk${i + 1}`);
    const r = await owner.api(`${GF}/addUserForLarge`, undefined, { groupId: big.groupId, userIds: ids });
    expect(r.status, JSON.stringify(r)).toBe(200);
    expect(r.data).toEqual({ added: 5000, skipped: 0 });
    expect((await owner.api(`${GU}/getUserCount`, { groupId: big.groupId })).data).toEqual({ total: 5001, first: 5001, second: 0, administrators: 1 });
    // Again: all are members already.
    expect((await owner.api(`${GF}/addUserForLarge`, undefined, { groupId: big.groupId, userIds: ids.slice(0, 10) })).data).toEqual({ added: 0, skipped: 10 });
  });
});

describe('group roles inside the group space', () => {
  // Expected outcomes per role (Y allowed, F forbidden, N not found), written out from the design's role table.
  type Op = 'list' | 'props' | 'download' | 'upload' | 'mkdir' | 'rename' | 'delete' | 'grant';
  const EXPECTED: Record<string, Record<Op, string>> = {
    group_administrator:    { list: 'Y', props: 'Y', download: 'Y', upload: 'Y', mkdir: 'Y', rename: 'Y', delete: 'Y', grant: 'Y' },
    group_leader:           { list: 'Y', props: 'Y', download: 'Y', upload: 'Y', mkdir: 'Y', rename: 'Y', delete: 'Y', grant: 'F' },
    file_leader:            { list: 'Y', props: 'Y', download: 'Y', upload: 'Y', mkdir: 'Y', rename: 'Y', delete: 'Y', grant: 'F' },
    group_ordinary_members: { list: 'Y', props: 'Y', download: 'Y', upload: 'Y', mkdir: 'Y', rename: 'Y', delete: 'F', grant: 'F' },
    groupdefaultrole:       { list: 'Y', props: 'Y', download: 'Y', upload: 'Y', mkdir: 'Y', rename: 'Y', delete: 'F', grant: 'F' },
    secondLevelElsewhere:   { list: 'N', props: 'N', download: 'N', upload: 'N', mkdir: 'N', rename: 'N', delete: 'N', grant: 'N' },
    outsider:               { list: 'N', props: 'N', download: 'N', upload: 'N', mkdir: 'N', rename: 'N', delete: 'N', grant: 'N' },
    systemAdministrator:    { list: 'Y', props: 'Y', download: 'F', upload: 'F', mkdir: 'F', rename: 'F', delete: 'F', grant: 'Y' },
  };
  let g: any;
  let elsewhere: string;
  const actors = (): Record<string, TestUser> => ({
    group_administrator: leader, group_leader: fileLeader, file_leader: member, group_ordinary_members: plain, groupdefaultrole: outsiderMember,
    secondLevelElsewhere: second, outsider, systemAdministrator: admin,
  });
  let outsiderMember: TestUser;

  beforeAll(async () => {
    outsiderMember = await makeUser(srv, 'gdefault', 'ops');
    g = await newGroup(owner, 'Roles');
    for (const [role, u] of [['group_administrator', leader], ['group_leader', fileLeader], ['file_leader', member], ['group_ordinary_members', plain]] as const) {
      expect((await addUsers(owner, g.groupId, [u], role)).data.added).toBe(1);
    }
    expect((await addUsers(owner, g.groupId, [outsiderMember])).data.added).toBe(1);
    elsewhere = await mkdir(owner, 'elsewhere', g.rootId);
    expect(outcome(await owner.api(`${GU}/addSecondGroupUser`, undefined, { groupId: g.groupId, userIds: [second.id], instanceIds: [elsewhere] }))).toBe('Y');
  });

  it('each role may do exactly what its authorities allow', async () => {
    const got: Record<string, Record<Op, string>> = {};
    for (const [role, u] of Object.entries(actors())) {
      const cell = await mkdir(owner, `cell-${role}`, g.rootId);
      const doc = await fileIn(owner, 'doc.txt', cell);
      const ren = await fileIn(owner, 'ren.txt', cell);
      const del = await fileIn(owner, 'del.txt', cell);
      const body = randomBytes(16);
      got[role] = {
        list: outcome(await u.api('/hcs/controller/Page', { parentId: cell })),
        props: outcome(await u.api(`/hcs/controller/Instances/${doc}`)),
        download: outcome(await u.api('/hcs/controller/API/getDownloadFileInfo', { instanceId: doc })),
        upload: outcome(await u.api('/hcs/controller/API/file-uploadable', { fSize: body.length, fName: encodeName('up.bin'), fMd5: sha(body), parentId: cell })),
        mkdir: outcome(await u.api('/hcs/controller/Instances', undefined, [{ classifierId: 'Folder', instanceName: encodeName('new'), parentId: cell }])),
        rename: outcome(await u.api(`/hcs/controller/Instances/${ren}`, undefined, { instanceName: encodeName('renamed.txt') })),
        delete: outcome(await u.api('/hcs/controller/delete', { ids: del })),
        grant: outcome(await u.api('/hcs/controller/SysRoleUser/setGroupRoleUser', undefined, { instanceId: cell, roleId: 'observer', userIds: [outsider.id] })),
      };
    }
    expect(got).toEqual(EXPECTED);
  });

  it('a grant on a folder inside the group wins as the nearest level', async () => {
    const f = await mkdir(owner, 'locked', g.rootId);
    await fileIn(owner, 'x.txt', f);
    expect(outcome(await plain.api('/hcs/controller/Page', { parentId: f }))).toBe('Y');
    expect(outcome(await owner.api('/hcs/controller/SysRoleUser/setGroupRoleUser', undefined, { instanceId: f, roleId: 'disable', userIds: [plain.id] }))).toBe('Y');
    expect(outcome(await plain.api('/hcs/controller/Page', { parentId: f }))).toBe('N');
    const wider = await mkdir(owner, 'wider', g.rootId);
    const w = await fileIn(owner, 'w.txt', wider);
    expect(outcome(await owner.api('/hcs/controller/SysRoleUser/setGroupRoleUser', undefined, { instanceId: wider, roleId: 'operator', userIds: [plain.id] }))).toBe('Y');
    expect(outcome(await plain.api('/hcs/controller/delete', { ids: w }))).toBe('Y');
    const why = await plain.api('/hcs/controller/SysRoleUser/explainAccess', { instanceId: elsewhere });
    expect(why.data).toMatchObject({ source: 'default', allowed: expect.arrayContaining(['view', 'edit']) });
    expect(why.data.allowed).not.toContain('delete');
  });

  it('a second-level member reaches only their named folders; getSecondGroupUser, deleteSecondAuth and updateGroupUserInfo', async () => {
    const inside = await fileIn(owner, 'inside.txt', elsewhere);
    const rootFile = await fileIn(owner, 'root.txt', g.rootId);
    expect(outcome(await second.api('/hcs/controller/Page', { parentId: elsewhere }))).toBe('Y');
    expect(outcome(await second.api('/hcs/controller/API/getDownloadFileInfo', { instanceId: inside }))).toBe('Y');
    expect(outcome(await second.api(`/hcs/controller/Instances/${rootFile}`))).toBe('N');
    // The group's root is a passage to their folder: it lists only that.
    const top = await second.api(`${GF}/pageGroupFile`, { groupId: g.groupId });
    expect(top.data.list.map((r: any) => r.instanceId)).toEqual([elsewhere]);
    const seconds = await second.api(`${GU}/getSecondGroupUser`, { groupId: g.groupId });
    expect(seconds.data.list).toEqual([expect.objectContaining({ userId: second.id, level: 2, roleCode: 'groupdefaultrole', folders: [{ instanceId: elsewhere, instanceName: 'elsewhere' }] })]);
    // Second-level members administer nothing.
    expect(outcome(await second.api(`${GF}/addUserForLarge`, undefined, { groupId: g.groupId, userIds: [outsider.id] }))).toBe('F');
    // Refusals: a full member named, a folder of another group, the root, an administrator's role.
    expect((await owner.api(`${GU}/addSecondGroupUser`, undefined, { groupId: g.groupId, userIds: [plain.id], instanceIds: [elsewhere] })).data.code).toBe('CONFLICT');
    const theirs = await newGroup(other, 'Soyuz');
    const theirFolder = await mkdir(other, 'theirs', theirs.rootId);
    expect((await owner.api(`${GU}/addSecondGroupUser`, undefined, { groupId: g.groupId, userIds: [outsider.id], instanceIds: [theirFolder] })).data.code).toBe('VALIDATION_FAILED');
    expect((await owner.api(`${GU}/addSecondGroupUser`, undefined, { groupId: g.groupId, userIds: [outsider.id], instanceIds: [g.rootId] })).data.code).toBe('VALIDATION_FAILED');
    expect((await owner.api(`${GU}/addSecondGroupUser`, undefined, { groupId: g.groupId, userIds: [outsider.id], instanceIds: [elsewhere], roleCode: 'group_administrator' })).data.code).toBe('VALIDATION_FAILED');

    expect((await owner.api(`${GU}/modGroupUser`, undefined, { groupId: g.groupId, userId: second.id, roleCode: 'group_administrator' })).data.code).toBe('CONFLICT');
    expect(outcome(await owner.api(`${GU}/deleteSecondAuth`, undefined, { groupId: g.groupId, userId: second.id }))).toBe('Y');
    expect(outcome(await second.api('/hcs/controller/Page', { parentId: elsewhere }))).toBe('N');
    expect(outcome(await second.api(`${GU}/getSecondGroupUser`, { groupId: g.groupId }))).toBe('N'); // no folder left: not a member

    expect(outcome(await owner.api(`${GU}/addSecondGroupUser`, undefined, { groupId: g.groupId, userIds: [second.id], instanceIds: [elsewhere], roleCode: 'file_leader' }))).toBe('Y');
    expect(outcome(await owner.api(`${GU}/updateGroupUserInfo`, undefined, { groupId: g.groupId, userId: second.id }))).toBe('Y');
    expect(outcome(await second.api(`/hcs/controller/Instances/${rootFile}`))).toBe('Y'); // a full member now, as file_leader
    expect((await second.api(`${GU}/getSecondGroupUser`, { groupId: g.groupId })).data.total).toBe(0);
    expect(outcome(await owner.api(`${GU}/updateGroupUserInfo`, undefined, { groupId: g.groupId, userId: second.id }))).toBe('N');
  });
});

describe('group capacity', () => {
  it('uploads and copies into a group are charged to the group, and refused with the group prefix past its capacity', async () => {
    const g = await newGroup(owner, 'Tiny', { capacity: 1024 * 1024 });
    await addUsers(owner, g.groupId, [member]);
    const personalBefore = (await member.api('/hcs/controller/userCapacity/userCapInfo/' + member.id + '/NetDisk')).data?.usedBytes;
    await fileIn(member, 'small.bin', g.rootId, randomBytes(1000));
    const cap = await member.api('/hcs/controller/groupCapacity/getGroupCapInfo', { groupId: g.groupId });
    expect(cap.data).toMatchObject({ usedBytes: 1000, totalBytes: 1024 * 1024 });
    expect((await owner.api(`${GF}/searchGroup`, { keyword: 'tiny' })).data.list[0].usedSize).toBe(1000);
    const personalAfter = (await member.api('/hcs/controller/userCapacity/userCapInfo/' + member.id + '/NetDisk')).data?.usedBytes;
    expect(personalAfter).toBe(personalBefore);

    const big = randomBytes(1024 * 1024);
    const check = await member.api('/hcs/controller/API/file-uploadable', { fSize: big.length, fName: encodeName('big.bin'), fMd5: sha(big), parentId: g.rootId });
    expect(check.data.uploadflag).toBe(2);
    expect(check.msg).toBe('group space not enough');
    const mine = await uploadFile(call(member), 'big.bin', big);
    const copy = await member.api('/hcs/controller/copyInstance', { ids: mine, targetInstanceId: g.rootId });
    expect(copy.data.failed[0].code).toBe('SPACE_NOT_ENOUGH');
    // A capacity below what the group holds is refused.
    expect((await owner.api(`${GF}/updateGroup`, undefined, { groupId: g.groupId, capacity: 1024 * 1024 })).status).toBe(200);
    expect(outcome(await member.api('/hcs/controller/groupCapacity/getGroupCapInfo', { groupId: g.groupId }))).toBe('Y');
    expect((await outsider.api('/hcs/controller/groupCapacity/getGroupCapInfo', { groupId: g.groupId })).status).toBe(403);
  });
});

describe('handover', () => {
  it('only the receiver accepts or declines; the submitter cancels; getHandoverInfo shows every status', async () => {
    const g = await newGroup(owner, 'Handover');
    await addUsers(owner, g.groupId, [leader, member]);
    const submit = (to: TestUser, by = owner) => by.api(`${GF}/submitGroupHandover`, undefined, { groupId: g.groupId, toUserId: to.id });
    const process = (u: TestUser, handoverId: string, action: string) => u.api(`${GF}/precessGroupHandover`, undefined, { handoverId, action });

    expect(outcome(await submit(leader, member))).toBe('F'); // not an administrator
    expect(outcome(await submit(outsider, owner))).toBe('?VALIDATION_FAILED'); // not a member
    expect(outcome(await submit(owner, owner))).toBe('?VALIDATION_FAILED'); // themselves

    const first = (await submit(leader)).data;
    expect(first).toMatchObject({ status: 'pending', fromUserId: owner.id, toUserId: leader.id, decideTime: null });
    expect(outcome(await process(member, first.handoverId, 'accept'))).toBe('F'); // a member, not the receiver
    expect(outcome(await process(owner, first.handoverId, 'accept'))).toBe('F'); // the submitter
    expect(outcome(await process(outsider, first.handoverId, 'accept'))).toBe('N');
    expect((await leader.api(`${GF}/getHandoverInfo`)).data.map((h: any) => h.handoverId)).toEqual([first.handoverId]);
    expect((await process(leader, first.handoverId, 'decline')).data.status).toBe('declined');
    expect((await process(leader, first.handoverId, 'accept')).data.code).toBe('CONFLICT');

    const second_ = (await submit(leader)).data;
    expect((await process(leader, second_.handoverId, 'cancel')).data.code).toBe('FORBIDDEN'); // a member without the handover right
    expect((await process(owner, second_.handoverId, 'cancel')).data.status).toBe('cancelled');

    const third = (await submit(member)).data;
    const fourth = (await submit(leader)).data; // replaces the pending one
    const info = (await member.api(`${GF}/getHandoverInfo`, { groupId: g.groupId })).data;
    expect(info.map((h: any) => [h.handoverId, h.status])).toEqual([
      [fourth.handoverId, 'pending'], [third.handoverId, 'cancelled'], [second_.handoverId, 'cancelled'], [first.handoverId, 'declined'],
    ]);
    expect(outcome(await process(member, third.handoverId, 'accept'))).toBe('?CONFLICT');

    // An offer made by an administrator who is then demoted is withdrawn.
    expect(outcome(await owner.api(`${GU}/modGroupUser`, undefined, { groupId: g.groupId, userId: member.id, roleCode: 'group_administrator' }))).toBe('Y');
    expect(outcome(await member.api(`${GU}/modGroupUser`, undefined, { groupId: g.groupId, userId: owner.id, roleCode: 'group_leader' }))).toBe('Y');
    expect((await process(leader, fourth.handoverId, 'accept')).data.code).toBe('CONFLICT');
    expect((await member.api(`${GF}/getHandoverInfo`, { groupId: g.groupId })).data[0]).toMatchObject({ handoverId: fourth.handoverId, status: 'cancelled' });
    expect(outcome(await member.api(`${GU}/modGroupUser`, undefined, { groupId: g.groupId, userId: owner.id, roleCode: 'group_administrator' }))).toBe('Y');
    expect(outcome(await owner.api(`${GU}/modGroupUser`, undefined, { groupId: g.groupId, userId: member.id, roleCode: 'groupdefaultrole' }))).toBe('Y');
    const fifth = (await submit(leader)).data;
    const accepted = (await process(leader, fifth.handoverId, 'accept')).data;
    expect(accepted).toMatchObject({ status: 'accepted', decideTime: expect.any(Number) });
    const now = (await leader.api(`${GF}/searchGroup`, { keyword: 'handover' })).data.list[0];
    expect(now).toMatchObject({ ownerId: leader.id, myRole: 'group_administrator' });
    const roles = (await leader.api(`${GU}/searchGroupUser`, { groupId: g.groupId })).data.list;
    expect(roles.find((m: any) => m.userId === owner.id).roleCode).toBe('group_leader');
    // The former administrator may quit now; the new one, the last, may not.
    expect(outcome(await owner.api(`${GU}/quitGroup`, undefined, { groupId: g.groupId }))).toBe('Y');
    expect((await leader.api(`${GU}/quitGroup`, undefined, { groupId: g.groupId })).data.code).toBe('GROUP_LAST_ADMIN');
    expect(outcome(await outsider.api(`${GF}/getHandoverInfo`, { groupId: g.groupId }))).toBe('N');
  });
});

describe('group recycle bin', () => {
  it('pageRecycle and emptyRecycle with groupId list and empty only what the caller may delete; outsiders get 404', async () => {
    const g = await newGroup(owner, 'Bin');
    await addUsers(owner, g.groupId, [member], 'group_ordinary_members'); // no delete authority
    const a = await fileIn(owner, 'a.txt', g.rootId);
    const b = await fileIn(owner, 'b.txt', g.rootId);
    expect(outcome(await owner.api('/hcs/controller/delete', { ids: [a, b].join(',') }))).toBe('Y');
    const bin = (u: TestUser, q: Record<string, unknown> = {}) => u.api('/hcs/controller/pageRecycle', { instanceType: '2', groupId: g.groupId, ...q });
    const names = async (u: TestUser) => (await bin(u)).data.list.map((e: any) => e.instanceName).sort();

    expect(await names(owner)).toEqual(['a.txt', 'b.txt']);
    expect((await bin(owner, { keyword: 'b' })).data.total).toBe(1);
    expect(await names(member)).toEqual([]);
    expect(outcome(await bin(outsider))).toBe('N');
    expect(outcome(await owner.api('/hcs/controller/pageRecycle', { instanceType: '2' }))).toBe('?BAD_REQUEST');

    const empty = async (u: TestUser): Promise<Env> => {
      const res = await srv.call(`/hcs/controller/emptyRecycle?instanceType=2&groupId=${g.groupId}`, { method: 'POST', token: u.token });
      return { status: res.status, ...((await res.json()) as object) } as Env;
    };
    expect(outcome(await empty(outsider))).toBe('N');
    expect((await empty(member)).data.count).toBe(0);
    expect(await names(owner)).toEqual(['a.txt', 'b.txt']);
    expect((await empty(owner)).data.count).toBe(2);
    expect(await names(owner)).toEqual([]);
    const levels = await srv.sql.all<{ level: number }>('SELECT level FROM recycle_entries WHERE space_kind = ? AND space_id = ?', 'group', g.groupId);
    expect(levels.map((e) => Number(e.level))).toEqual([2, 2]);
  });
});

describe('dissolve', () => {
  it('only administrators dissolve; afterwards no former member reaches any file, old tickets and open uploads included', async () => {
    const g = await newGroup(owner, 'Dissolve me');
    await addUsers(owner, g.groupId, [member]);
    await addUsers(owner, g.groupId, [leader], 'group_leader');
    const folder = await mkdir(member, 'work', g.rootId);
    const file = await fileIn(member, 'plan.txt', folder, Buffer.from('the plan'));
    const zip = await member.api('/hcs/controller/API/getZipDownloadUrl', { ids: folder });
    expect(zip.status).toBe(200);
    const preview = await member.api('/hcs/controller/API/1.0/preview', { instanceId: file });
    const body = randomBytes(2048);
    const open = await member.api('/hcs/controller/API/file-uploadable', { fSize: body.length, fName: encodeName('late.bin'), fMd5: sha(body), parentId: folder });
    expect(open.data.uploadflag).toBe(3);

    expect(outcome(await leader.api(`${GF}/dissolveGroup`, undefined, { groupId: g.groupId }))).toBe('F');
    expect(outcome(await outsider.api(`${GF}/dissolveGroup`, undefined, { groupId: g.groupId }))).toBe('N');
    const d = await owner.api(`${GF}/dissolveGroup`, undefined, { groupId: g.groupId });
    expect(d.data).toEqual({ groupId: g.groupId, recycled: 1 });

    for (const u of [owner, member, leader, admin]) {
      expect(outcome(await u.api('/hcs/controller/Page', { parentId: g.rootId }))).toBe('N');
      expect(outcome(await u.api('/hcs/controller/Page', { parentId: folder }))).toBe('N');
      expect(outcome(await u.api(`/hcs/controller/Instances/${file}`))).toBe('N');
      expect(outcome(await u.api('/hcs/controller/API/getDownloadFileInfo', { instanceId: file }))).toBe('N');
      expect(outcome(await u.api(`${GF}/pageGroupFile`, { groupId: g.groupId }))).toBe('N');
      expect(outcome(await u.api(`${GU}/searchGroupUser`, { groupId: g.groupId }))).toBe('N');
    }
    expect((await member.api(`${GF}/searchGroup`)).data.list.map((x: any) => x.groupId)).not.toContain(g.groupId);
    expect((await member.api('/hcs/controller/groupCapacity/getGroupCapInfo', { groupId: g.groupId })).status).toBe(403);
    // Tickets issued before: redeemed now, they decide for the account that asked and find nothing.
    expect((await fetch(`${srv.baseUrl}${zip.data.url}`)).status).toBe(404);
    if (preview.status === 200 && preview.data?.url) expect((await fetch(`${srv.baseUrl}${preview.data.url}`)).status).toBe(404);
    // The upload that was open can no longer be signed or saved.
    const saved = await member.api('/hcs/controller/API/save-instance', undefined, {
      fId: open.data.fId, fMd5: sha(body), fSize: body.length, objectKey: open.data.objectKey, fName: encodeName('late.bin'), bucketName: open.data.bucketName, classifierId: 'File',
    });
    expect(saved.data.code).toBe('UPLOAD_SESSION_MISSING');
    const sign = await member.api('/hcs/controller/API/S3Cloud/StringToSign', {
      httpVerb: 'PUT', bucketName: open.data.bucketName, resourceUri: `/${open.data.bucketName}/${open.data.objectKey}`, action: 'putObject', fId: open.data.fId,
    });
    expect(sign.ret).not.toBe(0);
    // A second dissolve finds no group; the files wait in the administrators' second-level bin.
    expect(outcome(await owner.api(`${GF}/dissolveGroup`, undefined, { groupId: g.groupId }))).toBe('N');
    const bin = await srv.sql.all<{ level: number }>('SELECT level FROM recycle_entries WHERE space_kind = ? AND space_id = ?', 'group', g.groupId);
    expect(bin.map((e) => Number(e.level))).toEqual([2]);
    // The dissolver's own bin shows what dissolving put away, as theirs; nobody else's does, and nobody acts on it there.
    const mine = (await owner.api('/hcs/controller/pageRecycle')).data;
    expect(mine.list.filter((e: any) => e.instanceId === folder)).toEqual([
      expect.objectContaining({ instanceName: 'work', instanceType: '2', deletedBy: owner.id }),
    ]);
    for (const u of [member, leader]) expect((await u.api('/hcs/controller/pageRecycle')).data.list.some((e: any) => e.instanceId === folder)).toBe(false);
    expect(outcome(await member.api('/hcs/controller/restore', { ids: folder }))).toBe('N');
    for (const u of [owner, member]) expect(outcome(await u.api('/hcs/controller/remove/delete', { ids: folder }))).toBe('N');
    expect((await admin.api('/hcs/controller/pageSecRecycle')).data.list.some((e: any) => e.instanceId === folder)).toBe(true);

    // The dissolver restores it: into a folder named after the group in their own files, counted against them.
    const used = async () => Number((await srv.sql.get<{ used_bytes: number }>('SELECT used_bytes FROM users WHERE id = ?', owner.id))!.used_bytes);
    const usedBefore = await used();
    const back = await owner.api('/hcs/controller/restore', { ids: folder });
    expect(outcome(back), JSON.stringify(back)).toBe('Y');
    const holder = (await owner.api('/hcs/controller/Page')).data.list.find((x: any) => x.instanceName === 'Dissolve me');
    expect(holder?.classifierId).toBe('Folder');
    expect((await owner.api('/hcs/controller/Page', { parentId: holder.instanceId })).data.list.map((x: any) => x.instanceName)).toEqual(['work']);
    expect((await owner.api('/hcs/controller/Page', { parentId: folder })).data.list.map((x: any) => x.instanceName)).toEqual(['plan.txt']);
    expect(outcome(await owner.api('/hcs/controller/API/getDownloadFileInfo', { instanceId: file }))).toBe('Y');
    expect(await used()).toBe(usedBefore + Buffer.byteLength('the plan'));
    // Still nobody else's: the former member reaches nothing, and the entry has left every bin.
    expect(outcome(await member.api(`/hcs/controller/Instances/${file}`))).toBe('N');
    expect((await admin.api('/hcs/controller/pageSecRecycle')).data.list.some((e: any) => e.instanceId === folder)).toBe(false);
    // The name is free again.
    expect((await newGroup(owner, 'Dissolve me')).groupName).toBe('Dissolve me');
  });

  it('an administrator restoring a dissolved group\'s entry from the second-level bin gives it to the dissolver', async () => {
    const g = await newGroup(owner, 'Dissolve two');
    await addUsers(owner, g.groupId, [member]);
    const folder = await mkdir(member, 'kept', g.rootId);
    await fileIn(member, 'notes.txt', folder, Buffer.from('notes'));
    expect((await owner.api(`${GF}/dissolveGroup`, undefined, { groupId: g.groupId })).data).toEqual({ groupId: g.groupId, recycled: 1 });
    // Another administrator's restore does not make them the dissolver: a user who did not dissolve it finds nothing.
    expect(outcome(await member.api('/hcs/controller/restore', { ids: folder }))).toBe('N');
    const r = await admin.api('/hcs/controller/restoreSecRecycle', { ids: folder });
    expect(outcome(r), JSON.stringify(r)).toBe('Y');
    const holder = (await owner.api('/hcs/controller/Page')).data.list.find((x: any) => x.instanceName === 'Dissolve two');
    expect((await owner.api('/hcs/controller/Page', { parentId: holder.instanceId })).data.list.map((x: any) => x.instanceName)).toEqual(['kept']);
    expect(outcome(await member.api('/hcs/controller/Page', { parentId: folder }))).toBe('N');
    expect(outcome(await admin.api('/hcs/controller/Page', { parentId: folder }))).toBe('N');
  });
});
