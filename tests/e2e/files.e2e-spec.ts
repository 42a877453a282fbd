// The personal-files screen in a real browser against the real server, doing what a person does: sign in, create a
// folder, drop a folder tree, pause/resume and reload mid-upload, rename, move, copy, delete, download a file and a
// folder zip and compare the bytes, switch views. Screenshots of the list, icon view and transfer panel are kept.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHash, randomBytes } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { BrowserContext, Page, Request } from 'playwright-core';
import { dialogsSettled, holdStorageRequests, startE2E, type E2E } from './harness.ts';

let e2e: E2E;
let context: BrowserContext;
let page: Page;
const work = mkdtempSync(join(tmpdir(), 'hcs-files-e2e-'));
const consoleLines: string[] = [];
const workers: string[] = [];
const sha = (b: Buffer) => createHash('sha256').update(b).digest('hex');

beforeAll(async () => {
  e2e = await startE2E();
  ({ context, page } = await e2e.newPage({ locale: 'en-US' }));
  page.on('console', (m) => consoleLines.push(`${m.type()}: ${m.text()}`));
  page.on('pageerror', (e) => consoleLines.push(`pageerror: ${String(e)}`));
  page.on('worker', (w) => workers.push(w.url()));
  gate = await holdStorageRequests(page);
  // Downloads take the presigned-link path so Playwright sees them (showSaveFilePicker would open a native dialog);
  // the engine download step below puts a picker back that answers with a file in the origin-private file system.
  await context.addInitScript(() => {
    delete (window as unknown as { showSaveFilePicker?: unknown }).showSaveFilePicker;
    localStorage.setItem('languageId', 'en_US');
  });
}, 180_000);
afterAll(async () => {
  gate?.release();
  await context?.close();
  await e2e?.close();
});

const row = (name: string) => page.getByTestId(`row-name-${name}`);
const status = (name: string) => page.getByTestId(`upload-status-${name}`);

async function openFolder(name: string) {
  await row(name).click();
  await page.getByTestId('breadcrumbs').getByText(name).waitFor();
}
async function goRoot() {
  await page.getByTestId('breadcrumbs').locator('a').first().click();
}
async function moreAction(name: string, action: string) {
  await page.getByTestId(`row-more-${name}`).click();
  await page.getByRole('menuitem', { name: action }).click();
}
async function openPanel() {
  // Queuing an upload opens the panel by itself.
  const table = page.getByTestId('transfer-upload-table');
  const opened = await table.waitFor({ timeout: 3000 }).then(
    () => true,
    () => false,
  );
  if (!opened) await page.getByTestId('open-transfers').click();
  await page.getByTestId('transfer-upload-table').waitFor();
}
/** On a timeout, say what the panel showed (statuses and error texts) instead of only "timeout". */
async function waitOrExplain(locator: ReturnType<Page['getByTestId']>, timeout: number) {
  try {
    await locator.waitFor({ timeout });
  } catch (err) {
    await e2e.screenshot(page, 'files-failure');
    const panel = (await page.getByTestId('transfer-upload-table').isVisible())
      ? await page.getByTestId('transfer-upload-table').innerText()
      : `(panel closed) dialogs: ${await page.locator('.ant-modal').allInnerTexts()}`;
    throw new Error(`${(err as Error).message}\npanel:\n${panel}\nconsole:\n${consoleLines.slice(-20).join('\n')}`, { cause: err });
  }
}

// A picked file in the origin-private file system: a real FileSystemFileHandle with createWritable, as
// showSaveFilePicker returns, without the native dialog.
const pickIntoOpfs = () =>
  page.evaluate(() => {
    (window as unknown as { showSaveFilePicker: unknown }).showSaveFilePicker = async ({ suggestedName }: { suggestedName: string }) =>
      (await navigator.storage.getDirectory()).getFileHandle(`picked-${suggestedName}`, { create: true });
  });
const opfsSha = (name: string) =>
  page.evaluate(async (n) => {
    const file = await (await (await navigator.storage.getDirectory()).getFileHandle(n)).getFile();
    const digest = await crypto.subtle.digest('SHA-256', await file.arrayBuffer());
    return [...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, '0')).join('');
  }, name);
