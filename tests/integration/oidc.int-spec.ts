// Issue #19: single sign-on through a real OpenID Connect provider (oidc-provider, in this process) and the real
// server: the whole authorization-code flow with PKCE through the provider's own login and consent pages, the
// account made just in time in the department its claims name, back on the page asked for; RP-initiated logout;
// the CLI's device-style sign-in; and refusals of a bad state, nonce, audience, signature and an expired token.
import { describe, it, expect, beforeAll, afterAll, afterEach } from 'vitest';
import { encryptForServer, startServer, type TestServer } from '../helpers/server.ts';
import { createUser } from '../../mock-server/src/db/users-repo.ts';
import { apiAs } from '../helpers/org.ts';
import { Browser, startOidcProvider, type TestProvider } from '../helpers/oidc-provider.ts';

let srv: TestServer;
let idp: TestProvider;
let admin: ReturnType<typeof apiAs>;
let providerId: string;

const CALLBACK = '/hcs/services/System/sso/callback';

beforeAll(async () => {
  srv = await startServer();
  idp = await startOidcProvider({
    redirectUris: [`${srv.baseUrl}${CALLBACK}`],
    postLogoutRedirectUris: [`${srv.baseUrl}/drive/login`],
    accounts: {
      alice: { preferred_username: 'alice', name: 'Alice Liddell', email: 'alice@example.org', department: 'Engineering/Platform', groups: ['staff'] },
      boss: { preferred_username: 'boss', name: 'The Boss', email: 'boss@example.org', department: 'Management', groups: ['drive-admins'] },
      admin: { preferred_username: 'admin', name: 'Impostor', email: 'x@example.org' },
      carol: { preferred_username: 'carol', name: 'Carol', email: 'carol@example.org', department: 'Engineering' },
    },
  });
  const { token } = await srv.login();
  admin = apiAs(srv, token);
  const saved = await admin('/hcs/controller/integrationPlatform/oidcProviders', undefined, {
    name: 'Company SSO', issuer: idp.issuer, clientId: idp.clientId, clientSecret: idp.clientSecret,
    claims: { adminGroup: 'drive-admins' },
  });
  expect(saved.status, JSON.stringify(saved)).toBe(200);
  providerId = saved.data.id;
});
afterEach(() => idp.tamper(null));
afterAll(async () => {
  expect(srv.violations).toEqual([]);
  await srv.close();
  await idp.close();
});

/** Signs `account` in from /hcs/services/System/sso/login?redirect=..., answering where the drive sent the browser last. */
async function ssoSignIn(b: Browser, account: string, redirect = '/personalFile?x=1'): Promise<string> {
  const start = `${srv.baseUrl}/hcs/services/System/sso/login?redirect=${encodeURIComponent(redirect)}`;
  const { url } = await b.signIn(start, account, `${srv.baseUrl}${CALLBACK}`);
  const back = await b.fetch(url);
  expect(back.status).toBe(302);
  return back.headers.get('location') ?? '';
}

const me = (b: Browser) =>
  b.fetch(`${srv.baseUrl}/hcs/controller/System/Current/User`, { headers: { 'X-Requested-With': 'XMLHttpRequest' } }).then(async (r) => ({ status: r.status, body: await r.json() }));

