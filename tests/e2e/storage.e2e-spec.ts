// Issue #20 in a real browser against the real server: the administrator's /nodeManage shows this server's node up
// at its site, /cloudStorageManage lists the embedded store as connection zero, adds a connection whose test passes
// and switches a library to AES-256-GCM with the screen saying it is in force (and the server agreeing), and
// /clusterManage adds a site on that connection and a cluster into it. Every screen is checked for raw keys and for
// English in the Chinese UI; the node screen also in English.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it, onTestFailed } from 'vitest';
import type { BrowserContext, Page } from 'playwright-core';
import { chooseOption, explainFailure, signInAsAdmin, startE2E, visibleTextProblems, type E2E } from './harness.ts';

let e2e: E2E;
let context: BrowserContext;
let page: Page;
const SITE = 'hq-site';
let nodeTexts: string[] = [];

beforeAll(async () => {
  e2e = await startE2E({ env: { HCS_SITE: SITE } });
  ({ context, page } = await e2e.newPage({ locale: 'zh-CN' }));
  await signInAsAdmin(e2e, page);
  const nodes = (await e2e.server.built.ctx.db.selectFrom('nodes').selectAll().execute()) as Array<{ id: string; name: string; address: string; version: string }>;
  nodeTexts = nodes.flatMap((n) => [n.id, n.name, n.address, n.version]);
}, 180_000);
afterAll(async () => {
  await context?.close().catch(() => {});
  await e2e?.close();
});
beforeEach(() => onTestFailed(({ task }) => explainFailure(e2e, page, `storage-${task.name}`)));

const clean = async (where: string, allow: string[] = [], lang: 'zh_CN' | 'en_US' = 'zh_CN') =>
  expect(await visibleTextProblems(page, { lang, allow: [SITE, 'hcs-drive', '/s3', e2e.baseUrl, 'us-east-1', 'AES-256-GCM', 'NetDisk', 'SysConfig', ...nodeTexts, ...allow] }), where).toEqual([]);

describe('storage, nodes and clusters screens', () => {
  it('the node screen shows this server up at its site', async () => {
    await page.goto(`${e2e.baseUrl}/drive/nodeManage`);
    await page.getByTestId('node-page').waitFor();
    const up = page.locator('[data-testid^="node-status-"]', { hasText: '在线' });
    await up.first().waitFor();
    await expect(page.getByRole('cell', { name: SITE }).count()).resolves.toBeGreaterThan(0);
    await clean('/nodeManage');
  });

  it('adds a connection, tests it, and turns encryption at rest on for a library', async () => {
    await page.goto(`${e2e.baseUrl}/drive/cloudStorageManage`);
    await page.getByTestId('cloud-row-0').waitFor();
    await expect(page.getByTestId('cloud-row-0').innerText()).resolves.toContain('内置存储');

    const creds = JSON.parse(readFileSync(join(e2e.server.dataDir, 's3-credentials.json'), 'utf8')) as { accessKeyId: string; secretAccessKey: string };
    await page.getByTestId('cloud-add').click();
    await page.getByTestId('cloud-form-name').fill('本机回环');
    await page.getByTestId('cloud-form-endpoint').fill(`${e2e.baseUrl}/s3`);
    await page.getByTestId('cloud-form-bucket').fill('hcs-drive');
    await page.getByTestId('cloud-form-accessKey').fill(creds.accessKeyId);
    await page.getByTestId('cloud-form-secretKey').fill(creds.secretAccessKey);
    await page.locator('.ant-modal-footer .ant-btn-primary').click();
    const row = page.locator('[data-testid^="cloud-row-"]', { hasText: '本机回环' });
    await row.waitFor();
    const cloudId = (await row.getAttribute('data-testid'))!.replace('cloud-row-', '');
    await page.getByTestId(`cloud-test-${cloudId}`).click();
    await page.getByText('连接正常，存储桶存在').first().waitFor();
    // The secret is nowhere on the page.
    expect(await page.content()).not.toContain(creds.secretAccessKey);

    await expect(page.getByTestId('policy-force-NetDisk').innerText()).resolves.toBe('未加密');
    await chooseOption(page, page.getByTestId('policy-enc-NetDisk'), 'AES-256-GCM（内置存储）');
    await page.getByTestId('policy-force-NetDisk').filter({ hasText: 'AES-256-GCM 已生效' }).waitFor();
    const policy = await e2e.server.sql.get<{ encryption: string }>('SELECT encryption FROM storage_policies WHERE lib_code = ?', 'NetDisk');
    expect(policy?.encryption).toBe('aes256-gcm');
    await clean('/cloudStorageManage', ['本机回环', creds.accessKeyId.slice(-4), `…${creds.accessKeyId.slice(-4)}`, `${e2e.baseUrl}/s3`]);
  });

  it('adds a site on the new connection and a cluster in it', async () => {
    await page.goto(`${e2e.baseUrl}/drive/clusterManage`);
    await page.getByTestId('cluster-page').waitFor();
    await page.getByTestId('site-add').click();
    await page.getByTestId('site-form-name').fill(SITE);
    await page.locator('.ant-modal-footer .ant-btn-primary').click();
    const siteRow = page.locator('[data-testid^="site-row-"]', { hasText: SITE });
    await siteRow.waitFor();

    await page.getByTestId('cluster-add').click();
    await page.getByTestId('cluster-form-name').fill('一号集群');
    await page.locator('.ant-modal-wrap:not([style*="display: none"]) .ant-modal-footer .ant-btn-primary').click();
    await page.locator('[data-testid^="cluster-row-"]', { hasText: '一号集群' }).waitFor();
    const sites = await e2e.server.sql.all<{ name: string }>('SELECT name FROM sites');
    expect(sites.map((s) => s.name)).toEqual([SITE]);
    await clean('/clusterManage', ['一号集群']);
  });

  it('reads in English too', async () => {
    // The account's saved language wins over the browser's at sign-in: save English for it first.
    const { token } = await e2e.server.login();
    const saved = await e2e.server.call('/hcs/controller/setlanguage', {
      method: 'POST', token, headers: { 'content-type': 'application/json' }, body: JSON.stringify({ languageId: 'en_US' }),
    });
    expect(saved.status).toBe(200);
    const en = await e2e.newPage({ locale: 'en-US' });
    try {
      await en.context.addInitScript(() => localStorage.setItem('languageId', 'en_US'));
      await signInAsAdmin(e2e, en.page);
      for (const [path, testId] of [['nodeManage', 'node-page'], ['cloudStorageManage', 'cloud-storage-page'], ['clusterManage', 'cluster-page']] as const) {
        await en.page.goto(`${e2e.baseUrl}/drive/${path}`);
        await en.page.getByTestId(testId).waitFor();
        await en.page.getByRole('cell').first().waitFor();
        expect(await visibleTextProblems(en.page, { lang: 'en_US', allow: [SITE, ...nodeTexts] }), path).toEqual([]);
      }
      await en.page.goto(`${e2e.baseUrl}/drive/nodeManage`);
      await en.page.locator('[data-testid^="node-status-"]').first().waitFor();
      await expect(en.page.locator('[data-testid^="node-status-"]').first().innerText()).resolves.toBe('Up');
      await expect(en.page.getByTestId('policy-force-NetDisk').count()).resolves.toBe(0);
    } finally {
      await en.context.close();
    }
  });
});
