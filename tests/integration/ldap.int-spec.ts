// Issue #19: LDAP/AD against a real slapd (tests/ldap/slapd.sh, started for this file) through the real server:
// settings with the bind password sealed and never returned, test connection and search preview, sign-in with the
// directory password (never stored), directory sync on the job queue (OUs as nested departments, a group as the
// administrators, then an add, a change and a removal in the directory seen by the next sync: the removed account
// disabled and signed out, not deleted), and names that would be LDAP filter injection matching only themselves.
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { encryptForServer, startServer, type TestServer } from '../helpers/server.ts';
import { apiAs, type Env } from '../helpers/org.ts';
import { READER_DN, READER_PASSWORD, startSlapd, SUFFIX, type TestDirectory } from '../helpers/slapd.ts';
import { verifyPassword } from '../../mock-server/src/auth/passwords.ts';

let srv: TestServer;
let dir: TestDirectory;
let admin: (path: string, query?: Record<string, string | number | undefined>, body?: unknown) => Promise<Env>;

const IP = '/hcs/controller/integrationPlatform';
const PEOPLE = `ou=people,${SUFFIX}`;

async function signIn(username: string, password: string): Promise<{ status: number; code?: string; token?: string }> {
  const info = await srv.call('/hcs/services/System/platformInfo').then((r) => r.json());
  const enc = await encryptForServer(info.data.publicKey, password);
  const r = await srv.call(`/hcs/services/System/Token?username=${encodeURIComponent(username)}&password=${encodeURIComponent(enc)}`, { headers: { 'X-HCS-Client': 'cli' } });
  const body = await r.json();
  return { status: r.status, code: body.data?.code, token: body.data?.token };
}

/** Queues a sync and waits for its report to finish (the job runs on this server's worker). */
async function syncNow(): Promise<any> {
  const queued = await admin(`${IP}/ldapConfig/sync`, undefined, {});
  expect(queued.status, JSON.stringify(queued)).toBe(200);
  for (let i = 0; i < 600; i++) {
    const list = await admin(`${IP}/ldapConfig/reports`, { limit: 5 });
    const r = list.data.find((x: any) => x.id === queued.data.id);
    if (r && (r.status === 'done' || r.status === 'failed')) return r;
    await new Promise((res) => setTimeout(res, 50));
  }
  throw new Error('the sync did not finish');
}

/** Tests the saved settings (an empty body). */
const testSaved = async () => (await admin(`${IP}/ldapConfig/test`, undefined, {})).data;

const account = (name: string) =>
  srv.sql.get<{ id: string; is_enabled: number; is_admin: number; real_name: string; dept_id: string; deleted_at: number | null; auth_source: string; password_hash: string }>(
    'select id, is_enabled, is_admin, real_name, dept_id, deleted_at, auth_source, password_hash from users where user_name_key = ?', name);
const deptPath = async (id: string): Promise<string[]> => {
  const names: string[] = [];
  let cur: string | null = id;
  while (cur && cur !== 'root') {
    const d: { name: string; parent_id: string | null } | undefined = await srv.sql.get('select name, parent_id from departments where id = ?', cur);
    if (!d) break;
    names.unshift(d.name);
    cur = d.parent_id;
  }
  return names;
};

beforeAll(async () => {
  [srv, dir] = await Promise.all([startServer(), startSlapd()]);
  const { token } = await srv.login();
  admin = apiAs(srv, token);
  const saved = await admin(`${IP}/ldapConfig`, undefined, {
    enabled: true, url: dir.url, bindDn: READER_DN, bindPassword: READER_PASSWORD, userBaseDn: PEOPLE,
    userFilter: '(objectClass=inetOrgPerson)', adminGroup: `cn=drive-admins,ou=groups,${SUFFIX}`,
  });
  expect(saved.status, JSON.stringify(saved)).toBe(200);
});
afterAll(async () => {
  expect(srv.violations).toEqual([]);
  await srv.close();
  await dir.stop();
});

