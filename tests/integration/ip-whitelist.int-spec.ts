// Issue #18 part 1: the IP white list through the real HTTP API, behind a trusted proxy (HCS_TRUST_PROXY=127.0.0.1,
// so X-Forwarded-For names the client): a forbidden address is refused at sign-in and on a session already open,
// entries for roles, departments and one account, console-only entries, IPv6, the self-lockout guard, what
// System/sso/access tells the web, and HCS_IP_WHITELIST_OFF as the recovery.
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { encryptForServer, startServer, ADMIN_PASSWORD, type TestServer } from '../helpers/server.ts';
import { makeDept, makeUser, type Env } from '../helpers/org.ts';
import { createUser } from '../../mock-server/src/db/users-repo.ts';

const C = '/hcs/controller';
let srv: TestServer;
let adminToken: string;
let aliceToken: string;

/** A call from `ip` (as the trusted proxy forwards it). */
async function from(srvNow: TestServer, ip: string, token: string | undefined, path: string, body?: unknown): Promise<Env> {
  const res = await srvNow.call(path, {
    method: body === undefined ? 'GET' : 'POST',
    ...(token ? { token } : {}),
    headers: { 'X-Forwarded-For': ip, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: res.status, ...((await res.json()) as any) };
}

/** Signs in as the CLI does, from `ip`: the token, or the refusal's code. */
async function signIn(srvNow: TestServer, ip: string, user: string, password: string): Promise<{ token?: string; code?: string; status: number }> {
  const info = await from(srvNow, ip, undefined, '/hcs/services/System/platformInfo');
  const q = new URLSearchParams({ username: user, password: await encryptForServer(info.data.publicKey, password) });
  const res = await srvNow.call(`/hcs/services/System/Token?${q}`, { headers: { 'X-Forwarded-For': ip, 'X-HCS-Client': 'cli' } });
  const body = (await res.json()) as any;
  return { status: res.status, token: body.data?.token, code: body.data?.code };
}

const addRule = (ip: string, body: Record<string, unknown>) => from(srv, ip, adminToken, `${C}/access/addOrUpdate`, body);
const deleteRules = (ip: string, ids: string[]) => from(srv, ip, adminToken, `${C}/access/delete`, { ids });

beforeAll(async () => {
  srv = await startServer({ env: { HCS_TRUST_PROXY: '127.0.0.1' } });
  await makeDept(srv, 'field', 'Field');
  await makeDept(srv, 'field-north', 'North', 'field');
  await createUser(srv.built.ctx.db, { userName: 'alice', password: 'Alice#pass-1234', deptId: 'field-north' });
  adminToken = (await signIn(srv, '10.0.0.5', 'admin', ADMIN_PASSWORD)).token!;
  aliceToken = (await signIn(srv, '192.168.1.20', 'alice', 'Alice#pass-1234')).token!;
  expect(adminToken && aliceToken).toBeTruthy();
});
afterAll(async () => {
  expect(srv.violations).toEqual([]);
  await srv.close();
});

describe('the white list holds at sign-in and on every call', () => {
  let ruleId: string;

  it('an entry for a department (and below) refuses its members elsewhere, at sign-in and on the session already open', async () => {
    const r = await addRule('10.0.0.5', { ipValue: '172.16.0.0/12', targetType: 'dept', targetId: 'field', scope: 'drive', remark: 'office' });
    expect(r.status, JSON.stringify(r)).toBe(200);
    expect(r.data).toMatchObject({ kind: 'cidr', targetType: 'dept', targetId: 'field', targetName: 'Field', scope: 'drive', enabled: true });
    ruleId = r.data.id;

    const denied = await from(srv, '192.168.1.20', aliceToken, `${C}/System/Current/User`);
    expect([denied.status, denied.data.code]).toEqual([403, 'IP_FORBIDDEN']);
    expect((await signIn(srv, '192.168.1.20', 'alice', 'Alice#pass-1234')).code).toBe('IP_FORBIDDEN');
    const standing = await from(srv, '192.168.1.20', aliceToken, `${C}/System/sso/access`);
    expect(standing.data).toEqual({ ip: '192.168.1.20', allowed: false, consoleAllowed: false, enforced: true });

    const inside = await signIn(srv, '172.20.3.4', 'alice', 'Alice#pass-1234');
    expect(inside.status).toBe(200);
    expect((await from(srv, '172.20.3.4', inside.token, `${C}/System/Current/User`)).status).toBe(200);
    expect((await from(srv, '172.20.3.4', aliceToken, `${C}/System/sso/access`)).data.allowed).toBe(true);
    // Someone outside the department is held to nothing.
    expect((await from(srv, '8.8.8.8', adminToken, `${C}/System/Current/User`)).status).toBe(200);
  });

  it('a disabled entry holds nobody; a range and an account entry admit from their addresses', async () => {
    expect((await addRule('10.0.0.5', { id: ruleId, ipValue: '172.16.0.0/12', targetType: 'dept', targetId: 'field', scope: 'drive', enabled: false })).status).toBe(200);
    expect((await from(srv, '192.168.1.20', aliceToken, `${C}/System/Current/User`)).status).toBe(200);
    const range = await addRule('10.0.0.5', { ipValue: '192.168.1.10-192.168.1.19', targetType: 'user', targetId: await idOf('alice'), scope: 'drive' });
    expect(range.data.kind).toBe('range');
    expect((await from(srv, '192.168.1.20', aliceToken, `${C}/System/Current/User`)).data.code).toBe('IP_FORBIDDEN');
    expect((await from(srv, '192.168.1.19', aliceToken, `${C}/System/Current/User`)).status).toBe(200);
    expect((await deleteRules('10.0.0.5', [range.data.id, ruleId])).status).toBe(200);
    expect((await from(srv, '192.168.1.20', aliceToken, `${C}/System/Current/User`)).status).toBe(200);
  });

  it('IPv6: CIDR and single addresses match IPv6 clients, and an IPv4 entry does not admit them', async () => {
    const v6 = await addRule('10.0.0.5', { ipValue: 'fd00:1234::/32', targetType: 'role', targetId: 'user', scope: 'drive' });
    expect(v6.status, JSON.stringify(v6)).toBe(200);
    const one = await addRule('10.0.0.5', { ipValue: '2001:db8::7', targetType: 'role', targetId: 'user', scope: 'drive' });
    expect(one.data.kind).toBe('single');
    expect((await from(srv, 'fd00:1234:0:1::9', aliceToken, `${C}/System/Current/User`)).status).toBe(200);
    expect((await from(srv, '2001:db8::7', aliceToken, `${C}/System/Current/User`)).status).toBe(200);
    expect((await from(srv, '2001:db8::8', aliceToken, `${C}/System/Current/User`)).data.code).toBe('IP_FORBIDDEN');
    expect((await from(srv, 'fd00:1235::1', aliceToken, `${C}/System/Current/User`)).data.code).toBe('IP_FORBIDDEN');
    expect((await signIn(srv, '192.168.1.20', 'alice', 'Alice#pass-1234')).code).toBe('IP_FORBIDDEN');
    expect((await signIn(srv, 'fd00:1234::42', 'alice', 'Alice#pass-1234')).status).toBe(200);
    // Administrators are not of the role user.
    expect((await from(srv, '8.8.8.8', adminToken, `${C}/System/Current/User`)).status).toBe(200);
    expect((await deleteRules('10.0.0.5', [v6.data.id, one.data.id])).status).toBe(200);
  });

  it('a console entry holds the administrators\' calls only', async () => {
    const r = await addRule('10.0.0.5', { ipValue: '10.0.0.0/8', targetType: 'role', targetId: 'administrator', scope: 'console' });
    expect(r.status).toBe(200);
    expect((await from(srv, '8.8.8.8', adminToken, `${C}/sysOptLog/optType`)).data.code).toBe('IP_FORBIDDEN');
    expect((await from(srv, '8.8.8.8', adminToken, `${C}/System/Current/User`)).status).toBe(200);
    expect((await from(srv, '8.8.8.8', adminToken, `${C}/System/sso/access`)).data).toMatchObject({ allowed: true, consoleAllowed: false });
    expect((await from(srv, '10.1.1.1', adminToken, `${C}/sysOptLog/optType`)).status).toBe(200);
    expect((await deleteRules('10.0.0.5', [r.data.id])).status).toBe(200);
  });
});

describe('the self-lockout guard', () => {
  it('refuses an entry that would shut the calling administrator out, and saves nothing', async () => {
    const before = (await from(srv, '10.0.0.5', adminToken, `${C}/access/list`)).data.total;
    for (const body of [
      { ipValue: '192.168.0.0/16', targetType: 'all', scope: 'drive' },
      { ipValue: '192.168.0.0/16', targetType: 'role', targetId: 'administrator', scope: 'console' },
      { ipValue: '::1', targetType: 'user', targetId: await idOf('admin'), scope: 'drive' },
    ]) {
      const r = await addRule('10.0.0.5', body);
      expect([r.status, r.data.code], JSON.stringify(body)).toEqual([409, 'IP_SELF_LOCKOUT']);
    }
    expect((await from(srv, '10.0.0.5', adminToken, `${C}/access/list`)).data.total).toBe(before);
    expect((await from(srv, '10.0.0.5', adminToken, `${C}/System/Current/User`)).status).toBe(200);
  });

  it('refuses deleting the entry that admits the administrator while another still holds them', async () => {
    const mine = await addRule('10.0.0.5', { ipValue: '10.0.0.5', targetType: 'role', targetId: 'administrator', scope: 'drive' });
    const all = await addRule('10.0.0.5', { ipValue: '192.168.0.0/16', targetType: 'all', scope: 'drive' });
    expect([mine.status, all.status]).toEqual([200, 200]);
    const r = await deleteRules('10.0.0.5', [mine.data.id]);
    expect([r.status, r.data.code]).toEqual([409, 'IP_SELF_LOCKOUT']);
    // Replacing it by one that no longer admits them is refused the same way.
    const edit = await addRule('10.0.0.5', { id: mine.data.id, ipValue: '10.0.0.6', targetType: 'role', targetId: 'administrator', scope: 'drive' });
    expect(edit.data.code).toBe('IP_SELF_LOCKOUT');
    expect((await deleteRules('10.0.0.5', [mine.data.id, all.data.id])).status).toBe(200);
  });

  it('validates addresses, targets and ids', async () => {
    for (const ipValue of ['10.0.0.256', '10.0.0.0/33', '10.0.0.9-10.0.0.1', '10.0.0.1-fd00::1', 'host.example.com', 'fd00::/129']) {
      expect((await addRule('10.0.0.5', { ipValue, targetType: 'all', scope: 'drive' })).data.code, ipValue).toBe('VALIDATION_FAILED');
    }
    expect((await addRule('10.0.0.5', { ipValue: '10.0.0.1', targetType: 'dept', targetId: 'nope', scope: 'drive' })).data.code).toBe('VALIDATION_FAILED');
    expect((await addRule('10.0.0.5', { ipValue: '10.0.0.1', targetType: 'role', targetId: 'king', scope: 'drive' })).data.code).toBe('VALIDATION_FAILED');
    expect((await addRule('10.0.0.5', { id: 'nope', ipValue: '10.0.0.1', targetType: 'all', scope: 'drive' })).data.code).toBe('NOT_FOUND');
    expect((await deleteRules('10.0.0.5', ['nope'])).data.code).toBe('NOT_FOUND');
    // Another account's session cannot touch the list at all.
    expect((await from(srv, '10.0.0.5', aliceToken, `${C}/access/addOrUpdate`, { ipValue: '10.0.0.1', targetType: 'all', scope: 'drive' })).data.code).toBe('FORBIDDEN');
  });
});

describe('recovery', () => {
  it('HCS_IP_WHITELIST_OFF=1 stops enforcement on a server started with it, and System/sso/access says so', async () => {
    const off = await startServer({ env: { HCS_TRUST_PROXY: '127.0.0.1', HCS_IP_WHITELIST_OFF: '1' } });
    try {
      await makeUser(off, 'bob', null);
      const admin = (await signIn(off, '10.0.0.5', 'admin', ADMIN_PASSWORD)).token!;
      expect((await from(off, '10.0.0.5', admin, `${C}/access/addOrUpdate`, { ipValue: '10.0.0.0/8', targetType: 'role', targetId: 'user', scope: 'drive' })).status).toBe(200);
      const bob = await signIn(off, '8.8.8.8', 'bob', 'Bob#pass-1234');
      expect(bob.status).toBe(200);
      expect((await from(off, '8.8.8.8', bob.token, `${C}/System/sso/access`)).data).toEqual({ ip: '8.8.8.8', allowed: true, consoleAllowed: false, enforced: false });
    } finally {
      await off.close();
    }
  });
});

async function idOf(name: string): Promise<string> {
  const r = await srv.sql.get<{ id: string }>('SELECT id FROM users WHERE user_name = ?', name);
  return r!.id;
}
