// Name search (issue #16 item 5) through the real server: substrings in any script (CJK through the trigram indexes,
// 1 and 2 characters through the space scan), the filters, paging, and never an item of a space the caller may not read.
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { encodeName } from '@hcs/openapi/client';
import { startServer, type TestServer } from '../helpers/server.ts';
import { deptRoot, makeDept, makeUser, makeManager, tokenCalls } from '../helpers/org.ts';
import { createUser } from '../../mock-server/src/db/users-repo.ts';
import { uploadFile } from '../helpers/upload.ts';

let srv: TestServer;
let admin: string;
let nora: string;
let noraId: string;
// Filled in beforeAll, read by the tests after it.
const ids = {} as Record<'deep' | 'docs' | 'nora' | 'other' | 'pct' | 'photo' | 'plan' | 'report', string>;

const { call, as, folder } = tokenCalls(() => srv);
const search = async (token: string, query: Record<string, string | number>) => {
  const r = await call(token, '/hcs/controller/es/searchPage', query);
  expect(r.ret, JSON.stringify(r)).toBe(0);
  return r.data;
};
const names = (data: any) => data.list.map((r: any) => r.instanceName);

beforeAll(async () => {
  srv = await startServer();
  admin = (await srv.login()).token;
  noraId = (await createUser(srv.built.ctx.db, { userName: 'nora', password: 'Nora#pass-1234', realName: '诺拉' })).id;
  nora = (await srv.login('nora', 'Nora#pass-1234')).token;
  ids.docs = await folder(admin, '项目文档');
  ids.deep = await folder(admin, '深层', ids.docs);
  ids.report = await uploadFile(as(admin), '中华人民共和国年度报告.docx', Buffer.from('x'.repeat(100)), { query: { parentId: ids.docs } });
  ids.plan = await uploadFile(as(admin), '年度计划.xlsx', Buffer.from('y'.repeat(5000)), { query: { parentId: ids.deep } });
  ids.photo = await uploadFile(as(admin), 'Holiday Photo.JPG', Buffer.from('z'.repeat(300)));
  ids.pct = await uploadFile(as(admin), '100%_done.txt', Buffer.from('p'));
  ids.other = await uploadFile(as(admin), '100x_done.txt', Buffer.from('q'));
  // Nora's file matches every keyword above; the admin must never see it, nor she the admin's.
  ids.nora = await uploadFile(as(nora), '中华人民共和国年度报告 Holiday Photo 100%_done.txt', Buffer.from('n'));
});
afterAll(async () => {
  expect(srv.violations).toEqual([]);
  await srv.close();
});