describe('settings', () => {
  it('the bind password is sealed at rest and never returned', async () => {
    const got = await admin(`${IP}/ldapConfig`);
    expect(got.data).toMatchObject({ url: dir.url, bindDn: READER_DN, hasBindPassword: true });
    expect(JSON.stringify(got)).not.toContain(READER_PASSWORD);
    const row = await srv.sql.get<{ p: string }>('select bind_password_enc as p from ldap_config');
    expect(row!.p).not.toContain(READER_PASSWORD);
  });

  it('test connection binds and counts the users; a wrong bind password says so without the password', async () => {
    const good = await testSaved();
    expect(good).toEqual({ ok: true, message: 'connected', users: 3 });
    const bad = await admin(`${IP}/ldapConfig/test`, undefined, { url: dir.url, bindDn: READER_DN, bindPassword: 'wrong-one', userBaseDn: PEOPLE });
    expect(bad.data.ok).toBe(false);
    expect(bad.data.message).not.toContain('wrong-one');
    // Testing other settings does not save them.
    expect((await testSaved()).ok).toBe(true);
  });

  it('the preview maps entries as sync would; a wildcard keyword matches only itself', async () => {
    const dana = await admin(`${IP}/ldapConfig/preview`, { keyword: 'dana' });
    expect(dana.data).toEqual([{ dn: `uid=dana,ou=Platform,ou=Engineering,${PEOPLE}`, userName: 'dana', realName: 'Dana Scully', email: 'dana@example.org', department: ['Engineering', 'Platform'] }]);
    expect((await admin(`${IP}/ldapConfig/preview`, { keyword: '*' })).data).toEqual([]);
    expect((await admin(`${IP}/ldapConfig/preview`, { keyword: 'dana)(uid=*' })).data).toEqual([]);
    expect((await admin(`${IP}/ldapConfig/preview`)).data).toHaveLength(3);
  });

  it('only administrators reach the LDAP settings', async () => {
    const r = await signIn('sam', 'Sam-dir-pass-1');
    const sam = apiAs(srv, r.token!);
    for (const [path, body] of [[`${IP}/ldapConfig`, undefined], [`${IP}/ldapConfig/sync`, {}], [`${IP}/ldapConfig/reports`, undefined]] as const) {
      const res = await sam(path, undefined, body);
      expect(res.status, path).toBe(403);
      expect(res.data.code).toBe('FORBIDDEN');
    }
  });

  it('platformInfo says directory accounts sign in', async () => {
    const r = await srv.call('/hcs/services/System/platformInfo').then((x) => x.json());
    expect(r.data.loginMethods.ldap).toBe(true);
  });
});

describe('sign-in', () => {
  it('a directory user signs in with the directory password, placed in the OU\'s department; the password is not stored', async () => {
    const r = await signIn('dana', 'Dana-dir-pass-1');
    expect(r.status).toBe(200);
    const me = await apiAs(srv, r.token!)('/hcs/controller/System/Current/User');
    expect(me.data).toMatchObject({ userName: 'dana', userRealName: 'Dana Scully', isAdmin: false });
    expect(await deptPath(me.data.userDeptId)).toEqual(['Engineering', 'Platform']);
    const row = await account('dana');
    expect(row!.auth_source).toBe('ldap');
    expect(await verifyPassword('Dana-dir-pass-1', row!.password_hash)).toBe(false);
  });

  it('a wrong directory password is a wrong password', async () => {
    expect(await signIn('dana', 'Dana-dir-pass-2')).toMatchObject({ status: 401, code: 'LOGIN_FAILED' });
  });

  it('filter metacharacters in the name match no one else', async () => {
    for (const name of ['*', 'dan*', 'dana)(uid=*', '*)(|(uid=*', 'dana)(|(objectClass=*)', 'dana\\2a', 'x)(cn=Dana Scully']) {
      expect(await signIn(name, 'Dana-dir-pass-1'), name).toMatchObject({ status: 401, code: 'LOGIN_FAILED' });
    }
  });

  it('a directory user whose name holds filter metacharacters signs in as exactly themselves', async () => {
    await dir.admin((c) => c.add(`uid=odd(name)\\,x,ou=Sales,${PEOPLE}`, {
      objectClass: 'inetOrgPerson', uid: 'odd(name),x', cn: 'Odd Name', sn: 'Name', userPassword: 'Odd-dir-pass-1',
    }));
    try {
      expect((await signIn('odd(name),x', 'Odd-dir-pass-1')).status).toBe(200);
      expect(await signIn('odd*', 'Odd-dir-pass-1')).toMatchObject({ status: 401, code: 'LOGIN_FAILED' });
      expect(await signIn('odd(name)', 'Odd-dir-pass-1')).toMatchObject({ status: 401, code: 'LOGIN_FAILED' });
    } finally {
      await dir.admin((c) => c.del(`uid=odd(name)\\,x,ou=Sales,${PEOPLE}`));
      await srv.sql.run("delete from sessions where user_id in (select id from users where user_name_key = 'odd(name),x')");
      await srv.sql.run("delete from users where user_name_key = 'odd(name),x'");
    }
  });

  it('a local account of the same name as nobody in the directory still signs in locally', async () => {
    expect((await srv.login()).token).toBeTruthy();
  });
});

