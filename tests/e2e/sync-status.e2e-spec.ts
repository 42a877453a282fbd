// Replication status in the files list (issue #20) in a real browser against the real server, in zh_CN: a library a
// sync config covers shows each row's state as a tag (a folder's rolled up from the files below it), a failed copy
// says why in the tag's tooltip, and nothing shows while no config covers the library. The screen is checked for raw
// keys and English in the Chinese UI.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, beforeEach, describe, expect, it, onTestFailed } from 'vitest';
import type { BrowserContext, Page } from 'playwright-core';
import { explainFailure, signInAsAdmin, startE2E, visibleTextProblems, type E2E } from './harness.ts';
import { apiAs, mkdir } from '../helpers/org.ts';
import { uploadFile } from '../helpers/upload.ts';

let e2e: E2E;
let context: BrowserContext;
let page: Page;
let api: ReturnType<typeof apiAs>;
let hq: string;
let far: string;

beforeAll(async () => {
  e2e = await startE2E({ env: { HCS_REPLICATION_SWEEP_SECONDS: '1' } });
  ({ context, page } = await e2e.newPage({ locale: 'zh-CN' }));
  api = apiAs(e2e.server, (await e2e.server.login()).token);
  const creds = JSON.parse(readFileSync(join(e2e.server.dataDir, 's3-credentials.json'), 'utf8')) as { accessKeyId: string; secretAccessKey: string };
  const farStore = e2e.server.built.ctx.store().forBucket('hcs-far');
  await farStore.ensureBucket();
  farStore.destroy();
  const conn = await api('/hcs/controller/cloudConnect/addCloud', undefined, {
    name: 'far-store', endpoint: `${e2e.baseUrl}/s3`, bucket: 'hcs-far', accessKey: creds.accessKeyId, secretKey: creds.secretAccessKey,
  });
  expect(conn.ret, JSON.stringify(conn)).toBe(0);
  hq = (await api('/hcs/controller/region/site/addOrUpdate', undefined, { name: '总部', cloudId: '0' })).data.siteId;
  far = (await api('/hcs/controller/region/site/addOrUpdate', undefined, { name: '灾备站点', cloudId: conn.data.cloudId })).data.siteId;
  await signInAsAdmin(e2e, page);
}, 180_000);
afterAll(async () => {
  await context?.close().catch(() => {});
  await e2e?.close();
});
beforeEach(() => onTestFailed(({ task }) => explainFailure(e2e, page, `sync-status-${task.name}`)));

const row = (name: string) => page.locator('tr[data-row-key]', { has: page.getByTestId(`row-name-${name}`) });

describe('replication status in the files list', () => {
  it('shows synced and failed tags with the reason, in Chinese, only once a config covers the library', async () => {
    const folder = await mkdir({ api }, '季度报告');
    await uploadFile(api, '合同.bin', randomBytes(4000), { query: { parentId: folder } });
    const failing = await uploadFile(api, '预算.bin', randomBytes(3000));
    await page.goto(`${e2e.baseUrl}/drive/personalFile`);
    await row('预算.bin').waitFor();
    expect(await page.getByTestId('sync-badge').count()).toBe(0);

    const cfg = await api('/hcs/controller/instance/sync/config/addOrUpdate', undefined, { libCode: 'NetDisk', sourceSiteId: hq, targetSiteIds: [far] });
    expect(cfg.ret, JSON.stringify(cfg)).toBe(0);
    await expect.poll(async () => {
      const r = await api('/hcs/controller/Page', { pageSize: 100 });
      return r.data.list.every((x: any) => x.replication?.state === 'synced');
    }, { timeout: 30_000 }).toBe(true);
    // A copy that gave up (as after its last attempt): its row and nothing else shows it.
    const blob = await e2e.server.sql.get<{ blob_id: string }>('SELECT blob_id FROM instances WHERE id = ?', failing);
    await e2e.server.sql.run("UPDATE blob_replicas SET state = 'failed', error = 'InternalError (HTTP 500): injected' WHERE blob_id = ? AND site_id = ?", blob!.blob_id, far);

    await page.reload();
    await row('预算.bin').waitFor();
    await expect.poll(async () => row('季度报告').getByTestId('sync-badge').innerText()).toBe('已同步');
    expect(await row('预算.bin').getByTestId('sync-badge').innerText()).toBe('同步失败');
    await row('预算.bin').getByTestId('sync-badge').hover();
    const tip = page.locator('.ant-tooltip:not(.ant-tooltip-hidden)');
    await expect.poll(async () => tip.innerText()).toContain('原因：InternalError (HTTP 500): injected');
    expect(await tip.innerText()).toMatch(/尚未复制 .+，已等待 \d+秒/);
    expect(await visibleTextProblems(page, { lang: 'zh_CN', allow: ['InternalError (HTTP 500): injected', '合同.bin', '预算.bin'] })).toEqual([]);
    await e2e.screenshot(page, 'sync-status-list-zh_CN');
    // The tooltip lies over the row above: it goes before the folder is opened.
    await page.mouse.move(0, 0);
    await tip.waitFor({ state: 'detached' });

    await row('季度报告').getByTestId('row-name-季度报告').click();
    await row('合同.bin').waitFor();
    expect(await row('合同.bin').getByTestId('sync-badge').innerText()).toBe('已同步');
  });
});
