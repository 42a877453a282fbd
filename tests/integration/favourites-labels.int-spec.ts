// Favourites, labels and remarks (issue #16 items 2 and 3) through the real server: per-user labels attached to items,
// filtering by label, remarks limited to editors and 500 characters, favourites that open in their own space and
// leave the list while their item is out of reach.
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { startServer, type TestServer } from '../helpers/server.ts';
import { deptRoot, makeDept, makeUser, mkdir, tokenCalls, type TestUser } from '../helpers/org.ts';
import { createUser } from '../../mock-server/src/db/users-repo.ts';
import { uploadFile } from '../helpers/upload.ts';

let srv: TestServer;
let admin: string;
let nora: string;

const { call, as, folder } = tokenCalls(() => srv);

beforeAll(async () => {
  srv = await startServer();
  admin = (await srv.login()).token;
  await createUser(srv.built.ctx.db, { userName: 'nora', password: 'Nora#pass-1234' });
  nora = (await srv.login('nora', 'Nora#pass-1234')).token;
});
afterAll(async () => {
  expect(srv.violations).toEqual([]);
  await srv.close();
});

describe('labels', () => {
  it('are the caller\'s own: create, colour, rename, delete, attach several, filter by label', async () => {
    const red = await call(admin, '/hcs/controller/labels', undefined, { name: '重要', color: '#ff0000' });
    expect(red.ret, JSON.stringify(red)).toBe(0);
    const blue = await call(admin, '/hcs/controller/labels', undefined, { name: 'Draft' });
    expect(blue.data.color).toBe('#1677ff');
    const dup = await call(admin, '/hcs/controller/labels', undefined, { name: 'draft' });
    expect([dup.status, dup.data.code]).toEqual([409, 'NAME_EXISTS']);
    const badColour = await call(admin, '/hcs/controller/labels', undefined, { name: 'x', color: 'red' });
    expect(badColour.status).toBe(422);

    const dir = await folder(admin, 'labelled');
    const a = await uploadFile(as(admin), 'a.txt', Buffer.from('a'), { query: { parentId: dir } });
    const b = await uploadFile(as(admin), 'b.txt', Buffer.from('bb'), { query: { parentId: dir } });
    const set = await call(admin, '/hcs/controller/saveInstanceLabel', undefined, { instanceId: a, labelIds: [red.data.labelId, blue.data.labelId] });
    expect(set.ret, JSON.stringify(set)).toBe(0);
    expect(set.data.labels.map((l: any) => l.name).sort()).toEqual(['Draft', '重要']);
    await call(admin, '/hcs/controller/saveInstanceLabel', undefined, { instanceId: b, labelIds: [blue.data.labelId], mode: 'add' });

    // Rename and recolour show wherever the label is shown.
    const renamed = await call(admin, `/hcs/controller/labels/${red.data.labelId}`, undefined, { name: '很重要', color: '#00ff00' });
    expect([renamed.data.name, renamed.data.color]).toEqual(['很重要', '#00ff00']);
    const listing = await call(admin, '/hcs/controller/Page', { parentId: dir });
    const rowA = listing.data.list.find((r: any) => r.instanceId === a);
    expect(rowA.labels.find((l: any) => l.labelId === red.data.labelId)).toEqual({ labelId: red.data.labelId, name: '很重要', color: '#00ff00' });
    expect(listing.data.list.find((r: any) => r.instanceId === b).labels.map((l: any) => l.name)).toEqual(['Draft']);
    const props = await call(admin, `/hcs/controller/Instances/${a}`);
    expect(props.data.labels).toHaveLength(2);

    // Filter by label (the search call with only a label).
    const byRed = await call(admin, '/hcs/controller/es/searchPage', { labelId: red.data.labelId });
    expect(byRed.data.list.map((r: any) => r.instanceId)).toEqual([a]);
    const byBlue = await call(admin, '/hcs/controller/es/searchPage', { labelId: blue.data.labelId });
    expect(byBlue.data.list.map((r: any) => r.instanceId).sort()).toEqual([a, b].sort());

    // Remove one, then delete a label: it leaves every item.
    await call(admin, '/hcs/controller/saveInstanceLabel', undefined, { instanceId: a, labelIds: [blue.data.labelId], mode: 'remove' });
    expect((await call(admin, `/hcs/controller/Instances/${a}`)).data.labels.map((l: any) => l.name)).toEqual(['很重要']);
    const labels = await call(admin, '/hcs/controller/labels');
    expect(labels.data.map((l: any) => [l.name, l.itemCount])).toEqual([['Draft', 1], ['很重要', 1]]);
    expect((await call(admin, `/hcs/controller/labels/${red.data.labelId}/delete`, undefined, {})).ret).toBe(0);
    expect((await call(admin, `/hcs/controller/Instances/${a}`)).data.labels).toEqual([]);

    // Another user neither sees nor uses them.
    expect((await call(nora, '/hcs/controller/labels')).data).toEqual([]);
    const foreign = await call(nora, `/hcs/controller/labels/${blue.data.labelId}`, undefined, { name: 'mine' });
    expect(foreign.status).toBe(404);
    const noraDir = await folder(nora, 'n');
    const attach = await call(nora, '/hcs/controller/saveInstanceLabel', undefined, { instanceId: noraDir, labelIds: [blue.data.labelId] });
    expect([attach.status, attach.data.code]).toEqual([404, 'NOT_FOUND']);
    // Nor label the admin's items.
    const other = await call(nora, '/hcs/controller/saveInstanceLabel', undefined, { instanceId: a, labelIds: [] });
    expect(other.status).toBe(404);
  });

  it('remarks: up to 500 characters, on items the caller can edit, shown in properties and rows', async () => {
    const dir = await folder(admin, 'remarks');
    const f = await uploadFile(as(admin), 'r.txt', Buffer.from('r'), { query: { parentId: dir } });
    const saved = await call(admin, '/hcs/controller/saveInstanceRemark', undefined, { instanceId: f, remark: '季度报告 draft' });
    expect([saved.ret, saved.data.remark]).toEqual([0, '季度报告 draft']);
    expect((await call(admin, '/hcs/controller/Page', { parentId: dir })).data.list[0].remark).toBe('季度报告 draft');
    expect((await call(admin, '/hcs/controller/saveInstanceRemark', undefined, { instanceId: f, remark: 'x'.repeat(500) })).ret).toBe(0);
    const long = await call(admin, '/hcs/controller/saveInstanceRemark', undefined, { instanceId: f, remark: 'x'.repeat(501) });
    expect([long.status, long.data.code]).toEqual([422, 'VALIDATION_FAILED']);
    const foreign = await call(nora, '/hcs/controller/saveInstanceRemark', undefined, { instanceId: f, remark: 'hi' });
    expect(foreign.status).toBe(404);
    expect((await call(admin, `/hcs/controller/Instances/${f}`)).data.remark).toBe('x'.repeat(500));
  });
});

