// The recycle bins through the real server (issue #16 item 1): the user's bin (listing with original path, deletion
// time, paging, search and sort; restore to the original place, recreating missing folders, with the keep-both or
// replace choice on a taken name; delete for good; empty), the administrators' second-level bin (page, restore to
// the owner, delete, empty), blob references (bytes leave storage only after the last file, version or bin entry),
// quota (the bin counts, a purge frees at once), retention on the job queue with a fixed clock, and refusals of
// another user's ids. Runs on SQLite, and on PostgreSQL with HCS_TEST_DATABASE_URL (tests/pg/suite.ts).
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { encodeName } from '@hcs/openapi/client';
import { startServer, type TestServer } from '../helpers/server.ts';
import { tokenCalls } from '../helpers/org.ts';
import { signedStorageRequest, uploadFile, type ApiCall } from '../helpers/upload.ts';
import { createUser } from '../../mock-server/src/db/users-repo.ts';
import { loadConfig } from '../../mock-server/src/config.ts';
import { RETENTION_JOB } from '../../mock-server/src/files/retention.ts';

type Env = { status: number; ret: number; msg: string; data: any };
const DAY = 86_400_000;

let srv: TestServer;
let admin: string;
let alice: string;
let aliceId: string;
let bob: string;

async function api(as: string, path: string, query?: Record<string, string | number>, body?: unknown): Promise<Env> {
  const qs = query ? '?' + new URLSearchParams(Object.entries(query).map(([k, v]): [string, string] => [k, String(v)])).toString() : '';
  const post = body !== undefined || ['/hcs/controller/emptyRecycle', '/hcs/controller/emptySecRecycle', '/hcs/controller/moveSecRecycle'].includes(path);
  const res = await srv.call(path + qs, {
    method: post ? 'POST' : 'GET',
    token: as,
    headers: body !== undefined ? { 'content-type': 'application/json' } : {},
    body: body !== undefined ? JSON.stringify(body) : undefined,
  });
  return { status: res.status, ...((await res.json()) as Omit<Env, 'status'>) };
}
const as = (token: string): ApiCall => (path, query, body) => api(token, path, query, body);

const { folder } = tokenCalls(() => srv);
const upload = (token: string, name: string, text: string, parentId?: string) =>
  uploadFile(as(token), name, Buffer.from(text), parentId ? { query: { parentId } } : {});
const del = async (token: string, id: string) => expect((await api(token, '/hcs/controller/delete', { ids: id })).data.done).toHaveLength(1);
const bin = async (token: string, query: Record<string, string | number> = {}) => (await api(token, '/hcs/controller/pageRecycle', { pageSize: 100, ...query })).data;
const binNames = async (token: string) => (await bin(token)).list.map((e: any) => e.instanceName).sort();
const children = async (token: string, parentId?: string) =>
  (await api(token, '/hcs/controller/Page', { pageSize: 100, ...(parentId ? { parentId } : {}) })).data.list as any[];
const used = async (token: string, userId: string) => (await api(token, `/hcs/controller/userCapacity/userCapInfo/${userId}/NetDisk`)).data.usedBytes as number;
const objectKeyOf = async (id: string) => (await srv.sql.get<{ k: string }>('SELECT b.object_key AS k FROM instances i JOIN blobs b ON b.id = i.blob_id WHERE i.id = ?', id))!.k;
const stored = async (key: string) => (await srv.built.ctx.store().headObject(key)) !== null;

beforeAll(async () => {
  srv = await startServer({ env: { HCS_RECYCLE_DAYS: '7', HCS_SEC_RECYCLE_DAYS: '3' } });
  admin = (await srv.login()).token;
  aliceId = (await createUser(srv.built.ctx.db, { userName: 'alice', password: 'Alice#pass-1234' })).id;
  alice = (await srv.login('alice', 'Alice#pass-1234')).token;
  await createUser(srv.built.ctx.db, { userName: 'bob', password: 'Bob#pass-12345' });
  bob = (await srv.login('bob', 'Bob#pass-12345')).token;
});
afterAll(async () => {
  expect(srv.violations).toEqual([]);
  await srv.close();
});