describe('searchPage', () => {
  it('finds CJK substrings through the trigram index, case-insensitively for Latin, in the caller\'s spaces only', async () => {
    expect(names(await search(admin, { keyword: '人民共和' }))).toEqual(['中华人民共和国年度报告.docx']);
    expect(names(await search(admin, { keyword: '年度' })).sort()).toEqual(['中华人民共和国年度报告.docx', '年度计划.xlsx'].sort());
    expect(names(await search(admin, { keyword: 'holiday pho' }))).toEqual(['Holiday Photo.JPG']);
    // LIKE wildcards in the keyword are plain characters.
    expect(names(await search(admin, { keyword: '100%_d' }))).toEqual(['100%_done.txt']);
    const hit = (await search(admin, { keyword: '人民共和' })).list[0];
    expect([hit.parentId, hit.parentNames, hit.instanceType]).toEqual([ids.docs, '项目文档', '1']);
    // Never another user's files, whatever the keyword.
    for (const k of ['人民共和', '年度', 'holiday', '100%', '报', 'o']) {
      expect((await search(admin, { keyword: k })).list.map((r: any) => r.instanceId)).not.toContain(ids.nora);
      expect((await search(nora, { keyword: k })).list.map((r: any) => r.instanceId).filter((id: string) => id !== ids.nora)).toEqual([]);
    }
  });

  it('finds what another user shared by a grant, and only that, as the access gate decides', async () => {
    const adminId = (await call(admin, '/hcs/controller/System/Current/User')).data.userId;
    const shared = await folder(nora, '共享资料');
    const inside = await uploadFile(as(nora), '共享的年度报告.txt', Buffer.from('s'), { query: { parentId: shared } });
    expect((await search(admin, { keyword: '共享的年度' })).list).toEqual([]);
    const grant = await call(nora, '/hcs/controller/SysRoleUser/setGroupRoleUser', undefined, { instanceId: shared, roleId: 'reader', userIds: [adminId] });
    expect(grant.ret, JSON.stringify(grant)).toBe(0);
    const found = await search(admin, { keyword: '共享的年度' });
    expect(found.list.map((r: any) => [r.instanceId, r.parentNames])).toEqual([[inside, '共享资料']]);
    // Nora's other files stay out of reach.
    expect((await search(admin, { keyword: 'holiday' })).list.map((r: any) => r.instanceId)).not.toContain(ids.nora);
    // Withdrawn: gone again.
    expect((await call(nora, '/hcs/controller/SysRoleUser/setGroupAuth', undefined, { instanceId: shared, grants: [] })).ret).toBe(0);
    expect((await search(admin, { keyword: '共享的年度' })).list).toEqual([]);
  });

  it('answers 1 and 2 character keywords (below the trigram length)', async () => {
    expect(names(await search(admin, { keyword: '报' }))).toEqual(['中华人民共和国年度报告.docx']);
    expect(names(await search(admin, { keyword: '计划' }))).toEqual(['年度计划.xlsx']);
    expect(names(await search(admin, { keyword: 'JP' }))).toEqual(['Holiday Photo.JPG']);
    expect(names(await search(admin, { keyword: '%' }))).toEqual(['100%_done.txt']);
    const folders = await search(admin, { keyword: '深' });
    expect(folders.list.map((r: any) => r.classifierId)).toEqual(['Folder']);
  });

  it('filters by category, size, date, owner, label and folder, and pages', async () => {
    expect(names(await search(admin, { keyword: '年度', fileFilter: 4 }))).toEqual(['年度计划.xlsx']);
    expect(names(await search(admin, { keyword: '年度', fileFilter: 2 }))).toEqual(['中华人民共和国年度报告.docx']);
    expect(names(await search(admin, { fileFilter: 1 })).sort()).toEqual(['深层', '项目文档'].sort());
    expect(names(await search(admin, { keyword: '年度', minSize: 1000 }))).toEqual(['年度计划.xlsx']);
    expect(names(await search(admin, { keyword: '年度', maxSize: 1000 }))).toEqual(['中华人民共和国年度报告.docx']);
    expect((await search(admin, { keyword: '年度', updateTo: 1 })).list).toEqual([]);
    expect((await search(admin, { keyword: '年度', updateFrom: Date.now() - 3_600_000 })).total).toBe(2);
    expect((await search(admin, { keyword: '年度', ownerId: noraId })).list).toEqual([]);
    expect(names(await search(admin, { keyword: '年度', parentId: ids.deep }))).toEqual(['年度计划.xlsx']);
    expect((await search(admin, { keyword: '年度', parentId: ids.docs })).total).toBe(2);
    // Someone else's folder is not a place to search.
    const noraFolder = await folder(nora, 'nf');
    expect((await call(admin, '/hcs/controller/es/searchPage', { keyword: 'x', parentId: noraFolder })).status).toBe(404);
    const label = await call(admin, '/hcs/controller/labels', undefined, { name: 'keep' });
    await call(admin, '/hcs/controller/saveInstanceLabel', undefined, { instanceId: ids.plan, labelIds: [label.data.labelId] });
    const labelled = await search(admin, { keyword: '年度', labelId: label.data.labelId });
    expect(names(labelled)).toEqual(['年度计划.xlsx']);
    expect(labelled.list[0].labels.map((l: any) => l.name)).toEqual(['keep']);

    const first = await search(admin, { keyword: 'done', pageSize: 1 });
    expect([first.total, first.totalExact, first.list.length]).toEqual([2, true, 1]);
    const second = await search(admin, { keyword: 'done', pageSize: 1, cursor: first.nextCursor });
    expect(second.nextCursor).toBeNull();
    expect([...names(first), ...names(second)]).toEqual(['100%_done.txt', '100x_done.txt']);
    expect(names(await search(admin, { keyword: 'done', pageSize: 1, pageNo: 2 }))).toEqual(['100x_done.txt']);
  });

  it('a keyword matching more than can be counted: total 1,000 not exact, pages in name order from the name walk', async () => {
    // 1,005 names hold "common" (and 3 more do not), so counting stops and the pages come from walking the name index.
    const dir = await folder(admin, 'many');
    const all = Array.from({ length: 1005 }, (_, i) => `common-${String(1004 - i).padStart(4, '0')}`);
    for (let i = 0; i < all.length; i += 500) {
      const batch = all.slice(i, i + 500).map((n) => ({ classifierId: 'Folder', instanceName: encodeName(n), parentId: dir }));
      expect((await call(admin, '/hcs/controller/Instances', undefined, batch)).ret).toBe(0);
    }
    for (const n of ['uncommon-zz', 'comm-on', 'c-o-m-m-o-n']) await folder(admin, n, dir);
    await uploadFile(as(nora), 'common-0000 of nora.txt', Buffer.from('nora common'));
    const expected = [...all, 'uncommon-zz'].sort();
    const first = await search(admin, { keyword: 'COMMON', pageSize: 20 });
    expect([first.total, first.totalExact]).toEqual([1000, false]);
    expect(names(first)).toEqual(expected.slice(0, 20));
    const next = await search(admin, { keyword: 'common', pageSize: 20, cursor: first.nextCursor });
    expect(names(next)).toEqual(expected.slice(20, 40));
    expect(names(await search(admin, { keyword: 'common', pageSize: 20, pageNo: 3 }))).toEqual(expected.slice(40, 60));
    // The last names, past what was counted, are still reached.
    const tail = await search(admin, { keyword: 'common', parentId: dir, pageSize: 10, pageNo: 101 });
    expect(names(tail)).toEqual(expected.slice(1000, 1006));
    // Nora's name holds the word too; she sees only hers, counted exactly.
    expect(await search(nora, { keyword: 'common' })).toMatchObject({ total: 1, totalExact: true, list: [expect.objectContaining({ instanceName: 'common-0000 of nora.txt' })] });
    // A selective keyword in the same names stays exact.
    expect(await search(admin, { keyword: 'common-0999' })).toMatchObject({ total: 1, totalExact: true });
  });

  it('a walk over several spaces (own and department) merges them in name order, by cursor and by page', async () => {
    // Each space's stretch of the name index is walked on its own and the heads merged (search-repo.ts): the names
    // alternate between the user's own space and the department's so a merge that lost the order shows.
    await makeDept(srv, 'walkers', '步行部');
    const wren = await makeUser(srv, 'wren', 'walkers');
    await makeManager(srv, 'walkers', wren.id);
    const deptSpace = await deptRoot(wren);
    const all = Array.from({ length: 12 }, (_, i) => `qz-${String(i).padStart(2, '0')}`);
    for (const [i, n] of all.entries()) await folder(wren.token, n, i % 2 === 0 ? undefined : deptSpace);
    const walked = await search(wren.token, { keyword: 'qz', pageSize: 5 });
    expect(names(walked)).toEqual(all.slice(0, 5));
    const next = await search(wren.token, { keyword: 'qz', pageSize: 5, cursor: walked.nextCursor });
    expect(names(next)).toEqual(all.slice(5, 10));
    expect(names(await search(wren.token, { keyword: 'qz', pageSize: 5, pageNo: 3 }))).toEqual(all.slice(10));
    // Nora, in no department, finds none of them.
    expect((await search(nora, { keyword: 'qz' })).list).toEqual([]);
  });

  it('leaves recycled items out and finds renamed ones by their new name', async () => {
    expect((await call(admin, '/hcs/controller/delete', { ids: ids.other })).data.done).toHaveLength(1);
    expect(names(await search(admin, { keyword: 'done' }))).toEqual(['100%_done.txt']);
    const renamed = await call(admin, `/hcs/controller/Instances/${ids.photo}`, undefined, { instanceName: encodeName('Ferien Bild.JPG') });
    expect(renamed.ret).toBe(0);
    expect((await search(admin, { keyword: 'holiday' })).list).toEqual([]);
    expect(names(await search(admin, { keyword: 'ferien' }))).toEqual(['Ferien Bild.JPG']);
  });
});

describe('pickers', () => {
  it('searchUserPage and searchGroupPage', async () => {
    const users = await call(admin, '/hcs/controller/es/searchUserPage', { keyword: 'NOR' });
    expect(users.data.list.map((u: any) => u.userName)).toEqual(['nora']);
    expect(users.data.total).toBe(1);
    const now = Date.now();
    await srv.sql.run('insert into groups (id, name, owner_id, created_at) values (?, ?, ?, ?)', 'g1', '设计小组', noraId, now);
    await srv.sql.run('insert into group_members (group_id, user_id) values (?, ?)', 'g1', noraId);
    const groups = await call(admin, '/hcs/controller/es/searchGroupPage', { keyword: '设计' });
    expect(groups.data.list).toEqual([{ groupId: 'g1', groupName: '设计小组', ownerId: noraId, memberCount: 1, isMember: false }]);
    expect((await call(admin, '/hcs/controller/es/searchGroupPage', { keyword: '设计', mine: 'true' })).data.list).toEqual([]);
    expect((await call(nora, '/hcs/controller/es/searchGroupPage', { keyword: '小组', mine: 'true' })).data.list[0].isMember).toBe(true);
  });
});