describe('directory sync', () => {
  it('creates the users in nested departments, with the admin group as administrators', async () => {
    const report = await syncNow();
    expect(report).toMatchObject({ status: 'done', trigger: 'manual', disabled: 0, errors: [] });
    expect(report.added).toBe(1); // erin; dana and sam came with their sign-ins
    const erin = await account('erin');
    expect(erin).toMatchObject({ is_enabled: 1, is_admin: 1, auth_source: 'ldap' });
    expect(await deptPath(erin!.dept_id)).toEqual(['Engineering']);
    expect(await deptPath((await account('sam'))!.dept_id)).toEqual(['Sales']);
    expect(await deptPath((await account('dana'))!.dept_id)).toEqual(['Engineering', 'Platform']);
  });

  it('an add, a change and a removal in the directory show up after the next sync', async () => {
    const erinToken = (await signIn('erin', 'Erin-dir-pass-1')).token!;
    await dir.admin(async (c) => {
      await c.add(`ou=East,ou=Sales,${PEOPLE}`, { objectClass: 'organizationalUnit', ou: 'East' });
      await c.add(`uid=frank,ou=East,ou=Sales,${PEOPLE}`, { objectClass: 'inetOrgPerson', uid: 'frank', cn: 'Frank Drebin', sn: 'Drebin', mail: 'frank@example.org', userPassword: 'Frank-dir-pass-1' });
      await c.modify(`uid=sam,ou=Sales,${PEOPLE}`, [new (await import('ldapts')).Change({ operation: 'replace', modification: new (await import('ldapts')).Attribute({ type: 'cn', values: ['Samuel Spade'] }) })]);
      await c.del(`uid=erin,ou=Engineering,${PEOPLE}`);
    });
    const report = await syncNow();
    expect(report).toMatchObject({ status: 'done', added: 1, updated: 1, disabled: 1, errors: [] });
    expect(await deptPath((await account('frank'))!.dept_id)).toEqual(['Sales', 'East']);
    expect((await account('sam'))!.real_name).toBe('Samuel Spade');
    const erin = await account('erin');
    expect(erin).toMatchObject({ is_enabled: 0, deleted_at: null });
    // Signed out at once, and no way back in.
    expect((await apiAs(srv, erinToken)('/hcs/controller/System/Current/User')).status).toBeGreaterThanOrEqual(401);
    expect((await signIn('erin', 'Erin-dir-pass-1')).status).toBe(401);
    // The new user signs in with the directory password.
    expect((await signIn('frank', 'Frank-dir-pass-1')).status).toBe(200);
  });

  it('a sync with nothing changed reports nothing', async () => {
    expect(await syncNow()).toMatchObject({ status: 'done', added: 0, updated: 0, disabled: 0 });
  });
});
