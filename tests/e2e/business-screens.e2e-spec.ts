// Issue #18: the five library screens in a real browser against the real server, each visited in zh_CN and en_US
// and driven through its main action: /businessLibraryManage (a library's counts, disabling and enabling it, the way
// to its detail), /businessDetail (editing its English name), /businessLevelProperty (a new level moved up, then
// deleted), /businessLibraryProperty (a taken code refused as it is typed, a new attribute, then deleted) and
// /businessConfig (the library's version retention saved and read back). Every screen is checked for raw keys and
// English in the Chinese UI, and for Chinese in the English one.
import { afterAll, beforeAll, beforeEach, describe, expect, it, onTestFailed } from 'vitest';
import type { BrowserContext, Page } from 'playwright-core';
import { chooseMenuItem, explainFailure, signInAsAdmin, startE2E, visibleTextProblems, type E2E, dialogsSettled } from './harness.ts';

let e2e: E2E;
let context: BrowserContext;
let page: Page;
const LIB = 'LEDGER';

// The library and its data are the administrator's input, shown as typed in either language.
const ALLOW: string[] = [LIB, 'invoice', 'receipt', 'invoiceNo', 'note', 'Ledger', 'Ledger Books', 'Invoice', 'Receipt', 'Invoice no.', 'Note', 'NetDisk', 'SysConfig', 'appstore', '/businessLibrary'];

