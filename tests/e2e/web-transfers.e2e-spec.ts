// Issue #22 defects 3 and 4 in a real browser against the real server: a selection with a bad name uploads the
// valid files and lists the bad one with its rule first; the transfer panel keeps its actions on screen at 1366 and
// 800 px with no mask over the list; pause all / resume all take downloads along; downloads have their own tab with
// speed and location; a folder upload says "done" once; a zip shows its real size and is finished only when written;
// upload progress moves within a part. Runs in zh_CN at 1366x800 and en_US at 800x600; screens are scanned for keys.
import { afterAll, beforeAll, beforeEach, describe, expect, it, onTestFailed } from 'vitest';
import { createHash, randomBytes } from 'node:crypto';
import type { BrowserContext, Page } from 'playwright-core';
import { closeTransferPanel, dialogsSettled, explainFailure, holdStorageRequests, recordToasts, settledTransferPanel, signInAsAdmin, startE2E, toastsSeen, visibleTextProblems, type E2E } from './harness.ts';

let e2e: E2E;
beforeAll(async () => {
  e2e = await startE2E();
}, 180_000);
afterAll(async () => {
  await e2e?.close();
});

const MiB = 1024 * 1024;
const sha = (b: Buffer | Uint8Array) => createHash('sha256').update(b).digest('hex');

const TEXT = {
  zh_CN: { ok: '确 定', rule: '名称不能包含', pauseAll: '全部暂停', resumeAll: '全部开始', downloadTab: /^下载/, finishedTab: /^已完成/, batchDone: /个文件上传成功/, oneDone: /上传成功/ },
  en_US: { ok: 'OK', rule: 'The name cannot contain', pauseAll: 'Pause all', resumeAll: 'Resume all', downloadTab: /^Downloading/, finishedTab: /^Finished/, batchDone: /files uploaded/, oneDone: /uploaded/ },
} as const;

/** A picked file in the origin-private file system, as showSaveFilePicker would return, without the native dialog. */
const pickIntoOpfs = (page: Page) =>
  page.evaluate(() => {
    (window as unknown as { showSaveFilePicker: unknown }).showSaveFilePicker = async ({ suggestedName }: { suggestedName: string }) =>
      (await navigator.storage.getDirectory()).getFileHandle(`picked-${suggestedName}`, { create: true });
  });
/** SHA-256 and size of a picked file, computed in the page (20 MiB as a JSON array would take minutes). */
const opfsDigest = (page: Page, name: string) =>
  page.evaluate(async (n) => {
    const file = await (await (await navigator.storage.getDirectory()).getFileHandle(n)).getFile();
    const digest = await crypto.subtle.digest('SHA-256', await file.arrayBuffer());
    const tail = new Uint8Array(await file.slice(Math.max(0, file.size - 22)).arrayBuffer());
    const hex = (b: Uint8Array) => [...b].map((x) => x.toString(16).padStart(2, '0')).join('');
    return { sha: hex(new Uint8Array(digest)), size: file.size, tail: hex(tail) };
  }, name);

const closePanel = closeTransferPanel;

/** The element is inside the window, horizontally and vertically. */
async function onScreen(page: Page, testId: string): Promise<boolean> {
  await settledTransferPanel(page);
  const box = await page.getByTestId(testId).boundingBox();
  const vp = page.viewportSize()!;
  return !!box && box.x >= 0 && box.y >= 0 && box.x + box.width <= vp.width && box.y + box.height <= vp.height;
}

const combos = [
  { lang: 'zh_CN', locale: 'zh-CN', viewport: { width: 1366, height: 800 } },
  { lang: 'en_US', locale: 'en-US', viewport: { width: 800, height: 600 } },
] as const;

