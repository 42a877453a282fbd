// Departments, accounts and department managers for tests of the organisation's access rules, made through the
// database (the repositories and plain SQL) so that tests of roles and grants do not depend on the account screens'
// calls. Departments hang under the seeded root department ('root') with their materialised path.
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

/** An account in `deptId` (none: no department), signed in. */
export async function makeUser(srv: TestServer, name: string, deptId: string | null, opts: { admin?: boolean } = {}): Promise<TestUser> {
  const password = `${name[0]!.toUpperCase()}${name.slice(1)}#pass-1234`;
  const user = await createUser(srv.built.ctx.db, { userName: name, password, deptId, isAdmin: opts.admin ?? false });
  const { token } = await srv.login(name, password);
  return { id: user.id, name, token, api: apiAs(srv, token) };
}

export async function makeManager(srv: TestServer, deptId: string, userId: string): Promise<void> {
  await srv.sql.run('INSERT INTO dept_managers (dept_id, user_id) VALUES (?, ?)', deptId, userId);
}