// The presigned-link step above already listed b.bin as a finished download: count rows, not presence.
const finishedDownloads = (name: string) =>
  page.getByTestId('transfer-finished-table').locator('tr', { hasText: name }).filter({ hasText: 'Download' }).count();
const downloadStatus = (name: string) => page.getByTestId(`download-status-${name}`);

/**
 * Holds chosen storage requests of the page until the test releases them, so a pause or a reload lands
 * mid-transfer on any machine: the transfer cannot finish while one of its requests is held, instead of the
 * test racing a progress percentage against a transfer that a fast machine may already have finished.
 */
let gate: Awaited<ReturnType<typeof holdStorageRequests>>;
const partNumberOf = (r: Request) => Number(new URL(r.url()).searchParams.get('partNumber') ?? 0);
const rangeStartOf = (r: Request) => Number(/^bytes=(\d+)-/.exec(r.headers()['range'] ?? '')?.[1] ?? -1);
const MiB = 1024 * 1024;
/** The engine's download records and committed-part notes, read from its resume database in the page. */
const downloadRecords = () =>
  page.evaluate(async () => {
    const name = (await indexedDB.databases()).map((d) => d.name).find((n) => n?.startsWith('hcs-transfers:'));
    if (!name) return {};
    const db = await new Promise<IDBDatabase>((resolve, reject) => {
      const r = indexedDB.open(name);
      r.onsuccess = () => resolve(r.result);
      r.onerror = () => reject(r.error);
    });
    try {
      return await new Promise<Record<string, unknown>>((resolve, reject) => {
        const t = db.transaction('resume');
        const keys = t.objectStore('resume').getAllKeys();
        const values = t.objectStore('resume').getAll();
        t.oncomplete = () => resolve(Object.fromEntries(keys.result.map((k, i) => [String(k), values.result[i]]).filter(([k]) => String(k).startsWith('download'))));
        t.onerror = () => reject(t.error);
      });
    } finally {
      db.close();
    }
  });

async function closePanel() {
  await page.keyboard.press('Escape');
}