beforeAll(async () => {
  e2e = await startE2E();
  // The library the screens show, made through the API as an administrator would on /businessManage.
  const { token } = await e2e.server.login();
  const api = async (path: string, body: unknown) => {
    const res = await e2e.server.call(path, { method: 'POST', token, headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    expect(res.status, `${path}: ${await res.clone().text()}`).toBe(200);
    return (await res.json()) as { data?: { rootId?: string | null } };
  };
  const added = await api('/hcs/controller/BusinessLibs/add', { libCode: LIB, libName: '账簿库', libNameEn: 'Ledger' });
  // /businessDetail shows the library's root folder id: a random id, which now and then reads like a camelCase key
  // ("bDyElBg95sb7yCiu") to the raw-key check.
  expect(added.data?.rootId).toBeTruthy();
  ALLOW.push(added.data!.rootId!);
  await api('/hcs/controller/Classifiers/add', {
    libCode: LIB, classifierCode: 'invoice', classifierName: '发票', classifierNameEn: 'Invoice',
    attributes: [{ attrCode: 'invoiceNo', attrName: '发票号', attrNameEn: 'Invoice no.', dataType: 'text', required: true, unique: true }],
  });
  await api('/hcs/controller/Classifiers/add', { libCode: LIB, classifierCode: 'receipt', classifierName: '收据', classifierNameEn: 'Receipt' });
  ({ context, page } = await e2e.newPage({ locale: 'zh-CN' }));
  await signInAsAdmin(e2e, page);
}, 180_000);
afterAll(async () => {
  await context?.close().catch(() => {});
  await e2e?.close();
});
beforeEach(() => onTestFailed(({ task }) => explainFailure(e2e, page, `business-screens-${task.name}`)));

const go = async (path: string, testId: string) => {
  await page.goto(`${e2e.baseUrl}/drive${path}`);
  await page.getByTestId(testId).waitFor();
};
const clean = async (lang: 'zh_CN' | 'en_US', where: string) => expect(await visibleTextProblems(page, { lang, allow: ALLOW }), where).toEqual([]);
const noChinese = async (where: string) => expect((await page.locator('body').innerText()).replace(/简体中文|账簿库|发票号|发票|收据|备注/g, ''), where).not.toMatch(/[\u4e00-\u9fff]/);
const okButton = (testId: string) => page.locator('.ant-modal').filter({ has: page.getByTestId(testId) }).getByRole('button', { name: /确\s*定|OK/ });
const confirmOk = () => page.locator('.ant-modal-confirm').getByRole('button', { name: /确\s*定|OK/ });

async function pick(testId: string, option: string) {
  const item = page.locator('.ant-select-dropdown:not([class*="-hidden"]):not([class*="-leave"]) .ant-select-item-option-content').getByText(option, { exact: true });
  for (let attempt = 0; attempt < 3; attempt++) {
    await page.getByTestId(testId).click();
    if (await item.waitFor({ timeout: 5_000 }).then(() => true, () => false)) break;
  }
  await item.click();
}

describe('the five library screens (zh_CN)', () => {
  it('/businessLibraryManage lists the library with its counts, disables and enables it, and leads to its detail', async () => {
    await go('/businessLibraryManage', 'business-library-manage-page');
    await page.getByTestId(`manage-row-${LIB}`).getByText('账簿库').waitFor();
    await expect.poll(() => page.getByTestId(`manage-files-${LIB}`).innerText()).toBe('0');
    expect(await page.getByTestId('business-library-manage-page').innerText()).toContain('分类数');
    await clean('zh_CN', 'manage');
    await e2e.screenshot(page, 'business-manage-zh_CN');
    const toggle = page.getByTestId(`manage-enabled-${LIB}`);
    const off = page.waitForResponse((r) => r.url().includes('/BusinessLibs/lib_') && r.request().method() === 'POST');
    await toggle.click();
    expect((await off).status()).toBe(200);
    await expect.poll(() => toggle.getAttribute('aria-checked')).toBe('false');
    const on = page.waitForResponse((r) => r.url().includes('/BusinessLibs/lib_') && r.request().method() === 'POST');
    await toggle.click();
    expect((await on).status()).toBe(200);
    await expect.poll(() => toggle.getAttribute('aria-checked')).toBe('true');
    await page.getByTestId(`link-detail-${LIB}`).click();
    await page.waitForURL(/\/drive\/businessDetail\?libCode=LEDGER/);
    await page.getByTestId('business-detail-page').waitFor();
  });

  it('/businessDetail shows the library, its classifiers and menu, and edits its English name', async () => {
    await go(`/businessDetail?libCode=${LIB}`, 'business-detail-page');
    await page.getByTestId('detail-title').getByText('账簿库').waitFor();
    await page.getByTestId('detail-menu').getByText('发票 · /businessLibrary', { exact: false }).waitFor();
    await clean('zh_CN', 'detail');
    await page.getByTestId('detail-edit').click();
    await page.getByTestId('detail-form').waitFor();
    await page.getByTestId('detail-form-name-en').fill('Ledger Books');
    const saved = page.waitForResponse((r) => r.url().includes('/BusinessLibs/lib_'));
    await okButton('detail-form').click();
    expect((await saved).status()).toBe(200);
    await page.getByTestId('detail-name-en').getByText('Ledger Books').waitFor();
    await clean('zh_CN', 'detail after edit');
    await e2e.screenshot(page, 'business-detail-zh_CN');
  });

  it('/businessLevelProperty adds a level, moves it up, and deletes it', async () => {
    await go(`/businessLevelProperty?libCode=${LIB}`, 'business-level-page');
    await page.getByTestId('level-receipt').waitFor();
    await clean('zh_CN', 'levels');
    await page.getByTestId('level-add').click();
    await page.getByTestId('level-form').waitFor();
    await page.getByTestId('level-code').fill('memo');
    await page.getByTestId('level-name-zh').fill('备忘');
    await page.getByTestId('level-name-en').fill('Memo');
    const added = page.waitForResponse((r) => r.url().includes('/Classifiers/add'));
    await okButton('level-form').click();
    expect((await added).status()).toBe(200);
    await page.getByTestId('level-memo').waitFor();
    const order = () => page.locator('[data-testid="level-invoice"], [data-testid="level-receipt"], [data-testid="level-memo"]').evaluateAll((els) => els.map((e) => e.getAttribute('data-testid')));
    expect(await order()).toEqual(['level-invoice', 'level-receipt', 'level-memo']);
    const moved = page.waitForResponse((r) => r.url().includes('/Classifiers/mod'));
    await page.getByTestId('level-up-memo').click();
    expect((await moved).status()).toBe(200);
    await expect.poll(order).toEqual(['level-invoice', 'level-memo', 'level-receipt']);
    await page.getByTestId('level-delete-memo').click();
    const gone = page.waitForResponse((r) => r.url().includes('/Classifiers/delete'));
    await confirmOk().click();
    expect((await gone).status()).toBe(200);
    await page.getByTestId('level-memo').waitFor({ state: 'detached' });
    await clean('zh_CN', 'levels after delete');
    await e2e.screenshot(page, 'business-levels-zh_CN');
  });

  it('/businessLibraryProperty refuses a taken code as it is typed, adds an attribute and deletes it', async () => {
    await go(`/businessLibraryProperty?libCode=${LIB}`, 'business-property-page');
    await page.getByTestId('property-invoiceNo').waitFor();
    await clean('zh_CN', 'properties');
    await page.getByTestId('property-add').click();
    await page.getByTestId('property-form').waitFor();
    await pick('property-classifier', '收据');
    await page.getByTestId('property-code').fill('INVOICENO');
    await page.getByTestId('property-form').getByText('该属性编码在本库中已被使用').waitFor();
    await clean('zh_CN', 'taken code');
    await page.getByTestId('property-code').fill('note');
    await page.getByTestId('property-name-zh').fill('备注');
    await page.getByTestId('property-name-en').fill('Note');
    const saved = page.waitForResponse((r) => r.url().includes('/Classifiers/mod'));
    await okButton('property-form').click();
    expect((await saved).status()).toBe(200);
    await page.getByTestId('property-note').waitFor();
    await page.getByTestId('property-delete-note').click();
    const gone = page.waitForResponse((r) => r.url().includes('/Classifiers/mod'));
    await confirmOk().click();
    expect((await gone).status()).toBe(200);
    await page.getByTestId('property-note').waitFor({ state: 'detached' });
    await page.getByTestId('property-invoiceNo').waitFor();
  });

  it('/businessConfig saves the library\'s version retention and reads it back', async () => {
    await go(`/businessConfig?libCode=${LIB}`, 'business-config-page');
    await page.getByTestId('config-form').waitFor();
    expect(await page.getByTestId('config-form').innerText()).toContain('服务器默认：100');
    await clean('zh_CN', 'config');
    await page.getByTestId('config-version-count').fill('5');
    await page.getByTestId('config-version-days').fill('90');
    const saved = page.waitForResponse((r) => r.url().includes('/BusinessLibs/config') && r.request().method() === 'POST');
    await page.getByTestId('config-save').click();
    expect((await saved).status()).toBe(200);
    await page.reload();
    await page.getByTestId('config-form').waitFor();
    await expect.poll(() => page.getByTestId('config-version-count').inputValue()).toBe('5');
    expect(await page.getByTestId('config-version-days').inputValue()).toBe('90');
    // A built-in library: its retention is set here too, who may use it is not.
    await pick('lib-picker', '网盘 (NetDisk)');
    await page.waitForURL(/libCode=NetDisk/);
    await expect.poll(() => page.getByTestId('config-admin-only').isDisabled()).toBe(true);
    await clean('zh_CN', 'config NetDisk');
    await e2e.screenshot(page, 'business-config-zh_CN');
  });
});

describe('the five library screens (en_US)', () => {
  it('each screen draws in English and does its main action', async () => {
    await page.goto(`${e2e.baseUrl}/drive/personalFile`);
    await page.getByTestId('file-browser').waitFor();
    await chooseMenuItem(page, page.getByTestId('language-switch'), 'English');
    await page.waitForLoadState('load');
    await expect.poll(() => page.getByTestId('side-menu').innerText(), { timeout: 15000 }).toContain('Personal File');

    await go('/businessLibraryManage', 'business-library-manage-page');
    await page.getByTestId(`manage-row-${LIB}`).getByText('Ledger Books').waitFor();
    expect(await page.getByTestId('business-library-manage-page').innerText()).toContain('Classifiers');
    await clean('en_US', 'manage en');
    await noChinese('manage en');
    await page.getByTestId(`link-levels-${LIB}`).click();
    await page.getByTestId('business-level-page').waitFor();
    await page.getByTestId('level-invoice').getByText('Invoice').waitFor();
    await page.getByTestId('level-down-invoice').click();
    await expect.poll(() => page.locator('[data-testid="level-invoice"], [data-testid="level-receipt"]').evaluateAll((els) => els.map((e) => e.getAttribute('data-testid')))).toEqual(['level-receipt', 'level-invoice']);
    await clean('en_US', 'levels en');
    await noChinese('levels en');

    await go(`/businessDetail?libCode=${LIB}`, 'business-detail-page');
    await page.getByTestId('detail-title').getByText('Ledger Books').waitFor();
    expect(await page.getByTestId('detail-stats').innerText()).toContain('Unclassified files');
    await clean('en_US', 'detail en');

    await go(`/businessLibraryProperty?libCode=${LIB}`, 'business-property-page');
    await page.getByTestId('property-invoiceNo').getByText('Invoice no.').waitFor();
    await page.getByTestId('property-add').click();
    await page.getByTestId('property-code').fill('invoiceno');
    await page.getByTestId('property-form').getByText('This attribute code is already used in the library').waitFor();
    await clean('en_US', 'properties en');
    await dialogsSettled(page);
    await page.locator('.ant-modal').filter({ has: page.getByTestId('property-form') }).getByRole('button', { name: 'Cancel' }).click();

    await go(`/businessConfig?libCode=${LIB}`, 'business-config-page');
    await expect.poll(() => page.getByTestId('config-version-count').inputValue()).toBe('5');
    await page.getByTestId('config-version-count').fill('');
    const saved = page.waitForResponse((r) => r.url().includes('/BusinessLibs/config') && r.request().method() === 'POST');
    await page.getByTestId('config-save').click();
    const sent = (await saved).request().postDataJSON() as { versionMaxCount: unknown };
    expect(sent.versionMaxCount).toBeNull();
    expect(await page.getByTestId('config-form').innerText()).toContain('Server default: 100');
    await clean('en_US', 'config en');
    await noChinese('config en');
    await e2e.screenshot(page, 'business-config-en_US');
  });
});
