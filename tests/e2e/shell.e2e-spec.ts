// The web shell in a real browser against the real server, as a new user meets it: sign-in first, landing on
// /personalFile, the layout rules per route family, English that survives a reload, the password dialog's rules,
// sign-out in one tab signing out the other, and the public /fileDownload page. Screenshots go to the artifacts.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BrowserContext, Page } from 'playwright-core';
import { chooseMenuItem, startE2E, type E2E, dialogsSettled } from './harness.ts';

let e2e: E2E;
beforeAll(async () => {
  e2e = await startE2E();
}, 180_000);
afterAll(async () => {
  await e2e?.close();
});

const url = (path: string) => `${e2e.baseUrl}/drive${path}`;

async function signIn(page: Page) {
  await page.getByTestId('login-username').fill(e2e.adminUser);
  await page.getByTestId('login-password').fill(e2e.adminPassword);
  await page.getByTestId('login-submit').click();
}

async function signedInPage(locale = 'zh-CN'): Promise<{ context: BrowserContext; page: Page }> {
  const { context, page } = await e2e.newPage({ locale });
  await page.goto(url('/personalFile'));
  await page.waitForURL(/\/drive\/login/);
  await signIn(page);
  await page.waitForURL(/\/drive\/personalFile/);
  await page.getByTestId('app-header').waitFor();
  return { context, page };
}