describe('favourites', () => {
  it('add, list with the item\'s space and parent, leave while unreachable, remove', async () => {
    const dir = await folder(admin, 'fav');
    const f1 = await uploadFile(as(admin), 'one.txt', Buffer.from('1'), { query: { parentId: dir } });
    const f2 = await uploadFile(as(admin), 'two.txt', Buffer.from('22'), { query: { parentId: dir } });
    const noraFile = await folder(nora, 'nora-only');
    const added = await call(admin, '/hcs/controller/collectionFile', undefined, { ids: `${f1},${f2},${noraFile}` });
    expect(added.ret, JSON.stringify(added)).toBe(0);
    expect(added.data.done.map((d: any) => d.instanceId)).toEqual([f1, f2]);
    expect(added.data.failed).toEqual([{ instanceId: noraFile, code: 'NOT_FOUND', msg: expect.any(String) }]);
    // Adding again changes nothing.
    expect((await call(admin, '/hcs/controller/collectionFile', undefined, { ids: f1 })).ret).toBe(0);
    // "0" names the library root, which is no file or folder to keep (it answered 500 once: a favourite of no row).
    const root = await call(admin, '/hcs/controller/collectionFile', undefined, { ids: '0' });
    expect([root.status, root.data.failed]).toEqual([200, [{ instanceId: '0', code: 'NOT_FOUND', msg: expect.any(String) }]]);

    const page = await call(admin, '/hcs/controller/pageCollectionFile', { pageSize: 1 });
    expect(page.data.total).toBe(2);
    expect(page.data.list).toHaveLength(1);
    const row = page.data.list[0];
    expect(row.isFavourite).toBe(true);
    expect(row.parentId).toBe(dir);
    expect(row.parentNames).toBe('fav');
    expect(row.instanceType).toBe('1');
    expect(typeof row.spaceId).toBe('string');
    expect(row.favouriteTime).toBeGreaterThan(0);
    expect((await call(admin, '/hcs/controller/Page', { parentId: dir })).data.list.map((r: any) => r.isFavourite)).toEqual([true, true]);

    // Recycled: gone from the list; restored: back.
    expect((await call(admin, '/hcs/controller/delete', { ids: f2 })).data.done).toHaveLength(1);
    const after = await call(admin, '/hcs/controller/pageCollectionFile');
    expect([after.data.total, after.data.list.map((r: any) => r.instanceId)]).toEqual([1, [f1]]);
    // Back as the recycle bin's restore leaves it (restore itself is the recycle bin's to test).
    await srv.sql.run('update instances set deleted_at = null, recycle_id = null where id = ?', f2);
    expect((await call(admin, '/hcs/controller/pageCollectionFile')).data.total).toBe(2);

    // Nobody else sees them.
    expect((await call(nora, '/hcs/controller/pageCollectionFile')).data.total).toBe(0);
    const removed = await call(admin, '/hcs/controller/delCollectionFile', { ids: `${f1},${f2}` });
    expect(removed.data.removed).toBe(2);
    expect((await call(admin, '/hcs/controller/pageCollectionFile')).data.total).toBe(0);
  });
});

