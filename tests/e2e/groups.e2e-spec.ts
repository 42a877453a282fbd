// Issue #15 in a real browser against the real server, in zh_CN: an ordinary account creates a group on /groupFile
// and adds a member from the members drawer; the member opens the group, uploads into its space and sees the file;
// an account outside the group neither sees the group nor reaches its space (the page refuses, and so does the
// server). Every screen is checked for raw keys and English in the Chinese UI.
import { afterAll, beforeAll, beforeEach, describe, expect, it, onTestFailed } from 'vitest';
import type { BrowserContext, Page } from 'playwright-core';
import { closeTransferPanel, dialogsSettled, explainFailure, signInAsAdmin, startE2E, visibleTextProblems, type E2E } from './harness.ts';

let e2e: E2E;
const contexts: BrowserContext[] = [];
const OWNER = 'gowner';
const MEMBER = 'gmember';
const OUTSIDER = 'goutsider';
const PASSWORD = 'Group#Pass-2024';
const GROUP = '项目组甲';
const FILE = 'group-plan.txt';
let groupId = '';
let rootId = '';

beforeAll(async () => {
  e2e = await startE2E();
  const { context, page } = await e2e.newPage({ locale: 'zh-CN' });
  contexts.push(context);
  await signInAsAdmin(e2e, page);
  await page.goto(`${e2e.baseUrl}/drive/departmentManage`);
  await page.getByTestId('dept-tree').waitFor();
  for (const name of [OWNER, MEMBER, OUTSIDER]) await createUser(page, name);
  await context.close();
}, 180_000);
afterAll(async () => {
  for (const c of contexts) await c.close().catch(() => {});
  await e2e?.close();
});
let current: Page | undefined;
beforeEach(() => onTestFailed(({ task }) => (current ? explainFailure(e2e, current, `groups-${task.name}`) : undefined)));

const clean = async (page: Page, where: string, allow: string[] = []) =>
  expect(await visibleTextProblems(page, { lang: 'zh_CN', allow: [OWNER, MEMBER, OUTSIDER, GROUP, FILE, ...allow] }), where).toEqual([]);

async function createUser(page: Page, userName: string) {
  await page.getByTestId('user-create').click();
  const form = page.getByTestId('user-form');
  await form.waitFor();
  await dialogsSettled(page);
  await page.getByTestId('user-name').fill(userName);
  await page.getByTestId('user-real-name').fill(`${userName} 用户`);
  await page.getByTestId('user-password').fill(PASSWORD);
  await page.getByTestId('user-confirm-password').fill(PASSWORD);
  await page.getByTestId('user-must-change').uncheck();
  await dialogsSettled(page);
  await page.getByTestId('user-dialog-ok').click();
  await form.waitFor({ state: 'hidden' });
  await page.getByTestId(`user-row-${userName}`).waitFor();
}

async function signIn(user: string): Promise<Page> {
  const { context, page } = await e2e.newPage({ locale: 'zh-CN' });
  contexts.push(context);
  await page.goto(`${e2e.baseUrl}/drive/login`);
  await page.getByTestId('login-username').fill(user);
  await page.getByTestId('login-password').fill(PASSWORD);
  await page.getByTestId('login-submit').click();
  await page.waitForURL(/\/drive\/personalFile/);
  return page;
}

