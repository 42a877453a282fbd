// Files and folders through the real server: name rules, conflicts, move/copy/recycle, keyset paging, access.
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { encodeName } from '@hcs/openapi/client';
import { startServer, type TestServer } from '../helpers/server.ts';

type Env = { status: number; ret: number; msg: string; data: any };
let srv: TestServer;
let token: string;

async function api(path: string, init: { query?: Record<string, string | number>; body?: unknown; as?: string } = {}): Promise<Env> {
  const qs = init.query ? '?' + new URLSearchParams(Object.entries(init.query).map(([k, v]): [string, string] => [k, String(v)])).toString() : '';
  const res = await srv.call(path + qs, {
    method: init.body !== undefined ? 'POST' : 'GET',
    token: init.as ?? token,
    headers: init.body !== undefined ? { 'content-type': 'application/json' } : {},
    body: init.body !== undefined ? JSON.stringify(init.body) : undefined,
  });
  return { status: res.status, ...((await res.json()) as Omit<Env, 'status'>) };
}

const mkdir = (name: string, parentId?: string) =>
  api('/hcs/controller/Instances', { body: [{ classifierId: 'Folder', instanceName: encodeName(name), ...(parentId ? { parentId } : {}) }] });
const idOf = async (name: string, parentId?: string) => {
  const r = await mkdir(name, parentId);
  expect(r.ret, JSON.stringify(r)).toBe(0);
  return r.data[0].instanceId as string;
};

beforeAll(async () => {
  srv = await startServer();
  token = (await srv.login()).token;
});
afterAll(async () => {
  expect(srv.violations).toEqual([]);
  await srv.close();
});

describe('files', () => {
  it('creates folders with the name rules and uniqueness', async () => {
    const base = await idOf('rules');
    for (const bad of [' lead', 'trail ', 'a/b', 'a:b', 'a*b', 'q?', 'x|y', 'a<b>', 'br[a]ce', 'back\\slash', 'quo"te']) {
      const r = await mkdir(bad, base);
      expect([r.status, r.data.code], bad).toEqual([422, 'NAME_INVALID']);
    }
    expect((await mkdir('Docs', base)).ret).toBe(0);
    const dup = await mkdir('docs', base);
    expect([dup.status, dup.data.code]).toEqual([409, 'NAME_EXISTS']);
    // All or nothing.
    const batch = await api('/hcs/controller/Instances', {
      body: [{ classifierId: 'Folder', instanceName: encodeName('ok1'), parentId: base }, { classifierId: 'Folder', instanceName: encodeName('bad/'), parentId: base }],
    });
    expect(batch.ret).not.toBe(0);
    const list = await api('/hcs/controller/Page', { query: { parentId: base } });
    expect(list.data.list.map((r: any) => r.instanceName)).toEqual(['Docs']);
    expect(list.data.breadcrumbs.map((b: any) => b.instanceName).slice(-1)).toEqual(['rules']);
  });

  it('renames, moves (never into a descendant, rename or fail on a clash), copies and deletes to the recycle bin', async () => {
    const root = await idOf('ops');
    const a = await idOf('a', root);
    const b = await idOf('b', a);
    const x = await idOf('x', root);
    await idOf('x', a);
    const ren = await api(`/hcs/controller/Instances/${b}`, { body: { instanceName: encodeName('b2') } });
    expect(ren.data.instanceName).toBe('b2');
    const clash = await api(`/hcs/controller/Instances/${b}`, { body: { instanceName: encodeName('X') } });
    expect(clash.data.code).toBe('NAME_EXISTS');
    const into = await api('/hcs/controller/moveInstance', { query: { ids: a, targetInstanceId: b } });
    expect(into.data.failed).toEqual([expect.objectContaining({ instanceId: a, code: 'CONFLICT' })]);
    const failMove = await api('/hcs/controller/moveInstance', { query: { ids: x, targetInstanceId: a, conflict: 'fail' } });
    expect(failMove.data.failed[0].code).toBe('NAME_EXISTS');
    const moved = await api('/hcs/controller/moveInstance', { query: { ids: x, targetInstanceId: a } });
    expect(moved.data.done[0]).toMatchObject({ instanceName: 'x (1)', parentId: a });
    const copied = await api('/hcs/controller/copyInstance', { query: { ids: a, targetInstanceId: root } });
    expect(copied.data.done[0].instanceName).toBe('a (1)');
    const tree = await api('/hcs/controller/tree/folderData', { query: { id: copied.data.done[0].instanceId } });
    expect(tree.data.map((n: any) => n.instanceName).sort()).toEqual(['b2', 'x', 'x (1)']);
    const del = await api('/hcs/controller/delete', { query: { ids: a } });
    expect(del.data.done.map((d: any) => d.instanceId)).toEqual([a]);
    expect((await api(`/hcs/controller/Instances/${b}`)).status).toBe(404);
    const rows = (await srv.sql.get('SELECT COUNT(*) AS c FROM instances WHERE recycle_id IS NOT NULL AND deleted_at IS NOT NULL')) as { c: number };
    expect(rows.c).toBe(4); // a, b2, x, x (1): nothing vanished
  });

  it('pages by keyset cursor, folders first, with totals and filters', async () => {
    const root = await idOf('paging');
    for (let i = 0; i < 25; i++) await idOf(`f${String(i).padStart(2, '0')}`, root);
    const seen: string[] = [];
    let cursor: string | undefined;
    for (let page = 1; ; page++) {
      const r = await api('/hcs/controller/Page', { query: { parentId: root, pageSize: 10, pageNo: page, sortOrder: 'desc', ...(cursor ? { cursor } : {}) } });
      expect(r.data.total).toBe(25);
      seen.push(...r.data.list.map((x: any) => x.instanceName));
      if (!r.data.nextCursor) break;
      cursor = r.data.nextCursor;
    }
    expect(seen).toEqual(Array.from({ length: 25 }, (_, i) => `f${String(24 - i).padStart(2, '0')}`));
    const pdf = await api('/hcs/controller/Page', { query: { parentId: root, fileFilter: 5 } });
    expect(pdf.data.total).toBe(0);
    const bad = await api('/hcs/controller/Page', { query: { parentId: root, cursor: 'forged.cursor' } });
    expect(bad.data.code).toBe('BAD_REQUEST');
  });

  it('keeps other users out', async () => {
    const mine = await idOf('private');
    // A second user signs in through the real login once the accounts code has created them.
    const { hashPassword } = await import('../../mock-server/src/auth/passwords.ts');
    const now = Date.now();
    await srv.sql.run(
      `INSERT INTO users (id, user_name, user_name_key, password_hash, password_changed_at, created_at, updated_at) VALUES ('u-bob', 'bob', 'bob', ?, ?, ?, ?)`,
      await hashPassword('Bob#Passw0rd-123'), now, now, now,
    );
    const bob = (await srv.login('bob', 'Bob#Passw0rd-123')).token;
    expect((await api(`/hcs/controller/Instances/${mine}`, { as: bob })).status).toBe(404);
    expect((await api('/hcs/controller/Page', { query: { parentId: mine }, as: bob })).status).toBe(404);
    expect((await api('/hcs/controller/delete', { query: { ids: mine }, as: bob })).data.failed[0].code).toBe('NOT_FOUND');
    expect((await api('/hcs/controller/getZipDownloadUrl', { query: { ids: mine }, as: bob })).status).toBe(404);
    expect((await mkdir('intrusion', mine).then(() => api('/hcs/controller/Instances', { body: [{ classifierId: 'Folder', instanceName: encodeName('x'), parentId: mine }], as: bob }))).status).toBe(404);
  });
});
