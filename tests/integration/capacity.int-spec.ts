// Capacity of the three kinds of space (user, department, group) through the real server: the same
// accounting the upload path charges, including reservations of uploads in flight; members only.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHash } from 'node:crypto';
import { startServer, type TestServer } from '../helpers/server.ts';
import { createUser } from '../../mock-server/src/db/users-repo.ts';
import { encodeName } from '@hcs/openapi/client';

let s: TestServer;
let admin: string;
let alice: string;
let bob: string;

async function json(res: Response): Promise<any> {
  return res.json();
}

beforeAll(async () => {
  s = await startServer();
  admin = (await s.login()).token;
  const db = s.built.ctx.db;
  const now = Date.now();
  await s.sql.run('INSERT INTO departments (id, name, quota_bytes, used_bytes, created_at) VALUES (?, ?, ?, ?, ?)', 'dept-rd', 'R&D', 1024 ** 3, 5 * 1024 ** 2, now);
  const a = await createUser(db, { userName: 'alice', password: 'Alice#pass-123', deptId: 'dept-rd', quotaBytes: 100 * 1024 ** 2 });
  await createUser(db, { userName: 'bob', password: 'Bob#pass-1234' });
  await s.sql.run('INSERT INTO groups (id, name, owner_id, quota_bytes, used_bytes, created_at) VALUES (?, ?, ?, ?, ?, ?)', 'grp-1', 'Launch', a.id, 2048, 0, now);
  await s.sql.run('INSERT INTO group_members (group_id, user_id) VALUES (?, ?)', 'grp-1', a.id);
  alice = (await s.login('alice', 'Alice#pass-123')).token;
  bob = (await s.login('bob', 'Bob#pass-1234')).token;
});
afterAll(async () => {
  await s?.close();
});

describe('capacity', () => {
  it('shows a user their quota, with uploads in flight counted as used', async () => {
    const me = (await json(await s.call('/hcs/controller/System/Current/User', { token: alice }))).data;
    const before = (await json(await s.call(`/hcs/controller/userCapacity/userCapInfo/${me.userId}/NetDisk`, { token: alice }))).data;
    expect(before).toEqual({ isLimist: '1', totalSize: '100MB', usedSize: '0B', totalBytes: 100 * 1024 ** 2, usedBytes: 0 });
    const size = 10 * 1024 ** 2;
    const sha = createHash('sha256').update('not uploaded yet').digest('hex');
    const up = await json(
      await s.call(`/hcs/controller/API/file-uploadable?fSize=${size}&fName=${encodeName('big.bin')}&fMd5=${sha}`, { token: alice }),
    );
    expect(up.data.uploadflag).toBe(3);
    const during = (await json(await s.call(`/hcs/controller/userCapacity/userCapInfo/${me.userId}/NetDisk`, { token: alice }))).data;
    expect(during.usedBytes).toBe(size);
    const judge = await json(
      await s.call('/hcs/controller/userCapacity/judgeUserSize', {
        token: alice,
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ fSize: 95 * 1024 ** 2 }),
      }),
    );
    expect(judge.data).toEqual({ enough: false, freeBytes: 90 * 1024 ** 2 });
  });

  it('shows a department its capacity to its members and administrators only', async () => {
    const ok = await json(await s.call('/hcs/controller/groupCapacity/groupCapInfo/dept-rd/NetDisk', { token: alice }));
    expect(ok.data).toMatchObject({ isLimist: '1', totalBytes: 1024 ** 3, usedBytes: 5 * 1024 ** 2, usedSize: '5MB' });
    expect((await s.call('/hcs/controller/groupCapacity/groupCapInfo/dept-rd/NetDisk', { token: admin })).status).toBe(200);
    const denied = await s.call('/hcs/controller/groupCapacity/groupCapInfo/dept-rd/NetDisk', { token: bob });
    expect(denied.status).toBe(403);
    expect((await s.call('/hcs/controller/groupCapacity/groupCapInfo/no-such-dept/NetDisk', { token: admin })).status).toBe(404);
  });

  it('shows and judges a group capacity for members only', async () => {
    const cap = await json(await s.call('/hcs/controller/groupCapacity/getGroupCapInfo?groupId=grp-1', { token: alice }));
    expect(cap.data).toMatchObject({ isLimist: '1', totalBytes: 2048, usedBytes: 0 });
    expect((await s.call('/hcs/controller/groupCapacity/getGroupCapInfo?groupId=grp-1', { token: bob })).status).toBe(403);
    const judge = (fSize: number, token: string) =>
      s.call('/hcs/controller/groupCapacity/judgeGroupSize', {
        token,
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ fSize, groupId: 'grp-1' }),
      });
    expect((await json(await judge(2048, alice))).data).toEqual({ enough: true, freeBytes: 2048 });
    expect((await json(await judge(2049, alice))).data).toEqual({ enough: false, freeBytes: 2048 });
    expect((await judge(1, bob)).status).toBe(403);
  });

  it('sent only responses that match the contract', () => {
    expect(s.violations).toEqual([]);
  });
});