describe('marks in a listing', () => {
  it('each reader sees only their own favourites and labels, on folders and files, on every page', async () => {
    // A department space both read: the marks are read along with the page, per reader.
    const dept = await makeDept(srv, 'marks-dept', 'Marks');
    const ivy = await makeUser(srv, 'ivy', dept);
    const max = await makeUser(srv, 'max', dept);
    const dir = await mkdir(ivy, 'shared-marks', await deptRoot(ivy), '3');
    const sub = await mkdir(ivy, 'sub', dir);
    const plain = await mkdir(ivy, 'zz-plain', dir);
    const f = await uploadFile(as(ivy.token), 'f.txt', Buffer.from('f'), { query: { parentId: dir } });
    const g = await uploadFile(as(ivy.token), 'g.txt', Buffer.from('g'), { query: { parentId: dir } });
    const tag = (await ivy.api('/hcs/controller/labels', undefined, { name: 'ivy-tag' })).data.labelId;
    const maxTag = (await max.api('/hcs/controller/labels', undefined, { name: 'max-tag' })).data.labelId;
    expect((await ivy.api('/hcs/controller/collectionFile', undefined, { ids: `${sub},${g}` })).data.done).toHaveLength(2);
    expect((await ivy.api('/hcs/controller/saveInstanceLabel', undefined, { instanceId: f, labelIds: [tag] })).ret).toBe(0);
    expect((await ivy.api('/hcs/controller/saveInstanceLabel', undefined, { instanceId: sub, labelIds: [tag] })).ret).toBe(0);
    expect((await max.api('/hcs/controller/collectionFile', undefined, { ids: plain })).data.done).toHaveLength(1);
    expect((await max.api('/hcs/controller/saveInstanceLabel', undefined, { instanceId: g, labelIds: [maxTag] })).ret).toBe(0);

    // Page size 3 splits the listing after the folders and one file, so the cursor page carries marks too.
    const marks = async (u: typeof ivy) => {
      const out: Record<string, [boolean, string[]]> = {};
      let cursor: string | undefined;
      do {
        const r = await u.api('/hcs/controller/Page', { parentId: dir, pageSize: 3, ...(cursor ? { cursor } : {}) });
        expect(r.ret, JSON.stringify(r)).toBe(0);
        for (const row of r.data.list) out[row.instanceName] = [row.isFavourite, row.labels.map((l: any) => l.name)];
        cursor = r.data.nextCursor ?? undefined;
      } while (cursor);
      return out;
    };
    expect(await marks(ivy)).toEqual({ sub: [true, ['ivy-tag']], 'zz-plain': [false, []], 'f.txt': [false, ['ivy-tag']], 'g.txt': [true, []] });
    expect(await marks(max)).toEqual({ sub: [false, []], 'zz-plain': [true, []], 'f.txt': [false, []], 'g.txt': [false, ['max-tag']] });
  });
});


