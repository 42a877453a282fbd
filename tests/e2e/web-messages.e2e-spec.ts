// Issue #22 defects 1 and 2 in a real browser against the real server, in both languages at both window sizes: every
// message a new user meets comes from the locale files by its error code (with the name), never a raw key or the
// server's English; pages of features the server lacks say so once, without a toast on top; the sign-out message
// survives the reload to the sign-in page. Each screen is scanned for raw keys and untranslated English. Every case
// starts from a fresh browser with its combination's own account, so any case passes alone, in any order.
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { BrowserContext, Page } from 'playwright-core';
import { createUser } from '../../mock-server/src/db/users-repo.ts';
import { chooseMenuItem, dialogsSettled, recordToasts, startE2E, toastsSeen as toasts, visibleTextProblems, type E2E } from './harness.ts';

let e2e: E2E;
beforeAll(async () => {
  e2e = await startE2E();
}, 180_000);
afterAll(async () => {
  await e2e?.close();
});

const url = (path: string) => `${e2e.baseUrl}/drive${path}`;

const TEXT = {
  zh_CN: {
    wrongPassword: '用户名或密码错误',
    exists: (name: string) => `此文件夹中已存在“${name}”`,
    notAvailable: '此服务器暂不支持该功能',
    signedOut: '退出登录成功',
    signOut: '退出登录',
  },
  en_US: {
    wrongPassword: 'Wrong user name or password.',
    exists: (name: string) => `"${name}" already exists in this folder.`,
    notAvailable: 'Not available on this server',
    signedOut: 'Signed out',
    signOut: 'Sign out',
  },
} as const;

const combos = [
  { lang: 'zh_CN', locale: 'zh-CN', viewport: { width: 1366, height: 800 } },
  { lang: 'zh_CN', locale: 'zh-CN', viewport: { width: 800, height: 600 } },
  { lang: 'en_US', locale: 'en-US', viewport: { width: 1366, height: 800 } },
  { lang: 'en_US', locale: 'en-US', viewport: { width: 800, height: 600 } },
] as const;

const PASSWORD = 'Messages#Passw0rd-e2e';

describe.each(combos)('messages in $lang at $viewport.width x $viewport.height', ({ lang, locale, viewport }) => {
  const T = TEXT[lang];
  const tag = `${lang}-${viewport.width}`;
  // Each combination has its own account: the sign-in throttle (issue #11) counts wrong passwords per account, so no
  // combination's wrong password brings another one's sign-in closer to the CAPTCHA; and the folders are its own.
  const user = `msg-${tag}`;
  const folder = `Docs ${tag}`;
  let context: BrowserContext;
  let page: Page;
  const clean = async (where: string) => {
    expect(await visibleTextProblems(page, { lang, allow: [user, folder] }), where).toEqual([]);
  };

  beforeAll(async () => {
    await createUser(e2e.server.built.ctx.db, { userName: user, password: PASSWORD });
  });
  // A fresh browser (cookies, storage, toasts) for every case: none relies on what another left behind.
  beforeEach(async () => {
    ({ context, page } = await e2e.newPage({ locale, viewport }));
    await recordToasts(context);
  });
  afterEach(async () => {
    await context?.close();
  });

  const signIn = async () => {
    await page.goto(url('/login'));
    await page.getByTestId('login-username').fill(user);
    await page.getByTestId('login-password').fill(PASSWORD);
    await page.getByTestId('login-submit').click();
    await page.waitForURL(/\/drive\/personalFile/);
    await page.getByTestId('file-browser').waitFor();
  };

  it('a wrong password reads as a sentence in the language, not a key', async () => {
    await page.goto(url('/login'));
    await page.getByTestId('login-username').fill(user);
    await page.getByTestId('login-password').fill('not-the-password');
    await page.getByTestId('login-submit').click();
    // The message appears once the server has answered (the password check takes as long as it takes).
    const error = page.getByTestId('login-error');
    await error.waitFor();
    expect(await error.innerText()).toBe(T.wrongPassword);
    await clean('sign-in page after a wrong password');
    // Said once, in the form: no toast repeats it.
    expect(await toasts(page)).toEqual([]);
  });

  it('a folder name that exists is named in the message, in the dialog, with no English toast', async () => {
    await signIn();
    await clean('personal files');
    for (let round = 0; round < 2; round++) {
      await page.getByTestId('new-folder').click();
      await dialogsSettled(page);
      await page.getByTestId('name-dialog-input').fill(folder);
      await dialogsSettled(page);
      await page.getByTestId('name-dialog-ok').click();
      if (round === 0) {
        await page.getByTestId(`row-name-${folder}`).waitFor();
        // The first dialog has gone before the second opens: reopened while it zooms out, the second is moving.
        await page.getByTestId('name-dialog-input').waitFor({ state: 'detached' });
      }
    }
    const error = page.getByTestId('name-dialog-error');
    await error.waitFor();
    expect(await error.innerText()).toBe(T.exists(folder));
    await clean('the new-folder dialog refused');
    expect((await toasts(page)).filter((t) => /already exists/.test(t) && lang === 'zh_CN')).toEqual([]);
    expect((await toasts(page)).filter((t) => t.includes(folder))).toEqual([]);
    await e2e.screenshot(page, `web-messages-exists-${tag}`);
    await page.keyboard.press('Escape');
    await page.getByTestId('name-dialog-input').waitFor({ state: 'detached' });
  });

  // /clusterSync was the last screen this suite met as "not available"; it has its own screen now (issue #20), whose
  // texts are checked here in both languages.
  it.each(['/clusterSync'])('%s: the page speaks the language, and no toast comes with it', async (path) => {
    await signIn();
    const before = (await toasts(page)).length;
    await page.goto(url(path));
    await page.locator('[data-testid="cluster-sync-page"], [data-testid="cluster-sync-denied"]').first().waitFor();
    // Every call of the page has been answered: a toast for one of them would be recorded by now.
    await page.waitForLoadState('networkidle');
    expect((await toasts(page)).slice(before)).toEqual([]);
    await clean(path);
  });

  it('/fileDownload signed out with an unknown link: the page says so, no toast', async () => {
    // Well-formed (16 to 64 characters), so the server is asked and answers SHARE_NOT_FOUND.
    await page.goto(url('/fileDownload?link=unknownLinkKey0000'));
    await page.getByTestId('share-gone').waitFor();
    await page.waitForLoadState('networkidle');
    expect(await toasts(page)).toEqual([]);
    expect(await visibleTextProblems(page, { lang })).toEqual([]);
  });

  it('the sign-out message is shown on the sign-in page after the reload', async () => {
    await signIn();
    await chooseMenuItem(page, page.getByTestId('user-menu'), T.signOut);
    await page.waitForURL(/\/drive\/login/);
    await page.getByText(T.signedOut).waitFor();
    await clean('sign-in page after sign-out');
  });
});

describe('contract', () => {
  it('sent only responses that match the contract', () => {
    expect(e2e.server.violations).toEqual([]);
  });
});