describe('the user recycle bin', () => {
  it('lists entries with their original path and deletion time, with paging, search and sort', async () => {
    const top = await folder(alice, 'list');
    const sub = await folder(alice, 'deep', top);
    const small = await upload(alice, 'small.txt', 'x', sub);
    const large = await upload(alice, 'Large report.txt', 'y'.repeat(500), top);
    const before = Date.now();
    await del(alice, small);
    await del(alice, large);
    const all = await bin(alice);
    const bySmall = all.list.find((e: any) => e.instanceId === small);
    expect(bySmall).toMatchObject({ instanceName: 'small.txt', classifierId: 'File', fSize: 1, originalPath: 'list/deep', originalParentId: sub, deletedByName: 'alice' });
    expect(bySmall.deleteTime).toBeGreaterThanOrEqual(before);
    expect(all.list.find((e: any) => e.instanceId === large)).toMatchObject({ originalPath: 'list', fSize: 500 });
    // Newest first by default.
    expect(all.list.slice(0, 2).map((e: any) => e.instanceId)).toEqual([large, small]);

    const page1 = await bin(alice, { pageSize: 1, pageNo: 1, sortField: 'instanceName', sortOrder: 'asc' });
    const page2 = await bin(alice, { pageSize: 1, pageNo: 2, sortField: 'instanceName', sortOrder: 'asc' });
    expect([page1.total, page1.list[0].instanceName, page2.list[0].instanceName]).toEqual([all.total, 'Large report.txt', 'small.txt']);
    const bySize = await bin(alice, { sortField: 'fSize', sortOrder: 'desc' });
    expect(bySize.list[0].instanceId).toBe(large);
    const found = await bin(alice, { keyword: 'REPORT' });
    expect([found.total, found.list.map((e: any) => e.instanceId)]).toEqual([1, [large]]);
    // Files inside a deleted folder are not entries of their own.
    const f = await folder(alice, 'whole');
    await upload(alice, 'inside.txt', 'inside', f);
    await del(alice, f);
    expect((await bin(alice, { keyword: 'inside' })).total).toBe(0);
    expect((await bin(alice, { keyword: 'whole' })).list[0]).toMatchObject({ classifierId: 'Folder', fSize: 6 });
  });

  it('restores to the original place; a taken name fails unless the caller keeps both or replaces', async () => {
    const home = await folder(alice, 'restore');
    const first = await upload(alice, 'note.txt', 'first', home);
    await del(alice, first);
    const back = await api(alice, '/hcs/controller/restore', { ids: first });
    expect(back.data.done[0]).toMatchObject({ instanceId: first, instanceName: 'note.txt', parentId: home });
    expect((await children(alice, home)).map((c) => c.instanceName)).toEqual(['note.txt']);

    await del(alice, first);
    const second = await upload(alice, 'note.txt', 'second', home);
    const asks = await api(alice, '/hcs/controller/restore', { ids: first });
    expect(asks.data.failed).toEqual([expect.objectContaining({ instanceId: first, code: 'NAME_EXISTS' })]);
    expect(await binNames(alice)).toContain('note.txt');

    const both = await api(alice, '/hcs/controller/restore', { ids: first, conflict: 'keepBoth' });
    expect(both.data.done[0]).toMatchObject({ instanceId: first, instanceName: 'note (1).txt', parentId: home });
    expect((await children(alice, home)).map((c) => c.instanceName).sort()).toEqual(['note (1).txt', 'note.txt']);

    // Replace: the holder of the name goes to the bin, the restored entry takes its name.
    await del(alice, first);
    const third = await upload(alice, 'note (1).txt', 'third', home);
    const replaced = await api(alice, '/hcs/controller/restore', { ids: first, conflict: 'replace' });
    expect(replaced.data.done[0]).toMatchObject({ instanceId: first, instanceName: 'note (1).txt' });
    expect((await children(alice, home)).map((c) => c.instanceId).sort()).toEqual([first, second].sort());
    expect((await bin(alice)).list.map((e: any) => e.instanceId)).toContain(third);
  });

  it('restores a folder with everything deleted with it, but not what was deleted from it before', async () => {
    const p = await folder(alice, 'parent');
    const kept = await upload(alice, 'kept.txt', 'kept', p);
    const child = await upload(alice, 'child.txt', 'child', p);
    await del(alice, child);
    await del(alice, p);
    const back = await api(alice, '/hcs/controller/restore', { ids: p });
    expect(back.data.done).toHaveLength(1);
    expect((await children(alice, p)).map((c) => c.instanceId)).toEqual([kept]);
    // The child is still its own entry, and goes back into the restored folder.
    expect((await api(alice, '/hcs/controller/restore', { ids: child })).data.done[0]).toMatchObject({ parentId: p });
    expect((await api(alice, '/hcs/controller/Page', { parentId: p })).data.total).toBe(2);
  });

  it('a parent deleted after its child: the child restores into recreated folders, even once the parent is gone for good', async () => {
    const a = await folder(alice, 'outer');
    const b = await folder(alice, 'inner', a);
    const leaf = await upload(alice, 'leaf.txt', 'leaf', b);
    await del(alice, leaf);
    await del(alice, a);
    // The parent leaves for good (user purge, then the administrators delete it).
    expect((await api(alice, '/hcs/controller/remove/delete', { ids: a })).data.done).toEqual([a]);
    expect((await api(admin, '/hcs/controller/deleteSecRecycle', { ids: a })).data.done).toEqual([a]);
    expect(await srv.sql.get('SELECT id FROM instances WHERE id = ?', a)).toBeUndefined();
    expect(await srv.sql.get('SELECT id FROM instances WHERE id = ?', b)).toBeUndefined();

    const back = await api(alice, '/hcs/controller/restore', { ids: leaf });
    expect(back.data.done[0]).toMatchObject({ instanceId: leaf, linkpath: 'outer/inner/leaf.txt' });
    const outer = (await children(alice)).find((c) => c.instanceName === 'outer');
    expect(outer.instanceId).not.toBe(a);
    const inner = (await children(alice, outer.instanceId))[0];
    expect([inner.instanceName, (await children(alice, inner.instanceId)).map((c) => c.instanceId)]).toEqual(['inner', [leaf]]);
    // And its content is intact.
    expect((await api(alice, '/hcs/controller/API/getDownloadFileInfo', { instanceId: leaf })).data.fileSize).toBe(4);
  });

  it('a parent deleted after its child, still in the bin: the child gets a new folder of that name; the parent then asks', async () => {
    const p = await folder(alice, 'later');
    const c = await upload(alice, 'c.txt', 'c', p);
    await del(alice, c);
    await del(alice, p);
    const back = await api(alice, '/hcs/controller/restore', { ids: c });
    const recreated = back.data.done[0].parentId;
    expect(recreated).not.toBe(p);
    expect((await api(alice, '/hcs/controller/restore', { ids: p })).data.failed[0].code).toBe('NAME_EXISTS');
    const both = await api(alice, '/hcs/controller/restore', { ids: p, conflict: 'keepBoth' });
    expect(both.data.done[0].instanceName).toBe('later (1)');
  });

  it('a file in the bin can be read through the signed download path, and only while it is in the user bin', async () => {
    const id = await upload(alice, 'readme.txt', 'recycled content');
    await del(alice, id);
    const info = await api(alice, '/hcs/controller/API/getRecycleFileInfo', { instanceId: id });
    expect(info.data).toMatchObject({ instanceId: id, fileSize: 16 });
    const res = await signedStorageRequest(as(alice), { action: 'getObject', verb: 'GET', fId: id, key: info.data.objectKey, bucket: info.data.bucketName });
    expect([res.status, await res.text()]).toEqual([200, 'recycled content']);
    // Bob may not, and neither for a live file nor a second-level entry.
    expect((await api(bob, '/hcs/controller/API/getRecycleFileInfo', { instanceId: id })).status).toBe(404);
    const live = await upload(alice, 'live.txt', 'live');
    expect((await api(alice, '/hcs/controller/API/getRecycleFileInfo', { instanceId: live })).status).toBe(404);
    await api(alice, '/hcs/controller/remove/delete', { ids: id });
    expect((await api(alice, '/hcs/controller/API/getRecycleFileInfo', { instanceId: id })).status).toBe(404);
    const denied = await api(alice, '/hcs/controller/API/S3Cloud/StringToSign', {
      httpVerb: 'GET', bucketName: info.data.bucketName, resourceUri: info.data.resourceUri, action: 'getObject', fId: id,
    });
    expect(denied.data.code).toBe('FORBIDDEN');
  });

  it('refuses another user\'s ids, and administrators\' calls to users', async () => {
    const id = await upload(alice, 'private.txt', 'private');
    await del(alice, id);
    for (const path of ['/hcs/controller/restore', '/hcs/controller/remove/delete']) {
      const r = await api(bob, path, { ids: id });
      expect(r.data.failed, path).toEqual([expect.objectContaining({ instanceId: id, code: 'NOT_FOUND' })]);
    }
    expect((await bin(bob)).list.map((e: any) => e.instanceId)).not.toContain(id);
    // Bob emptying his own bin leaves Alice's alone.
    await api(bob, '/hcs/controller/emptyRecycle');
    expect((await bin(alice)).list.map((e: any) => e.instanceId)).toContain(id);
    // A live file's id, or a file inside a recycled folder, is not an entry.
    const live = await upload(alice, 'alive.txt', 'alive');
    expect((await api(alice, '/hcs/controller/restore', { ids: live })).data.failed[0].code).toBe('NOT_FOUND');
    for (const path of ['/hcs/controller/pageSecRecycle', '/hcs/controller/deleteSecRecycle?ids=x', '/hcs/controller/restoreSecRecycle?ids=x']) {
      expect((await api(alice, path)).status, path).toBe(403);
    }
    for (const path of ['/hcs/controller/emptySecRecycle', '/hcs/controller/moveSecRecycle?ids=x']) {
      const res = await srv.call(path, { method: 'POST', token: alice });
      expect(res.status, path).toBe(403);
    }
  });
});

