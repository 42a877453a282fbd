// Accounts and sessions against the real server (SQLite + embedded S3 in a temp dir): sign-in, rate limits,
// frozen and expired accounts, idle and absolute expiry, sign-out, password change, restart, CSRF, and that
// no response or log line carries a password or a session secret.
import { describe, it, expect, beforeAll, afterAll, vi } from 'vitest';
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startServer, encryptForServer, ADMIN_USER, ADMIN_PASSWORD, type TestServer } from '../helpers/server.ts';
import { databaseEnvFor, dropDatabaseOf } from '../helpers/db.ts';
import { createUser, setUserEnabled, setUserExpiredTime, getUserByName } from '../../mock-server/src/db/users-repo.ts';

const CURRENT = '/hcs/controller/System/Current/User';
const sha256 = (s: string) => createHash('sha256').update(s).digest('hex');

interface Seen {
  bodies: string[];
  secrets: Set<string>;
}

/** A thin client over one server that remembers every response body, so the test can look for leaked secrets. */
function clientFor(s: TestServer, seen: Seen) {
  let publicKey = '';
  const call = async (path: string, init: RequestInit & { token?: string; cookie?: string; ip?: string } = {}) => {
    const headers = new Headers(init.headers);
    if (init.cookie) headers.set('cookie', init.cookie);
    if (init.ip) headers.set('x-forwarded-for', init.ip);
    const res = await s.call(path, { ...init, headers });
    const text = await res.text();
    seen.bodies.push(text);
    return { status: res.status, headers: res.headers, text, json: JSON.parse(text || 'null') };
  };
  const key = async () => {
    if (!publicKey) publicKey = (await call('/hcs/services/System/platformInfo')).json.data.publicKey;
    return publicKey;
  };
  const enc = async (plain: string) => {
    const wire = await encryptForServer(await key(), plain);
    seen.secrets.add(plain);
    seen.secrets.add(wire);
    return wire;
  };
  const login = async (user: string, password: string, o: { cli?: boolean; ip?: string; cookie?: string } = {}) => {
    const q = new URLSearchParams({ username: user, password: await enc(password) });
    const headers: Record<string, string> = o.cli ? { 'X-HCS-Client': 'cli' } : {};
    const res = await call(`/hcs/services/System/Token?${q}`, { headers, ...(o.ip ? { ip: o.ip } : {}), ...(o.cookie ? { cookie: o.cookie } : {}) });
    const setCookie = res.headers.getSetCookie().find((c) => c.startsWith('HCS_SESSION='));
    const cookieValue = setCookie?.split(';')[0]?.slice('HCS_SESSION='.length);
    if (cookieValue) {
      seen.secrets.add(cookieValue);
      seen.secrets.add(sha256(cookieValue));
    }
    if (res.json?.data?.token) {
      // The CLI's own sign-in response is the one place its token may appear; every other body is checked.
      seen.bodies[seen.bodies.length - 1] = res.text.replaceAll(res.json.data.token, '<issued token>');
      seen.secrets.add(res.json.data.token);
      seen.secrets.add(sha256(res.json.data.token));
    }
    return { ...res, setCookie, cookie: cookieValue ? `HCS_SESSION=${cookieValue}` : undefined, token: res.json?.data?.token as string | undefined };
  };
  const changePassword = async (auth: { token?: string; cookie?: string }, body: { userId: string; oldPassword?: string; newPassword: string; resetPassword?: boolean }) =>
    call('/hcs/controller/Users/userPassword', {
      method: 'POST',
      ...auth,
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        ...body,
        ...(body.oldPassword !== undefined ? { oldPassword: await enc(body.oldPassword) } : {}),
        newPassword: await enc(body.newPassword),
      }),
    });
  return { call, login, enc, changePassword };
}

function expectNoLeaks(seen: Seen) {
  const all = seen.bodies.join('\n');
  for (const secret of seen.secrets) {
    // Short rejected candidates ("paula" = the user name) are public strings, not secrets.
    if (secret.length < 8) continue;
    expect(all.includes(secret), `a response body contains a secret (${secret.slice(0, 6)}...)`).toBe(false);
  }
}