describe.each(combos)('transfers in $lang at $viewport.width x $viewport.height', ({ lang, locale, viewport }) => {
  const T = TEXT[lang];
  const tag = `${lang}-${viewport.width}`;
  let context: BrowserContext;
  let page: Page;
  let gate: Awaited<ReturnType<typeof holdStorageRequests>>;
  const folder = `tree-${tag}`;
  const big = `big-${tag}.bin`;
  const bigData = randomBytes(20 * MiB);
  const names = (extra: string[] = []) => [e2e.adminUser, folder, big, 'second.png', 'doc.pdf', 'report[1].txt', ...extra];
  const clean = async (where: string, extra: string[] = []) =>
    expect(await visibleTextProblems(page, { lang, allow: names(extra) }), where).toEqual([]);

  beforeAll(async () => {
    ({ context, page } = await e2e.newPage({ locale, viewport }));
    await recordToasts(context);
    gate = await holdStorageRequests(page);
    await signInAsAdmin(e2e, page);
  });
  afterAll(async () => {
    gate?.release();
    await context?.close();
  });
  beforeEach(() => onTestFailed(({ task }) => explainFailure(e2e, page, `web-transfers-${tag}-${task.name}`)));

  it('a bad name in a selection: it is listed with its rule before anything uploads, the valid files go', async () => {
    const dir = `picks-${tag}`;
    await page.getByTestId('new-folder').click();
    await dialogsSettled(page);
    await page.getByTestId('name-dialog-input').fill(dir);
    await dialogsSettled(page);
    await page.getByTestId('name-dialog-ok').click();
    await page.getByTestId(`row-name-${dir}`).click();
    await page.getByTestId('breadcrumbs').getByText(dir).waitFor();
    const uploadsBefore = await page.evaluate(() => performance.getEntriesByType('resource').filter((r) => r.name.includes('/s3/')).length);
    await page.getByTestId('upload-file-input').setInputFiles(
      ['report[1].txt', 'second.png', 'doc.pdf'].map((name) => ({ name, mimeType: 'application/octet-stream', buffer: Buffer.from(`content of ${name}`) })),
    );
    const list = page.getByTestId('invalid-names');
    await list.waitFor();
    expect(await list.innerText()).toContain('report[1].txt');
    expect(await list.innerText()).toContain(T.rule);
    // Nothing has been sent to storage while the list is up.
    expect(await page.evaluate(() => performance.getEntriesByType('resource').filter((r) => r.name.includes('/s3/')).length)).toBe(uploadsBefore);
    await e2e.screenshot(page, `web-transfers-invalid-names-${tag}`);
    await clean('the invalid-names list', [dir]);
    await dialogsSettled(page);
    await page.getByRole('button', { name: T.ok }).last().click();
    await page.getByTestId('row-name-second.png').waitFor({ timeout: 30000 });
    await page.getByTestId('row-name-doc.pdf').waitFor();
    expect(await page.getByTestId('row-name-report[1].txt').count()).toBe(0);
    await closePanel(page);
    await page.getByTestId('breadcrumbs').locator('a').first().click();
    await page.getByTestId(`row-name-${dir}`).waitFor();
  });

  it('a folder upload says it is done once, not once per file', async () => {
    const before = (await toastsSeen(page)).length;
    const files = Array.from({ length: 6 }, (_, i) => ({ path: `${folder}/f${i}.txt`, b64: Buffer.from(`file ${i}`).toString('base64') }));
    await page.getByTestId('file-browser').evaluate((el, list) => {
      const dt = new DataTransfer();
      for (const f of list) {
        const file = new File([Uint8Array.from(atob(f.b64), (c) => c.charCodeAt(0))], f.path.split('/').pop()!);
        Object.defineProperty(file, 'webkitRelativePath', { value: f.path });
        dt.items.add(file);
      }
      el.dispatchEvent(new DragEvent('drop', { dataTransfer: dt, bubbles: true, cancelable: true }));
    }, files);
    await expect.poll(async () => (await toastsSeen(page)).slice(before).some((t) => T.batchDone.test(t)), { timeout: 60000 }).toBe(true);
    await page.getByTestId(`row-name-${folder}`).waitFor();
    const success = (await toastsSeen(page)).slice(before).filter((t) => T.oneDone.test(t));
    expect(success, JSON.stringify(success)).toHaveLength(1);
    expect(success[0]).toMatch(T.batchDone);
    // The panel opened for the upload does not cover the list with a mask.
    expect(await page.locator('.ant-drawer-mask').count()).toBe(0);
    await closePanel(page);
  });

  it('while a big upload runs its actions stay on screen next to its name, and its progress moves within a part', async () => {
    // Parts from the second on wait: the first part's progress is what the page shows meanwhile.
    gate.arm((r) => r.method() === 'PUT' && Number(new URL(r.url()).searchParams.get('partNumber') ?? 0) >= 2);
    const cdp = await context.newCDPSession(page);
    // A slow uplink, so the first part takes long to leave and its bytes can be watched arriving: 16 s at 512 KiB/s.
    // At 2 MiB/s (4 s) a loaded CI machine once drew the row only after the part was done, at 40%.
    await cdp.send('Network.emulateNetworkConditions', { offline: false, latency: 0, downloadThroughput: -1, uploadThroughput: MiB / 2 });
    await page.getByTestId('upload-file-input').setInputFiles({ name: big, mimeType: 'application/octet-stream', buffer: bigData });
    const status = page.getByTestId(`upload-status-${big}`);
    await status.and(page.locator('[data-status="uploading"]')).waitFor({ timeout: 60000 });
    // 20 MiB in 8 MiB parts moves in steps of 40% (20% for the last) when only whole parts count.
    await page.waitForFunction(
      (id) => {
        const m = /(\d+)%/.exec(document.querySelector(`[data-testid="${id}"]`)?.textContent ?? '');
        return !!m && Number(m[1]) > 0 && Number(m[1]) % 20 !== 0;
      },
      `upload-status-${big}`,
      { timeout: 60000 },
    );
    expect(await status.innerText()).toMatch(/\/s/);
    await cdp.send('Network.emulateNetworkConditions', { offline: false, latency: 0, downloadThroughput: -1, uploadThroughput: -1 });
    expect(await onScreen(page, `upload-pause-${big}`), 'pause button in the window').toBe(true);
    expect(await onScreen(page, `upload-delete-${big}`), 'delete button in the window').toBe(true);
    expect(await page.getByTestId('transfer-upload-table').getByText(big).isVisible()).toBe(true);
    expect(await page.locator('.ant-drawer-mask').count()).toBe(0);
    await e2e.screenshot(page, `web-transfers-panel-${tag}`);
    await clean('the transfer panel');
    gate.release();
    await status.waitFor({ state: 'detached', timeout: 120000 });
    await closePanel(page);
  }, 240_000);

  it('downloads have their own tab with speed and location; pause all and resume all take them along', async () => {
    await pickIntoOpfs(page);
    // Reads from the second part on wait, so the download is still running when "pause all" is clicked.
    gate.arm((r) => r.method() === 'GET' && /^bytes=(\d+)-/.test(r.headers()['range'] ?? '') && Number(/^bytes=(\d+)-/.exec(r.headers()['range']!)![1]) >= 8 * MiB);
    await page.getByTestId(`row-download-${big}`).click();
    const dl = page.getByTestId(`download-status-${big}`);
    await dl.and(page.locator('[data-status="resume"]')).waitFor({ timeout: 60000 });
    const table = page.getByTestId('transfer-download-table');
    for (const col of lang === 'zh_CN' ? ['文件名', '文件大小', '速度', '状态', '位置', '操作'] : ['File name', 'File size', 'Speed', 'Status', 'Location', 'Actions']) {
      expect(await table.getByRole('columnheader', { name: col }).count(), col).toBe(1);
    }
    expect(await onScreen(page, `download-pause-${big}`)).toBe(true);
    await page.getByRole('button', { name: T.pauseAll }).click();
    await dl.and(page.locator('[data-status="pause"]')).waitFor();
    gate.release();
    await page.getByRole('button', { name: T.resumeAll }).click();
    await dl.waitFor({ state: 'detached', timeout: 120000 });
    expect((await opfsDigest(page, `picked-${big}`)).sha).toBe(sha(bigData));
    await closePanel(page);
  }, 240_000);

  it('a folder zip goes into the picked file and is listed as finished with its real size once written', async () => {
    await pickIntoOpfs(page);
    // Each case starts with the panel closed (at 800 px it covers the list), whatever the one before left.
    await closePanel(page);
    await page.getByTestId(`row-download-${folder}`).click();
    // The app opens the panel on its download tab once it has measured the folder (a request later). Clicked before
    // that, the finished tab is switched away from again (seen in CI: the finished zip sat on the unshown tab).
    await settledTransferPanel(page);
    await page.getByRole('tab', { name: T.finishedTab }).click();
    const row = page.getByTestId('transfer-finished-table').locator('tr', { hasText: `${folder}.zip` });
    await row.waitFor({ timeout: 60000 });
    const zip = await opfsDigest(page, `picked-${folder}.zip`);
    // A whole zip: it ends with the end-of-central-directory record (no comment).
    expect(zip.tail.slice(0, 8)).toBe('504b0506');
    expect(await row.innerText()).not.toContain('0.00B');
    expect(await row.innerText()).toContain(zip.size >= 1024 ? 'KB' : 'B');
    await closePanel(page);
  });
});

describe('contract', () => {
  it('sent only responses that match the contract', () => {
    expect(e2e.server.violations).toEqual([]);
  });
});