describe('a department bin', () => {
  it('lists and empties only the entries the caller may delete (the access gate decides per entry)', async () => {
    const dept = (await api(admin, '/hcs/controller/sysGroup/setGroupInfo', undefined, { name: 'Bin dept' })).data.id as string;
    const mk = async (name: string) => {
      const password = `${name}#Pass-word-1`;
      const u = await createUser(srv.built.ctx.db, { userName: name, password, deptId: dept });
      return { id: u.id, token: (await srv.login(name, password)).token };
    };
    const boss = await mk('binboss');
    const staff = await mk('binstaff');
    expect((await api(admin, '/hcs/controller/sysGroup/setGroupInfo', undefined, { id: dept, managerIds: [boss.id] })).ret).toBe(0);
    const made = await api(boss.token, '/hcs/controller/Instances', undefined, [{ classifierId: 'Folder', instanceName: encodeName('dept plan'), instanceType: '3' }]);
    expect(made.ret, JSON.stringify(made)).toBe(0);
    const id = made.data[0].instanceId as string;
    await del(boss.token, id);
    expect((await bin(boss.token, { instanceType: '3' })).list.map((e: any) => e.instanceId)).toEqual([id]);
    // Staff hold the default role (no delete): the entry is not theirs to see in the bin, restore, purge or empty.
    expect((await bin(staff.token, { instanceType: '3' })).list).toEqual([]);
    expect((await api(staff.token, '/hcs/controller/remove/delete', { ids: id })).data.failed[0].code).toBe('FORBIDDEN');
    expect((await api(staff.token, '/hcs/controller/emptyRecycle', { instanceType: '3' })).data.count).toBe(0);
    expect((await bin(boss.token, { instanceType: '3' })).list.map((e: any) => e.instanceId)).toEqual([id]);
    expect((await api(boss.token, '/hcs/controller/emptyRecycle', { instanceType: '3' })).data.count).toBe(1);
  });
});

