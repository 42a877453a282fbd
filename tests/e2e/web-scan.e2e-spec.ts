// The visible-text scanner the web e2e tests rely on (harness.ts visibleTextProblems) finds what issue #22 saw on
// screen: raw message keys, raw error codes and the server's English in the Chinese UI; and only that.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromium, type Browser } from 'playwright-core';
import { CHROMIUM, visibleTextProblems } from './harness.ts';

let browser: Browser;
beforeAll(async () => {
  browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: ['--no-sandbox', '--disable-gpu'] });
});
afterAll(async () => {
  await browser?.close();
});

describe('visibleTextProblems', () => {
  it('reports raw keys, codes and English sentences in zh_CN, not hidden text, allowed names or antd widgets', async () => {
    const page = await browser.newPage();
    await page.setContent(`
      <div>login.userOrPasswordError</div>
      <div>密码修改失败: login.PasswordModifiedFailed</div>
      <div>accountFrozen</div>
      <div>LoginOutSuccessful</div>
      <span>NOT_IMPLEMENTED</span>
      <p>"Docs" already exists in this folder</p>
      <div>个人文件</div>
      <div>Go to<input>Page</div>
      <div style="display:none">hidden.keyNotShown</div>
      <div>weekly report.final.txt</div>`);
    expect(await visibleTextProblems(page, { lang: 'zh_CN', allow: ['weekly report.final.txt'] })).toEqual([
      'login.userOrPasswordError',
      '密码修改失败: login.PasswordModifiedFailed',
      'accountFrozen',
      'LoginOutSuccessful',
      'NOT_IMPLEMENTED',
      '"Docs" already exists in this folder',
    ]);
    // English sentences are the English UI's own text.
    await page.setContent('<p>A file or folder with this name already exists in this folder.</p>');
    expect(await visibleTextProblems(page, { lang: 'en_US' })).toEqual([]);
    expect(await visibleTextProblems(page, { lang: 'zh_CN' })).toHaveLength(1);
    await page.close();
  });
});