describe('groups in the browser (zh_CN)', () => {
  it('an ordinary account creates a group and adds a member', async () => {
    const page = (current = await signIn(OWNER));
    await page.goto(`${e2e.baseUrl}/drive/groupFile`);
    await page.getByTestId('group-none').waitFor();
    await clean(page, 'no groups yet');
    await page.getByTestId('group-create').click();
    await page.getByTestId('group-form').waitFor();
    await dialogsSettled(page);
    // The form refuses an empty name with its Chinese message before anything is sent.
    await dialogsSettled(page);
    await page.getByTestId('group-dialog-ok').click();
    await page.getByText('请输入群组名称').waitFor();
    await clean(page, 'new group dialog');
    await page.getByTestId('group-name').fill(GROUP);
    await page.getByTestId('group-description').fill('第三季度');
    const created = page.waitForResponse((r) => r.url().includes('/groupFile/newGroup'));
    await dialogsSettled(page);
    await page.getByTestId('group-dialog-ok').click();
    const data = ((await (await created).json()) as { data: { groupId: string; rootId: string } }).data;
    groupId = data.groupId;
    rootId = data.rootId;
    expect(groupId).toMatch(/^[A-Za-z0-9_-]+$/);
    // Created, then opened: the group's own space, its root named after the group.
    await page.waitForURL(new RegExp(`group=${groupId}`));
    await page.getByTestId('group-space').waitFor();
    await page.getByTestId('file-browser').waitFor();
    await expect.poll(() => page.getByTestId('group-title').innerText()).toBe(GROUP);
    // Opening a group remembers it: NetDisk then lands on /groupFile.
    expect(await page.evaluate(() => localStorage.getItem('groupId'))).toBe(groupId);

    await page.getByTestId('group-members').click();
    const drawer = page.getByTestId('group-members-drawer');
    await drawer.waitFor();
    await page.getByTestId(`group-member-${OWNER}`).waitFor();
    await page.getByTestId('group-add-picker').click();
    await page.keyboard.type(MEMBER);
    await page.locator('.ant-select-dropdown:not(.ant-select-dropdown-hidden)').getByText(`${MEMBER} 用户 (${MEMBER})`, { exact: true }).click();
    await page.keyboard.press('Escape');
    await page.getByTestId('group-add-submit').click();
    await page.getByTestId(`group-member-${MEMBER}`).waitFor();
    expect(await page.getByTestId('group-members-notice').innerText()).toBe('已添加 1 人，跳过 0 人');
    expect(await page.getByTestId(`group-member-${OWNER}`).innerText()).toContain('群组管理员');
    await clean(page, 'members drawer', [`${OWNER} 用户`, `${MEMBER} 用户`]);
    await e2e.screenshot(page, 'groups-members');
  });

  it('the member sees the group, uploads into its space and sees the file', async () => {
    const page = (current = await signIn(MEMBER));
    await page.goto(`${e2e.baseUrl}/drive/groupFile`);
    await page.getByTestId(`group-card-${GROUP}`).click();
    await page.waitForURL(new RegExp(`group=${groupId}`));
    await page.getByTestId('file-browser').waitFor();
    await page.getByTestId('upload-file-input').setInputFiles({ name: FILE, mimeType: 'text/plain', buffer: Buffer.from('group plan\n') });
    await page.getByTestId(`row-name-${FILE}`).waitFor({ timeout: 60_000 });
    await clean(page, 'group files');
    // A default member's settings only offer leaving the group: nothing to rename, hand over or dissolve.
    await closeTransferPanel(page, { opened: true });
    await page.getByTestId('group-settings').click();
    await page.getByTestId('group-quit').waitFor();
    expect(await page.getByTestId('group-settings-save').count()).toBe(0);
    expect(await page.getByTestId('group-dissolve').count()).toBe(0);
    await clean(page, 'member settings');
    await page.keyboard.press('Escape');
    await e2e.screenshot(page, 'groups-files');

    // The file is in the group's space, charged to the group, not in the member's own files.
    const used = await page.evaluate(async () => {
      const r = await fetch('/hcs/controller/groupFile/searchGroup?pageNo=1&pageSize=20', { headers: { 'X-Requested-With': 'XMLHttpRequest' } });
      return ((await r.json()) as { data: { list: { usedSize: number }[] } }).data.list[0]?.usedSize;
    });
    expect(used).toBe(Buffer.byteLength('group plan\n'));
  });

  it('an account outside the group neither sees it nor reaches its space', async () => {
    const page = (current = await signIn(OUTSIDER));
    await page.goto(`${e2e.baseUrl}/drive/groupFile`);
    await page.getByTestId('group-none').waitFor();
    expect(await page.getByTestId(`group-card-${GROUP}`).count()).toBe(0);
    await page.goto(`${e2e.baseUrl}/drive/groupFile?group=${groupId}`);
    await page.getByTestId('group-refused').waitFor();
    expect(await page.getByTestId('group-refused').innerText()).toContain('群组不存在或您无权访问');
    expect(await page.getByTestId(`row-name-${FILE}`).count()).toBe(0);
    await clean(page, 'refused group');
    // The server refuses too: the group's space is as if it did not exist.
    const res = await page.evaluate(async (id) => {
      const r = await fetch(`/hcs/controller/Page?parentId=${id}`, { headers: { 'X-Requested-With': 'XMLHttpRequest' } });
      return { status: r.status, code: ((await r.json()) as { data?: { code?: string } }).data?.code };
    }, rootId);
    expect(res).toEqual({ status: 404, code: 'NOT_FOUND' });
  });

  it('an administrator gives an outsider one folder only, and takes it back', async () => {
    const FOLDER = 'designs';
    const page = (current = await signIn(OWNER));
    await page.goto(`${e2e.baseUrl}/drive/groupFile?group=${groupId}`);
    await page.getByTestId('file-browser').waitFor();
    await page.getByTestId('new-folder').click();
    await dialogsSettled(page);
    await page.getByTestId('name-dialog-input').fill(FOLDER);
    await dialogsSettled(page);
    await page.getByTestId('name-dialog-ok').click();
    await page.getByTestId(`row-name-${FOLDER}`).waitFor();
    await closeTransferPanel(page);
    await page.getByTestId('group-members').click();
    await page.getByTestId('group-members-drawer').waitFor();
    await page.getByTestId('group-add-scope').getByText('仅以下文件夹').click();
    await page.getByTestId('group-add-picker').click();
    await page.keyboard.type(OUTSIDER);
    await page.locator('.ant-select-dropdown:not(.ant-select-dropdown-hidden)').getByText(`${OUTSIDER} 用户 (${OUTSIDER})`, { exact: true }).click();
    await page.keyboard.press('Escape');
    await page.getByTestId('group-add-folders').click();
    await page.locator('.ant-select-dropdown:not(.ant-select-dropdown-hidden)').getByText(FOLDER, { exact: true }).click();
    await page.keyboard.press('Escape');
    await clean(page, 'second-level add', [`${OWNER} 用户`, `${MEMBER} 用户`, `${OUTSIDER} 用户`, FOLDER]);
    await page.getByTestId('group-add-submit').click();
    const tag = page.getByTestId(`group-member-folder-${OUTSIDER}-${FOLDER}`);
    await tag.waitFor();
    expect(await page.getByTestId(`group-member-${OUTSIDER}`).innerText()).toContain('二级成员');
    await e2e.screenshot(page, 'groups-second-level');

    // The outsider now reaches that folder, and the group's root only as the way to it.
    const outsider = (current = await signIn(OUTSIDER));
    const list = (parentId: string) =>
      outsider.evaluate(async (id) => {
        const r = await fetch(`/hcs/controller/Page?parentId=${id}`, { headers: { 'X-Requested-With': 'XMLHttpRequest' } });
        const body = (await r.json()) as { data: { list?: { instanceName: string }[] } };
        return { status: r.status, names: body.data.list?.map((i) => i.instanceName) ?? [] };
      }, parentId);
    expect(await list(rootId)).toEqual({ status: 200, names: [FOLDER] });
    const folderId = await outsider.evaluate(async (id) => {
      const r = await fetch(`/hcs/controller/Page?parentId=${id}`, { headers: { 'X-Requested-With': 'XMLHttpRequest' } });
      return ((await r.json()) as { data: { list: { instanceId: string }[] } }).data.list[0]!.instanceId;
    }, rootId);
    expect((await list(folderId)).status).toBe(200);

    // Taken back from the tag: the folder is out of reach at once.
    current = page;
    await page.getByTestId(`group-member-folder-remove-${OUTSIDER}-${FOLDER}`).click();
    await page.locator('.ant-popconfirm:not(.ant-popover-hidden)').getByRole('button', { name: /确\s*定/ }).click();
    await tag.waitFor({ state: 'detached' });
    expect((await list(folderId)).status).toBe(404);
  });
});
