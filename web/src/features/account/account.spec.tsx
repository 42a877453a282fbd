// Sign-in (RSA-OAEP password transport, redirect handling) and the change-password rules of spec 5.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { fireEvent, screen, waitFor } from '@testing-library/react';
import { http } from 'msw';
import { generateKeyPairSync, privateDecrypt, constants, type KeyObject } from 'node:crypto';
import { fail, ok, renderApp, server, shellHandlers, signIn } from '../../test/render-app.tsx';
import { clearSession, getUserInfo, USER_INFO_KEY } from '../../shared/session.ts';
import { fromWireBase64 } from '../../shared/wire-encoding.ts';
import { mockUser } from '../../mocks/fixtures.ts';

let privateKey: KeyObject;
let publicPem: string;

function decrypt(wire: string): string {
  return privateDecrypt({ key: privateKey, padding: constants.RSA_PKCS1_OAEP_PADDING, oaepHash: 'sha256' }, Buffer.from(fromWireBase64(wire), 'base64')).toString();
}

beforeAll(() => {
  const pair = generateKeyPairSync('rsa', { modulusLength: 2048 });
  privateKey = pair.privateKey;
  publicPem = pair.publicKey.export({ type: 'spki', format: 'pem' }).toString();
  server.listen({ onUnhandledFrame: 'error' });
});
afterAll(() => server.close());

const platformInfo = () =>
  http.get('*/hcs/services/System/platformInfo', () =>
    ok({ platformId: 'NetDisk', publicKey: publicPem, passwordEncryption: 'RSA-OAEP-256', loginMethod: 'local', defaultLanguage: 'zh_CN', skin: 'redblack', version: 't' }),
  );

beforeEach(() => {
  localStorage.clear();
  sessionStorage.clear();
  clearSession();
  server.resetHandlers(platformInfo(), ...shellHandlers());
});

async function fillLogin(user: string, pass: string) {
  fireEvent.change(await screen.findByTestId('login-username'), { target: { value: user } });
  fireEvent.change(screen.getByTestId('login-password'), { target: { value: pass } });
  fireEvent.click(screen.getByTestId('login-submit'));
}

