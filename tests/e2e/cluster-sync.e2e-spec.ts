// /clusterSync (issue #20 part 3) in a real browser against the real server: the administrator adds a sync config
// from the site on the embedded store to a second site (another bucket through its own connection), watches a file
// reach it in the progress table, and retries a failed copy from the failures table. The screen is checked for raw
// keys and English in the Chinese UI; a non-administrator is told the screen is for administrators.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, beforeEach, describe, expect, it, onTestFailed } from 'vitest';
import type { BrowserContext, Page } from 'playwright-core';
import { chooseOption, explainFailure, signInAsAdmin, startE2E, visibleTextProblems, type E2E } from './harness.ts';
import { apiAs, makeUser } from '../helpers/org.ts';
import { uploadFile } from '../helpers/upload.ts';

let e2e: E2E;
let context: BrowserContext;
let page: Page;
let api: ReturnType<typeof apiAs>;

beforeAll(async () => {
  e2e = await startE2E({ env: { HCS_REPLICATION_SWEEP_SECONDS: '1' } });
  ({ context, page } = await e2e.newPage({ locale: 'zh-CN' }));
  api = apiAs(e2e.server, (await e2e.server.login()).token);
  const creds = JSON.parse(readFileSync(join(e2e.server.dataDir, 's3-credentials.json'), 'utf8')) as { accessKeyId: string; secretAccessKey: string };
  const far = e2e.server.built.ctx.store().forBucket('hcs-far');
  await far.ensureBucket();
  far.destroy();
  const conn = await api('/hcs/controller/cloudConnect/addCloud', undefined, {
    name: 'far-store', endpoint: `${e2e.baseUrl}/s3`, bucket: 'hcs-far', accessKey: creds.accessKeyId, secretKey: creds.secretAccessKey,
  });
  expect(conn.ret, JSON.stringify(conn)).toBe(0);
  for (const [name, cloudId] of [['总部', '0'], ['灾备站点', conn.data.cloudId]]) {
    expect((await api('/hcs/controller/region/site/addOrUpdate', undefined, { name, cloudId })).ret).toBe(0);
  }
  await signInAsAdmin(e2e, page);
}, 180_000);
afterAll(async () => {
  await context?.close().catch(() => {});
  await e2e?.close();
});
beforeEach(() => onTestFailed(({ task }) => explainFailure(e2e, page, `cluster-sync-${task.name}`)));

const clean = async (where: string, allow: string[] = []) =>
  expect(await visibleTextProblems(page, { lang: 'zh_CN', allow: ['NetDisk', 'SysConfig', ...allow] }), where).toEqual([]);

describe('/clusterSync', () => {
  it('adds a sync config, shows the copy made, and retries a failed one', async () => {
    const id = await uploadFile(api, 'e2e-sync.bin', randomBytes(5000));
    await page.goto(`${e2e.baseUrl}/drive/clusterSync`);
    await page.getByTestId('cluster-sync-page').waitFor();
    await page.getByTestId('sync-add').click();
    await chooseOption(page, page.getByTestId('sync-source'), '总部');
    await chooseOption(page, page.getByTestId('sync-targets'), '灾备站点');
    await page.keyboard.press('Escape');
    await page.locator('.ant-modal-footer .ant-btn-primary').click();
    await page.locator('.ant-table-row', { hasText: '整个文件库' }).waitFor();

    // The copy lands: the progress row of the target site counts it.
    const progress = page.getByTestId('sync-progress').locator('.ant-table-row', { hasText: '灾备站点' });
    await progress.waitFor();
    await expect.poll(async () => progress.innerText(), { timeout: 30_000 }).toMatch(/\b1 \(/);
    await clean('/clusterSync');

    // A copy that gave up (as after its last attempt) is listed with its reason, and retried from the screen.
    const blob = await e2e.server.sql.get<{ blob_id: string }>('SELECT blob_id FROM instances WHERE id = ?', id);
    await e2e.server.sql.run("UPDATE blob_replicas SET state = 'failed', error = 'InternalError (HTTP 500): injected' WHERE blob_id = ?", blob!.blob_id);
    const retry = page.getByTestId(`sync-retry-${blob!.blob_id}`);
    await retry.waitFor({ timeout: 15_000 });
    await expect(page.getByTestId('sync-failures').innerText()).resolves.toContain('InternalError (HTTP 500): injected');
    await clean('/clusterSync failures', [blob!.blob_id, 'InternalError (HTTP 500): injected']);
    await retry.click();
    await retry.waitFor({ state: 'detached', timeout: 15_000 });
    await expect.poll(async () => (await e2e.server.sql.get<{ state: string }>('SELECT state FROM blob_replicas WHERE blob_id = ?', blob!.blob_id))?.state, { timeout: 30_000 }).toBe('synced');
  });

  it('tells a non-administrator the screen is for administrators', async () => {
    const user = await makeUser(e2e.server, 'syncviewer', null);
    const other = await e2e.newPage({ locale: 'zh-CN' });
    await other.page.goto(`${e2e.baseUrl}/drive/login`);
    await other.page.getByTestId('login-username').fill(user.name);
    await other.page.getByTestId('login-password').fill('Syncviewer#pass-1234');
    await other.page.getByTestId('login-submit').click();
    await other.page.waitForURL(/\/drive\/(personalFile|home)/);
    await other.page.goto(`${e2e.baseUrl}/drive/clusterSync`);
    await expect(other.page.getByTestId('cluster-sync-denied').innerText()).resolves.toContain('仅管理员可管理跨站点同步');
    await other.context.close();
  });
});
