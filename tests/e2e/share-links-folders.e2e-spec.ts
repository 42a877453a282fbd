// Issue #17, folders and engine downloads on the public page, in a real browser against the real server. Anonymous
// contexts (no sign-in, no header): in zh_CN a visitor downloads a shared folder as one zip (the entries and bytes
// checked) and an upload link receives a whole folder (the tree appears in the owner's drive); in en_US a visitor's
// file download runs through the transfer engine into a picked file and is verified (SHA-256 of what landed), and a
// folder too big for an upload link is refused whole with the limit's message. The limit and expiry messages are
// read in both languages, and every screen is checked for raw keys and English in the Chinese UI.
import { createHash, randomBytes } from 'node:crypto';
import { mkdtemp, mkdir as mkdirLocal, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it, onTestFailed } from 'vitest';
import type { BrowserContext, Page } from 'playwright-core';
import { explainFailure, startE2E, visibleTextProblems, type E2E } from './harness.ts';
import { makeUser, mkdir, type TestUser } from '../helpers/org.ts';
import { uploadFile } from '../helpers/upload.ts';

let e2e: E2E;
const contexts: BrowserContext[] = [];
let owner: TestUser;
let local = '';
const ALBUM = '相册';
const SUB = '子目录';
const A = randomBytes(5000);
const B = Buffer.from('第二个文件\n');
const BIG = randomBytes(300_000);
let albumId = '';
let bigId = '';

beforeAll(async () => {
  e2e = await startE2E();
  owner = await makeUser(e2e.server, 'folderowner', null);
  const api = (p: string, q?: Record<string, string | number>, b?: unknown) => owner.api(p, q, b);
  albumId = await mkdir(owner, ALBUM);
  const sub = await mkdir(owner, SUB, albumId);
  await uploadFile(api, 'a.bin', A, { query: { parentId: albumId } });
  await uploadFile(api, 'b.txt', B, { query: { parentId: sub } });
  bigId = await uploadFile(api, 'big.bin', BIG);
  local = await mkdtemp(join(tmpdir(), 'hcs-share-folders-'));
}, 180_000);
afterAll(async () => {
  for (const c of contexts) await c.close().catch(() => {});
  await e2e?.close();
  if (local) await rm(local, { recursive: true, force: true });
});
let current: Page | undefined;
beforeEach(() => onTestFailed(({ task }) => (current ? explainFailure(e2e, current, `share-links-folders-${task.name}`) : undefined)));

async function createLink(body: Record<string, unknown>): Promise<{ shareId: string; link: string }> {
  const r = await owner.api('/hcs/controller/FileShare', undefined, body);
  expect(r.ret, JSON.stringify(r)).toBe(0);
  return r.data;
}

async function visitor(link: string, locale: 'zh-CN' | 'en-US'): Promise<Page> {
  const { context, page } = await e2e.newPage({ locale });
  contexts.push(context);
  await page.goto(`${e2e.baseUrl}/drive/fileDownload?link=${link}`);
  await page.getByTestId('file-download').waitFor();
  expect(await page.getByTestId('app-header').count()).toBe(0);
  return page;
}

const cleanZh = async (page: Page, where: string, allow: string[] = []) =>
  expect(await visibleTextProblems(page, { lang: 'zh_CN', allow: ['folderowner', ALBUM, SUB, 'a.bin', 'b.txt', 'KB', 'B', ...allow] }), where).toEqual([]);

/** The entries of a stored zip, from its central directory: name -> bytes. */
function unzip(buf: Buffer): Map<string, Buffer> {
  const eocd = buf.lastIndexOf(Buffer.from([0x50, 0x4b, 0x05, 0x06]));
  const out = new Map<string, Buffer>();
  let at = buf.readUInt32LE(eocd + 16);
  for (let i = buf.readUInt16LE(eocd + 10); i > 0; i--) {
    const size = buf.readUInt32LE(at + 20);
    const nameLen = buf.readUInt16LE(at + 28);
    const local = buf.readUInt32LE(at + 42);
    const dataAt = local + 30 + buf.readUInt16LE(local + 26) + buf.readUInt16LE(local + 28);
    out.set(buf.subarray(at + 46, at + 46 + nameLen).toString('utf8'), buf.subarray(dataAt, dataAt + size));
    at += 46 + nameLen + buf.readUInt16LE(at + 30) + buf.readUInt16LE(at + 32);
  }
  return out;
}

const childNames = async (parentId: string): Promise<string[]> =>
  ((await owner.api('/hcs/controller/Page', { parentId })).data.list as { instanceName: string }[]).map((r) => r.instanceName).sort();
const childId = async (parentId: string, name: string): Promise<string> =>
  ((await owner.api('/hcs/controller/Page', { parentId })).data.list as { instanceName: string; instanceId: string }[]).find((r) => r.instanceName === name)!.instanceId;