describe('login', () => {
  it('sends the password RSA-encrypted, stores userInfo and goes to the redirect', async () => {
    let seen: { username: string | null; password: string } = { username: null, password: '' };
    server.use(
      http.get('*/hcs/services/System/Token', ({ request }) => {
        const q = new URL(request.url).searchParams;
        seen = { username: q.get('username'), password: q.get('password') ?? '' };
        return ok({ token: 'secret-token', expiresAt: Date.now() + 1e6, user: mockUser });
      }),
    );
    const r = await renderApp('/login?redirect=%2FgroupFile');
    await fillLogin('alice', 'Pa55word!');
    await waitFor(() => expect(r.nav).toHaveBeenCalledWith('/drive/groupFile'));
    expect(seen.username).toBe('alice');
    expect(seen.password).not.toContain('Pa55word');
    expect(seen.password).not.toMatch(/[/+=]/);
    expect(decrypt(seen.password)).toBe('Pa55word!');
    expect(getUserInfo()?.userName).toBe('alice');
    // The session token stays in the HttpOnly cookie, never in web storage.
    expect(localStorage.getItem(USER_INFO_KEY)).not.toContain('secret-token');
  });

  it('refuses a redirect to another origin', async () => {
    server.use(http.get('*/hcs/services/System/Token', () => ok({ token: 't', expiresAt: 1, user: mockUser })));
    const r = await renderApp('/login?redirect=%2F%2Fevil.example%2Fx');
    await fillLogin('alice', 'Pa55word!');
    await waitFor(() => expect(r.nav).toHaveBeenCalledWith('/drive/personalFile'));
  });

  it('wrong credentials: the error is shown and nobody is signed in', async () => {
    // The server's message is a locale key: the user reads its text, never the key.
    server.use(http.get('*/hcs/services/System/Token', () => fail(401, 'LOGIN_FAILED', 'login.userOrPasswordError')));
    const r = await renderApp('/login');
    await fillLogin('alice', 'nope-nope');
    expect((await screen.findByTestId('login-error')).textContent).toBe('Wrong user name or password.');
    expect(getUserInfo()).toBeNull();
    expect(r.nav).not.toHaveBeenCalled();
  });

  it('past the failure threshold shows the CAPTCHA, sends its answer with the next sign-in, and a refused answer brings a new image', async () => {
    const seen: { captchaId: string | null; captchaAnswer: string | null }[] = [];
    let challenges = 0;
    server.use(
      http.get('*/hcs/services/System/captcha', () => {
        challenges++;
        return ok({ captchaId: `c${challenges}`, image: `data:image/svg+xml;base64,PHN2Zy8+${challenges}`, expiresAt: Date.now() + 120_000 });
      }),
      http.get('*/hcs/services/System/Token', ({ request }) => {
        const q = new URL(request.url).searchParams;
        seen.push({ captchaId: q.get('captchaId'), captchaAnswer: q.get('captchaAnswer') });
        if (seen.length === 1) return fail(401, 'CAPTCHA_REQUIRED', 'login.userOrPasswordError');
        if (seen.length === 2) return fail(401, 'CAPTCHA_INVALID', 'login.captchaInvalid');
        return ok({ token: '', expiresAt: Date.now() + 1e6, user: mockUser });
      }),
    );
    const r = await renderApp('/login');
    // No challenge until the server asks for one.
    expect(screen.queryByTestId('login-captcha')).toBeNull();
    await fillLogin('alice', 'Pa55word!');
    expect((await screen.findByTestId('login-error')).textContent).toBe(
      'Wrong user name or password. Enter the characters in the image to sign in at once; without them, signing in takes a moment longer.',
    );
    const image = await screen.findByTestId('login-captcha-image');
    expect(image.getAttribute('src')).toBe('data:image/svg+xml;base64,PHN2Zy8+1');
    expect(seen[0]).toEqual({ captchaId: null, captchaAnswer: null });

    fireEvent.change(screen.getByTestId('login-captcha'), { target: { value: 'ab12' } });
    fireEvent.click(screen.getByTestId('login-submit'));
    await waitFor(() => expect(seen).toHaveLength(2));
    expect(seen[1]).toEqual({ captchaId: 'c1', captchaAnswer: 'ab12' });
    expect((await screen.findByTestId('login-error')).textContent).toBe('The verification code is wrong or has expired. Enter the new one.');
    // A challenge works once: the refused one is replaced and its answer cleared.
    await waitFor(() => expect(screen.getByTestId('login-captcha-image').getAttribute('src')).toBe('data:image/svg+xml;base64,PHN2Zy8+2'));
    expect((screen.getByTestId('login-captcha') as HTMLInputElement).value).toBe('');

    fireEvent.change(screen.getByTestId('login-captcha'), { target: { value: 'xy34' } });
    fireEvent.click(screen.getByTestId('login-submit'));
    await waitFor(() => expect(r.nav).toHaveBeenCalledWith('/drive/personalFile'));
    expect(seen[2]).toEqual({ captchaId: 'c2', captchaAnswer: 'xy34' });
  });

  it('the CAPTCHA speaks Chinese in zh_CN, and the image can be swapped for a new one', async () => {
    let challenges = 0;
    server.use(
      http.get('*/hcs/services/System/captcha', () => {
        challenges++;
        return ok({ captchaId: `c${challenges}`, image: `data:image/svg+xml;base64,${challenges}`, expiresAt: Date.now() + 120_000 });
      }),
      http.get('*/hcs/services/System/Token', () => fail(401, 'CAPTCHA_REQUIRED', 'login.userOrPasswordError')),
    );
    await renderApp('/login', 'zh_CN');
    await fillLogin('alice', 'Pa55word!');
    expect((await screen.findByTestId('login-error')).textContent).toBe('用户名或密码错误。输入图中字符可立即登录；不输入则登录需等待片刻。');
    expect(await screen.findByText('验证码')).toBeTruthy();
    fireEvent.click(screen.getByTestId('login-captcha-refresh'));
    await waitFor(() => expect(screen.getByTestId('login-captcha-image').getAttribute('src')).toBe('data:image/svg+xml;base64,2'));
  });

  it('requires user name and password', async () => {
    await renderApp('/login');
    fireEvent.click(await screen.findByTestId('login-submit'));
    expect(await screen.findByText('Enter your user name')).toBeTruthy();
    expect(screen.getByText('Enter your password')).toBeTruthy();
  });
});

async function openPasswordDialog() {
  signIn();
  const r = await renderApp('/personalFile');
  fireEvent.click(await screen.findByTestId('user-menu'));
  fireEvent.click(await screen.findByRole('menuitem', { name: 'Change password' }));
  await screen.findByTestId('password-form');
  return r;
}
const type = (id: string, value: string) => fireEvent.change(screen.getByTestId(id), { target: { value } });
const ok_ = () => fireEvent.click(screen.getByRole('button', { name: 'OK' }));

