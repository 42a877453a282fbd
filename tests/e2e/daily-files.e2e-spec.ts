// Issue #16 in a real browser against the real server, in zh_CN at 1366×800 (and one pass over the screens in en_US):
// delete and restore through /recycleBin (also into a taken name, keeping both), favourite and open from /myCollect,
// make a label on /tagRemark, attach it from the more-menu and list its items, search a CJK substring from the files
// screen's search box and open the hit in its folder, upload a new version, roll back in the versions dialog and
// download the versions (bytes compared), create a Word document from the "new" menu, and an administrator's
// /recycleBinManage (restore to the owner, empty) and /fileManagement (recycle, restore). Every screen is checked for
// raw message keys, and in Chinese for English text (the server's untranslated messages included).
import { afterAll, beforeAll, beforeEach, describe, expect, it, onTestFailed } from 'vitest';
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { BrowserContext, Page } from 'playwright-core';
import { chooseMenuItem, closeTransferPanel, dialogsSettled, explainFailure, recordToasts, signInAsAdmin, startE2E, toastsSeen, visibleTextProblems, type E2E } from './harness.ts';

let e2e: E2E;
let context: BrowserContext;
let page: Page;
const VIEWPORT = { width: 1366, height: 800 };
const FOLDER = '项目资料';
const REPORT = '季度销售报告-2024.txt';
const NOTES = '会议纪要.txt';
/** The name the restored notes get beside the notes uploaded meanwhile (keep both). */
const NOTES_COPY = '会议纪要 (1).txt';
const DOOMED = '临时草稿.txt';
const LABEL = '重要';
const WORD = '新建 Word 文档.docx';
const REMARK = '给财务部的季度数字';
const TEMPLATE = '周报模板';
const FROM_TEMPLATE = '第一周周报.docx';
const V1 = Buffer.from('第一版：季度数字\n');
const V2 = Buffer.from('第二版：修改后的季度数字，更长一些\n');
const sha = (b: Buffer) => createHash('sha256').update(b).digest('hex');
/** Text the test itself puts on screen (names), which the English check must not read as untranslated text. */
const OURS = [FOLDER, REPORT, NOTES, NOTES_COPY, DOOMED, LABEL, WORD, REMARK, TEMPLATE, FROM_TEMPLATE, 'admin'];

beforeAll(async () => {
  // HCS_WEB_DIST names a private build, when others rebuild web/dist in the same tree while this runs.
  e2e = await startE2E({ env: process.env.HCS_WEB_DIST ? { HCS_WEB_DIST: process.env.HCS_WEB_DIST } : {} });
  ({ context, page } = await e2e.newPage({ locale: 'zh-CN', viewport: VIEWPORT }));
  await recordToasts(context);
  await signInAsAdmin(e2e, page);
}, 180_000);
let enContext: BrowserContext | undefined;
afterAll(async () => {
  await enContext?.close();
  await context?.close();
  await e2e?.close();
});
let current: Page | undefined;
beforeEach(() => onTestFailed(({ task }) => (current ? explainFailure(e2e, current, `daily-files-${task.name}`) : undefined)));

