// Issue #19 in a real browser: with a single sign-on provider configured (oidc-provider, in this process), the
// sign-in page offers it; a user signs in through the provider's own login and consent pages in Chromium and lands
// on /personalFile, in the department the provider's claims name (made just in time), and signing out ends the
// provider's session too. The sign-in page is checked for raw keys and English in the Chinese UI.
import { afterAll, beforeAll, beforeEach, describe, expect, it, onTestFailed } from 'vitest';
import type { Page } from 'playwright-core';
import { chooseMenuItem, explainFailure, startE2E, visibleTextProblems, type E2E } from './harness.ts';
import { startOidcProvider, type TestProvider } from '../helpers/oidc-provider.ts';
import { apiAs } from '../helpers/org.ts';

let e2e: E2E;
let idp: TestProvider;
let current: Page | undefined;

beforeAll(async () => {
  e2e = await startE2E();
  idp = await startOidcProvider({
    redirectUris: [`${e2e.baseUrl}/hcs/services/System/sso/callback`],
    postLogoutRedirectUris: [`${e2e.baseUrl}/drive/login`],
    accounts: { mia: { preferred_username: 'mia', name: '米娅', email: 'mia@example.org', department: '研发部/平台组' } },
  });
  const { token } = await e2e.server.login();
  const saved = await apiAs(e2e.server, token)('/hcs/controller/integrationPlatform/oidcProviders', undefined, {
    name: '公司统一认证', issuer: idp.issuer, clientId: idp.clientId, clientSecret: idp.clientSecret,
  });
  expect(saved.status, JSON.stringify(saved)).toBe(200);
}, 120_000);
afterAll(async () => {
  await e2e?.close();
  await idp?.close();
});
beforeEach(() => onTestFailed(({ task }) => (current ? explainFailure(e2e, current, `sso-${task.name}`) : undefined)));

describe('single sign-on in Chromium', () => {
  it('a user signs in through the provider and lands on /personalFile in the department the claims name', async () => {
    const { page } = await e2e.newPage({ locale: 'zh-CN' });
    current = page;
    await page.goto(`${e2e.baseUrl}/drive/login`);
    const button = page.getByTestId('login-sso');
    await expect.poll(() => button.textContent()).toBe('使用公司统一认证登录');
    expect(await visibleTextProblems(page, { lang: 'zh_CN', allow: ['公司统一认证'] })).toEqual([]);

    await button.click();
    // The provider's own pages: its login form, then its consent form.
    await page.waitForURL((u) => u.origin === idp.issuer);
    await page.locator('input[name=login]').fill('mia');
    await page.locator('input[name=password]').fill('any');
    await page.locator('button[type=submit]').click();
    await page.locator('input[name=prompt][value=consent]').waitFor({ state: 'attached' });
    await page.locator('button[type=submit]').click();

    await page.waitForURL(/\/drive\/personalFile/);
    await page.getByTestId('file-browser').waitFor();
    const me = await page.evaluate(async () => {
      const r = await fetch('/hcs/controller/System/Current/User', { headers: { 'X-Requested-With': 'XMLHttpRequest' } });
      return (await r.json()).data as { userName: string; userRealName: string; userDeptId: string };
    });
    expect(me).toMatchObject({ userName: 'mia', userRealName: '米娅' });
    const dept = await e2e.server.sql.get<{ name: string; parent: string }>(
      'select d.name as name, p.name as parent from departments d join departments p on p.id = d.parent_id where d.id = ?', me.userDeptId);
    expect(dept).toEqual({ name: '平台组', parent: '研发部' });

    // Signing out ends the provider's session too (RP-initiated logout), which sends the browser back to /login.
    await chooseMenuItem(page, page.getByTestId('user-menu'), '退出登录');
    await page.waitForURL((u) => u.origin === idp.issuer);
    await page.locator('button[name=logout]').click();
    await page.waitForURL(/\/drive\/login/);
    const status = await page.evaluate(async () => (await fetch('/hcs/controller/System/Current/User', { headers: { 'X-Requested-With': 'XMLHttpRequest' } })).status);
    expect(status).toBe(401);
  }, 60_000);

  it('with local passwords for administrators only, a signed-out visit goes straight to the provider and back', async () => {
    const { token } = await e2e.server.login();
    const admin = apiAs(e2e.server, token);
    expect((await admin('/hcs/controller/integrationPlatform/settings', undefined, { localLogin: 'admins' })).status).toBe(200);
    try {
      const { page } = await e2e.newPage({ locale: 'zh-CN' });
      current = page;
      await page.goto(`${e2e.baseUrl}/drive/myCollect`);
      await page.waitForURL((u) => u.origin === idp.issuer);
      await page.locator('input[name=login]').fill('mia');
      await page.locator('input[name=password]').fill('any');
      await page.locator('button[type=submit]').click();
      // Consent was given in the first test; the provider may ask again in a new browser session.
      const consent = page.locator('input[name=prompt][value=consent]');
      await Promise.race([consent.waitFor({ state: 'attached' }).then(() => page.locator('button[type=submit]').click()), page.waitForURL(/\/drive\/myCollect/)]);
      await page.waitForURL(/\/drive\/myCollect/);

      // Administrators keep the form.
      const { page: local } = await e2e.newPage({ locale: 'zh-CN' });
      current = local;
      await local.goto(`${e2e.baseUrl}/drive/login?local=1`);
      await local.getByTestId('login-username').waitFor();
      await expect.poll(() => local.getByText('本地密码仅供管理员使用').count()).toBeGreaterThan(0);
    } finally {
      await admin('/hcs/controller/integrationPlatform/settings', undefined, { localLogin: 'all' });
    }
  }, 60_000);

  it('a refused sign-in comes back to /login with the message in Chinese', async () => {
    const { page } = await e2e.newPage({ locale: 'zh-CN' });
    current = page;
    await page.goto(`${e2e.baseUrl}/hcs/services/System/sso/callback?state=forged&code=x`);
    await page.waitForURL(/\/drive\/login\?ssoError=SSO_FAILED/);
    await expect.poll(() => page.getByTestId('login-sso-error').textContent()).toBe('单点登录未完成，请重新登录。');
  }, 60_000);
});