describe('change password dialog', () => {
  it('old, new and confirm are required', async () => {
    await openPasswordDialog();
    ok_();
    expect(await screen.findByText('Enter the old password')).toBeTruthy();
    expect(screen.getByText('Enter a password')).toBeTruthy();
    expect(screen.getByText('Enter the password again')).toBeTruthy();
  });

  it('at least 8 characters, and the two entries must match', async () => {
    await openPasswordDialog();
    type('old-password', 'Old-pass1');
    type('new-password', 'Ab1!');
    type('confirm-password', 'Ab1!x');
    ok_();
    expect(await screen.findByText('The password needs at least 8 characters')).toBeTruthy();
    expect(screen.getByText('The two passwords do not match!')).toBeTruthy();
  });

  it('the strength meter follows the rule (0 under 8, one point per character class)', async () => {
    await openPasswordDialog();
    const meter = () => screen.getByTestId('strength-meter').getAttribute('data-strength');
    type('new-password', 'Ab1!');
    await waitFor(() => expect(meter()).toBe('0'));
    type('new-password', 'Abcdef1!');
    await waitFor(() => expect(meter()).toBe('4'));
    type('new-password', 'abcdefgh');
    await waitFor(() => expect(meter()).toBe('1'));
  });

  it('closing with unsaved changes asks for confirmation', async () => {
    await openPasswordDialog();
    type('old-password', 'something');
    fireEvent.click(screen.getByRole('button', { name: 'Cancel' }));
    expect(await screen.findByText('Your changes are not saved. Close anyway?')).toBeTruthy();
  });

  it('success: encrypted fields sent, PasswordModifiedSuccessful, signed out to /login', async () => {
    let body: Record<string, unknown> = {};
    server.use(
      http.post('*/hcs/controller/Users/userPassword', async ({ request }) => {
        body = (await request.json()) as Record<string, unknown>;
        return ok(null);
      }),
    );
    const r = await openPasswordDialog();
    type('old-password', 'Old-pass1');
    type('new-password', 'New-pass22');
    type('confirm-password', 'New-pass22');
    ok_();
    await waitFor(() => expect(r.nav).toHaveBeenCalledWith('/drive/login'));
    expect(body.userId).toBe(mockUser.userId);
    expect(body.resetPassword).toBe(false);
    expect(decrypt(String(body.oldPassword))).toBe('Old-pass1');
    expect(decrypt(String(body.newPassword))).toBe('New-pass22');
    expect(getUserInfo()).toBeNull();
  });

  it('failure: login.PasswordModifiedFailed and the user stays signed in', async () => {
    server.use(http.post('*/hcs/controller/Users/userPassword', () => fail(403, 'PASSWORD_WRONG', 'The old password is wrong')));
    const r = await openPasswordDialog();
    type('old-password', 'Wrong-pass1');
    type('new-password', 'New-pass22');
    type('confirm-password', 'New-pass22');
    ok_();
    expect((await screen.findByTestId('password-failed')).textContent).toContain('The password could not be changed');
    expect(getUserInfo()).not.toBeNull();
    expect(r.nav).not.toHaveBeenCalled();
  });

  it('zh_CN failure: the spec message and the reason by its code, never the raw key the server sends', async () => {
    server.use(http.post('*/hcs/controller/Users/userPassword', () => fail(403, 'PASSWORD_WRONG', 'login.PasswordModifiedFailed')));
    signIn();
    await renderApp('/personalFile', 'zh_CN');
    fireEvent.click(await screen.findByTestId('user-menu'));
    fireEvent.click(await screen.findByRole('menuitem', { name: '修改密码' }));
    await screen.findByTestId('password-form');
    type('old-password', 'Wrong-pass1');
    type('new-password', 'New-pass22');
    type('confirm-password', 'New-pass22');
    fireEvent.click(screen.getByRole('button', { name: '确 定' }));
    expect((await screen.findByTestId('password-failed')).textContent).toBe('密码修改失败：原密码错误');
    expect(screen.queryByText(/login\./)).toBeNull();
  });

  it('success: PasswordModifiedSuccessful is shown by the sign-in page the reload leads to', async () => {
    server.use(http.post('*/hcs/controller/Users/userPassword', () => ok(null)));
    const r = await openPasswordDialog();
    type('old-password', 'Old-pass1');
    type('new-password', 'New-pass22');
    type('confirm-password', 'New-pass22');
    ok_();
    await waitFor(() => expect(r.nav).toHaveBeenCalledWith('/drive/login'));
    r.unmount();
    await renderApp('/login');
    expect(await screen.findByText('Password changed. Please sign in again.')).toBeTruthy();
  });
});