describe('single sign-on', () => {
  it('the login call sends the browser to the provider with PKCE S256, a state and a nonce', async () => {
    const r = await fetch(`${srv.baseUrl}/hcs/services/System/sso/login?redirect=/personalFile`, { redirect: 'manual' });
    expect(r.status).toBe(302);
    const to = new URL(r.headers.get('location')!);
    expect(to.origin).toBe(idp.issuer);
    expect(to.searchParams.get('code_challenge_method')).toBe('S256');
    expect(to.searchParams.get('code_challenge')).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(to.searchParams.get('state')).toBeTruthy();
    expect(to.searchParams.get('nonce')).toBeTruthy();
    expect(to.searchParams.get('redirect_uri')).toBe(`${srv.baseUrl}${CALLBACK}`);
  });

  it('platformInfo names the sign-in methods: sso by default once a provider is enabled', async () => {
    const r = await srv.call('/hcs/services/System/platformInfo').then((x) => x.json());
    expect(r.data.loginMethod).toBe('sso');
    expect(r.data.loginMethods.ssoProviders).toEqual([{ id: providerId, name: 'Company SSO' }]);
  });

  it('a first sign-in makes the account in the department its claims name and returns to the page asked for', async () => {
    const b = new Browser();
    expect(await ssoSignIn(b, 'alice')).toBe('/drive/personalFile?x=1');
    const who = await me(b);
    expect(who.status).toBe(200);
    expect(who.body.data.userName).toBe('alice');
    expect(who.body.data.userRealName).toBe('Alice Liddell');
    expect(who.body.data.isAdmin).toBe(false);
    const dept = await srv.sql.get<{ name: string; parent: string }>(
      'select d.name as name, p.name as parent from departments d join departments p on p.id = d.parent_id where d.id = ?', who.body.data.userDeptId);
    expect(dept).toEqual({ name: 'Platform', parent: 'Engineering' });
    const info = await b.fetch(`${srv.baseUrl}/hcs/controller/System/sso/userInfo`, { headers: { 'X-Requested-With': 'XMLHttpRequest' } }).then((r) => r.json());
    expect(info.data).toMatchObject({ userName: 'alice', authSource: 'oidc', providerId, providerName: 'Company SSO', email: 'alice@example.org' });

    // Again: the same account, not a second one.
    const again = new Browser();
    await ssoSignIn(again, 'alice');
    expect((await me(again)).body.data.userId).toBe(who.body.data.userId);
    expect(await srv.sql.all("select id from users where user_name_key = 'alice'")).toHaveLength(1);
  });

  it('the groups claim makes administrators', async () => {
    const b = new Browser();
    await ssoSignIn(b, 'boss');
    expect((await me(b)).body.data.isAdmin).toBe(true);
  });

  it('an identity claiming a local account name does not take it over', async () => {
    const b = new Browser();
    expect(await ssoSignIn(b, 'admin')).toBe('/drive/login?ssoError=SSO_FAILED');
    expect((await me(b)).status).toBe(401);
  });

  it('a redirect to another site falls back to /personalFile', async () => {
    const b = new Browser();
    expect(await ssoSignIn(b, 'carol', '//evil.example/x')).toBe('/drive/personalFile');
  });

  it('sign-out ends the local session and hands the provider\'s end-session URL', async () => {
    const b = new Browser();
    await ssoSignIn(b, 'alice');
    const out = await b.fetch(`${srv.baseUrl}/hcs/controller/System/sso/logout`, { headers: { 'X-Requested-With': 'XMLHttpRequest' } }).then((r) => r.json());
    const url = new URL(out.data.logoutUrl);
    expect(url.origin).toBe(idp.issuer);
    expect(url.searchParams.get('id_token_hint')).toBeTruthy();
    expect(url.searchParams.get('post_logout_redirect_uri')).toBe(`${srv.baseUrl}/drive/login`);
    expect((await me(b)).status).toBe(401);
  });

  it('a frozen account is sent back to /login with its code', async () => {
    await srv.sql.run("update users set is_enabled = 0 where user_name_key = 'carol'");
    try {
      const b = new Browser();
      expect(await ssoSignIn(b, 'carol')).toBe('/drive/login?ssoError=ACCOUNT_FROZEN');
    } finally {
      await srv.sql.run("update users set is_enabled = 1 where user_name_key = 'carol'");
    }
  });

  it('a staff account may not use a local password when local sign-in is for administrators only', async () => {
    expect((await admin('/hcs/controller/integrationPlatform/settings', undefined, { localLogin: 'admins' })).status).toBe(200);
    try {
      await createUser(srv.built.ctx.db, { userName: 'localstaff', password: 'Localstaff#pass-1234', deptId: null });
      const info = await srv.call('/hcs/services/System/platformInfo').then((r) => r.json());
      const password = await encryptForServer(info.data.publicKey, 'Localstaff#pass-1234');
      const refused = await srv.call(`/hcs/services/System/Token?username=localstaff&password=${encodeURIComponent(password)}`);
      expect(refused.status).toBe(403);
      expect((await refused.json()).data.code).toBe('SSO_REQUIRED');
      const wrong = await srv.call(`/hcs/services/System/Token?username=localstaff&password=${encodeURIComponent(await encryptForServer(info.data.publicKey, 'nope-nope-nope'))}`);
      // A wrong password still reads as a wrong password: the setting is told only to who knows the password.
      expect((await wrong.json()).data.code).toBe('LOGIN_FAILED');
      // Administrators still sign in with their password.
      await expect(srv.login()).resolves.toBeTruthy();
    } finally {
      await admin('/hcs/controller/integrationPlatform/settings', undefined, { localLogin: 'all' });
    }
  });

  it('only administrators reach the provider settings, and the client secret never comes back', async () => {
    const list = await admin('/hcs/controller/integrationPlatform/oidcProviders');
    expect(list.status).toBe(200);
    expect(list.data[0]).toMatchObject({ hasClientSecret: true, clientId: idp.clientId });
    expect(JSON.stringify(list)).not.toContain(idp.clientSecret);
    const stored = await srv.sql.get<{ s: string }>('select client_secret_enc as s from oidc_providers');
    expect(stored!.s).not.toContain(idp.clientSecret);
    const b = new Browser();
    await ssoSignIn(b, 'alice');
    const denied = await b.fetch(`${srv.baseUrl}/hcs/controller/integrationPlatform/oidcProviders`, { headers: { 'X-Requested-With': 'XMLHttpRequest' } });
    expect(denied.status).toBe(403);
  });
});

