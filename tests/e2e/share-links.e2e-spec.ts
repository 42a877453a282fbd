// Issue #17 (public links) in a real browser against the real server, in zh_CN: the owner creates an external link
// to a file from the files list with a chosen extraction code and a download limit of 1 (the dialog asks checkDLP
// first); an anonymous browser context opens the link (no header, no sign-in), enters a wrong code and then the
// right one, downloads the file (its bytes checked); a second download, by another visitor, is refused with the
// limit's message (the same visitor asking again resumes its granted download, which the server does not count). Then
// an upload link into a folder receives files from the visitor, charged to the owner's folder. Every screen is
// checked for raw keys and English in the Chinese UI.
import { readFile } from 'node:fs/promises';
import { afterAll, beforeAll, beforeEach, describe, expect, it, onTestFailed } from 'vitest';
import type { BrowserContext, Page } from 'playwright-core';
import { chooseMenuItem, closeTransferPanel, explainFailure, startE2E, visibleTextProblems, type E2E } from './harness.ts';
import { makeUser, mkdir, type TestUser } from '../helpers/org.ts';
import { uploadFile } from '../helpers/upload.ts';

let e2e: E2E;
const contexts: BrowserContext[] = [];
const FILE = 'handbook.txt';
const WORDS = 'public link words\n';
const INBOX = '收件箱';
let owner: TestUser;
let inboxId = '';

beforeAll(async () => {
  e2e = await startE2E();
  owner = await makeUser(e2e.server, 'linkowner', null);
  await uploadFile((p, q, b) => owner.api(p, q, b), FILE, Buffer.from(WORDS));
  inboxId = await mkdir(owner, INBOX);
}, 180_000);
afterAll(async () => {
  for (const c of contexts) await c.close().catch(() => {});
  await e2e?.close();
});
let current: Page | undefined;
beforeEach(() => onTestFailed(({ task }) => (current ? explainFailure(e2e, current, `share-links-${task.name}`) : undefined)));

const clean = async (page: Page, where: string, allow: string[] = []) =>
  expect(await visibleTextProblems(page, { lang: 'zh_CN', allow: ['linkowner', FILE, INBOX, 'MB', ...allow] }), where).toEqual([]);

async function signIn(name: string): Promise<Page> {
  const { context, page } = await e2e.newPage({ locale: 'zh-CN' });
  contexts.push(context);
  await page.goto(`${e2e.baseUrl}/drive/login`);
  await page.getByTestId('login-username').fill(name);
  await page.getByTestId('login-password').fill(`${name[0]!.toUpperCase()}${name.slice(1)}#pass-1234`);
  await page.getByTestId('login-submit').click();
  await page.waitForURL(/\/drive\/personalFile/);
  await page.getByTestId('file-browser').waitFor();
  await closeTransferPanel(page);
  return page;
}

/** Creates a link from the row's More menu and answers its full address. */
async function createLink(page: Page, name: string, fill: (dialog: ReturnType<Page['getByTestId']>) => Promise<void>): Promise<string> {
  await chooseMenuItem(page, page.getByTestId(`row-more-${name}`), '外链分享');
  const dialog = page.getByTestId('link-create-dialog');
  await dialog.getByTestId('link-code-mode').waitFor();
  await fill(dialog);
  await clean(page, 'the create-link dialog');
  await page.getByRole('button', { name: '创建链接' }).click();
  await page.getByTestId('link-result').waitFor();
  const full = await page.getByTestId('link-full').inputValue();
  expect(full).toMatch(/\/drive\/fileDownload\?link=[A-Za-z0-9_-]{16,}$/);
  return full;
}

async function visitor(full: string): Promise<Page> {
  const { context, page } = await e2e.newPage({ locale: 'zh-CN' });
  contexts.push(context);
  // The browser's own download (Playwright sees it) rather than the engine into a picked file, which would open a
  // native dialog; share-links-folders.e2e-spec drives the engine's path.
  await context.addInitScript(() => delete (window as unknown as { showSaveFilePicker?: unknown }).showSaveFilePicker);
  await page.goto(full.replace(/^https?:\/\/[^/]+/, e2e.baseUrl));
  await page.getByTestId('file-download').waitFor();
  expect(await page.getByTestId('app-header').count()).toBe(0);
  return page;
}

describe('public links in the browser (zh_CN)', () => {
  it('a code, a download limit of 1: wrong code, right code, one download, the second refused', async () => {
    const page = (current = await signIn('linkowner'));
    const full = await createLink(page, FILE, async (dialog) => {
      await dialog.getByText('自定义提取码').click();
      await dialog.getByTestId('link-code').fill('ab12');
      await dialog.getByTestId('link-max-downloads').fill('1');
    });

    const guest = (current = await visitor(full));
    await guest.getByTestId('share-code').fill('zz99');
    await guest.getByTestId('share-open').click();
    await expect.poll(() => guest.getByTestId('share-code-error').textContent()).toContain('提取码错误');
    await clean(guest, 'the wrong-code message');
    await guest.getByTestId('share-code').fill('ab12');
    await guest.getByTestId('share-open').click();
    await guest.getByTestId(`share-item-${FILE}`).waitFor();
    await clean(guest, 'the shared list');

    const [download] = await Promise.all([guest.waitForEvent('download'), guest.getByTestId(`share-download-${FILE}`).click()]);
    expect(await readFile((await download.path())!, 'utf8')).toBe(WORDS);
    await expect.poll(() => guest.getByTestId('share-notice').textContent()).toContain('剩余下载次数：0');
    // The second download, by another visitor: the limit is used up, so the link opens to its message and nothing else.
    const other = (current = await visitor(full));
    await expect.poll(() => other.getByTestId('share-gone').textContent()).toContain('下载次数已用完');
    expect(await other.getByTestId('share-code').count()).toBe(0);
    await clean(other, 'the refused second download');
  });

  it('an upload link receives the visitor\'s files into the owner\'s folder', async () => {
    const page = (current = await signIn('linkowner'));
    const full = await createLink(page, INBOX, async (dialog) => {
      await dialog.getByText('上传链接').click();
      await dialog.getByText('不设提取码').click();
    });
    const guest = (current = await visitor(full));
    await guest.getByTestId('share-upload-files').waitFor();
    await clean(guest, 'the upload link');
    await guest.getByTestId('share-upload-input').setInputFiles([
      { name: 'a.txt', mimeType: 'text/plain', buffer: Buffer.from('first upload\n') },
      { name: 'b.txt', mimeType: 'text/plain', buffer: Buffer.from('second upload\n') },
    ]);
    await expect.poll(() => guest.getByTestId('share-notice').textContent(), { timeout: 30_000 }).toContain('已上传 2 个文件');
    const listed = await owner.api('/hcs/controller/Page', { parentId: inboxId });
    expect(listed.data.list.map((i: { instanceName: string }) => i.instanceName).sort()).toEqual(['a.txt', 'b.txt']);
  });
});