describe('the second-level bin, quota and stored bytes', () => {
  it('the bin counts against quota; a purge frees it at once; the administrators restore to the owner and charge again', async () => {
    const start = await used(alice, aliceId);
    const id = await upload(alice, 'quota.bin', 'q'.repeat(1000));
    expect(await used(alice, aliceId)).toBe(start + 1000);
    await del(alice, id);
    expect(await used(alice, aliceId)).toBe(start + 1000);
    const purged = await api(alice, '/hcs/controller/remove/delete', { ids: id });
    expect(purged.data).toEqual({ done: [id], failed: [] });
    expect(await used(alice, aliceId)).toBe(start);
    expect((await bin(alice)).list.map((e: any) => e.instanceId)).not.toContain(id);

    const sec = (await api(admin, '/hcs/controller/pageSecRecycle', { pageSize: 100 })).data;
    expect(sec.list.find((e: any) => e.instanceId === id)).toMatchObject({ ownerKind: 'user', ownerId: aliceId, ownerName: 'alice', instanceName: 'quota.bin', originalPath: '' });
    expect((await api(admin, '/hcs/controller/pageSecRecycle', { keyword: 'QUOTA.B' })).data.list.map((e: any) => e.instanceId)).toEqual([id]);
    // A second-level entry is no longer the user's to restore.
    expect((await api(alice, '/hcs/controller/restore', { ids: id })).data.failed[0].code).toBe('NOT_FOUND');

    const back = await api(admin, '/hcs/controller/restoreSecRecycle', { ids: id });
    expect(back.data.done[0]).toMatchObject({ instanceId: id, instanceName: 'quota.bin' });
    expect((await children(alice)).map((c) => c.instanceId)).toContain(id);
    expect(await used(alice, aliceId)).toBe(start + 1000);
  });

  it('moveSecRecycle moves any user\'s entries; emptying each bin empties it', async () => {
    const x = await upload(alice, 'x-empty.txt', 'x-empty');
    const y = await upload(alice, 'y-empty.txt', 'y-empty');
    await del(alice, x);
    await del(alice, y);
    const moved = await srv.call(`/hcs/controller/moveSecRecycle?ids=${x}`, { method: 'POST', token: admin });
    expect(((await moved.json()) as Env).data).toEqual({ done: [x], failed: [] });
    const emptied = await api(alice, '/hcs/controller/emptyRecycle');
    expect(emptied.data.count).toBeGreaterThanOrEqual(1);
    expect((await bin(alice)).total).toBe(0);
    const sec = await api(admin, '/hcs/controller/emptySecRecycle');
    expect(sec.data.count).toBeGreaterThanOrEqual(2);
    expect((await api(admin, '/hcs/controller/pageSecRecycle')).data.total).toBe(0);
    expect(await srv.sql.get('SELECT id FROM instances WHERE id IN (?, ?)', x, y)).toBeUndefined();
  });

  it('bytes leave storage only when no file, version or bin entry references the blob any more', async () => {
    const original = await upload(alice, 'shared.txt', 'shared bytes v1');
    const key = await objectKeyOf(original);
    // A copy references the same blob; overwriting the copy keeps that content as the copy's history version.
    const copy = (await api(alice, '/hcs/controller/copyInstance', { ids: original, targetInstanceId: (await children(alice)).find((c) => c.instanceId === original).parentId })).data.done[0].instanceId;
    expect(await objectKeyOf(copy)).toBe(key);
    await uploadFile(as(alice), (await api(alice, `/hcs/controller/Instances/${copy}`)).data.instanceName, Buffer.from('copy bytes v2'), { query: { conflict: 'newVersion' } });
    expect((await api(alice, '/hcs/controller/getHistoryVersion', { instanceId: copy })).data.list).toHaveLength(2);

    // The original goes for good: the copy's version still holds the content.
    await del(alice, original);
    expect(await stored(key)).toBe(true);
    await api(alice, '/hcs/controller/remove/delete', { ids: original });
    expect(await stored(key)).toBe(true);
    expect((await api(admin, '/hcs/controller/deleteSecRecycle', { ids: original })).data.done).toEqual([original]);
    expect(await stored(key)).toBe(true);
    expect((await srv.sql.get<{ n: number }>('SELECT ref_count AS n FROM blobs WHERE object_key = ?', key))!.n).toBe(1);

    // The copy (with its version) in the bin, then the second-level bin: still referenced until deleted there.
    await del(alice, copy);
    await api(alice, '/hcs/controller/remove/delete', { ids: copy });
    expect(await stored(key)).toBe(true);
    await api(admin, '/hcs/controller/deleteSecRecycle', { ids: copy });
    expect(await stored(key)).toBe(false);
    expect(await srv.sql.get('SELECT id FROM blobs WHERE object_key = ?', key)).toBeUndefined();
  });
});