describe('refusals', () => {
  it('a bad or replayed state is refused', async () => {
    const b = new Browser();
    const bogus = await b.fetch(`${srv.baseUrl}${CALLBACK}?state=nope&code=abc`);
    expect(bogus.headers.get('location')).toBe('/drive/login?ssoError=SSO_FAILED');

    const start = `${srv.baseUrl}/hcs/services/System/sso/login`;
    const { url } = await b.signIn(start, 'alice', `${srv.baseUrl}${CALLBACK}`);
    expect((await b.fetch(url)).headers.get('location')).toBe('/drive/personalFile');
    const replay = new Browser();
    expect((await replay.fetch(url)).headers.get('location')).toBe('/drive/login?ssoError=SSO_FAILED');
    expect((await me(replay)).status).toBe(401);
  });

  const cases: [string, Parameters<TestProvider['tamper']>[0]][] = [
    ['a wrong nonce', (p) => ({ payload: { ...p, nonce: 'not-the-one' } })],
    ['another audience', (p) => ({ payload: { ...p, aud: 'someone-else' } })],
    ['a signature by another key', (p) => ({ payload: p, foreignKey: true })],
    ['an expired token', (p) => ({ payload: { ...p, iat: Math.floor(Date.now() / 1000) - 7200, exp: Math.floor(Date.now() / 1000) - 3600 } })],
  ];
  for (const [what, fn] of cases) {
    it(`an ID token with ${what} is refused`, async () => {
      idp.tamper(fn);
      const b = new Browser();
      expect(await ssoSignIn(b, 'carol')).toBe('/drive/login?ssoError=SSO_FAILED');
      expect((await me(b)).status).toBe(401);
    });
  }

  it('the same tampering off signs in (the cases above fail only for what they change)', async () => {
    idp.tamper((p) => ({ payload: p }));
    const b = new Browser();
    expect(await ssoSignIn(b, 'carol')).toBe('/drive/personalFile?x=1');
  });
});

describe('CLI device-style sign-in', () => {
  it('the CLI polls, the user signs in with the code in a browser, and the CLI gets a token session once', async () => {
    const start = await srv.call('/hcs/services/System/sso/device', { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' }).then((r) => r.json());
    const { deviceCode, userCode, verificationUrl } = start.data;
    expect(userCode).toMatch(/^[A-Z2-9]{4}-[A-Z2-9]{4}$/);
    const poll = () => srv.call(`/hcs/controller/System/sso/Token?ticket=${encodeURIComponent(deviceCode)}&platformId=NetDisk`, { headers: { 'X-HCS-Client': 'cli' } });
    const pending = await poll();
    expect(pending.status).toBe(409);
    expect((await pending.json()).data.code).toBe('SSO_PENDING');

    const b = new Browser();
    const { url } = await b.signIn(verificationUrl, 'alice', `${srv.baseUrl}${CALLBACK}`);
    expect((await b.fetch(url)).headers.get('location')).toBe('/drive/login?ssoDevice=done');
    // The browser only learned it worked; the session is the CLI's.
    expect((await me(b)).status).toBe(401);

    const got = await poll();
    expect(got.status).toBe(200);
    const token = (await got.json()).data.token as string;
    const who = await apiAs(srv, token)('/hcs/controller/System/Current/User');
    expect(who.data.userName).toBe('alice');
    const again = await poll();
    expect(again.status).toBe(401);
    expect((await again.json()).data.code).toBe('SSO_FAILED');
  });
});