async function clean(p: Page, where: string, lang: 'zh_CN' | 'en_US' = 'zh_CN') {
  expect(await visibleTextProblems(p, { lang, allow: [...OURS, e2e.adminUser] }), where).toEqual([]);
}
/** Every toast so far, in Chinese: a server's English msg or a raw key would show here first. */
async function toastsClean(p: Page) {
  const bad = (await toastsSeen(p)).filter((s) => /[A-Za-z]{2,}(?:[ ,'"-]+[A-Za-z]{2,}){2,}|\b[a-z]+\.[a-zA-Z]+\b|\b[A-Z]{2,}(?:_[A-Z0-9]+)+\b/.test(s.split(/\s+/).filter((w) => !OURS.some((o) => o.includes(w))).join(' ')));
  expect(bad, 'toasts').toEqual([]);
}

const row = (name: string) => page.getByTestId(`row-name-${name}`);
const binRow = (name: string) => page.getByTestId(`bin-row-${name}`);
async function goFiles(folder?: string) {
  await page.goto(`${e2e.baseUrl}/drive/personalFile`);
  await page.getByTestId('file-browser').waitFor();
  if (folder) {
    await row(folder).click();
    await page.getByTestId('breadcrumbs').getByText(folder).waitFor();
  }
}
async function upload(name: string, data: Buffer) {
  await page.getByTestId('upload-file-input').setInputFiles({ name, mimeType: 'text/plain', buffer: data });
}
async function waitUploaded(name: string) {
  await row(name).waitFor({ timeout: 60_000 });
  await closeTransferPanel(page, { opened: true });
}
async function deleteRow(name: string) {
  await page.getByTestId(`row-delete-${name}`).click();
  await answer(page, 'delete-confirm-ok');
  await row(name).waitFor({ state: 'detached' });
}
async function more(name: string, item: string) {
  await chooseMenuItem(page, page.getByTestId(`row-more-${name}`), item);
}
async function goBin(admin = false) {
  await page.goto(`${e2e.baseUrl}/drive/${admin ? 'recycleBinManage' : 'recycleBin'}`);
  await page.getByTestId(admin ? 'sec-recycle-page' : 'recycle-page').waitFor();
}
async function shot(p: Page, name: string) {
  await dialogsSettled(p);
  await e2e.screenshot(p, name);
}
/** Answers a confirmation with its button (by test id) once the dialog has settled. */
async function answer(p: Page, testId: string) {
  await p.getByTestId(testId).waitFor();
  await dialogsSettled(p);
  await p.getByTestId(testId).click();
}
/** How a bin's row for `name` fits at this width: its name and actions cells whole, the table without a sideways scroll. */
const binRowFits = (p: Page, name: string) =>
  p.getByTestId('bin-table').evaluate((table, n) => {
    const whole = (el: Element | null | undefined) => !!el && el.scrollWidth <= el.clientWidth;
    const cellOf = (id: string) => table.querySelector(`[data-testid="${CSS.escape(id)}"]`)?.closest('td');
    const body = table.querySelector('.ant-table-content, .ant-table-body');
    return { name: whole(cellOf(`bin-row-${n}`)), actions: whole(cellOf(`bin-purge-${n}`)), noScroll: whole(body) };
  }, name);
/** True when the element lies wholly inside the open dialog (not cut off past its edge). */
const insideDialog = async (p: Page, testId: string) => {
  const box = (await p.getByTestId(testId).boundingBox())!;
  const dialog = (await p.locator('.ant-modal-container', { has: p.getByTestId(testId) }).boundingBox())!;
  return box.x >= dialog.x && box.x + box.width <= dialog.x + dialog.width;
};
const lastToast = async (p: Page, text: string) => expect.poll(async () => (await toastsSeen(p)).some((s) => s.includes(text))).toBe(true);

describe('daily files in the browser (zh_CN, 1366×800)', () => {
  it('uploads a file into a folder, deletes it and restores it from the recycle bin to its place', async () => {
    current = page;
    await page.getByTestId('new-folder').click();
    await dialogsSettled(page);
    await page.getByTestId('name-dialog-input').fill(FOLDER);
    await dialogsSettled(page);
    await page.getByTestId('name-dialog-ok').click();
    await row(FOLDER).click();
    await page.getByTestId('breadcrumbs').getByText(FOLDER).waitFor();
    await upload(REPORT, V1);
    await waitUploaded(REPORT);
    await deleteRow(REPORT);

    await goBin();
    await binRow(REPORT).waitFor();
    // The original place is shown where it was deleted from.
    await expect.poll(() => page.getByTestId('bin-table').locator('tr', { has: binRow(REPORT) }).innerText()).toContain(`/${FOLDER}`);
    await clean(page, 'recycle bin');
    await shot(page, 'daily-files-recycle-bin');
    await page.getByTestId(`bin-restore-${REPORT}`).click();
    await lastToast(page, '已还原 1 项');
    await binRow(REPORT).waitFor({ state: 'detached' });

    await goFiles(FOLDER);
    await row(REPORT).waitFor();
    await toastsClean(page);
  });

  it('restoring into a name taken meanwhile asks, and keep-both keeps both', async () => {
    current = page;
    await goFiles();
    await upload(NOTES, Buffer.from('旧的纪要\n'));
    await waitUploaded(NOTES);
    await deleteRow(NOTES);
    await upload(NOTES, Buffer.from('新的纪要\n'));
    await waitUploaded(NOTES);

    await goBin();
    await page.getByTestId(`bin-restore-${NOTES}`).click();
    await page.getByTestId('restore-keep-both').waitFor();
    await clean(page, 'restore conflict question');
    await shot(page, 'daily-files-restore-conflict');
    await answer(page, 'restore-keep-both');
    await lastToast(page, '已还原 1 项');
    await binRow(NOTES).waitFor({ state: 'detached' });

    await goFiles();
    await row(NOTES).waitFor();
    // Both are there: the one uploaded meanwhile under its name, the restored one beside it under a new name.
    await row(NOTES_COPY).waitFor();
    await toastsClean(page);
  });

  it('favourites a file with its star, finds it in /myCollect and opens it in its folder', async () => {
    current = page;
    await goFiles(FOLDER);
    await page.getByTestId(`fav-${REPORT}`).click();
    await lastToast(page, `已收藏：${REPORT}`);
    await expect.poll(() => page.getByTestId(`fav-${REPORT}`).getAttribute('aria-pressed')).toBe('true');

    await page.goto(`${e2e.baseUrl}/drive/myCollect`);
    await page.getByTestId('favourites-page').waitFor();
    await row(REPORT).waitFor();
    await clean(page, 'favourites');
    await shot(page, 'daily-files-favourites');
    await page.getByTestId(`row-location-${REPORT}`).click();
    await page.waitForURL(/\/drive\/personalFile\?folder=/);
    await page.getByTestId('breadcrumbs').getByText(FOLDER).waitFor();
    await row(REPORT).waitFor();
    await toastsClean(page);
  });

  it('creates a label on /tagRemark, attaches it from the more-menu and lists the file by it', async () => {
    current = page;
    await page.goto(`${e2e.baseUrl}/drive/tagRemark`);
    await page.getByTestId('tag-remark-page').waitFor();
    await page.getByTestId('tag-new-name').fill(LABEL);
    await page.getByTestId('tag-new-add').click();
    await page.getByTestId(`tag-${LABEL}`).waitFor();
    await clean(page, 'labels');

    await goFiles(FOLDER);
    await more(REPORT, '标签');
    await page.getByTestId(`label-choice-${LABEL}`).click();
    await clean(page, 'label dialog');
    await page.getByTestId('label-save').click();
    await page.getByTestId('file-table').locator('tr', { has: row(REPORT) }).locator('.ant-tag', { hasText: LABEL }).waitFor();

    await page.goto(`${e2e.baseUrl}/drive/tagRemark`);
    await page.getByTestId(`tag-${LABEL}`).click();
    await row(REPORT).waitFor();
    await expect.poll(() => page.getByTestId(`tag-${LABEL}`).innerText()).toContain('1 项');
    await clean(page, 'items by label');
    await shot(page, 'daily-files-labels');
    await toastsClean(page);
  });

  it('searches a CJK substring from the search box and opens the hit in its folder', async () => {
    current = page;
    await goFiles();
    await page.getByTestId('files-search').locator('input').fill('销售报');
    await page.getByTestId('files-search').locator('input').press('Enter');
    await page.waitForURL(/\/drive\/quickSearch\?keyword=/);
    await row(REPORT).waitFor();
    expect(await page.getByTestId(`row-location-${REPORT}`).innerText()).toBe(`/${FOLDER}`);
    await clean(page, 'search results');
    await shot(page, 'daily-files-search');
    await row(REPORT).click();
    await page.waitForURL(/\/drive\/personalFile\?folder=/);
    await page.getByTestId('breadcrumbs').getByText(FOLDER).waitFor();
    await row(REPORT).waitFor();

    // The advanced panel filters by the label: the labelled report, not the notes.
    await page.goto(`${e2e.baseUrl}/drive/searchPanel`);
    await page.getByTestId('search-filters').waitFor();
    await page.getByTestId('search-label').click();
    await page.locator('.ant-select-dropdown:not(.ant-select-dropdown-hidden)').getByText(LABEL, { exact: true }).click();
    await page.getByTestId('search-apply').click();
    await row(REPORT).waitFor();
    expect(await row(NOTES).count()).toBe(0);
    await clean(page, 'search panel');
    await shot(page, 'daily-files-search-panel');
  });

  it('uploads a new version, rolls back to the first in the versions dialog and downloads the versions', async () => {
    current = page;
    await goFiles(FOLDER);
    const uploaded = async () => (await toastsSeen(page)).filter((t) => t.includes(`${REPORT} 上传成功`)).length;
    const before = await uploaded();
    await upload(REPORT, V2);
    await answer(page, 'conflict-new-version');
    // Queued, the upload opens the transfer panel (over the list at this width); done, it says so.
    await page.locator('.ant-drawer-open').waitFor();
    await expect.poll(uploaded, { timeout: 60_000 }).toBe(before + 1);
    await closeTransferPanel(page);
    await more(REPORT, '历史版本');
    const dialog = page.locator('.ant-modal', { has: page.getByTestId('versions-table') });
    await dialog.getByTestId('version-2').waitFor();
    await dialog.getByTestId('version-1').waitFor();
    await clean(page, 'versions dialog');
    await shot(page, 'daily-files-versions');
    expect(await insideDialog(page, 'version-rollback-1')).toBe(true);

    const download = async (version: number) => {
      const [d] = await Promise.all([page.waitForEvent('download'), dialog.getByTestId(`version-download-${version}`).click()]);
      return readFileSync((await d.path())!);
    };
    expect(sha(await download(2))).toBe(sha(V2));
    expect(sha(await download(1))).toBe(sha(V1));

    await dialog.getByTestId('version-rollback-1').click();
    await answer(page, 'rollback-confirm-ok');
    await lastToast(page, '已回滚到版本 v1');
    // The rolled-back content is the current version now; the replaced one is kept.
    await dialog.getByTestId('version-3').waitFor();
    expect(sha(await download(3))).toBe(sha(V1));
    expect(sha(await download(2))).toBe(sha(V2));
    await toastsClean(page);
    await page.keyboard.press('Escape');
  });

  it('creates a Word document from the "new" menu', async () => {
    current = page;
    await goFiles();
    await chooseMenuItem(page, page.getByTestId('new-document'), 'Word 文档');
    await expect.poll(() => page.getByTestId('name-dialog-input').inputValue()).toBe(WORD);
    await clean(page, 'new document dialog');
    await dialogsSettled(page);
    await page.getByTestId('name-dialog-ok').click();
    await row(WORD).waitFor();
    await toastsClean(page);
  });

  it('an administrator makes the document a template on /fileTemplate, and the "new" menu offers it', async () => {
    current = page;
    await page.goto(`${e2e.baseUrl}/drive/fileTemplate`);
    await page.getByTestId('template-page').waitFor();
    await page.getByTestId('template-add').click();
    const dialog = page.locator('.ant-modal', { hasText: '添加模板' });
    await dialog.locator('.ant-select').click();
    await page.keyboard.type('Word');
    await page.locator('.ant-select-dropdown:not(.ant-select-dropdown-hidden)').getByText(WORD, { exact: true }).click();
    await dialog.getByPlaceholder('模板名称（可选）').fill(TEMPLATE);
    await clean(page, 'template dialog');
    await dialogsSettled(page);
    await dialog.getByRole('button', { name: /确\s*定/ }).click();
    await page.getByTestId('template-page').getByText(TEMPLATE, { exact: true }).waitFor();
    await clean(page, 'templates');
    await shot(page, 'daily-files-templates');

    await goFiles();
    await chooseMenuItem(page, page.getByTestId('new-document'), `模板：${TEMPLATE}`);
    await dialogsSettled(page);
    await page.getByTestId('name-dialog-input').fill(FROM_TEMPLATE);
    await dialogsSettled(page);
    await page.getByTestId('name-dialog-ok').click();
    await row(FROM_TEMPLATE).waitFor();
    // The new document is the template's bytes.
    const size = (n: string) => page.getByTestId('file-table').locator('tr', { has: row(n) }).locator('td').nth(2).innerText();
    expect(await size(FROM_TEMPLATE)).toBe(await size(WORD));
    await toastsClean(page);
  });

  it('a remark saved in properties shows in its column; a favourite removed from the more-menu leaves /myCollect', async () => {
    current = page;
    await goFiles(FOLDER);
    await more(REPORT, '属性');
    await page.getByTestId('properties-remark-input').fill(REMARK);
    await clean(page, 'properties');
    await shot(page, 'daily-files-properties');
    // Each field's name on one line (at the dialog's width, 创建时间 broke after its third character).
    const brokenLabels = await page.getByTestId('properties').evaluate((el) =>
      [...el.querySelectorAll('.ant-descriptions-item-label')]
        .filter((label) => {
          const range = document.createRange();
          range.selectNodeContents(label);
          return new Set([...range.getClientRects()].map((r) => Math.round(r.top))).size > 1;
        })
        .map((label) => label.textContent),
    );
    expect(brokenLabels).toEqual([]);
    await page.getByTestId('properties-remark-save').click();
    await page.keyboard.press('Escape');
    await page.getByTestId('file-table').locator('tr', { has: row(REPORT) }).getByText(REMARK).waitFor();

    await more(REPORT, '取消收藏');
    await lastToast(page, `已取消收藏：${REPORT}`);
    await page.goto(`${e2e.baseUrl}/drive/myCollect`);
    await page.getByText('暂无收藏').waitFor();
    expect(await row(REPORT).count()).toBe(0);
    await toastsClean(page);
  });

  it('what the server refuses is said in Chinese: a label twice, a document name taken', async () => {
    current = page;
    await page.goto(`${e2e.baseUrl}/drive/tagRemark`);
    await page.getByTestId(`tag-${LABEL}`).waitFor();
    const toastsBefore = (await toastsSeen(page)).length;
    await page.getByTestId('tag-new-name').fill(LABEL);
    await page.getByTestId('tag-new-add').click();
    await expect.poll(async () => (await toastsSeen(page)).length).toBeGreaterThan(toastsBefore);
    await toastsClean(page);
    await clean(page, 'label refused');

    await goFiles();
    await chooseMenuItem(page, page.getByTestId('new-document'), 'Word 文档');
    await expect.poll(() => page.getByTestId('name-dialog-input').inputValue()).toBe(WORD);
    await dialogsSettled(page);
    await page.getByTestId('name-dialog-ok').click();
    await page.getByTestId('name-dialog-error').waitFor();
    await clean(page, 'document name taken');
    await shot(page, 'daily-files-name-taken');
    await page.keyboard.press('Escape');
  });

  it('an administrator restores a purged file to its owner from /recycleBinManage and empties it', async () => {
    current = page;
    await goFiles();
    await upload(DOOMED, Buffer.from('草稿\n'));
    await waitUploaded(DOOMED);
    await deleteRow(DOOMED);
    await goBin();
    await page.getByTestId(`bin-purge-${DOOMED}`).click();
    await answer(page, 'purge-confirm-ok');
    await binRow(DOOMED).waitFor({ state: 'detached' });

    await goBin(true);
    await binRow(DOOMED).waitFor();
    // At 1366 px the name and actions have room beside the owner, place and times.
    expect(await binRowFits(page, DOOMED)).toEqual({ name: true, actions: true, noScroll: true });
    await clean(page, 'admin recycle bin');
    await shot(page, 'daily-files-recycle-manage');
    await page.getByTestId(`bin-restore-${DOOMED}`).click();
    await lastToast(page, '已还原 1 项');
    await goFiles();
    await row(DOOMED).waitFor();

    // Once more, and this time the administrator empties the second-level bin.
    await deleteRow(DOOMED);
    await goBin();
    await page.getByTestId(`bin-purge-${DOOMED}`).click();
    await answer(page, 'purge-confirm-ok');
    await binRow(DOOMED).waitFor({ state: 'detached' });
    await goBin(true);
    await binRow(DOOMED).waitFor();
    await page.getByTestId('bin-empty').click();
    await answer(page, 'empty-confirm-ok');
    await binRow(DOOMED).waitFor({ state: 'detached' });
    await page.getByText('回收站为空').waitFor();
    await toastsClean(page);
  });

  it('an administrator recycles and restores a file on /fileManagement', async () => {
    current = page;
    await page.goto(`${e2e.baseUrl}/drive/fileManagement`);
    await page.getByTestId('file-management-page').waitFor();
    await page.getByTestId('fm-keyword').fill('会议');
    await page.getByTestId('fm-apply').click();
    await page.getByTestId(`fm-row-${NOTES}`).waitFor();
    await clean(page, 'file management');
    await shot(page, 'daily-files-file-management');
    const fmRow = page.locator('tr', { has: page.getByTestId(`fm-row-${NOTES}`) });
    await fmRow.getByRole('button', { name: '删除' }).click();
    await lastToast(page, '已删除 1 项');
    await goBin();
    await binRow(NOTES).waitFor();

    await page.goto(`${e2e.baseUrl}/drive/fileManagement`);
    await page.getByTestId('fm-keyword').fill('会议');
    await page.locator('.ant-form-item', { hasText: '状态' }).locator('.ant-select').click();
    await page.locator('.ant-select-dropdown:not(.ant-select-dropdown-hidden)').getByText('已删除', { exact: true }).click();
    await page.getByTestId('fm-apply').click();
    await page.getByTestId(`fm-row-${NOTES}`).waitFor();
    await page.locator('tr', { has: page.getByTestId(`fm-row-${NOTES}`) }).getByRole('button', { name: '还原' }).click();
    await lastToast(page, '已还原 1 项');
    await goFiles();
    await row(NOTES).waitFor();
    await toastsClean(page);
  });
});

describe('the same screens in en_US', () => {
  it('show no raw message key', async () => {
    const en = await e2e.newPage({ locale: 'en-US', viewport: VIEWPORT });
    enContext = en.context;
    const p = (current = en.page);
    await en.context.addInitScript(() => localStorage.setItem('languageId', 'en_US'));
    await recordToasts(en.context);
    await signInAsAdmin(e2e, p);
    const visit = async (path: string, testId: string, ready: string) => {
      await p.goto(`${e2e.baseUrl}/drive/${path}`);
      await p.getByTestId(testId).waitFor();
      await p.getByTestId(ready).first().waitFor();
      expect(await visibleTextProblems(p, { lang: 'en_US', allow: [...OURS, e2e.adminUser] }), path).toEqual([]);
    };
    // The copy kept beside the restored notes goes to the bin and on to the administrators' bin, in English.
    await p.goto(`${e2e.baseUrl}/drive/personalFile`);
    await p.getByTestId(`row-delete-${NOTES_COPY}`).click();
    await answer(p, 'delete-confirm-ok');
    await p.getByTestId(`row-name-${NOTES_COPY}`).waitFor({ state: 'detached' });
    await visit('recycleBin', 'recycle-page', `bin-row-${NOTES_COPY}`);
    expect(await binRowFits(p, NOTES_COPY)).toEqual({ name: true, actions: true, noScroll: true });
    await p.getByTestId(`bin-purge-${NOTES_COPY}`).click();
    await answer(p, 'purge-confirm-ok');
    await p.getByTestId(`bin-row-${NOTES_COPY}`).waitFor({ state: 'detached' });
    await visit('recycleBinManage', 'sec-recycle-page', `bin-row-${NOTES_COPY}`);
    expect(await binRowFits(p, NOTES_COPY)).toEqual({ name: true, actions: true, noScroll: true });
    await shot(p, 'daily-files-recycle-manage-en');
    expect(await p.getByTestId('pagination').locator('.ant-pagination-total-text').innerText()).toBe('1 item');
    await visit('myCollect', 'favourites-page', 'pagination');
    await visit('tagRemark', 'tag-remark-page', `tag-${LABEL}`);
    await visit(`quickSearch?keyword=${encodeURIComponent('纪要')}`, 'search-page', `row-name-${NOTES}`);
    await visit('searchPanel', 'search-page', 'search-filters');
    await visit('fileTemplate', 'template-page', 'template-add');
    await visit('fileManagement', 'file-management-page', `fm-row-${REPORT}`);
    await p.goto(`${e2e.baseUrl}/drive/personalFile?folder=`);
    await p.getByTestId('file-browser').waitFor();
    await p.getByTestId(`row-name-${FOLDER}`).click();
    await p.getByTestId(`row-more-${REPORT}`).click();
    await p.getByRole('menuitem', { name: 'Versions' }).click();
    await p.getByTestId('version-3').waitFor();
    await shot(p, 'daily-files-versions-en');
    expect(await insideDialog(p, 'version-rollback-1')).toBe(true);
    expect(await visibleTextProblems(p, { lang: 'en_US', allow: [...OURS, e2e.adminUser] }), 'versions dialog').toEqual([]);
    // Nothing Chinese in the English notices, once the names the test gave are taken out.
    const unnamed = (await toastsSeen(p)).map((t) => [...OURS].sort((a, b) => b.length - a.length).reduce((acc, n) => acc.split(n).join(''), t));
    expect(unnamed.filter((t) => /[\u4e00-\u9fff]/.test(t)), 'toasts').toEqual([]);
  });
});
