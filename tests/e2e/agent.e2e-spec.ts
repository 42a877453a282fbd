// The local transfer agent seen from the browser (issue #21). The header's client-tool button (getToolName) opens
// the install page for this platform and language, whose link downloads the single-file `drive` the server built.
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { startE2E, type E2E } from './harness.ts';

let e2e: E2E;
beforeAll(async () => {
  e2e = await startE2E();
});
afterAll(async () => {
  await e2e?.close();
});

async function signIn(page: Page): Promise<void> {
  await page.goto(`${e2e.baseUrl}/drive/login`);
  await page.getByTestId('login-username').fill(e2e.adminUser);
  await page.getByTestId('login-password').fill(e2e.adminPassword);
  await page.getByTestId('login-submit').click();
  await page.waitForURL(/\/drive\/personalFile/);
}

describe('the client tool in the browser', () => {
  it('opens the install page from the header and downloads the tool the server built', async () => {
    const { context, page } = await e2e.newPage({ locale: 'en-US' });
    await signIn(page);
    const popup = context.waitForEvent('page');
    await page.getByRole('button', { name: /客户端下载|Client download/ }).click();
    const install = await popup;
    await install.waitForLoadState();
    // Chromium on Linux: the page for Linux first, in the app's language.
    expect(install.url()).toMatch(/\/hcs\/services\/API\/agent\/install\?type=linux&lang=(zh_CN|en_US)$/);
    const text = await install.locator('body').innerText();
    expect(text).toContain(`--server ${e2e.baseUrl} agent install`);
    const download = install.waitForEvent('download');
    await install.locator('a[download]').click();
    const file = await (await download).path();
    const built = readFileSync(fileURLToPath(new URL('../../cli/dist/hcs-drive.mjs', import.meta.url)));
    const sha = (b: Buffer) => createHash('sha256').update(b).digest('hex');
    expect(sha(readFileSync(file))).toBe(sha(built));
    expect(text).toContain(sha(built));
    await context.close();
  });

  it('sent only responses that match the contract', () => {
    expect(e2e.server.violations).toEqual([]);
  });
});