describe('retention', () => {
  it('is configurable and defaults to 30 days for each bin', () => {
    expect(loadConfig({}).recycle).toEqual({ days: 30, secDays: 30 });
    expect(srv.config.recycle).toEqual({ days: 7, secDays: 3 });
  });

  it('a pass with a fixed clock moves expired entries to the second-level bin, then deletes them', async () => {
    const id = await upload(alice, 'old.txt', 'old content');
    const key = await objectKeyOf(id);
    await del(alice, id);
    const deletedAt = (await bin(alice)).list.find((e: any) => e.instanceId === id).deleteTime as number;
    const retention = srv.built.retention();
    expect((await retention.sweep(deletedAt + 7 * DAY - 1)).expired).toBe(0);
    const before = await used(alice, aliceId);
    expect((await retention.sweep(deletedAt + 7 * DAY + 1)).expired).toBe(1);
    expect(await used(alice, aliceId)).toBe(before - 11);
    const purgedAt = deletedAt + 7 * DAY + 1;
    expect((await api(admin, '/hcs/controller/pageSecRecycle', { keyword: 'old.txt' })).data.list[0]).toMatchObject({ instanceId: id, purgeTime: purgedAt });
    expect((await retention.sweep(purgedAt + 3 * DAY - 1)).deleted).toBe(0);
    expect(await stored(key)).toBe(true);
    expect((await retention.sweep(purgedAt + 3 * DAY + 1)).deleted).toBe(1);
    expect(await stored(key)).toBe(false);
    expect((await api(admin, '/hcs/controller/pageSecRecycle', { keyword: 'old.txt' })).data.total).toBe(0);
  });

  it('covers what a purged account left in the second-level bin: it expires, and cannot be restored to nobody', async () => {
    const password = 'Gone#Pass-word-1';
    const gone = await createUser(srv.built.ctx.db, { userName: 'gone', password });
    const goneToken = (await srv.login('gone', password)).token;
    const id = await upload(goneToken, 'left behind.txt', 'left behind');
    const key = await objectKeyOf(id);
    const post = (path: string, body: unknown) => api(admin, path, undefined, body);
    expect((await post('/hcs/controller/Users/delUserInfo', { userIds: [gone.id] })).ret).toBe(0);
    const purged = await post('/hcs/controller/Users/realDeleteUser', { userId: gone.id });
    expect(purged.ret, JSON.stringify(purged)).toBe(0);
    const sec = (await api(admin, '/hcs/controller/pageSecRecycle', { keyword: 'left behind' })).data.list;
    expect(sec.map((e: any) => e.instanceId)).toEqual([id]);
    const restore = await api(admin, '/hcs/controller/restoreSecRecycle', { ids: id });
    expect(restore.data.failed).toEqual([expect.objectContaining({ instanceId: id, code: 'CONFLICT' })]);
    const retention = srv.built.retention();
    expect((await retention.sweep(sec[0].purgeTime + 3 * DAY - 1)).deleted).toBe(0);
    expect((await retention.sweep(sec[0].purgeTime + 3 * DAY + 1)).deleted).toBe(1);
    expect(await stored(key)).toBe(false);
  });

  it('runs as a job of the database queue', async () => {
    const id = await upload(alice, 'queued.txt', 'queued');
    await del(alice, id);
    // Its deletion eight days ago, as the job sees it with the real clock.
    await srv.sql.run('UPDATE recycle_entries SET deleted_at = ? WHERE instance_id = ?', Date.now() - 8 * DAY, id);
    await srv.built.retention().schedule();
    const worker = srv.built.worker();
    await worker.runOnce();
    await worker.settled();
    const job = await srv.sql.get<{ state: string }>('SELECT state FROM jobs WHERE kind = ? ORDER BY id DESC LIMIT 1', RETENTION_JOB);
    expect(job!.state).toBe('done');
    expect(await srv.sql.get<{ level: number }>('SELECT level FROM recycle_entries WHERE instance_id = ?', id)).toEqual({ level: 2 });
  });
});

