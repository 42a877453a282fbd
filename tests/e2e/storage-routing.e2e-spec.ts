// Issue #20 (per-library storage routing, SSE) in a real browser against the real server: on /cloudStorageManage an
// administrator moves a library's new uploads to another connection and bucket (the screen and the server agree, and
// another library stays on the embedded store), picks SSE-KMS with a key on a connection offering it and is told it
// is in force, in Chinese and in English, with no raw keys and no English in the Chinese screen. The connection is
// the server's own embedded store reached as an external S3 (the storage itself is tested in storage-routing.int-spec).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it, onTestFailed } from 'vitest';
import type { BrowserContext, Page } from 'playwright-core';
import { chooseOption, explainFailure, signInAsAdmin, startE2E, visibleTextProblems, type E2E } from './harness.ts';

let e2e: E2E;
let context: BrowserContext;
let page: Page;
let creds: { accessKeyId: string; secretAccessKey: string };
const CONN = '回环存储';

beforeAll(async () => {
  e2e = await startE2E();
  ({ context, page } = await e2e.newPage({ locale: 'zh-CN' }));
  await signInAsAdmin(e2e, page);
  creds = JSON.parse(readFileSync(join(e2e.server.dataDir, 's3-credentials.json'), 'utf8')) as typeof creds;
}, 180_000);
afterAll(async () => {
  await context?.close().catch(() => {});
  await e2e?.close();
});
beforeEach(() => onTestFailed(({ task }) => explainFailure(e2e, page, `storage-routing-${task.name}`)));

const clean = async (lang: 'zh_CN' | 'en_US') =>
  expect(await visibleTextProblems(page, {
    lang, allow: [CONN, 'hcs-drive', '/s3', e2e.baseUrl, 'us-east-1', 'AES-256-GCM', 'SSE-KMS', 'aws:kms', 'NetDisk', 'SysConfig', 'KMS', `…${creds.accessKeyId.slice(-4)}`],
  })).toEqual([]);

describe('storage policy per library', () => {
  it('routes a library\'s new uploads to another connection, and says which encryption is in force', async () => {
    await page.goto(`${e2e.baseUrl}/drive/cloudStorageManage`);
    await expect(page.getByTestId('policy-loc-NetDisk').innerText()).resolves.toBe('内置存储 / hcs-drive');
    // A connection offering SSE-KMS only.
    await page.getByTestId('cloud-add').click();
    await page.getByTestId('cloud-form-name').fill(CONN);
    await page.getByTestId('cloud-form-endpoint').fill(`${e2e.baseUrl}/s3`);
    await page.getByTestId('cloud-form-bucket').fill('hcs-drive');
    await page.getByTestId('cloud-form-accessKey').fill(creds.accessKeyId);
    await page.getByTestId('cloud-form-secretKey').fill(creds.secretAccessKey);
    await chooseOption(page, page.getByTestId('cloud-form-sse'), 'SSE-KMS（aws:kms）');
    // A multiple select stays open after a pick: a click elsewhere in the dialog closes its list.
    await page.locator('.ant-modal-title').click();
    await clean('zh_CN');
    await page.locator('.ant-modal-footer .ant-btn-primary').click();
    await page.locator('[data-testid^="cloud-row-"]', { hasText: CONN }).waitFor();
    const conn = await e2e.server.sql.get<{ sse: string }>('SELECT sse FROM storage_connections WHERE name = ?', CONN);
    expect(conn?.sse).toBe('aws:kms');

    await page.getByTestId('policy-edit-NetDisk').click();
    await chooseOption(page, page.getByTestId('policy-form-cloud'), CONN);
    await chooseOption(page, page.getByTestId('policy-form-enc'), 'SSE-KMS（aws:kms）');
    await page.getByTestId('policy-form-kms').fill('key-1');
    await clean('zh_CN');
    await page.getByTestId('policy-save').click();
    await page.getByTestId('policy-loc-NetDisk').filter({ hasText: `${CONN} / hcs-drive` }).waitFor();
    await page.getByTestId('policy-force-NetDisk').filter({ hasText: 'SSE-KMS（aws:kms）已生效' }).waitFor();
    await expect(page.getByTestId('policy-loc-SysConfig').innerText()).resolves.toBe('内置存储 / hcs-drive');
    const row = await e2e.server.sql.get<{ connection_id: string; bucket: string; encryption: string; kms_key_id: string }>(
      'SELECT connection_id, bucket, encryption, kms_key_id FROM storage_policies WHERE lib_code = ?', 'NetDisk',
    );
    expect(row).toMatchObject({ bucket: 'hcs-drive', encryption: 'sse-kms', kms_key_id: 'key-1' });
    expect(row!.connection_id).not.toBe('0');
    await clean('zh_CN');
    await e2e.screenshot(page, 'storage-routing-zh_CN');

    // The same screen in English.
    await page.evaluate(() => localStorage.setItem('languageId', 'en_US'));
    await page.reload();
    await page.getByTestId('policy-force-NetDisk').filter({ hasText: 'SSE-KMS (aws:kms) in force' }).waitFor();
    await clean('en_US');
  });
});
