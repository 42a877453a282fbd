// History versions through the real server (issue #16 item 4): the list (time, size, author, SHA-256), download and
// preview of any version through the ordinary download path, rollback (the chosen content current, the replaced one
// kept; bytes compared), quota, retention by count and age per library as a job with a fixed clock, and refusals of
// another user. Runs on SQLite, and on PostgreSQL with HCS_TEST_DATABASE_URL (tests/pg/suite.ts).
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { createHash } from 'node:crypto';
import { startServer, type TestServer } from '../helpers/server.ts';
import { tokenCalls } from '../helpers/org.ts';
import { signedStorageRequest, uploadFile } from '../helpers/upload.ts';
import { createUser } from '../../mock-server/src/db/users-repo.ts';

const DAY = 86_400_000;
const sha = (s: string) => createHash('sha256').update(s).digest('hex');

let srv: TestServer;
let alice: string;
let aliceId: string;
let bob: string;

const { call: api, as } = tokenCalls(() => srv);

/** A file with these contents as versions 1..n (each a later upload of the same name, conflict newVersion). */
async function versioned(token: string, name: string, contents: string[]): Promise<string> {
  let id = '';
  for (const c of contents) {
    const got = await uploadFile(as(token), name, Buffer.from(c), { query: { conflict: 'newVersion' } });
    if (id) expect(got).toBe(id);
    id = got;
  }
  return id;
}
const history = async (token: string, id: string) => (await api(token, '/hcs/controller/getHistoryVersion', { instanceId: id })).data.list as any[];
const used = async () => (await api(alice, `/hcs/controller/userCapacity/userCapInfo/${aliceId}/NetDisk`)).data.usedBytes as number;

/** The bytes of a file (or of one version) read through download info and a signed ranged read, as clients do. */
async function read(token: string, id: string, version?: number): Promise<string> {
  const info = await api(token, '/hcs/controller/API/getDownloadFileInfo', { instanceId: id, ...(version ? { version } : {}) });
  expect(info.ret, JSON.stringify(info)).toBe(0);
  const res = await signedStorageRequest(as(token), { action: 'getObject', verb: 'GET', fId: id, key: info.data.objectKey, bucket: info.data.bucketName });
  expect(res.status).toBe(200);
  const text = await res.text();
  expect(sha(text)).toBe(info.data.fMd5);
  return text;
}

beforeAll(async () => {
  srv = await startServer({ env: { HCS_VERSION_MAX_COUNT: '3', HCS_VERSION_MAX_DAYS: '0' } });
  aliceId = (await createUser(srv.built.ctx.db, { userName: 'alice', password: 'Alice#pass-1234' })).id;
  alice = (await srv.login('alice', 'Alice#pass-1234')).token;
  await createUser(srv.built.ctx.db, { userName: 'bob', password: 'Bob#pass-12345' });
  bob = (await srv.login('bob', 'Bob#pass-12345')).token;
});
afterAll(async () => {
  expect(srv.violations).toEqual([]);
  await srv.close();
});

