// Issue #22: the corner transfer card must not cover the list it sits beside. With a transfer held running and a
// full page of rows, at 1366x800 and 800x600, the card leaves the last row's actions and the pagination reachable.
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it, onTestFailed } from 'vitest';
import type { BrowserContext, Locator, Page } from 'playwright-core';
import { closeTransferPanel, dialogsSettled, explainFailure, holdStorageRequests, settledPopup, signInAsAdmin, startE2E, type E2E } from './harness.ts';

let e2e: E2E;
beforeAll(async () => {
  e2e = await startE2E();
}, 180_000);
afterAll(async () => {
  await e2e?.close();
});

type Box = { x: number; y: number; width: number; height: number };
const overlaps = (a: Box, b: Box) => a.x < b.x + b.width && b.x < a.x + a.width && a.y < b.y + b.height && b.y < a.y + a.height;

const combos = [
  { lang: 'zh_CN', locale: 'zh-CN', viewport: { width: 1366, height: 800 } },
  { lang: 'en_US', locale: 'en-US', viewport: { width: 800, height: 600 } },
] as const;

describe.each(combos)('the corner transfer card beside a full list, $lang at $viewport.width x $viewport.height', ({ lang, locale, viewport }) => {
  const tag = `${lang}-${viewport.width}`;
  // More than one page (20 rows): the pagination has a second page to go to.
  const files = Array.from({ length: 22 }, (_, i) => `c${String(i).padStart(2, '0')}-${tag}.txt`);
  let context: BrowserContext;
  let page: Page;

  beforeAll(async () => {
    ({ context, page } = await e2e.newPage({ locale, viewport }));
    await signInAsAdmin(e2e, page);
    const work = `corner-${tag}`;
    await page.getByTestId('new-folder').click();
    await dialogsSettled(page);
    await page.getByTestId('name-dialog-input').fill(work);
    await dialogsSettled(page);
    await page.getByTestId('name-dialog-ok').click();
    await page.getByTestId(`row-name-${work}`).click();
    await page.getByTestId('breadcrumbs').getByText(work, { exact: true }).waitFor();
    await page.getByTestId('upload-file-input').setInputFiles(files.map((name) => ({ name, mimeType: 'text/plain', buffer: Buffer.from(`# ${name}\n`) })));
    await closeTransferPanel(page, { opened: true });
    await page.getByTestId(`row-name-${files[19]}`).waitFor({ timeout: 60_000 });
    await page.getByTestId('transfer-corner').waitFor({ state: 'detached', timeout: 60_000 });
  }, 180_000);
  afterAll(async () => {
    await context?.close();
  });

  it('leaves the last row’s actions and the pagination uncovered and clickable while a transfer runs', async () => {
    onTestFailed(({ task }) => explainFailure(e2e, page, `web-corner-card-${tag}-${task.name}`));
    const gate = await holdStorageRequests(page);
    gate.arm((r) => r.method() === 'PUT');
    try {
      // Bytes of its own: the same content already stored would be recognised and never sent.
      await page.getByTestId('upload-file-input').setInputFiles({ name: `held-${tag}.bin`, mimeType: 'application/octet-stream', buffer: randomBytes(256 * 1024) });
      await gate.held();
      await closeTransferPanel(page, { opened: true });
      const corner = page.getByTestId('transfer-corner');
      await corner.waitFor();
      // The panel slides out over the list: measure and picture the list once it has gone.
      await page.locator('.ant-drawer-content-wrapper').waitFor({ state: 'hidden' });

      // The last row the user can reach: the table's own scroll at its end, the page scrolled as far as it goes.
      // (The closed transfer panel keeps its own table in the page: look inside the file list only.)
      const list = page.getByTestId('file-browser');
      await list.getByTestId('file-table').evaluate((el) => el.scrollTo(0, el.scrollHeight));
      await page.evaluate(() => window.scrollTo(0, document.documentElement.scrollHeight));
      const last = list.locator('tr[data-row-key]').last();
      const lastName = await last.locator('[data-testid^="row-name-"]').innerText();
      expect(files).toContain(lastName);
      const actions: Locator[] = [page.getByTestId(`row-download-${lastName}`), page.getByTestId(`row-delete-${lastName}`), page.getByTestId(`row-more-${lastName}`)];
      const pagination = page.getByTestId('pagination');
      await e2e.screenshot(page, `corner-card-beside-list-${tag}`);

      const card = (await corner.boundingBox())!;
      for (const a of actions) expect(overlaps(card, (await a.boundingBox())!), `card over ${await a.getAttribute('data-testid')}`).toBe(false);
      expect(overlaps(card, (await pagination.boundingBox())!), 'card over the pagination').toBe(false);

      // And the clicks land: the last row's more-menu opens, and the pagination goes to page two.
      await page.getByTestId(`row-more-${lastName}`).click();
      await settledPopup(page).getByRole('menuitem').first().waitFor();
      await page.keyboard.press('Escape');
      await pagination.getByTitle('2', { exact: true }).click();
      await page.getByTestId(`row-name-${files[21]}`).waitFor();
      await corner.waitFor();
    } finally {
      gate.release();
    }
    await page.getByTestId('transfer-corner').waitFor({ state: 'detached', timeout: 60_000 });
  }, 120_000);
});
