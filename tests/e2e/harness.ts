// Browser test harness: the real server (with the built web app) and Debian's Chromium driven by
// playwright-core. A browser is never downloaded: /usr/bin/chromium comes from Debian's chromium package.
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { startServer, ADMIN_USER, ADMIN_PASSWORD, type TestServer } from '../helpers/server.ts';

export const CHROMIUM = process.env.HCS_CHROMIUM || '/usr/bin/chromium';
export const ARTIFACTS_DIR = new URL('../artifacts/', import.meta.url).pathname;

export interface E2E {
  server: TestServer;
  baseUrl: string;
  browser: Browser;
  artifactsDir: string;
  adminUser: string;
  adminPassword: string;
  /** A fresh browser context (its own cookies and storage) with a page open. */
  newPage(opts?: { locale?: string }): Promise<{ context: BrowserContext; page: Page }>;
  screenshot(page: Page, name: string): Promise<string>;
  close(): Promise<void>;
}

export async function startE2E(opts: { env?: Record<string, string> } = {}): Promise<E2E> {
  if (!existsSync(CHROMIUM)) throw new Error(`Chromium not found at ${CHROMIUM}: install Debian's chromium package`);
  const webIndex = new URL('../../web/dist/index.html', import.meta.url).pathname;
  if (!existsSync(webIndex)) throw new Error('web/dist is missing: run `npm run build -w web` first (npm test does)');
  mkdirSync(ARTIFACTS_DIR, { recursive: true });
  const server = await startServer(opts);
  const browser = await chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--disable-dev-shm-usage',
    ],
  });
  return {
    server,
    baseUrl: server.baseUrl,
    browser,
    artifactsDir: ARTIFACTS_DIR,
    adminUser: ADMIN_USER,
    adminPassword: ADMIN_PASSWORD,
    async newPage(o = {}) {
      const context = await browser.newContext({ locale: o.locale ?? 'zh-CN', viewport: { width: 1440, height: 900 }, acceptDownloads: true });
      const page = await context.newPage();
      return { context, page };
    },
    async screenshot(page, name) {
      const file = join(ARTIFACTS_DIR, `${name}.png`);
      await page.screenshot({ path: file, fullPage: false });
      return file;
    },
    async close() {
      await browser.close();
      await server.close();
    },
  };
}