describe('history versions', () => {
  it('lists the current content and every kept version with time, size, author and SHA-256', async () => {
    const before = Date.now();
    const id = await versioned(alice, 'report.txt', ['one', 'two two', 'three three three']);
    const list = await history(alice, id);
    expect(list.map((v) => [v.version, v.fSize, v.fMd5, v.userName, v.current])).toEqual([
      [3, 17, sha('three three three'), 'alice', true],
      [2, 7, sha('two two'), 'alice', false],
      [1, 3, sha('one'), 'alice', false],
    ]);
    for (const v of list) expect(v.createTime).toBeGreaterThanOrEqual(before);
    expect(list[1].createTime).toBeGreaterThanOrEqual(list[2].createTime);
    const folder = await api(alice, '/hcs/controller/Instances', undefined, [{ classifierId: 'Folder', instanceName: Buffer.from('dir').toString('base64').replace(/=/g, '_d') }]);
    expect((await api(alice, '/hcs/controller/getHistoryVersion', { instanceId: folder.data[0].instanceId })).status).toBe(409);
  });

  it('downloads and previews any version through the ordinary download path', async () => {
    const id = await versioned(alice, 'dl.txt', ['first', 'second!']);
    expect(await read(alice, id)).toBe('second!');
    expect(await read(alice, id, 1)).toBe('first');
    const url = await api(alice, '/hcs/controller/API/getS3DownloadUrl', { instanceId: id, version: 1, action: 'preview' });
    expect(url.data).toMatchObject({ size: 5, inline: true });
    expect(await (await fetch(url.data.url)).text()).toBe('first');
    const missing = await api(alice, '/hcs/controller/API/getDownloadFileInfo', { instanceId: id, version: 9 });
    expect([missing.status, missing.data.code]).toEqual([404, 'NOT_FOUND']);
  });

  it('the current version, numbered as getHistoryVersion lists it, downloads like the others', async () => {
    // The versions dialog offers every row of the list, the current content (its own number) included.
    const id = await versioned(alice, 'cur.txt', ['old', 'current!']);
    const [cur] = await history(alice, id);
    expect([cur.version, cur.current]).toEqual([2, true]);
    expect(await read(alice, id, 2)).toBe('current!');
    const url = await api(alice, '/hcs/controller/API/getS3DownloadUrl', { instanceId: id, version: 2, action: 'download' });
    expect(url.status, JSON.stringify(url)).toBe(200);
    expect(await (await fetch(url.data.url)).text()).toBe('current!');
    // Another user still cannot see it, whichever version they name.
    expect((await api(bob, '/hcs/controller/API/getDownloadFileInfo', { instanceId: id, version: 2 })).status).toBe(404);
  });

  it('rollback makes the chosen version current, keeps the replaced one, and charges the restored bytes', async () => {
    const id = await versioned(alice, 'roll.txt', ['alpha', 'beta beta']);
    const start = await used();
    const r = await api(alice, '/hcs/controller/rollbackFile', undefined, { instanceId: id, version: 1 });
    expect(r.data).toMatchObject({ instanceId: id, version: 3, fSize: 5, fMd5: sha('alpha') });
    expect(await read(alice, id)).toBe('alpha');
    expect(await read(alice, id, 2)).toBe('beta beta');
    expect(await read(alice, id, 1)).toBe('alpha');
    expect((await history(alice, id)).map((v) => [v.version, v.fMd5])).toEqual([[3, sha('alpha')], [2, sha('beta beta')], [1, sha('alpha')]]);
    expect(await used()).toBe(start + 5);
    // Back again: the rolled-back content is itself a version now.
    await api(alice, '/hcs/controller/rollbackFile', undefined, { instanceId: id, version: 2 });
    expect(await read(alice, id)).toBe('beta beta');
    const none = await api(alice, '/hcs/controller/rollbackFile', undefined, { instanceId: id, version: 99 });
    expect([none.status, none.data.code]).toEqual([404, 'NOT_FOUND']);
  });

  it('a rollback that does not fit the quota is refused and changes nothing', async () => {
    await createUser(srv.built.ctx.db, { userName: 'tight', password: 'Tight#pass-1234', quotaBytes: 20 });
    const tight = (await srv.login('tight', 'Tight#pass-1234')).token;
    const id = await versioned(tight, 't.txt', ['0123456789', '01']);
    const r = await api(tight, '/hcs/controller/rollbackFile', undefined, { instanceId: id, version: 1 });
    expect(r.data.code).toBe('SPACE_NOT_ENOUGH');
    expect(await read(tight, id)).toBe('01');
    expect((await history(tight, id)).map((v) => v.version)).toEqual([2, 1]);
  });

  it('refuses another user: list, rollback, version download and signed reads of a version', async () => {
    const id = await versioned(alice, 'mine.txt', ['secret v1', 'secret v2']);
    expect((await api(bob, '/hcs/controller/getHistoryVersion', { instanceId: id })).status).toBe(404);
    expect((await api(bob, '/hcs/controller/rollbackFile', undefined, { instanceId: id, version: 1 })).status).toBe(404);
    expect((await api(bob, '/hcs/controller/API/getDownloadFileInfo', { instanceId: id, version: 1 })).status).toBe(404);
    const info = await api(alice, '/hcs/controller/API/getDownloadFileInfo', { instanceId: id, version: 1 });
    const signed = await api(bob, '/hcs/controller/API/S3Cloud/StringToSign', {
      httpVerb: 'GET', bucketName: info.data.bucketName, resourceUri: info.data.resourceUri, action: 'getObject', fId: id,
    });
    expect(signed.data.code).toBe('NOT_FOUND');
    expect(await read(alice, id)).toBe('secret v2');
  });
});

describe('version retention', () => {
  it('keeps at most the configured count per file, deleting older versions, their quota and unreferenced bytes', async () => {
    const id = await versioned(alice, 'many.txt', ['v-1', 'v-22', 'v-333', 'v-4444', 'v-55555']);
    const oldest = await api(alice, '/hcs/controller/API/getDownloadFileInfo', { instanceId: id, version: 1 });
    const start = await used();
    const r = await srv.built.retention().sweep(Date.now());
    expect(r.versions).toBeGreaterThanOrEqual(1);
    expect((await history(alice, id)).map((v) => v.version)).toEqual([5, 4, 3, 2]);
    expect(await used()).toBe(start - 3);
    expect(await srv.built.ctx.store().headObject(oldest.data.objectKey)).toBeNull();
  });

  it('a library sets its own count and age; age is judged with the pass\'s clock; referenced bytes stay', async () => {
    const id = await uploadFile(as(alice), 'aged.txt', Buffer.from('a-1'));
    const root = (await api(alice, '/hcs/controller/Page')).data.parentId;
    // The copy's current content is version 1's: that blob must survive the version's deletion.
    expect((await api(alice, '/hcs/controller/copyInstance', { ids: id, targetInstanceId: root })).data.done).toHaveLength(1);
    expect(await versioned(alice, 'aged.txt', ['a-22', 'a-333'])).toBe(id);
    const keyOf = async (v: number) => (await api(alice, '/hcs/controller/API/getDownloadFileInfo', { instanceId: id, version: v })).data.objectKey as string;
    const [k1, k2] = [await keyOf(1), await keyOf(2)];
    await srv.sql.run("UPDATE business_libs SET version_max_count = 10, version_max_days = 2 WHERE lib_code = 'NetDisk'");
    try {
      const retention = srv.built.retention();
      await retention.sweep(Date.now() + DAY);
      expect((await history(alice, id)).map((v) => v.version)).toEqual([3, 2, 1]);
      await retention.sweep(Date.now() + 3 * DAY);
      expect((await history(alice, id)).map((v) => v.version)).toEqual([3]);
      expect(await srv.built.ctx.store().headObject(k2)).toBeNull();
      expect(await srv.built.ctx.store().headObject(k1)).not.toBeNull();
    } finally {
      await srv.sql.run("UPDATE business_libs SET version_max_count = NULL, version_max_days = NULL WHERE lib_code = 'NetDisk'");
    }
  });
});