describe('accounts and sessions', () => {
  let s: TestServer;
  const seen: Seen = { bodies: [], secrets: new Set() };
  let c: ReturnType<typeof clientFor>;

  beforeAll(async () => {
    // The tests simulate clients at different addresses through a trusted proxy's X-Forwarded-For; sign-ins past
    // the failure threshold are held back by 1 ms doubling up to 10 ms (login-throttle.int-spec.ts covers the rest).
    s = await startServer({
      env: { HCS_LOGIN_MAX_ATTEMPTS: '3', HCS_LOGIN_DELAY_SECONDS: '0.001', HCS_LOGIN_DELAY_MAX_SECONDS: '0.01', HCS_TRUST_PROXY: '127.0.0.1' },
    });
    c = clientFor(s, seen);
    seen.secrets.add(ADMIN_PASSWORD);
  });
  afterAll(async () => {
    expectNoLeaks(seen);
    expect(s.violations).toEqual([]);
    await s.close();
  });

  it('signs a browser in with an HttpOnly SameSite=Lax cookie and no token in the body', async () => {
    const r = await c.login(ADMIN_USER, ADMIN_PASSWORD, { ip: '10.1.0.1' });
    expect(r.status).toBe(200);
    expect(r.json.data.token).toBe('');
    expect(r.setCookie).toMatch(/^HCS_SESSION=[A-Za-z0-9_-]{43};/);
    expect(r.setCookie).toMatch(/HttpOnly/i);
    expect(r.setCookie).toMatch(/SameSite=Lax/i);
    expect(r.setCookie).toMatch(/Path=\//);
    expect(r.setCookie).not.toMatch(/Secure/i);
    expect(r.json.data.user).toMatchObject({ userName: ADMIN_USER, userIsEnabled: 1, userExpiredTime: 1, platformId: 'NetDisk', isAdmin: true });
    const me = await c.call(CURRENT, { cookie: r.cookie! });
    expect(me.status).toBe(200);
    expect(me.json.data.userName).toBe(ADMIN_USER);
    expect((await c.call('/hcs/controller/System/CurrentUser', { cookie: r.cookie! })).json.data.userId).toBe(me.json.data.userId);
  });

  it('gives the CLI a token for the token header and no cookie; each secret works only on its own channel', async () => {
    const cli = await c.login(ADMIN_USER, ADMIN_PASSWORD, { cli: true, ip: '10.1.0.2' });
    expect(cli.status).toBe(200);
    expect(cli.token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(cli.setCookie).toBeUndefined();
    expect(cli.json.data.expiresAt).toBeGreaterThan(Date.now());
    expect((await c.call(CURRENT, { token: cli.token! })).status).toBe(200);
    expect((await c.call(CURRENT, { cookie: `HCS_SESSION=${cli.token}` })).status).toBe(401);
    const web = await c.login(ADMIN_USER, ADMIN_PASSWORD, { ip: '10.1.0.2' });
    expect((await c.call(CURRENT, { token: web.cookie!.slice('HCS_SESSION='.length) })).status).toBe(401);
  });

  it('refuses wrong passwords and unknown users alike with 401 LOGIN_FAILED', async () => {
    const wrong = await c.login(ADMIN_USER, 'Not-the-password-1', { ip: '10.2.0.1' });
    const unknown = await c.login('nobody-here', 'Not-the-password-1', { ip: '10.2.0.1' });
    for (const r of [wrong, unknown]) {
      expect(r.status).toBe(401);
      expect(r.json).toMatchObject({ ret: 1, msg: 'login.userOrPasswordError', data: { code: 'LOGIN_FAILED' } });
      expect(r.setCookie).toBeUndefined();
    }
    // A password sent in plain text is refused before it is ever compared.
    const plain = await c.call(`/hcs/services/System/Token?username=${ADMIN_USER}&password=${encodeURIComponent(ADMIN_PASSWORD)}`);
    expect(plain.status).toBe(400);
    expect(plain.json.data.code).toBe('BAD_REQUEST');
  });

  it('refuses unauthenticated calls with 401 and garbage tokens without revealing anything', async () => {
    const none = await c.call(CURRENT);
    expect(none.status).toBe(401);
    expect(none.json.data.code).toBe('UNAUTHENTICATED');
    expect((await c.call(CURRENT, { token: 'x'.repeat(43) })).status).toBe(401);
    const badCookie = await c.call(CURRENT, { cookie: 'HCS_SESSION=nonsense' });
    expect(badCookie.status).toBe(401);
    expect(badCookie.headers.getSetCookie().join()).toMatch(/HCS_SESSION=;/);
  });

  it('throttles sign-in per account past the threshold (CAPTCHA_REQUIRED), counting failures only, and never refuses the right password', async () => {
    await createUser(s.built.ctx.db, { userName: 'rita', password: 'Rita-pass-123' });
    // Two failures, then a success clears the account counter.
    for (let i = 0; i < 2; i++) expect((await c.login('rita', 'wrong-Pass-1', { ip: '10.3.0.1' })).status).toBe(401);
    expect((await c.login('rita', 'Rita-pass-123', { ip: '10.3.0.1' })).status).toBe(200);
    const codes: string[] = [];
    for (let i = 0; i < 3; i++) codes.push((await c.login('rita', 'wrong-Pass-1', { ip: '10.3.0.2' })).json.data.code);
    // The third failure uses the budget up: from now on an attempt is held back unless it carries a solved CAPTCHA.
    expect(codes).toEqual(['LOGIN_FAILED', 'LOGIN_FAILED', 'CAPTCHA_REQUIRED']);
    // The right password from another address still signs in (after the delay), and clears the count.
    const owner = await c.login('rita', 'Rita-pass-123', { ip: '10.3.0.3' });
    expect(owner.status).toBe(200);
    expect((await c.login('rita', 'wrong-Pass-1', { ip: '10.3.0.3' })).json.data.code).toBe('LOGIN_FAILED');
    // Other accounts are unaffected.
    expect((await c.login(ADMIN_USER, ADMIN_PASSWORD, { ip: '10.3.0.3' })).status).toBe(200);
  });

  it('counts parallel guesses as they arrive, so a burst is held back and answered like the same guesses in a row', async () => {
    await createUser(s.built.ctx.db, { userName: 'burst', password: 'Burst-pass-123' });
    const results = await Promise.all(Array.from({ length: 8 }, (_, i) => c.login('burst', 'Wrong-pass-1', { ip: `10.13.0.${i + 1}` })));
    expect(results.map((r) => r.status)).toEqual(Array(8).fill(401));
    const codes = results.map((r) => r.json.data.code as string).sort();
    // Guesses 1-2 are within the budget; from the third on, each one's answer asks for a CAPTCHA.
    expect(codes.filter((x) => x === 'LOGIN_FAILED')).toHaveLength(2);
    expect(codes.filter((x) => x === 'CAPTCHA_REQUIRED')).toHaveLength(6);
    const row = (await s.sql.get("SELECT count FROM rate_limits WHERE key = 'login:user:burst'")) as { count: number };
    expect(row.count).toBe(8);
  });

  it('throttles sign-in per IP across accounts, without locking out the right password from that IP', async () => {
    const ip = '10.4.0.1';
    // perIp = 4 x perAccount = 12 failures, spread over accounts so no account limit is reached.
    for (let i = 0; i < 12; i++) expect((await c.login(`spray${i % 6}`, 'Wrong-pass-1', { ip })).status).toBe(401);
    expect((await c.login('spray-next', 'Wrong-pass-1', { ip })).json.data.code).toBe('CAPTCHA_REQUIRED');
    expect((await c.login('spray-next', 'Wrong-pass-1', { ip: '10.4.0.2' })).json.data.code).toBe('LOGIN_FAILED');
    expect((await c.login(ADMIN_USER, ADMIN_PASSWORD, { ip })).status).toBe(200);
  });

  it('refuses a disabled account at sign-in and on every call of an open session (accountFrozen)', async () => {
    const db = s.built.ctx.db;
    const u = await createUser(db, { userName: 'frida', password: 'Frida-pass-1' });
    const open = await c.login('frida', 'Frida-pass-1', { cli: true, ip: '10.5.0.1' });
    await setUserEnabled(db, u.id, false);
    const again = await c.login('frida', 'Frida-pass-1', { ip: '10.5.0.1' });
    expect(again.status).toBe(403);
    expect(again.json).toMatchObject({ ret: 1, msg: 'accountFrozen', data: { code: 'ACCOUNT_FROZEN' } });
    expect(again.setCookie).toBeUndefined();
    // The wrong password still says only "wrong password": account state is not revealed to guessers.
    expect((await c.login('frida', 'Wrong-pass-1', { ip: '10.5.0.1' })).json.data.code).toBe('LOGIN_FAILED');
    const call = await c.call(CURRENT, { token: open.token! });
    expect(call.status).toBe(403);
    expect(call.json.msg).toBe('accountFrozen');
    await setUserEnabled(db, u.id, true);
    expect((await c.call(CURRENT, { token: open.token! })).status).toBe(200);
  });

  it('refuses an expired account (login.userValid); 1 means never expires', async () => {
    const db = s.built.ctx.db;
    const u = await createUser(db, { userName: 'ernie', password: 'Ernie-pass-1', expiredTime: Date.now() + 3_600_000 });
    const open = await c.login('ernie', 'Ernie-pass-1', { cli: true, ip: '10.6.0.1' });
    expect(open.status).toBe(200);
    await setUserExpiredTime(db, u.id, Date.now() - 1000);
    const again = await c.login('ernie', 'Ernie-pass-1', { ip: '10.6.0.1' });
    expect(again.status).toBe(403);
    expect(again.json).toMatchObject({ msg: 'login.userValid', data: { code: 'ACCOUNT_EXPIRED' } });
    expect((await c.call(CURRENT, { token: open.token! })).json.msg).toBe('login.userValid');
    await setUserExpiredTime(db, u.id, 1);
    expect((await c.call(CURRENT, { token: open.token! })).status).toBe(200);
  });

  it('signs out: the session is revoked server-side and the cookie cleared', async () => {
    const web = await c.login(ADMIN_USER, ADMIN_PASSWORD, { ip: '10.7.0.1' });
    const out = await c.call('/hcs/controller/System/sso/logout', { cookie: web.cookie! });
    expect(out.status).toBe(200);
    // No single sign-on configured: no provider session to end, so no logoutUrl (issue #19).
    expect(out.json).toEqual({ ret: 0, msg: 'LoginOutSuccessful', data: {} });
    expect(out.headers.getSetCookie().join()).toMatch(/HCS_SESSION=;.*(Max-Age=0|Expires=Thu, 01 Jan 1970)/i);
    // A copy of the old cookie is worthless.
    expect((await c.call(CURRENT, { cookie: web.cookie! })).status).toBe(401);
    const cli = await c.login(ADMIN_USER, ADMIN_PASSWORD, { cli: true, ip: '10.7.0.1' });
    expect((await c.call('/hcs/controller/System/sso/logout', { token: cli.token! })).status).toBe(200);
    expect((await c.call(CURRENT, { token: cli.token! })).status).toBe(401);
  });

  it('changes a password: old password checked, policy enforced, other sessions end, this one stays', async () => {
    await createUser(s.built.ctx.db, { userName: 'paula', password: 'Paula-pass-1' });
    const a = await c.login('paula', 'Paula-pass-1', { ip: '10.8.0.1' });
    const b = await c.login('paula', 'Paula-pass-1', { cli: true, ip: '10.8.0.2' });
    const userId = a.json.data.user.userId as string;

    const wrong = await c.changePassword({ cookie: a.cookie! }, { userId, oldPassword: 'Not-her-pass-1', newPassword: 'Paula-new-pass-2' });
    expect(wrong.status).toBe(403);
    expect(wrong.json).toMatchObject({ msg: 'login.PasswordModifiedFailed', data: { code: 'PASSWORD_WRONG' } });
    for (const weak of ['Short1!', 'alllowercase', 'paula', 'aluap']) {
      const r = await c.changePassword({ cookie: a.cookie! }, { userId, oldPassword: 'Paula-pass-1', newPassword: weak });
      expect(r.status, weak).toBe(422);
      expect(r.json.data.code).toBe('PASSWORD_POLICY');
    }
    const good = await c.changePassword({ cookie: a.cookie! }, { userId, oldPassword: 'Paula-pass-1', newPassword: 'Paula-new-pass-2' });
    expect(good.status).toBe(200);
    expect(good.json.msg).toBe('PasswordModifiedSuccessful');
    expect((await c.call(CURRENT, { cookie: a.cookie! })).status).toBe(200);
    expect((await c.call(CURRENT, { token: b.token! })).status).toBe(401);
    expect((await c.login('paula', 'Paula-pass-1', { ip: '10.8.0.3' })).status).toBe(401);
    expect((await c.login('paula', 'Paula-new-pass-2', { ip: '10.8.0.3' })).status).toBe(200);
  });

  it("lets only administrators reset another user's password, which ends all that user's sessions", async () => {
    await createUser(s.built.ctx.db, { userName: 'oscar', password: 'Oscar-pass-1' });
    await createUser(s.built.ctx.db, { userName: 'mallory', password: 'Mallory-pass-1' });
    const oscar = await c.login('oscar', 'Oscar-pass-1', { cli: true, ip: '10.9.0.1' });
    const mallory = await c.login('mallory', 'Mallory-pass-1', { cli: true, ip: '10.9.0.2' });
    const oscarId = oscar.json.data.user.userId as string;
    const denied = await c.changePassword({ token: mallory.token! }, { userId: oscarId, newPassword: 'Hijacked-pass-1', resetPassword: true });
    expect(denied.status).toBe(403);
    expect(denied.json.data.code).toBe('FORBIDDEN');
    expect((await c.login('oscar', 'Oscar-pass-1', { ip: '10.9.0.1' })).status).toBe(200);

    const admin = await c.login(ADMIN_USER, ADMIN_PASSWORD, { cli: true, ip: '10.9.0.3' });
    const reset = await c.changePassword({ token: admin.token! }, { userId: oscarId, newPassword: 'Temporary-pass-1', resetPassword: true });
    expect(reset.status).toBe(200);
    expect((await c.call(CURRENT, { token: oscar.token! })).status).toBe(401);
    const relog = await c.login('oscar', 'Temporary-pass-1', { ip: '10.9.0.1' });
    expect(relog.json.data.user.mustChangePassword).toBe(true);
  });

  it('refuses every /hcs call without X-Requested-With (CSRF), including sign-in', async () => {
    const cli = await c.login(ADMIN_USER, ADMIN_PASSWORD, { cli: true, ip: '10.10.0.1' });
    const origin = s.baseUrl;
    for (const path of [CURRENT, '/hcs/services/System/platformInfo', '/hcs/controller/System/sso/logout']) {
      const r = await fetch(origin + path, { headers: { token: cli.token! } });
      const body = (await r.json()) as { data: { code: string } };
      seen.bodies.push(JSON.stringify(body));
      expect(r.status, path).toBe(403);
      expect(body.data.code).toBe('CSRF_HEADER_MISSING');
    }
    // The refused sign-out did not sign anyone out.
    expect((await c.call(CURRENT, { token: cli.token! })).status).toBe(200);
  });

  it('saves the language and serves the platform facts, locale and agreement', async () => {
    const cli = await c.login(ADMIN_USER, ADMIN_PASSWORD, { cli: true, ip: '10.11.0.1' });
    const set = await c.call('/hcs/controller/setlanguage', {
      method: 'POST', token: cli.token!, headers: { 'content-type': 'application/json' }, body: JSON.stringify({ languageId: 'en_US' }),
    });
    expect(set.status).toBe(200);
    expect((await c.call(CURRENT, { token: cli.token! })).json.data.languageId).toBe('en_US');
    const bad = await c.call('/hcs/controller/setlanguage', {
      method: 'POST', token: cli.token!, headers: { 'content-type': 'application/json' }, body: JSON.stringify({ languageId: 'fr_FR' }),
    });
    expect(bad.status).toBe(422);
    const info = (await c.call('/hcs/services/System/platformInfo')).json.data;
    expect(info).toMatchObject({ platformId: 'NetDisk', passwordEncryption: 'RSA-OAEP-256', loginMethod: 'local', skin: 'redblack', passwordMinLength: 8 });
    const zh = (await c.call('/hcs/services/System/locale?language=zh_CN')).json.data;
    const en = (await c.call('/hcs/services/System/locale?language=en_US')).json.data;
    expect(Object.keys(zh).sort()).toEqual(Object.keys(en).sort());
    for (const k of ['accountFrozen', 'login.userValid', 'LoginOutSuccessful', 'PasswordModifiedSuccessful', 'login.PasswordModifiedFailed']) {
      expect(zh[k], k).toBeTruthy();
    }
    expect((await c.call('/hcs/services/sysConfig/language')).json.data).toBe('zh_CN');
    const agreement = (await c.call('/hcs/controller/System/userAgreement', { token: cli.token! })).json.data;
    expect(agreement.title).toBe('User Service Agreement');
    expect((await c.call('/hcs/controller/System/userAgreement?languageId=zh_CN', { token: cli.token! })).json.data.title).toBe('用户服务协议');
    expect((await c.call('/hcs/services/System/requestIp', { ip: '10.11.0.9' })).json.data.ip).toBe('10.11.0.9');
    const gw = await c.call('/hcs/services/API/1.0/checkSpecialGatewayMapping', {
      method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ ip: '10.1.2.3' }),
    });
    expect(gw.json).toMatchObject({ ret: 0, data: '' });
  });

  it('answers gateway mappings from sys_config (exact IP and CIDR)', async () => {
    await s.sql.run("UPDATE sys_config SET config_value = ? WHERE config_key = 'specialGatewayMapping'", JSON.stringify([{ ip: '192.168.7.7', host: 'https://one.example' }, { ip: '10.0.0.0/8', host: 'https://ten.example' }]));
    const ask = async (ip: string) =>
      (await c.call('/hcs/services/API/1.0/checkSpecialGatewayMapping', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ ip }) })).json;
    expect((await ask('192.168.7.7')).data).toBe('https://one.example');
    expect((await ask('10.200.1.1')).data).toBe('https://ten.example');
    expect((await ask('172.16.0.1')).data).toBe('');
    expect((await ask('not-an-ip')).data.code).toBe('VALIDATION_FAILED');
  });

  it('lists libraries and menus by role, and capacity for self (admins for anyone)', async () => {
    await createUser(s.built.ctx.db, { userName: 'quinn', password: 'Quinn-pass-1', quotaBytes: 2 * 1024 ** 3 });
    await s.sql.run("UPDATE users SET used_bytes = ? WHERE user_name_key = 'quinn'", 12 * 1024 ** 2);
    const quinn = await c.login('quinn', 'Quinn-pass-1', { cli: true, ip: '10.12.0.1' });
    const admin = await c.login(ADMIN_USER, ADMIN_PASSWORD, { cli: true, ip: '10.12.0.2' });
    const qid = quinn.json.data.user.userId as string;
    const aid = admin.json.data.user.userId as string;

    const libs = (t: string) => c.call('/hcs/controller/BusinessLibs?isShow=1&isHome=1', { token: t });
    expect((await libs(quinn.token!)).json.data.map((l: { libCode: string }) => l.libCode)).toEqual(['NetDisk']);
    expect((await libs(admin.token!)).json.data.map((l: { libCode: string }) => l.libCode)).toEqual(['NetDisk', 'SysConfig']);
    expect((await c.call('/hcs/controller/BusinessLibs/Menus/sysConfig', { token: quinn.token! })).status).toBe(403);
    expect((await c.call('/hcs/controller/BusinessLibs/businessMenu?libCode=SysConfig', { token: quinn.token! })).status).toBe(403);
    const adminMenu = (await c.call('/hcs/controller/BusinessLibs/Menus/sysConfig', { token: admin.token! })).json.data;
    expect(adminMenu.some((m: { children: unknown[] }) => m.children.length > 0)).toBe(true);
    expect((await c.call('/hcs/controller/BusinessLibs/businessMenu?libCode=NetDisk', { token: quinn.token! })).json.data).toEqual([]);
    expect((await c.call('/hcs/controller/BusinessLibs/businessMenu?libCode=Nope', { token: quinn.token! })).status).toBe(404);
    expect((await c.call('/hcs/controller/BusinessLibs/Menus', { token: quinn.token! })).json.data).toEqual([]);

    const cap = await c.call(`/hcs/controller/userCapacity/userCapInfo/${qid}/NetDisk`, { token: quinn.token! });
    expect(cap.json.data).toEqual({ isLimist: '1', totalSize: '2GB', usedSize: '12MB', totalBytes: 2 * 1024 ** 3, usedBytes: 12 * 1024 ** 2 });
    expect((await c.call(`/hcs/controller/userCapacity/userCapInfo/${aid}/NetDisk`, { token: quinn.token! })).status).toBe(403);
    expect((await c.call(`/hcs/controller/userCapacity/userCapInfo/${qid}/NetDisk`, { token: admin.token! })).json.data.usedBytes).toBe(12 * 1024 ** 2);
    expect((await c.call(`/hcs/controller/userCapacity/userCapInfo/${aid}/NetDisk`, { token: admin.token! })).json.data).toMatchObject({ isLimist: '0', totalSize: '', totalBytes: null });

    const judge = async (fSize: number) =>
      (await c.call('/hcs/controller/userCapacity/judgeUserSize', {
        method: 'POST', token: quinn.token!, headers: { 'content-type': 'application/json' }, body: JSON.stringify({ fSize }),
      })).json.data;
    const free = 2 * 1024 ** 3 - 12 * 1024 ** 2;
    expect(await judge(free)).toEqual({ enough: true, freeBytes: free });
    expect(await judge(free + 1)).toEqual({ enough: false, freeBytes: free });
  });
});

