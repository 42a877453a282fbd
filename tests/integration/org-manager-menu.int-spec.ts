// Department managers reach their screen (issue #14): the current user names the departments they manage, and the
// SysConfig menu answers a manager only Department management, an administrator everything, anyone else FORBIDDEN.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHcsClient, unwrap } from '@hcs/openapi/client';
import { encryptForServer, startServer, type TestServer } from '../helpers/server.ts';

let s: TestServer;
let admin: string;
let publicKey: string;

type Res = { status: number; body: { ret: number; data: any } };

async function call(token: string, path: string, body?: unknown): Promise<Res> {
  const init = body === undefined ? { token } : { token, method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) };
  const res = await s.call(`/hcs/controller/${path}`, init);
  return { status: res.status, body: (await res.json()) as Res['body'] };
}

async function newUser(userName: string, extra: Record<string, unknown> = {}): Promise<{ id: string; token: string }> {
  const password = `${userName}#Pass-word-1`;
  const r = await call(admin, 'Users/setUserInfo', { userName, password: await encryptForServer(publicKey, password), ...extra });
  expect(r.status, JSON.stringify(r.body)).toBe(200);
  const anon = createHcsClient({ baseUrl: s.baseUrl });
  const res = await anon.GET('/hcs/services/System/Token', {
    params: { query: { username: userName, password: await encryptForServer(publicKey, password) } },
    headers: { 'X-HCS-Client': 'cli' },
  });
  return { id: r.body.data.userId, token: (res.data as any).data.token };
}

const codes = (menu: any[]): string[] => menu.flatMap((m) => [m.menuCode, ...codes(m.children ?? [])]);

beforeAll(async () => {
  s = await startServer();
  admin = (await s.login()).token;
  publicKey = unwrap(await createHcsClient({ baseUrl: s.baseUrl }).GET('/hcs/services/System/platformInfo', {})).data!.publicKey;
});
afterAll(async () => {
  await s?.close();
});

describe('a department manager and the administration menu', () => {
  it('names the managed departments and cuts the SysConfig menu to Department management', async () => {
    const sales = (await call(admin, 'sysGroup/setGroupInfo', { name: 'Sales' })).body.data.id;
    const lead = await newUser('sales-lead', { deptId: sales });
    expect((await call(admin, 'sysGroup/setGroupInfo', { id: sales, managerIds: [lead.id] })).status).toBe(200);
    const plain = await newUser('sales-rep', { deptId: sales });

    expect((await call(lead.token, 'System/Current/User')).body.data.managedDeptIds).toEqual([sales]);
    expect((await call(plain.token, 'System/Current/User')).body.data.managedDeptIds).toEqual([]);

    const libs = async (t: string) => (await call(t, 'BusinessLibs?isShow=1&isHome=1')).body.data.map((l: { libCode: string }) => l.libCode);
    expect(await libs(lead.token)).toEqual(['NetDisk', 'SysConfig']);
    expect(await libs(plain.token)).toEqual(['NetDisk']);

    const mine = await call(lead.token, 'BusinessLibs/Menus/sysConfig');
    expect(mine.status).toBe(200);
    expect(codes(mine.body.data)).toEqual(['organization', 'departmentManage']);

    const refused = await call(plain.token, 'BusinessLibs/Menus/sysConfig');
    expect(refused.status).toBe(403);
    expect(refused.body.data.code).toBe('FORBIDDEN');

    const all = codes((await call(admin, 'BusinessLibs/Menus/sysConfig')).body.data);
    expect(all).toEqual(expect.arrayContaining(['organization', 'roleManage', 'departmentManage', 'businessManage']));
    expect(all.length).toBeGreaterThan(3);
  });
});
