// Issue #19 through the CLI against the real server: `drive login --sso` (device-style: the URL and code printed
// when no browser opens, the user signs in through oidc-provider elsewhere, the CLI stores the token session like a
// password sign-in), and `drive admin ldap test|sync --wait|status` against a throwaway slapd, refused to
// non-administrators.
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type TestServer } from '../helpers/server.ts';
import { apiAs, makeUser, type TestUser } from '../helpers/org.ts';
import { cliEnv, driveRunner } from '../helpers/drive-cli.ts';
import { Browser, startOidcProvider, type TestProvider } from '../helpers/oidc-provider.ts';
import { READER_DN, READER_PASSWORD, startSlapd, SUFFIX, type TestDirectory } from '../helpers/slapd.ts';

const DRIVE = fileURLToPath(new URL('../../cli/bin/drive.js', import.meta.url));
let srv: TestServer;
let idp: TestProvider;
let dir: TestDirectory;
let work: string;
let adminToken: string;
let plain: TestUser;
const drive = driveRunner(() => cliEnv(srv, work));

beforeAll(async () => {
  [srv, dir] = await Promise.all([startServer(), startSlapd()]);
  work = mkdtempSync(join(tmpdir(), 'hcs-identity-cli-'));
  idp = await startOidcProvider({
    redirectUris: [`${srv.baseUrl}/hcs/services/System/sso/callback`],
    postLogoutRedirectUris: [`${srv.baseUrl}/drive/login`],
    accounts: { nina: { preferred_username: 'nina', name: 'Nina', email: 'nina@example.org', department: 'Ops' } },
  });
  adminToken = (await srv.login()).token;
  const admin = apiAs(srv, adminToken);
  expect((await admin('/hcs/controller/integrationPlatform/oidcProviders', undefined, { name: 'SSO', issuer: idp.issuer, clientId: idp.clientId, clientSecret: idp.clientSecret })).status).toBe(200);
  expect((await admin('/hcs/controller/integrationPlatform/ldapConfig', undefined, { url: dir.url, bindDn: READER_DN, bindPassword: READER_PASSWORD, userBaseDn: `ou=people,${SUFFIX}` })).status).toBe(200);
  plain = await makeUser(srv, 'idplain', null);
}, 60_000);
afterAll(async () => {
  await srv?.close();
  await idp?.close();
  await dir?.stop();
  if (work) rmSync(work, { recursive: true, force: true });
});

describe('drive login --sso', () => {
  it('prints the URL and code, and stores the session once the user signed in in a browser', async () => {
    const env = { ...cliEnv(srv, work), HCS_JSON: '1', HCS_BROWSER: 'none' };
    const child = spawn(process.execPath, [DRIVE, 'login', '--sso'], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (c: string) => (stdout += c));
    const url = await new Promise<string>((resolve, reject) => {
      child.stderr.setEncoding('utf8').on('data', (c: string) => {
        stderr += c;
        const m = /(http:\/\/\S+userCode=\S+)/.exec(stderr);
        if (m) resolve(m[1]!);
      });
      child.on('close', () => reject(new Error(`drive exited before printing a URL: ${stderr}`)));
    });
    const code = new URL(url).searchParams.get('userCode');
    expect(stderr).toContain(`code ${code}`);
    // The user, in a browser elsewhere.
    const b = new Browser();
    const { url: callback } = await b.signIn(url, 'nina', `${srv.baseUrl}/hcs/services/System/sso/callback`);
    expect((await b.fetch(callback)).headers.get('location')).toBe('/drive/login?ssoDevice=done');

    const exit = await new Promise<number | null>((r) => child.on('close', r));
    expect(exit, stderr).toBe(0);
    expect(JSON.parse(stdout.trim())).toMatchObject({ event: 'login', userName: 'nina', sso: true });
    const saved = JSON.parse(readFileSync(join(work, 'config', 'auth.json'), 'utf8'));
    expect(saved.userName).toBe('nina');
    const who = await apiAs(srv, saved.token)('/hcs/controller/System/Current/User');
    expect(who.data.userName).toBe('nina');
  }, 60_000);
});

describe('drive admin ldap', () => {
  it('tests the connection, syncs and waits for the report, and shows the status without the password', async () => {
    const test = await drive(['admin', 'ldap', 'test'], { token: adminToken });
    expect(test.code, test.stderr).toBe(0);
    expect(test.json[0]).toMatchObject({ event: 'ldap-test', ok: true, users: 3 });

    const sync = await drive(['admin', 'ldap', 'sync', '--wait'], { token: adminToken });
    expect(sync.code, sync.stderr).toBe(0);
    expect(sync.json[0]).toMatchObject({ event: 'ldap-sync', status: 'done', added: 3, disabled: 0 });

    const status = await drive(['admin', 'ldap', 'status'], { token: adminToken, json: false });
    expect(status.code, status.stderr).toBe(0);
    expect(status.stdout).toContain(`LDAP enabled: ${dir.url}`);
    expect(status.stdout).toMatch(/manual done: 3 added, 0 updated, 0 disabled, 0 re-enabled; groups: 0 made, 0 memberships added, 0 removed/);
    expect(status.stdout).toContain('directory groups: not mirrored, 0 mapped');
    expect(status.stdout).not.toContain(READER_PASSWORD);
  }, 60_000);

  it('a wrong bind password fails the test with exit code 5; non-administrators are refused', async () => {
    const admin = apiAs(srv, adminToken);
    await admin('/hcs/controller/integrationPlatform/ldapConfig', undefined, { url: dir.url, bindDn: READER_DN, bindPassword: 'wrong', userBaseDn: `ou=people,${SUFFIX}` });
    try {
      const bad = await drive(['admin', 'ldap', 'test'], { token: adminToken });
      expect(bad.code).toBe(5);
    } finally {
      await admin('/hcs/controller/integrationPlatform/ldapConfig', undefined, { url: dir.url, bindDn: READER_DN, bindPassword: READER_PASSWORD, userBaseDn: `ou=people,${SUFFIX}` });
    }
    const denied = await drive(['admin', 'ldap', 'status'], { token: plain.token });
    expect(denied.code).not.toBe(0);
    expect(denied.stderr).toMatch(/FORBIDDEN|permission|not allowed/i);
  }, 60_000);
});