describe('session expiry', () => {
  let s: TestServer;
  const seen: Seen = { bodies: [], secrets: new Set() };
  afterAll(async () => {
    expect(s.violations).toEqual([]);
    await s.close();
  });

  it('ends a session after the idle time, but activity keeps it alive; absolute expiry ends it regardless', async () => {
    // The server runs in this process, so a fake Date (timers stay real) is its clock: the test moves time
    // explicitly instead of sleeping and hoping each call lands inside a window on a loaded machine.
    vi.useFakeTimers({ toFake: ['Date'], now: Date.now() });
    try {
      // Idle 10 minutes, absolute 1 hour.
      s = await startServer({ env: { HCS_SESSION_IDLE_MINUTES: '10', HCS_SESSION_MAX_HOURS: '1' } });
      const c = clientFor(s, seen);
      const idle = await c.login(ADMIN_USER, ADMIN_PASSWORD, { cli: true });
      const busy = await c.login(ADMIN_USER, ADMIN_PASSWORD, { cli: true });
      // `busy` calls every 4 minutes for 24 minutes: well past the idle time, so only sliding expiry keeps it alive.
      for (let minute = 4; minute <= 24; minute += 4) {
        vi.advanceTimersByTime(4 * 60_000);
        expect((await c.call(CURRENT, { token: busy.token! })).status, `busy at minute ${minute}`).toBe(200);
      }
      expect((await c.call(CURRENT, { token: idle.token! })).status).toBe(401);
      // Keep `busy` active (every 5 minutes) until just before the absolute expiry; it still works there...
      for (let minute = 29; minute <= 59; minute += 5) {
        vi.advanceTimersByTime(5 * 60_000);
        expect((await c.call(CURRENT, { token: busy.token! })).status, `busy at minute ${minute}`).toBe(200);
      }
      // ...and not past it, however active it was.
      vi.advanceTimersByTime(2 * 60_000);
      const late = await c.call(CURRENT, { token: busy.token! });
      expect(late.status).toBe(401);
      expect(late.json.data.code).toBe('UNAUTHENTICATED');
    } finally {
      vi.useRealTimers();
    }
  });
});