describe('personal files', () => {
  it('signs in and shows the list', async () => {
    await page.goto(`${e2e.baseUrl}/drive/login`);
    await page.locator('input[autocomplete="username"], input#username, input[name="username"]').first().fill(e2e.adminUser);
    await page.locator('input[type="password"]').first().fill(e2e.adminPassword);
    await page.locator('button[type="submit"]').first().click();
    await page.waitForURL(/\/drive\/personalFile/, { timeout: 20000 });
    await page.getByTestId('file-browser').waitFor();
  });

  it('creates a folder', async () => {
    await page.getByTestId('new-folder').click();
    await dialogsSettled(page);
    await page.getByTestId('name-dialog-input').fill('Projects');
    await dialogsSettled(page);
    await page.getByTestId('name-dialog-ok').click();
    await row('Projects').waitFor();
  });

  const tree: Record<string, Buffer> = {
    'drop/a.txt': Buffer.from('alpha\n'),
    'drop/sub/b.bin': randomBytes(300_000),
    'drop/sub/deeper/c.txt': Buffer.from('gamma'),
  };

  it('uploads a folder tree dropped onto the list and shows it finished', async () => {
    const files = Object.entries(tree).map(([path, data]) => ({ path, b64: data.toString('base64') }));
    await page.getByTestId('file-browser').evaluate((el, list) => {
      const dt = new DataTransfer();
      for (const f of list) {
        const bin = atob(f.b64);
        const file = new File([Uint8Array.from(bin, (c) => c.charCodeAt(0))], f.path.split('/').pop()!, { lastModified: 1700000000000 });
        Object.defineProperty(file, 'webkitRelativePath', { value: f.path });
        dt.items.add(file);
      }
      el.dispatchEvent(new DragEvent('dragover', { dataTransfer: dt, bubbles: true, cancelable: true }));
      el.dispatchEvent(new DragEvent('drop', { dataTransfer: dt, bubbles: true, cancelable: true }));
    }, files);
    await page.getByTestId('transfer-upload-table').waitFor();
    await waitOrExplain(page.getByText(/Finished \(3\)/), 60000);
    // The engine hashed in its Web Worker (hash-wasm), not on the page.
    expect(workers.some((u) => /\/drive\/assets\/hash-worker-[\w-]+\.js$/.test(u)), `workers: ${workers.join(', ')}`).toBe(true);
    await e2e.screenshot(page, 'files-transfer-panel');
    await closePanel();
    await page.reload();
    await openFolder('drop');
    await row('a.txt').waitFor();
    await openFolder('sub');
    await row('b.bin').waitFor();
    await row('deeper').waitFor();
    await goRoot();
  });

  it('pauses and resumes a large upload, and resumes one across a page reload', async () => {
    const big = join(work, 'big.bin');
    // 8 parts of 8 MiB: enough for a pause after part 2 and a reload after part 5, each while later parts are held.
    writeFileSync(big, randomBytes(64 * MiB));
    // Part 3 onwards (of 8) is held: the pause lands while the upload runs.
    gate.arm((r) => r.method() === 'PUT' && partNumberOf(r) >= 3);
    await page.getByTestId('upload-file-input').setInputFiles(big);
    await openPanel();
    await gate.held();
    await status('big.bin').and(page.locator('[data-status="uploading"]')).waitFor({ timeout: 60000 });
    await page.getByTestId('upload-pause-big.bin').click();
    await status('big.bin').and(page.locator('[data-status="pause"]')).waitFor();
    gate.release();
    await e2e.screenshot(page, 'files-transfer-paused');
    // Part 6 onwards is held: the reload lands while the upload runs again.
    gate.arm((r) => r.method() === 'PUT' && partNumberOf(r) >= 6);
    await page.getByTestId('upload-start-big.bin').click();
    await gate.held();
    await status('big.bin').and(page.locator('[data-status="uploading"]')).waitFor({ timeout: 60000 });

    // Reload while it is running: it must come back paused and finish after "start".
    await page.reload();
    gate.release();
    await page.getByTestId('file-browser').waitFor();
    await openPanel();
    const restored = status('big.bin');
    await restored.and(page.locator('[data-status="pause"]')).waitFor();
    if (await page.getByTestId('transfer-repick').isVisible()) await page.getByTestId('transfer-repick-input').setInputFiles(big);
    await page.getByTestId('upload-start-big.bin').click();
    await waitOrExplain(page.getByText(/Finished \(1\)/), 180000);
    await closePanel();
    await page.reload();
    await row('big.bin').waitFor();
  }, 300_000);

  it('renames, moves, copies and deletes', async () => {
    await openFolder('drop');
    await moreAction('a.txt', 'Rename');
    await dialogsSettled(page);
    await page.getByTestId('name-dialog-input').fill('renamed.txt');
    await dialogsSettled(page);
    await page.getByTestId('name-dialog-ok').click();
    await waitOrExplain(row('renamed.txt'), 15000);

    await moreAction('renamed.txt', 'Copy');
    await page.getByTestId('folder-tree').locator('.ant-tree-switcher').first().click();
    await page.getByTestId('folder-tree').getByText('Projects', { exact: true }).click();
    await dialogsSettled(page);
    await page.getByTestId('move-copy-ok').click();
    // The dialog closes only once the server has answered the copy.
    await page.getByTestId('folder-tree').waitFor({ state: 'detached' });

    await moreAction('renamed.txt', 'Move');
    await page.getByTestId('folder-tree').locator('.ant-tree-switcher').first().click();
    await page.getByTestId('folder-tree').getByText('Projects', { exact: true }).click();
    await dialogsSettled(page);
    await page.getByTestId('move-copy-ok').click();
    await row('renamed.txt').waitFor({ state: 'detached' });

    await goRoot();
    await openFolder('Projects');
    // The copy and the moved original: keep-both naming gives the second one a new name.
    await expect.poll(() => page.locator('[data-testid^="row-name-renamed"]').count()).toBe(2);
    const names = await page.locator('[data-testid^="row-name-renamed"]').allInnerTexts();
    await page.getByTestId(`row-delete-${names[1]}`).click();
    await dialogsSettled(page);
    await page.getByTestId('delete-confirm-ok').click();
    await expect.poll(() => page.locator('[data-testid^="row-name-renamed"]').count()).toBe(1);
    await goRoot();
  });

  it('downloads a file and a folder zip with the original bytes', async () => {
    await openFolder('drop');
    await openFolder('sub');
    const [fileDl] = await Promise.all([page.waitForEvent('download'), page.getByTestId('row-download-b.bin').click()]);
    const got = readFileSync((await fileDl.path())!);
    expect(sha(got)).toBe(sha(tree['drop/sub/b.bin']!));

    await goRoot();
    const [zipDl] = await Promise.all([page.waitForEvent('download', { timeout: 60000 }), page.getByTestId('row-download-drop').click()]);
    const zipPath = join(work, 'drop.zip');
    await zipDl.saveAs(zipPath);
    const out = join(work, 'unzipped');
    execFileSync('unzip', ['-q', '-o', zipPath, '-d', out]);
    // The moved/renamed a.txt left the folder; the rest must be byte-identical.
    for (const p of ['drop/sub/b.bin', 'drop/sub/deeper/c.txt']) {
      const rel = p.slice('drop/'.length);
      const candidates = [join(out, p), join(out, rel)];
      const found = candidates.find((c) => {
        try {
          readFileSync(c);
          return true;
        } catch {
          return false;
        }
      });
      expect(found, `${p} in zip`).toBeTruthy();
      expect(sha(readFileSync(found!))).toBe(sha(tree[p]!));
    }
  }, 120_000);

  it('downloads through the engine into a picked file (ranged, paused and resumed, verified) with the original bytes', async () => {
    await pickIntoOpfs();
    // Pause once some parts are on disk, so the resume continues from the recorded parts: reads from 24 MiB on
    // (the fourth part of 8 MiB onwards) are held, and one is asked for only after a first part finished.
    gate.arm((r) => r.method() === 'GET' && rangeStartOf(r) >= 24 * MiB);
    await page.getByTestId('row-download-big.bin').click();
    await gate.held();
    await downloadStatus('big.bin').and(page.locator('[data-status="resume"]')).waitFor({ timeout: 30000 });
    await page.getByTestId('download-pause-big.bin').click();
    await downloadStatus('big.bin').and(page.locator('[data-status="pause"]')).waitFor();
    gate.release();
    await e2e.screenshot(page, 'files-download-paused');
    await page.getByTestId('download-start-big.bin').click();
    await page.getByRole('tab', { name: /Finished/ }).click();
    await expect.poll(() => finishedDownloads('big.bin'), { timeout: 120000 }).toBe(1);
    const smallBefore = await finishedDownloads('b.bin');
    expect(smallBefore, 'the presigned-link download of b.bin is listed').toBe(1);
    expect(await opfsSha('picked-big.bin')).toBe(sha(readFileSync(join(work, 'big.bin'))));
    await closePanel();

    await openFolder('drop');
    await openFolder('sub');
    await page.getByTestId('row-download-b.bin').click();
    await page.getByRole('tab', { name: /Finished/ }).click();
    await expect.poll(() => finishedDownloads('b.bin'), { timeout: 30000 }).toBe(smallBefore + 1);
    expect(await opfsSha('picked-b.bin')).toBe(sha(tree['drop/sub/b.bin']!));
    await closePanel();
    await goRoot();
  }, 180_000);

  it('continues an unfinished engine download after a page reload, fetching only the parts it lacked', async () => {
    const original = readFileSync(join(work, 'big.bin'));
    await page.evaluate(async () => (await navigator.storage.getDirectory()).removeEntry('picked-big.bin').catch(() => {}));
    // Storage reads with a byte range are the engine's part requests.
    let phase: 'before' | 'after' = 'before';
    const ranges: Record<'before' | 'after', string[]> = { before: [], after: [] };
    page.on('request', (r) => {
      const range = r.headers()['range'];
      if (r.method() === 'GET' && range) ranges[phase].push(range);
    });
    // Reads from 40 MiB on (the sixth part of 8 MiB onwards) are held: with 3 parts in flight, one is asked for
    // only after three parts finished, and the pause lands before the download can end.
    gate.arm((r) => r.method() === 'GET' && rangeStartOf(r) >= 40 * MiB);

    await pickIntoOpfs();
    await page.getByTestId('row-download-big.bin').click();
    await page.getByRole('tab', { name: /Downloading/ }).click();
    await gate.held();
    await downloadStatus('big.bin').and(page.locator('[data-status="resume"]')).waitFor({ timeout: 60000 });
    await page.getByTestId('download-pause-big.bin').click();
    await downloadStatus('big.bin').and(page.locator('[data-status="pause"]')).waitFor();
    gate.release();
    // The stopped download commits what it wrote to the picked file and notes which parts that covers.
    type Rec = { done: number[]; partSize: number; fileSize: number };
    let rec: Rec | undefined;
    await expect
      .poll(
        async () => {
          const all = await downloadRecords();
          const key = Object.keys(all).find((k) => k.startsWith('download:'));
          rec = key ? (all[key] as Rec) : undefined;
          const committed = key ? (all[`download-committed:${key.slice('download:'.length)}`] as number[] | undefined) : undefined;
          const same = !!committed && !!rec && [...committed].sort((a, b) => a - b).join(',') === [...rec.done].sort((a, b) => a - b).join(',');
          // On a timeout the message shows what the page had.
          return same ? 'committed' : JSON.stringify({ keys: Object.keys(all), done: rec?.done, committed });
        },
        { timeout: 15000 },
      )
      .toBe('committed');
    const doneBefore = new Set(rec!.done);
    const partCount = Math.ceil(rec!.fileSize / rec!.partSize);
    expect(doneBefore.size, 'parts finished before the reload').toBeGreaterThan(0);
    expect(doneBefore.size).toBeLessThan(partCount);

    await page.reload();
    phase = 'after';
    await page.getByTestId('file-browser').waitFor();
    await page.getByTestId('open-transfers').click();
    await page.getByRole('tab', { name: /Downloading/ }).click();
    await waitOrExplain(downloadStatus('big.bin').and(page.locator('[data-status="pause"]')), 15000);
    await e2e.screenshot(page, 'files-download-restored');
    expect(ranges.after, 'nothing fetched before the user resumes').toEqual([]);
    await page.getByTestId('download-start-big.bin').click();
    await page.getByRole('tab', { name: /Finished/ }).click();
    // The finished list does not survive a reload: this is the only big.bin row.
    await expect.poll(() => finishedDownloads('big.bin'), { timeout: 120000 }).toBe(1);
    expect(await opfsSha('picked-big.bin')).toBe(sha(original));

    const partOf = (range: string) => {
      const m = /^bytes=(\d+)-(\d+)$/.exec(range);
      expect(m, range).toBeTruthy();
      const start = Number(m![1]);
      const n = start / rec!.partSize + 1;
      expect(Number.isInteger(n), `${range} starts a part`).toBe(true);
      expect(Number(m![2]), `${range} ends its part`).toBe(Math.min(start + rec!.partSize, rec!.fileSize) - 1);
      return n;
    };
    const fetchedAfter = new Set(ranges.after.map(partOf));
    const missing = Array.from({ length: partCount }, (_, i) => i + 1).filter((n) => !doneBefore.has(n));
    expect([...fetchedAfter].sort((a, b) => a - b)).toEqual(missing);
    expect(Object.keys(await downloadRecords()), 'records gone once finished').toEqual([]);
    await closePanel();
  }, 240_000);

  it('switches between the table and the icon view and keeps the choice', async () => {
    await e2e.screenshot(page, 'files-list');
    await page.getByTestId('view-icon').click();
    await page.getByTestId('file-cards').waitFor();
    await e2e.screenshot(page, 'files-icon-view');
    await page.reload();
    await page.getByTestId('file-cards').waitFor();
    await page.getByTestId('view-table').click();
    await page.getByTestId('file-table').waitFor();
  });

  it('sent only responses that match the contract', () => {
    expect(e2e.server.violations).toEqual([]);
  });

  it('ran the engine with no WebAssembly or CSP errors in the console', () => {
    const bad = consoleLines.filter((l) => /^(error|pageerror)/.test(l) && /webassembly|wasm|content security policy|csp/i.test(l));
    expect(bad).toEqual([]);
  });
});
