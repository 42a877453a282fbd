// Browser test harness: the real server (with the built web app) and Debian's Chromium driven by
// playwright-core. A browser is never downloaded: /usr/bin/chromium comes from Debian's chromium package.
import { chromium, type Browser, type BrowserContext, type Locator, type Page, type Request } from 'playwright-core';
import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { HoldGate } from '../helpers/hold-gate.ts';
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
  /**
   * A fresh browser context (its own cookies and storage) with a page open. It asks for reduced motion unless told otherwise, so antd draws dialogs, menus and toasts
   * without animating them (web/src/app/antd-root.tsx): a click can never land on a dialog still zooming in, which on
   * a loaded machine lost the click (CI: a delete confirmation's OK that never sent). web-motion.e2e-spec.ts covers the
   * animated default.
   */
  newPage(opts?: { locale?: string; viewport?: { width: number; height: number }; reducedMotion?: 'reduce' | 'no-preference' }): Promise<{ context: BrowserContext; page: Page }>;
  screenshot(page: Page, name: string): Promise<string>;
  close(): Promise<void>;
}

export async function startE2E(opts: Pick<NonNullable<Parameters<typeof startServer>[0]>, 'env' | 'instrument'> = {}): Promise<E2E> {
  if (!existsSync(CHROMIUM)) throw new Error(`Chromium not found at ${CHROMIUM}: install Debian's chromium package`);
  // HCS_WEB_DIST (the suite's or the test process's env) serves a private build: one that others rebuilding web/dist
  // cannot pull away mid-run.
  const webDist = opts.env?.HCS_WEB_DIST ?? process.env.HCS_WEB_DIST;
  const webIndex = webDist ? join(webDist, 'index.html') : new URL('../../web/dist/index.html', import.meta.url).pathname;
  if (!existsSync(webIndex)) throw new Error('web/dist is missing: run `npm run build -w web` first (npm test does)');
  mkdirSync(ARTIFACTS_DIR, { recursive: true });
  const server = await startServer(webDist ? { ...opts, env: { ...opts.env, HCS_WEB_DIST: webDist } } : opts);
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
      const context = await browser.newContext({
        locale: o.locale ?? 'zh-CN',
        viewport: o.viewport ?? { width: 1440, height: 900 },
        acceptDownloads: true,
        reducedMotion: o.reducedMotion ?? 'reduce',
      });
      const close = context.close.bind(context);
      context.close = (options) => closeWithin(close(options), CLOSE_WAIT_MS);
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

/**
 * How long a context's close may take before the test goes on without it. Chromium may acknowledge the close of a
 * page that is committing a navigation and never close it (playwright#42366, #41900): context.close() then waits
 * forever. Seen here, in CI and locally under load: the sign-out test closed its context while both tabs made the
 * app's full-page navigation to /login, and ran into its 3-minute timeout.
 */
const CLOSE_WAIT_MS = 10_000;

/**
 * Waits for a close at most `ms`. Past that the context is left to the browser's own close at the end of the file
 * (which ends its process) and the test goes on: closing is clean-up, never what a test checks.
 */
async function closeWithin(closing: Promise<void>, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<'late'>((resolve) => (timer = setTimeout(() => resolve('late'), ms)));
  try {
    if ((await Promise.race([closing, late])) === 'late') {
      console.warn(`[e2e] a browser context did not close in ${ms / 1000} s (Chromium: a close racing a navigation); left to the browser's close`);
      closing.catch(() => {});
    }
  } finally {
    clearTimeout(timer);
  }
}

/**
 * What a user should never read on screen: raw message keys (`login.userOrPasswordError`, `accountFrozen`,
 * `LoginOutSuccessful`), raw error codes (`NOT_IMPLEMENTED`), and in the Chinese UI English sentences (a server's
 * untranslated msg such as `"Docs" already exists in this folder`). Scans the visible text of the page; `allow` lists
 * text the test itself put there (file names, user names). Returns the offending lines.
 */
export async function visibleTextProblems(page: Page, opts: { lang: 'zh_CN' | 'en_US'; allow?: readonly string[] }): Promise<string[]> {
  // Each visible text node on its own line: innerText would glue neighbours ("Go to" + "Page") into false keys.
  let text = await page.evaluate(() => {
    const out: string[] = [];
    const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
    for (let n = walker.nextNode(); n; n = walker.nextNode()) {
      const el = n.parentElement;
      if (!el || !n.textContent?.trim() || el.closest('script, style, noscript')) continue;
      if (el.checkVisibility({ checkOpacity: true, checkVisibilityCSS: true })) out.push(n.textContent.trim());
    }
    return out.join('\n');
  });
  // Longest first, so "a.txt" inside "data.txt" does not leave "dat" behind.
  for (const a of [...(opts.allow ?? [])].sort((x, y) => y.length - x.length)) text = text.split(a).join(' ');
  const KEY_PATTERNS = [
    // namespace.key as the locale files spell them
    /\b(?:login|transfer|files|errors|common|layout|routes|account|table|home|share|agreement|org|recycle|favourites|tags|versions|templates|search|fileManagement|groups)\.[A-Za-z0-9_]+(?:\.[A-Za-z0-9_]+)*/,
    // word.camelCase
    /\b[a-z]+(?:\.[a-z][A-Za-z0-9]*)*\.[a-z]+[A-Z][A-Za-z0-9]*\b/,
    // a lone camelCase or PascalCase key (accountFrozen, LoginOutSuccessful)
    /(?:^|\s)[a-z]+(?:[A-Z][a-z0-9]+)+(?=$|\s|[.,:;!?])/,
    /\b[A-Z][a-z]+(?:[A-Z][a-z]+){2,}\b/,
    // an error code (NOT_FOUND)
    /\b[A-Z]{2,}(?:_[A-Z0-9]+)+\b/,
  ];
  // Three or more English words in a row: a sentence nobody translated.
  const ENGLISH = /[A-Za-z]{2,}(?:[ ,'"-]+[A-Za-z]{2,}){2,}/;
  const problems: string[] = [];
  for (const raw of text.split('\n')) {
    const line = raw.trim();
    if (!line) continue;
    if (KEY_PATTERNS.some((re) => re.test(line))) problems.push(line);
    else if (opts.lang === 'zh_CN' && ENGLISH.test(line)) problems.push(line);
  }
  return problems;
}

/**
 * Holds the page's storage requests (/s3/) that `match` picks until release(), so a test sees a transfer in a known
 * state (running, with its row and actions on screen) on a fast machine too, without racing its progress.
 */
export async function holdStorageRequests(page: Page): Promise<Omit<HoldGate<Request>, 'pass'>> {
  const gate = new HoldGate<Request>();
  await page.route(
    (url) => url.pathname.startsWith('/s3/'),
    async (route) => {
      await gate.pass(route.request());
      // The page may have given the request up meanwhile (pause, reload).
      await route.continue().catch(() => {});
    },
  );
  return gate;
}

/** Every toast the page ever shows, recorded as it appears (a toast may be gone by the time the test looks). */
export async function recordToasts(context: BrowserContext): Promise<void> {
  await context.addInitScript(() => {
    const seen: string[] = [];
    const counted = new WeakSet<Element>();
    (window as unknown as { __toasts: string[] }).__toasts = seen;
    // A notice is counted once, by its element: its entry animation may move it in the DOM after it first appears.
    new MutationObserver((records) => {
      for (const r of records)
        for (const n of r.addedNodes)
          if (n instanceof HTMLElement)
            for (const el of [n, ...n.querySelectorAll<HTMLElement>('.ant-message-notice')])
              if (el.matches('.ant-message-notice') && !counted.has(el)) {
                counted.add(el);
                seen.push(el.innerText);
              }
    }).observe(document, { childList: true, subtree: true });
  });
}
export const toastsSeen = (page: Page) => page.evaluate(() => [...(window as unknown as { __toasts: string[] }).__toasts]);

/** Signs in through the sign-in page and waits for the file list. */
export async function signInAsAdmin(e2e: E2E, page: Page): Promise<void> {
  await page.goto(`${e2e.baseUrl}/drive/login`);
  await page.getByTestId('login-username').fill(e2e.adminUser);
  await page.getByTestId('login-password').fill(e2e.adminPassword);
  await page.getByTestId('login-submit').click();
  await page.waitForURL(/\/drive\/personalFile/);
  await page.getByTestId('file-browser').waitFor();
}

/** Closes the transfer panel when it is open and waits until it is gone (at 800 px it covers the list). */
/**
 * Closes the transfer panel if it is open. `opened`: the app has been asked to open it (an upload was just queued),
 * so wait for it first: the panel is a lazy chunk, and closing before it has mounted let it open afterwards over
 * the buttons a test clicks next (seen in CI: a confirm's OK under the panel's tabs).
 */
export async function closeTransferPanel(page: Page, opts: { opened?: boolean } = {}): Promise<void> {
  if (opts.opened) await settledTransferPanel(page);
  const open = page.locator('.ant-drawer-open');
  if ((await open.count()) === 0) return;
  await open.locator('.ant-drawer-close').click();
  await open.waitFor({ state: 'detached' });
}

/**
 * The open transfer panel once it has finished sliding in. Measured while antd's motion still moves it, its right
 * part is past the window's edge (seen on a loaded machine: the download row's actions off screen).
 */
export async function settledTransferPanel(page: Page): Promise<Locator> {
  const panel = page.locator('.ant-drawer-open .ant-drawer-content-wrapper:not([class*="-enter"]):not([class*="-appear"])');
  await panel.waitFor();
  return panel;
}

/** On a failed test: a screenshot and what the transfer panel showed, for the log. */
export async function explainFailure(e2e: E2E, page: Page, name: string): Promise<void> {
  await e2e.screenshot(page, `failure-${name.replace(/\W+/g, '-').slice(0, 60)}`).catch(() => {});
  const panel = await page.locator('.ant-drawer-open').innerText().catch(() => '(no panel)');
  console.log(`${name}\npanel:\n${panel}`);
}

/**
 * An open dropdown or select popup that has finished moving in. Clicked during antd's slide animation, the press
 * lands on an item and the release where the item has moved away from, so the click goes to the popup itself and
 * the item does nothing (seen on a loaded machine: a sign-out that never started).
 */
export function settledPopup(page: Page): Locator {
  const still = ':not([class*="-hidden"]):not([class*="-appear"]):not([class*="-enter"]):not([class*="-leave"])';
  return page.locator(`.ant-dropdown${still}, .ant-select-dropdown${still}`);
}

/**
 * Once antd's dialogs have finished zooming in: mid-animation they are half transparent and still moving, and a
 * click on their buttons may be lost (seen in CI on a loaded machine: a new-folder dialog's OK that never sent).
 */
export const dialogsSettled = (p: Page) =>
  p.waitForFunction(() => !document.querySelector('.ant-modal-root [class*="-enter"], .ant-modal-root [class*="-appear"]'));

/** Opens a dropdown menu with its trigger and clicks the item once the menu has settled. */
export async function chooseMenuItem(page: Page, trigger: Locator, item: string): Promise<void> {
  await trigger.click();
  await settledPopup(page).getByRole('menuitem', { name: item }).click();
}

/** Opens a select with its trigger and clicks the option (by its text) once the list has settled. */
export async function chooseOption(page: Page, trigger: Locator, option: string): Promise<void> {
  await trigger.click();
  await settledPopup(page).getByText(option, { exact: true }).click();
}