describe('cookie on an https deployment', () => {
  it('marks the session cookie Secure when HCS_PUBLIC_URL is https', async () => {
    const s = await startServer({ env: { HCS_PUBLIC_URL: 'https://drive.example.com' } });
    try {
      const c = clientFor(s, { bodies: [], secrets: new Set() });
      const r = await c.login(ADMIN_USER, ADMIN_PASSWORD);
      expect(r.status).toBe(200);
      expect(r.setCookie).toMatch(/;\s*Secure/i);
      expect(r.setCookie).toMatch(/HttpOnly/i);
    } finally {
      await s.close();
    }
  });
});

/**
 * `before` on a server over a new data dir, then `after` on a second server started over the same dir (each with its
 * own extra environment) with what `before` returned; the dir and its database go afterwards.
 */
async function acrossRestart<T>(
  env: { before?: Record<string, string>; after?: Record<string, string> },
  before: (s: TestServer) => Promise<T>,
  after: (s: TestServer, got: T) => Promise<void>,
): Promise<void> {
  const dataDir = mkdtempSync(join(tmpdir(), 'hcs-restart-'));
  try {
    const first = await startServer({ dataDir, env: env.before ?? {} });
    let got: T;
    try {
      got = await before(first);
    } finally {
      await first.close({ keepData: true });
    }
    const second = await startServer({ dataDir, env: env.after ?? {} });
    try {
      await after(second, got);
      expect(second.violations).toEqual([]);
    } finally {
      await second.close();
    }
  } finally {
    await dropDatabaseOf(dataDir);
    rmSync(dataDir, { recursive: true, force: true });
  }
}