describe('web shell', () => {
  it('an unknown path asks for sign-in first, then lands on /personalFile', async () => {
    const { context, page } = await e2e.newPage();
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(String(e)));
    await page.goto(url('/no/such/page'));
    await page.waitForURL(/\/drive\/login\?redirect=%2FpersonalFile/);
    await page.getByTestId('login-card').waitFor();
    await e2e.screenshot(page, 'shell-login');
    await signIn(page);
    await page.waitForURL(/\/drive\/personalFile$/);
    await page.getByTestId('left-menu').waitFor();
    expect(errors).toEqual([]);
    await context.close();
  });

  it('menu and header follow the layout rules on each route family', async () => {
    const { context, page } = await signedInPage();
    // NetDisk: header and the local menu with the capacity panel.
    await expect.poll(() => page.getByTestId('side-menu').getByRole('menuitem').allInnerTexts()).toEqual([
      '个人文件',
      '群组文件',
      '内部共享',
      '外链分享',
      '集群同步',
      '我的收藏',
      '回收站',
    ]);
    await page.getByTestId('capacity-panel').waitFor();
    await e2e.screenshot(page, 'shell-zh_CN');

    // Home: header, no left menu, the banner and the library strip.
    await page.goto(url('/home'));
    await page.getByTestId('home').waitFor();
    await page.getByTestId('lib-NetDisk').waitFor();
    expect(await page.getByTestId('app-header').count()).toBe(1);
    expect(await page.getByTestId('left-menu').count()).toBe(0);
    await e2e.screenshot(page, 'shell-home');

    // Opening NetDisk from Home lands on the last NetDisk menu route (here /personalFile).
    await page.getByTestId('lib-NetDisk').click();
    await page.waitForURL(/\/drive\/personalFile/);

    // The last NetDisk menu entry with a screen of its own now (cross-site sync), inside the NetDisk frame.
    await page.goto(url('/clusterSync'));
    await page.getByTestId('cluster-sync-page').waitFor();
    expect(await page.getByTestId('left-menu').count()).toBe(1);

    // SysConfig: the admin menu from the server, with the header (no administration route is a placeholder now).
    await page.goto(url('/businessConfig'));
    await page.getByTestId('business-config-page').waitFor();
    expect(await page.getByTestId('app-header').count()).toBe(1);

    // Public pages: no header.
    await page.goto(url('/fileDownload?link=abc'));
    await page.getByTestId('file-download').waitFor();
    expect(await page.getByTestId('app-header').count()).toBe(0);
    await page.goto(url('/userServiceAgreement'));
    await page.getByTestId('agreement').waitFor();
    expect(await page.getByTestId('app-header').count()).toBe(0);
    await context.close();
  });

  it('switching to English changes every label and survives a reload', async () => {
    const { context, page } = await signedInPage();
    await chooseMenuItem(page, page.getByTestId('language-switch'), 'English');
    await page.waitForLoadState('load');
    await expect.poll(() => page.getByTestId('side-menu').innerText(), { timeout: 15000 }).toContain('Personal File');
    // The client-tool button appears once the server has said which tool it offers (asked after the frame draws).
    await page.getByTestId('client-tool').waitFor();
    const english = await page.locator('body').innerText();
    for (const label of ['Transfers', 'Client download', 'Personal File', 'Group File', 'Internal Sharing', 'External Link Sharing', 'Cluster Sync', 'My Favorites', 'Recycle Bin', 'Storage']) {
      expect(english).toContain(label);
    }
    // No Chinese left in the shell except the language's own name in the switch menu.
    expect(english.replace(/简体中文/g, '')).not.toMatch(/[\u4e00-\u9fff]/);
    await page.reload();
    await expect.poll(() => page.getByTestId('side-menu').innerText(), { timeout: 15000 }).toContain('Personal File');
    expect(await page.evaluate(() => localStorage.getItem('languageId'))).toBe('en_US');
    await e2e.screenshot(page, 'shell-en_US');
    // Back to Chinese so other tests see the default.
    await chooseMenuItem(page, page.getByTestId('language-switch'), '简体中文');
    await expect.poll(() => page.getByTestId('side-menu').innerText(), { timeout: 15000 }).toContain('个人文件');
    await context.close();
  });

  it('the password dialog enforces each rule', async () => {
    const { context, page } = await signedInPage('en-US');
    await page.evaluate(() => localStorage.setItem('languageId', 'en_US'));
    await page.reload();
    await chooseMenuItem(page, page.getByTestId('user-menu'), 'Change password');
    const dialog = page.getByRole('dialog');
    await dialogsSettled(page);
    await dialog.getByRole('button', { name: 'OK' }).click();
    await dialog.getByText('Enter the old password').waitFor();
    await dialog.getByText('Enter a password').waitFor();
    await dialog.getByText('Enter the password again').waitFor();

    await page.getByTestId('old-password').fill('wrong-old-password');
    await page.getByTestId('new-password').fill('Ab1!');
    await page.getByTestId('confirm-password').fill('Ab1!x');
    await dialogsSettled(page);
    await dialog.getByRole('button', { name: 'OK' }).click();
    await dialog.getByText('The password needs at least 8 characters').waitFor();
    await dialog.getByText('The two passwords do not match!').waitFor();
    expect(await page.getByTestId('strength-meter').getAttribute('data-strength')).toBe('0');

    await page.getByTestId('new-password').fill('Abcdef12!x');
    await page.getByTestId('confirm-password').fill('Abcdef12!x');
    expect(await page.getByTestId('strength-meter').getAttribute('data-strength')).toBe('4');
    // A wrong old password: the server refuses, the dialog says so and the user stays signed in.
    await dialogsSettled(page);
    await dialog.getByRole('button', { name: 'OK' }).click();
    await page.getByTestId('password-failed').waitFor();
    expect(page.url()).toContain('/drive/personalFile');

    await dialogsSettled(page);
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    await page.getByText('Your changes are not saved. Close anyway?').waitFor();
    await context.close();
  });

  it('signing out in one tab signs out the other; sign-out ends the server session', async () => {
    const { context, page } = await signedInPage();
    const second = await context.newPage();
    await second.goto(url('/home'));
    await second.getByTestId('home').waitFor();
    await chooseMenuItem(second, second.getByTestId('user-menu'), '退出登录');
    // Each tab shows the sign-in route at once, then loads /drive/login afresh (the app's full-page navigation,
    // which drops what the old page held): wait for that load. A context closed while it commits may never close
    // (harness.ts, closeWithin).
    const signInPage = /\/drive\/login$/;
    await second.waitForURL(signInPage);
    await page.waitForURL(signInPage, { timeout: 10000 });
    // The session cookie no longer works on the server. The check goes through the context's own request client
    // (same cookie jar) rather than page.evaluate: the login page may still be settling its URL, and a navigation
    // there destroys the evaluation context (seen in CI).
    const res = await context.request.get(`${e2e.baseUrl}/hcs/controller/System/Current/User`, {
      headers: { 'X-Requested-With': 'XMLHttpRequest' },
    });
    expect(res.status()).toBe(401);
    await context.close();
  });

  it('/fileDownload needs no sign-in and shows no header', async () => {
    const { context, page } = await e2e.newPage();
    await page.goto(url('/fileDownload?link=abc123'));
    await page.getByTestId('file-download').waitFor();
    expect(page.url()).toContain('/drive/fileDownload?link=abc123');
    expect(await page.getByTestId('app-header').count()).toBe(0);
    await context.close();
  });

  it('sent only responses that match the contract', () => {
    expect(e2e.server.violations).toEqual([]);
  });
});
