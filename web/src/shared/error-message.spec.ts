// The text users read for a failure comes from the locale files by the envelope's code, never the server's English.
import { afterAll, describe, expect, it } from 'vitest';
import { unwrap } from '@hcs/openapi/client';
import { HcsError } from '../api/hcs-error.ts';
import { errorMessage, LocalizedError } from './error-message.ts';
import { initI18n } from './i18n.ts';

afterAll(async () => {
  await initI18n('en_US');
});

describe('errorMessage', () => {
  it('zh_CN: the code picks the Chinese message, with the name the caller sent', async () => {
    await initI18n('zh_CN');
    const exists = new HcsError(409, 1, '"Docs" already exists in this folder', 'NAME_EXISTS');
    expect(errorMessage(exists, { name: 'Docs' })).toBe('此文件夹中已存在“Docs”');
    expect(errorMessage(exists)).toBe('此文件夹中已存在同名的文件或文件夹');
    expect(errorMessage(new HcsError(401, 1, 'login.userOrPasswordError', 'LOGIN_FAILED'))).toBe('用户名或密码错误');
    expect(errorMessage(new HcsError(403, 1, 'login.PasswordModifiedFailed', 'PASSWORD_WRONG'))).toBe('原密码错误');
    expect(errorMessage(new HcsError(403, 1, 'accountFrozen', 'ACCOUNT_FROZEN'))).toBe('账号已被禁用，请联系管理员');
  });

  it('zh_CN: the wait of a rate limit comes from the envelope', async () => {
    await initI18n('zh_CN');
    const limited = new HcsError(429, 1, 'too many sign-in attempts, try again later', 'RATE_LIMITED', 't', 42);
    expect(errorMessage(limited)).toBe('操作过于频繁，请 42 秒后再试');
    expect(errorMessage(new HcsError(429, 1, 'too many', 'RATE_LIMITED'))).toBe('操作过于频繁，请稍后再试');
  });

  it('zh_CN: a failure from the typed client (transfer engine) reads by its code like any other', async () => {
    await initI18n('zh_CN');
    const response = new Response(null, { status: 409 });
    const error = { ret: 1, msg: '"Docs" already exists in this folder', data: { code: 'NAME_EXISTS', traceId: 't' } };
    let thrown: unknown;
    try {
      unwrap({ error, response });
    } catch (err) {
      thrown = err;
    }
    expect(thrown).toBeInstanceOf(HcsError);
    expect(errorMessage(thrown, { name: 'Docs' })).toBe('此文件夹中已存在“Docs”');
  });

  it('en_US: the same codes in English', async () => {
    await initI18n('en_US');
    expect(errorMessage(new HcsError(409, 1, 'x', 'NAME_EXISTS'), { name: 'Docs' })).toBe('"Docs" already exists in this folder.');
    expect(errorMessage(new HcsError(401, 1, 'login.userOrPasswordError', 'LOGIN_FAILED'))).toBe('Wrong user name or password.');
  });

  it("the server's msg only for a code this app does not know; client failures by their own keys", async () => {
    await initI18n('zh_CN');
    expect(errorMessage(new HcsError(418, 1, 'a newer server explains', 'BRAND_NEW_CODE'))).toBe('a newer server explains');
    expect(errorMessage(new HcsError(418, 1, 'accountFrozen', 'BRAND_NEW_CODE'))).toBe('账号已被禁用，请联系管理员');
    expect(errorMessage(new HcsError(502, 502, '', 'HTTP_502'))).toBe('操作失败，请稍后重试');
    expect(errorMessage(new HcsError(0, -1, 'Network Error', 'NETWORK'))).toBe('网络错误');
    expect(errorMessage(new HcsError(0, -1, 'requestTimedOut', 'TIMEOUT'))).toBe('请求超时');
    expect(errorMessage(new LocalizedError('files.previewFailed'))).toBe('预览失败');
    expect(errorMessage(new Error('no zip url'))).toBe('操作失败，请稍后重试');
  });
});