describe('restart', () => {
  it('keeps users, sessions and the password key across a restart on the same data dir', async () => {
    const seen: Seen = { bodies: [], secrets: new Set() };
    await acrossRestart(
      {},
      async (first) => {
        const c1 = clientFor(first, seen);
        await createUser(first.built.ctx.db, { userName: 'rosa', password: 'Rosa-pass-123' });
        const cli = await c1.login('rosa', 'Rosa-pass-123', { cli: true });
        const web = await c1.login(ADMIN_USER, ADMIN_PASSWORD);
        const key1 = (await c1.call('/hcs/services/System/platformInfo')).json.data.publicKey;
        return { cli, web, key1 };
      },
      async (second, { cli, web, key1 }) => {
        const c2 = clientFor(second, seen);
        expect((await c2.call(CURRENT, { token: cli.token! })).json.data.userName).toBe('rosa');
        expect((await c2.call(CURRENT, { cookie: web.cookie! })).json.data.userName).toBe(ADMIN_USER);
        expect((await c2.call('/hcs/services/System/platformInfo')).json.data.publicKey).toBe(key1);
        expect((await c2.login('rosa', 'Rosa-pass-123')).status).toBe(200);
        expect((await getUserByName(second.built.ctx.db, 'ROSA'))?.userName).toBe('rosa');
      },
    );
  });
});