describe('folders on the public page (zh_CN)', () => {
  it('a visitor downloads a shared folder as one zip holding its tree', async () => {
    const l = await createLink({ instanceIds: [albumId], code: 'zp12', maxDownloads: 2 });
    const guest = (current = await visitor(l.link, 'zh-CN'));
    await guest.getByTestId('share-code').fill('zp12');
    await guest.getByTestId('share-open').click();
    await guest.getByTestId(`share-item-${ALBUM}`).waitFor();
    const [download] = await Promise.all([guest.waitForEvent('download'), guest.getByTestId(`share-download-${ALBUM}`).click()]);
    expect(download.suggestedFilename()).toBe(`${ALBUM}.zip`);
    const entries = unzip(await readFile((await download.path())!));
    expect([...entries.keys()].sort()).toEqual([`${ALBUM}/`, `${ALBUM}/a.bin`, `${ALBUM}/${SUB}/`, `${ALBUM}/${SUB}/b.txt`].sort());
    expect(entries.get(`${ALBUM}/a.bin`)!.equals(A)).toBe(true);
    expect(entries.get(`${ALBUM}/${SUB}/b.txt`)!.equals(B)).toBe(true);
    await expect.poll(() => guest.getByTestId('share-notice').textContent()).toContain(`正在打包下载 ${ALBUM}.zip`);
    expect(await guest.getByTestId('share-notice').textContent()).toContain('剩余下载次数：1');
    await cleanZh(guest, 'the zip notice', [`${ALBUM}.zip`]);
    expect((await owner.api(`/hcs/controller/FileShare/${l.shareId}`)).data.downloadCount).toBe(1);
  });

  it('an upload link receives a folder: its tree appears in the owner\'s drive', async () => {
    const inbox = await mkdir(owner, '收件夹');
    const l = await createLink({ instanceIds: [inbox], shareType: 'upload' });
    const root = join(local, '项目');
    await mkdirLocal(join(root, '图纸', '一层'), { recursive: true });
    await writeFile(join(root, '说明.txt'), '说明\n');
    await writeFile(join(root, '图纸', '一层', 'plan.bin'), randomBytes(2048));
    const guest = (current = await visitor(l.link, 'zh-CN'));
    await guest.getByTestId('share-upload-folder').waitFor();
    await cleanZh(guest, 'the upload link', ['收件夹']);
    await guest.getByTestId('share-upload-folder-input').setInputFiles(root);
    await expect.poll(() => guest.getByTestId('share-notice').textContent(), { timeout: 30_000 }).toContain('文件夹 项目 已上传，共 2 个文件');
    await cleanZh(guest, 'the uploaded folder', ['项目', '说明.txt', '图纸/一层/plan.bin', '项目/说明.txt', '项目/图纸/一层/plan.bin']);
    expect(await childNames(inbox)).toEqual(['项目']);
    const project = await childId(inbox, '项目');
    expect(await childNames(project)).toEqual(['图纸', '说明.txt']);
    const floor = await childId(await childId(project, '图纸'), '一层');
    expect(await childNames(floor)).toEqual(['plan.bin']);
  });

  it('an expired link says so in Chinese and reveals nothing', async () => {
    const l = await createLink({ instanceIds: [albumId], days: 1 });
    await e2e.server.sql.run('UPDATE links SET expire_at = ? WHERE id = ?', Date.now() - 1000, l.shareId);
    const guest = (current = await visitor(l.link, 'zh-CN'));
    await expect.poll(() => guest.getByTestId('share-gone').textContent()).toContain('分享链接已过期');
    await cleanZh(guest, 'the expired link');
  });
});

describe('engine downloads and limits on the public page (en_US)', () => {
  it('a file downloads through the transfer engine into the picked file and is verified', async () => {
    const l = await createLink({ instanceIds: [bigId], maxDownloads: 1 });
    const guest = (current = await visitor(l.link, 'en-US'));
    await guest.getByTestId('share-item-big.bin').waitFor();
    // A picked file in the origin-private file system, as showSaveFilePicker returns one, without the native dialog.
    await guest.evaluate(() => {
      (window as unknown as { showSaveFilePicker: unknown }).showSaveFilePicker = async ({ suggestedName }: { suggestedName: string }) =>
        (await navigator.storage.getDirectory()).getFileHandle(`picked-${suggestedName}`, { create: true });
    });
    await guest.getByTestId('share-download-big.bin').click();
    await expect.poll(() => guest.getByTestId('share-transfer-big.bin').getAttribute('data-phase'), { timeout: 30_000 }).toBe('done');
    expect(await guest.getByTestId('share-notice').textContent()).toContain('big.bin downloaded and verified');
    const sha = await guest.evaluate(async () => {
      const file = await (await (await navigator.storage.getDirectory()).getFileHandle('picked-big.bin')).getFile();
      return [...new Uint8Array(await crypto.subtle.digest('SHA-256', await file.arrayBuffer()))].map((b) => b.toString(16).padStart(2, '0')).join('');
    });
    expect(sha).toBe(createHash('sha256').update(BIG).digest('hex'));
    // Counted once for the whole ranged download; the limit of 1 is now used up for the next visitor.
    expect((await owner.api(`/hcs/controller/FileShare/${l.shareId}`)).data.downloadCount).toBe(1);
    const next = (current = await visitor(l.link, 'en-US'));
    await expect.poll(() => next.getByTestId('share-gone').textContent()).toContain('This share link has no views or downloads left.');
  });

  it('a folder bigger than the upload link allows is refused whole, with the limit\'s message', async () => {
    const box = await mkdir(owner, 'Small box');
    const l = await createLink({ instanceIds: [box], shareType: 'upload', uploadMaxFiles: 1 });
    const root = join(local, 'Two files');
    await mkdirLocal(root, { recursive: true });
    await writeFile(join(root, 'one.txt'), 'one\n');
    await writeFile(join(root, 'two.txt'), 'two\n');
    const guest = (current = await visitor(l.link, 'en-US'));
    await guest.getByTestId('share-upload-folder-input').setInputFiles(root);
    await expect.poll(() => guest.getByTestId('share-notice').textContent()).toContain(
      'This folder does not fit the link: This upload link has reached its file count or size limit.',
    );
    expect(await childNames(box)).toEqual([]);
  });
});