describe('a first mark', () => {
  // A user who has never marked anything is listed without any look-up of marks (users.has_marks, migration 027),
  // from the session the node cached while that was so: the first favourite or label shows in the next listing.
  it('shows at once in the folder listing and its search, for a favourite first and for a label first', async () => {
    const rows = async (u: TestUser, q: Record<string, string>) => {
      const r = await u.api('/hcs/controller/Page', q);
      expect(r.ret, JSON.stringify(r)).toBe(0);
      return Object.fromEntries(r.data.list.map((row: any) => [row.instanceName, [row.isFavourite, row.labels.map((l: any) => l.name)]]));
    };
    const made = async (u: TestUser) => {
      const root = await mkdir(u, 'first-marks');
      const ids = { root, a: await mkdir(u, 'a', root), b: await mkdir(u, 'b', root) };
      expect(await rows(u, { parentId: root })).toEqual({ a: [false, []], b: [false, []] });
      return ids;
    };
    const fay = await makeUser(srv, 'first-fav', null);
    const lena = await makeUser(srv, 'first-label', null);
    const fayIds = await made(fay);
    const lenaIds = await made(lena);

    const added = await fay.api('/hcs/controller/collectionFile', undefined, { ids: fayIds.a });
    expect(added.data.done.map((d: any) => [d.instanceId, d.isFavourite])).toEqual([[fayIds.a, true]]);
    expect(await rows(fay, { parentId: fayIds.root })).toEqual({ a: [true, []], b: [false, []] });
    expect(await rows(fay, { parentId: fayIds.root, keyword: 'a' })).toEqual({ a: [true, []] });
    // Nobody else's listing changes.
    expect(await rows(lena, { parentId: lenaIds.root })).toEqual({ a: [false, []], b: [false, []] });

    const tag = (await lena.api('/hcs/controller/labels', undefined, { name: 'lena-tag' })).data.labelId;
    // A label of her own is no mark on any item yet.
    expect(await rows(lena, { parentId: lenaIds.root })).toEqual({ a: [false, []], b: [false, []] });
    const saved = await lena.api('/hcs/controller/saveInstanceLabel', undefined, { instanceId: lenaIds.b, labelIds: [tag] });
    expect(saved.data.labels.map((l: any) => l.name)).toEqual(['lena-tag']);
    expect(await rows(lena, { parentId: lenaIds.root })).toEqual({ a: [false, []], b: [false, ['lena-tag']] });
    // Taken off again: the rows are read as unmarked, as they are.
    expect((await lena.api('/hcs/controller/saveInstanceLabel', undefined, { instanceId: lenaIds.b, labelIds: [] })).ret).toBe(0);
    expect(await rows(lena, { parentId: lenaIds.root })).toEqual({ a: [false, []], b: [false, []] });
  });
});
