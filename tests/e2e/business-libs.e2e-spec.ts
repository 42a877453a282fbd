// Issue #18 part 2 in a real browser against the real server, in zh_CN: an administrator creates a business library
// on /businessManage with one classifier and two attributes (a required text, an enumeration), sees it on the home
// strip and in the header switcher, opens it, uploads two files with attribute values, and filters the list by an
// attribute and across the whole library by name. Every screen is checked for raw keys and English in the Chinese UI.
import { afterAll, beforeAll, beforeEach, describe, expect, it, onTestFailed } from 'vitest';
import type { BrowserContext, Page } from 'playwright-core';
import { chooseOption, closeTransferPanel, dialogsSettled, explainFailure, settledPopup, signInAsAdmin, startE2E, visibleTextProblems, type E2E } from './harness.ts';

let e2e: E2E;
let context: BrowserContext;
let page: Page;
const LIB = 'CONTRACTS';
const LIB_ZH = '合同库';

beforeAll(async () => {
  e2e = await startE2E();
  ({ context, page } = await e2e.newPage({ locale: 'zh-CN' }));
  await signInAsAdmin(e2e, page);
}, 180_000);
afterAll(async () => {
  await context?.close().catch(() => {});
  await e2e?.close();
});
beforeEach(() => onTestFailed(({ task }) => explainFailure(e2e, page, `business-libs-${task.name}`)));

const clean = async (where: string) =>
  expect(await visibleTextProblems(page, { lang: 'zh_CN', allow: [LIB, 'contract', 'contractNo', 'status', 'lease.txt', 'draft.txt', 'HT-001', 'HT-002', 'Contracts', 'Contract', 'Contract no.', 'Status', 'NetDisk', 'SysConfig'] }), where).toEqual([]);

/**
 * Picks an option of an antd select and checks the select shows it. chooseOption's text match also meets the hidden
 * accessibility copy of the options, so this one clicks the visible option content of a list that has settled. On a
 * loaded machine the upload dialog may still be zooming in when its select opens: the list then moves under the
 * pointer, or closes when the dialog takes the focus at the end of its motion (seen in CI). So the dialog settles
 * first, and a pick that did not take is made again.
 */
async function pick(testId: string, option: string) {
  await dialogsSettled(page);
  const select = page.getByTestId(testId);
  const item = settledPopup(page).locator('.ant-select-item-option-content').getByText(option, { exact: true });
  for (let attempt = 0; attempt < 4; attempt++) {
    if (!(await item.isVisible())) await select.click();
    const clicked = await item.click({ timeout: 5_000 }).then(() => true, () => false);
    // The select's own text is the value it holds (and its placeholder while it holds none).
    if (clicked && (await select.innerText({ timeout: 5_000 }).catch(() => '')).includes(option)) return;
  }
  throw new Error(`the select ${testId} did not take the option ${option}`);
}

async function uploadWith(name: string, contractNo: string, status: string) {
  await page.getByTestId('lib-upload').click();
  await page.getByTestId('upload-attrs-form').waitFor();
  await page.getByTestId('upload-contractNo').fill(contractNo);
  await pick('upload-status', status);
  const chooser = page.waitForEvent('filechooser');
  await page.getByRole('button', { name: '选择文件' }).click();
  await (await chooser).setFiles({ name, mimeType: 'text/plain', buffer: Buffer.from(`${name}\n`) });
  await page.getByTestId(`lib-file-${name}`).waitFor({ timeout: 60_000 });
  await closeTransferPanel(page, { opened: true });
}