describe('password hash cost', () => {
  it('a raised HCS_PASSWORD_SCRYPT_N upgrades a cheaper stored hash at the next sign-in, and only the right password does', async () => {
    const row = async (s: TestServer) =>
      (await s.sql.get<{ password_hash: string; password_changed_at: number; must_change_password: number }>(
        'SELECT password_hash, password_changed_at, must_change_password FROM users WHERE user_name = ?',
        'cora',
      ))!;
    await acrossRestart(
      { before: { HCS_PASSWORD_SCRYPT_N: '1024' }, after: { HCS_PASSWORD_SCRYPT_N: '4096' } },
      async (first) => {
        await createUser(first.built.ctx.db, { userName: 'cora', password: 'Cora-pass-123' });
        const before = await row(first);
        expect(before.password_hash).toMatch(/^scrypt\$1024\$8\$1\$/);
        return before;
      },
      async (second, before) => {
        const c = clientFor(second, { bodies: [], secrets: new Set() });
        expect((await c.login('cora', 'Cora-pass-124')).status).toBe(401);
        expect((await row(second)).password_hash).toBe(before.password_hash);
        expect((await c.login('cora', 'Cora-pass-123')).status).toBe(200);
        const after = await row(second);
        expect(after.password_hash).toMatch(/^scrypt\$4096\$8\$1\$/);
        // The same password, so not a password change: its time and flags stay.
        expect({ ...after, password_hash: '' }).toEqual({ ...before, password_hash: '' });
        expect((await c.login('cora', 'Cora-pass-123')).status).toBe(200);
        expect((await row(second)).password_hash).toBe(after.password_hash);
      },
    );
  });
});

