// Issue #20 in a real browser, in zh_CN: /localSync against a second real server playing the old drive. The user sees
// "not synced" and picks personal files; the pull-sync dialog refuses an empty form and two different passwords with
// the spec's messages, says the other server refused a wrong password in Chinese, and with the right one the server
// pulls the files: the screen follows the job to "synchronised" and the file is on /personalFile. Every screen is
// checked for raw keys and English in the Chinese UI.
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, beforeEach, describe, expect, it, onTestFailed } from 'vitest';
import type { BrowserContext, Page } from 'playwright-core';
import { createUser } from '../../mock-server/src/db/users-repo.ts';
import { startServer, type TestServer } from '../helpers/server.ts';
import { makeUser } from '../helpers/org.ts';
import { uploadFile } from '../helpers/upload.ts';
import { explainFailure, startE2E, visibleTextProblems, type E2E } from './harness.ts';

let e2e: E2E;
let remote: TestServer;
const contexts: BrowserContext[] = [];
const USER = 'puller';
const PASSWORD = 'Puller#Pass-2024';
const OLD_USER = 'olduser';
const OLD_PASSWORD = 'Olduser#pass-1234';
const FILE = 'old-report.txt';
let current: Page | undefined;

beforeAll(async () => {
  remote = await startServer();
  const old = await makeUser(remote, OLD_USER, null);
  await uploadFile((path, query, body) => old.api(path, query, body), FILE, randomBytes(2000));
  e2e = await startE2E({ env: { HCS_PULL_SOURCES: remote.baseUrl } });
  await createUser(e2e.server.built.ctx.db, { userName: USER, password: PASSWORD, deptId: null, isAdmin: false });
}, 180_000);
afterAll(async () => {
  for (const c of contexts) await c.close().catch(() => {});
  await e2e?.close();
  await remote?.close();
});
beforeEach(() => onTestFailed(({ task }) => (current ? explainFailure(e2e, current, `pull-sync-${task.name}`) : undefined)));

const clean = async (page: Page, where: string) =>
  expect(await visibleTextProblems(page, { lang: 'zh_CN', allow: [USER, OLD_USER, FILE, remote.baseUrl] }), where).toEqual([]);

describe('/localSync in the browser (zh_CN)', () => {
  it('validates the pull-sync form, refuses a wrong password, and pulls the files', async () => {
    const { context, page } = await e2e.newPage({ locale: 'zh-CN' });
    contexts.push(context);
    current = page;
    await page.goto(`${e2e.baseUrl}/drive/login`);
    await page.getByTestId('login-username').fill(USER);
    await page.getByTestId('login-password').fill(PASSWORD);
    await page.getByTestId('login-submit').click();
    await page.waitForURL(/\/drive\/personalFile/);

    await page.goto(`${e2e.baseUrl}/drive/localSync`);
    const state = page.getByTestId('pull-state');
    expect(await state.innerText()).toBe('尚未同步');
    await clean(page, 'never synced');

    await page.getByTestId('pull-personal').click();
    const form = page.getByTestId('pull-sync-form');
    await page.getByTestId('pull-submit').click();
    for (const message of ['请输入服务器地址', '请输入用户名', '请输入密码', '请再次输入密码']) await form.getByText(message, { exact: true }).waitFor();
    await page.getByTestId('pull-server').fill(remote.baseUrl);
    await page.getByTestId('pull-user').fill(OLD_USER);
    await page.getByTestId('pull-pass').fill('wrong-password');
    await page.getByTestId('pull-check-pass').fill('another-password');
    await form.getByText('两次输入密码不一致!', { exact: true }).waitFor();
    await clean(page, 'dialog with its messages');

    await page.getByTestId('pull-check-pass').fill('wrong-password');
    await page.getByTestId('pull-submit').click();
    expect(await page.getByTestId('pull-failed').innerText()).toBe('另一台网盘服务器拒绝了该用户名或密码');
    await clean(page, 'refused by the other server');

    await page.getByTestId('pull-pass').fill(OLD_PASSWORD);
    await page.getByTestId('pull-check-pass').fill(OLD_PASSWORD);
    await page.getByTestId('pull-submit').click();
    await form.waitFor({ state: 'detached' });
    // The screen follows the job until it ends.
    await page.locator('[data-testid="pull-state"][data-state="2"]').waitFor({ timeout: 30_000 });
    expect(await state.innerText()).toBe('已同步');
    expect(await page.getByTestId('pull-progress').innerText()).toMatch(/^已导入 1 个文件（.+），已存在 0 个，失败 0 个$/);
    await clean(page, 'synchronised');

    await page.goto(`${e2e.baseUrl}/drive/personalFile`);
    await page.getByTestId('file-browser').getByText(FILE, { exact: true }).waitFor();
  });
});
