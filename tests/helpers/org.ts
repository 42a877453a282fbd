// Departments, accounts and department managers for tests of the organisation's access rules, made through the
// database (the repositories and plain SQL) so that tests of roles and grants do not depend on the account screens'
// calls. Departments hang under the seeded root department ('root') with their materialised path.
import { expect } from 'vitest';
import { encodeName } from '@hcs/openapi/client';
import { createUser } from '../../mock-server/src/db/users-repo.ts';
import type { TestServer } from './server.ts';

type Json = Record<string, any>;
export type Env = { status: number; ret: number; msg: string; data: any };

/** A department `id` named `name` under `parentId` (the root department by default). */
export async function makeDept(srv: TestServer, id: string, name: string, parentId = 'root'): Promise<string> {
  const parent = await srv.sql.get<{ path: string }>('SELECT path FROM departments WHERE id = ?', parentId);
  if (!parent) throw new Error(`no department ${parentId}`);
  await srv.sql.run(
    'INSERT INTO departments (id, name, name_key, parent_id, quota_bytes, used_bytes, created_at, sort, path) VALUES (?, ?, ?, ?, NULL, 0, ?, 0, ?)',
    id, name, name.toLowerCase(), parentId, Date.now(), `${parent.path}${id}/`,
  );
  return id;
}

export interface TestUser {
  id: string;
  name: string;
  token: string;
  /** A signed-in call as this user: GET with `query`, POST with a JSON `body`. */
  api(path: string, query?: Record<string, string | number | undefined>, body?: unknown): Promise<Env>;
}

export function apiAs(srv: TestServer, token: string): TestUser['api'] {
  return async (path, query, body) => {
    const qs = query ? Object.entries(query).filter(([, v]) => v !== undefined).map(([k, v]) => `${k}=${encodeURIComponent(String(v))}`).join('&') : '';
    const res = await srv.call(`${path}${qs ? `?${qs}` : ''}`, {
      method: body !== undefined ? 'POST' : 'GET',
      token,
      ...(body !== undefined ? { headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) } : {}),
    });
    return { status: res.status, ...((await res.json()) as Json) } as Env;
  };
}

/**
 * Calls for tests that hold several tokens: `call(token, path, query?, body?)`, `as(token)` (an ApiCall for the
 * upload helpers) and `folder(token, name, parentId?)`. `srv` is read at each call, as suites start it in beforeAll.
 */
export function tokenCalls(srv: () => TestServer) {
  const as = (token: string) => apiAs(srv(), token);
  const call = (token: string, ...args: Parameters<TestUser['api']>) => as(token)(...args);
  const folder = (token: string, name: string, parentId?: string) => mkdir({ api: as(token) }, name, parentId);
  return { call, as, folder };
}

/** A new folder named `name` made by `u` (in the personal root unless `parentId`); answers its id. */
export async function mkdir(u: Pick<TestUser, 'api'>, name: string, parentId?: string, instanceType?: string): Promise<string> {
  const r = await u.api('/hcs/controller/Instances', undefined, [{ classifierId: 'Folder', instanceName: encodeName(name), ...(parentId ? { parentId } : {}), ...(instanceType ? { instanceType } : {}) }]);
  expect(r.ret, JSON.stringify(r)).toBe(0);
  return r.data[0].instanceId;
}

/** The id of the root of `u`'s department space. */
export async function deptRoot(u: Pick<TestUser, 'api'>): Promise<string> {
  const r = await u.api('/hcs/controller/Page', { instanceType: '3' });
  expect(r.ret, JSON.stringify(r)).toBe(0);
  return r.data.parentId;
}

/** A call's result for the permission tables: 'Y' done, 'F' FORBIDDEN, 'N' NOT_FOUND (a batch reports its first failure). */
export function outcome(r: Env): string {
  if (r.status === 200 && r.ret === 0) {
    // Batch calls answer 200 and report each item.
    if (r.data && Array.isArray(r.data.failed)) return r.data.failed.length ? code(r.data.failed[0].code) : 'Y';
    return 'Y';
  }
  return code(r.data?.code) ?? `?${r.status}`;
}
const code = (c: string): string => ({ FORBIDDEN: 'F', NOT_FOUND: 'N' })[c] ?? `?${c}`;

/** An account in `deptId` (none: no department), signed in. */
export async function makeUser(srv: TestServer, name: string, deptId: string | null, opts: { admin?: boolean } = {}): Promise<TestUser> {
  const password = `${name[0]!.toUpperCase()}${name.slice(1)}#pass-1234`;
  const user = await createUser(srv.built.ctx.db, { userName: name, password, deptId, isAdmin: opts.admin ?? false });
  const { token } = await srv.login(name, password);
  return { id: user.id, name, token, api: apiAs(srv, token) };
}

/** The seeded administrator, signed in. */
export async function signInAdmin(srv: TestServer): Promise<TestUser> {
  const { token } = await srv.login();
  const me = await apiAs(srv, token)('/hcs/controller/System/Current/User');
  return { id: me.data.userId, name: 'admin', token, api: apiAs(srv, token) };
}

export async function makeManager(srv: TestServer, deptId: string, userId: string): Promise<void> {
  await srv.sql.run('INSERT INTO dept_managers (dept_id, user_id) VALUES (?, ?)', deptId, userId);
}