describe('business libraries in the browser (zh_CN)', () => {
  it('an administrator creates a library with a classifier and two attributes', async () => {
    await page.goto(`${e2e.baseUrl}/drive/businessManage`);
    await page.getByTestId('business-manage-page').waitFor();
    await page.getByTestId('lib-add').click();
    await page.getByTestId('lib-form').waitFor();
    await page.getByTestId('lib-code').fill(LIB);
    await page.getByTestId('lib-name-zh').fill(LIB_ZH);
    await page.getByTestId('lib-name-en').fill('Contracts');
    await clean('new library dialog');
    const made = page.waitForResponse((r) => r.url().includes('/BusinessLibs/add'));
    await dialogsSettled(page);
    await page.getByRole('button', { name: /确\s*定|OK/ }).click();
    expect((await made).status()).toBe(200);
    await page.getByTestId(`lib-row-${LIB}`).waitFor();

    await page.getByTestId(`lib-classifiers-${LIB}`).click();
    await page.getByTestId('classifier-add').click();
    await page.getByTestId('classifier-form').waitFor();
    await page.getByTestId('classifier-code').fill('contract');
    await page.getByTestId('classifier-name-zh').fill('合同');
    await page.getByTestId('classifier-name-en').fill('Contract');
    await page.getByTestId('attr-add').click();
    await page.getByTestId('attr-add').click();
    await page.getByTestId('attr-code-0').fill('contractNo');
    await page.getByTestId('attr-name-zh-0').fill('合同编号');
    await page.getByTestId('attr-name-en-0').fill('Contract no.');
    await page.getByTestId('attr-required-0').check();
    await page.getByTestId('attr-unique-0').check();
    await page.getByTestId('attr-code-1').fill('status');
    await page.getByTestId('attr-name-zh-1').fill('状态');
    await page.getByTestId('attr-name-en-1').fill('Status');
    await chooseOption(page, page.getByTestId('attr-type-1'), '枚举');
    await page.getByTestId('attr-options-1').fill('草稿, 已签');
    await page.getByTestId('attr-required-1').check();
    await clean('new classifier dialog');
    const added = page.waitForResponse((r) => r.url().includes('/Classifiers/add'));
    await dialogsSettled(page);
    await page.locator('.ant-modal').filter({ has: page.getByTestId('classifier-form') }).getByRole('button', { name: /确\s*定|OK/ }).click();
    expect((await added).status()).toBe(200);
    await page.getByTestId('classifier-contract').waitFor();
    expect(await page.getByTestId('classifier-contract').innerText()).toContain('合同编号');
    await clean('classifiers');
    // Editing keeps the attributes (by id) and renames the classifier.
    await page.getByTestId('classifier-edit-contract').click();
    await page.getByTestId('classifier-name-zh').fill('合同文件');
    const modded = page.waitForResponse((r) => r.url().includes('/Classifiers/mod'));
    await dialogsSettled(page);
    await page.locator('.ant-modal').filter({ has: page.getByTestId('classifier-form') }).getByRole('button', { name: /确\s*定|OK/ }).click();
    expect((await modded).status()).toBe(200);
    await page.getByTestId('classifier-contract').getByText('合同文件').waitFor();
    expect(await page.getByTestId('classifier-contract').innerText()).toContain('合同编号');
    await e2e.screenshot(page, 'business-libs-admin');
  });

  it('the library is on the home strip and in the header switcher, which opens it', async () => {
    await page.goto(`${e2e.baseUrl}/drive/home`);
    await page.getByTestId(`lib-${LIB}`).waitFor();
    expect(await page.getByTestId(`lib-${LIB}`).innerText()).toContain(LIB_ZH);
    await clean('home');
    const switcher = page.getByTestId('lib-switcher');
    await switcher.waitFor();
    await switcher.selectOption({ label: LIB_ZH });
    await page.waitForURL(/\/drive\/businessLibrary\?/);
    await page.getByTestId('business-library-page').waitFor();
    // The switcher names the library it opened, inside its box (the header's 64px line height once pushed it out).
    expect(await switcher.evaluate((el: HTMLSelectElement) => el.selectedOptions[0]?.textContent)).toBe(LIB_ZH);
    expect(await switcher.evaluate((el) => getComputedStyle(el).lineHeight === 'normal' || parseFloat(getComputedStyle(el).lineHeight) <= el.clientHeight)).toBe(true);
    expect(await page.getByTestId('library-title').innerText()).toContain(LIB_ZH);
    // The library's own menu: its Files entry with the classifier under it.
    expect(await page.getByTestId('side-menu').innerText()).toContain('合同');
  });

  it('uploads files with attribute values and filters by an attribute', async () => {
    await uploadWith('lease.txt', 'HT-001', '已签');
    await uploadWith('draft.txt', 'HT-002', '草稿');
    expect(await page.getByTestId('cell-lease.txt-status').innerText()).toBe('已签');
    expect(await page.getByTestId('cell-draft.txt-contractNo').innerText()).toBe('HT-002');
    await clean('library files');

    await pick('filter-status', '已签');
    const filtered = page.waitForResponse((r) => r.url().includes('/BusinessLibs/files') && r.url().includes('attrFilter'));
    await page.getByTestId('filter-apply').click();
    expect((await filtered).status()).toBe(200);
    await page.getByTestId('lib-file-draft.txt').waitFor({ state: 'detached' });
    expect(await page.getByTestId('lib-file-lease.txt').count()).toBe(1);
    await clean('filtered');
    // The whole library, by name: the keyword and the filter both hold.
    await page.getByTestId('filter-reset').click();
    await page.getByTestId('lib-file-draft.txt').waitFor();
    await page.getByTestId('filter-keyword').fill('draft');
    await page.getByTestId('filter-deep').check();
    const deep = page.waitForResponse((r) => r.url().includes('/BusinessLibs/files') && r.url().includes('deep=true'));
    await page.getByTestId('filter-apply').click();
    expect((await deep).status()).toBe(200);
    await page.getByTestId('lib-file-lease.txt').waitFor({ state: 'detached' });
    expect(await page.getByTestId('lib-file-draft.txt').count()).toBe(1);
    await clean('whole library');
    await e2e.screenshot(page, 'business-libs-files');

    // The server holds what the screen shows: the values are the file's.
    const stored = await page.evaluate(async () => {
      const r = await fetch('/hcs/controller/BusinessLibs/files?libCode=CONTRACTS&pageNo=1&pageSize=20', { headers: { 'X-Requested-With': 'XMLHttpRequest' } });
      return ((await r.json()) as { data: { list: { instanceName: string; attrs: Record<string, unknown> }[] } }).data.list.map((f) => [f.instanceName, f.attrs]);
    });
    expect(stored).toEqual([['draft.txt', { contractNo: 'HT-002', status: '草稿' }], ['lease.txt', { contractNo: 'HT-001', status: '已签' }]]);
  });

  it('the role screen grants roles on the library root, as on a department space', async () => {
    await page.goto(`${e2e.baseUrl}/drive/roleManage`);
    await page.getByTestId('roles-table').waitFor();
    await page.getByTestId('tab-grants').click();
    await chooseOption(page, page.getByTestId('grant-space'), `业务库：${LIB_ZH}`);
    await page.getByTestId('grants-card').getByText('此处没有授权', { exact: false }).first().waitFor();
    await chooseOption(page, page.getByTestId('grant-role'), '观察者');
    await page.getByTestId('grant-users').click();
    await page.keyboard.type('admin');
    await page.locator('.ant-select-dropdown:not(.ant-select-dropdown-hidden)').getByText('(admin)', { exact: false }).first().click();
    await page.keyboard.press('Escape');
    await page.getByTestId('grant-submit').click();
    await page.getByTestId('grant-row-admin').waitFor();
    await clean('library grants');
    // The grant is on the library's root folder.
    const onRoot = await page.evaluate(async () => {
      const h = { headers: { 'X-Requested-With': 'XMLHttpRequest' } };
      const libs = ((await (await fetch('/hcs/controller/BusinessLibs/getAll', h)).json()) as { data: { libCode: string; rootId: string }[] }).data;
      const rootId = libs.find((l) => l.libCode === 'CONTRACTS')!.rootId;
      const page = (await (await fetch(`/hcs/controller/SysRoleUser/pageGroupRoleList?instanceId=${rootId}&pageNo=1&pageSize=20`, h)).json()) as { data: { list: { roleCode: string }[] } };
      return page.data.list.map((g) => g.roleCode);
    });
    expect(onRoot).toEqual(['observer']);
  });
});