describe('secrets in logs (server process with debug logging)', () => {
  /** Runs `npm start`'s entry point as its own process and collects everything it writes. */
  /** On PostgreSQL the server gets its database URL with a password in it (the test cluster trusts any). */
  const DB_PASSWORD = 'Db-secret-in-the-url-7';
  async function databaseEnvWithPassword(dataDir: string): Promise<Record<string, string>> {
    const env = await databaseEnvFor(dataDir);
    if (!env.HCS_DATABASE_URL) return env;
    const url = new URL(env.HCS_DATABASE_URL);
    url.password = DB_PASSWORD;
    return { HCS_DATABASE_URL: url.toString() };
  }

  async function runServer(dataDir: string) {
    const child = spawn(process.execPath, [new URL('../../mock-server/src/start.ts', import.meta.url).pathname], {
      env: {
        ...process.env,
        HCS_PORT: '0',
        HCS_HOST: '127.0.0.1',
        HCS_DATA_DIR: dataDir,
        HCS_LOG_LEVEL: 'debug',
        HCS_ADMIN_PASSWORD: '',
        ...(await databaseEnvWithPassword(dataDir)),
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (d) => (output += d));
    child.stderr.on('data', (d) => (output += d));
    const base = await new Promise<string>((resolve, reject) => {
      const t = setTimeout(() => reject(new Error(`server did not start:\n${output}`)), 30_000);
      const check = () => {
        const m = /running: (http:\/\/[^/\s]+)\/drive\//.exec(output);
        if (m) {
          clearTimeout(t);
          resolve(m[1]!);
        }
      };
      child.stdout.on('data', check);
      child.on('exit', (code) => reject(new Error(`server exited with ${code}:\n${output}`)));
    });
    const stop = async () => {
      const exited = new Promise((r) => child.once('exit', r));
      child.kill('SIGTERM');
      await exited;
      return output;
    };
    return { base, stop };
  }

  it('prints a generated admin password once, and never logs passwords, tokens or token hashes', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'hcs-logs-'));
    try {
      const run = await runServer(dataDir);
      const [, generated] = readFileSync(join(dataDir, 'admin-password.txt'), 'utf8').trim().split('\n');
      const port = new URL(run.base).port;
      const origin = `http://127.0.0.1:${port}`;
      const call = async (path: string, init: RequestInit = {}) => {
        const headers = new Headers(init.headers);
        headers.set('X-Requested-With', 'XMLHttpRequest');
        const r = await fetch(origin + path, { ...init, headers });
        return { status: r.status, headers: r.headers, json: (await r.json()) as any };
      };
      const key = (await call('/hcs/services/System/platformInfo')).json.data.publicKey as string;
      const wireWrong = await encryptForServer(key, 'Wrong-pass-1');
      expect((await call(`/hcs/services/System/Token?username=admin&password=${wireWrong}`)).status).toBe(401);
      const wire = await encryptForServer(key, generated!);
      const login = await call(`/hcs/services/System/Token?username=admin&password=${wire}`, { headers: { 'X-HCS-Client': 'cli' } });
      expect(login.status).toBe(200);
      expect(login.json.data.user.mustChangePassword).toBe(true);
      const token = login.json.data.token as string;
      const newPassword = 'Brand-new-Pass-9';
      const newWire = await encryptForServer(key, newPassword);
      const oldWire = await encryptForServer(key, generated!);
      const change = await call('/hcs/controller/Users/userPassword', {
        method: 'POST',
        headers: { token, 'content-type': 'application/json' },
        body: JSON.stringify({ userId: login.json.data.user.userId, oldPassword: oldWire, newPassword: newWire }),
      });
      expect(change.status).toBe(200);
      expect((await call(CURRENT, { headers: { token } })).status).toBe(200);
      expect((await call('/hcs/controller/System/sso/logout', { headers: { token } })).status).toBe(200);
      const output = await run.stop();

      expect(output.split(generated!).length - 1).toBe(1); // the one-time console notice
      for (const secret of [wireWrong, wire, oldWire, newWire, newPassword, 'Wrong-pass-1', token, sha256(token), DB_PASSWORD]) {
        expect(output.includes(secret), `log contains ${secret.slice(0, 8)}...`).toBe(false);
      }
      // The log did record these requests (so the absence of secrets above means something).
      expect(output).toContain('/hcs/controller/Users/userPassword');
      expect(output).toContain('/hcs/services/System/Token');

      const again = await runServer(dataDir);
      const output2 = await again.stop();
      expect(output2.includes(generated!)).toBe(false);
      expect(output2).not.toMatch(/Administrator account created/);
    } finally {
      await dropDatabaseOf(dataDir);
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
