// Spec 8 error handling wired into every /hcs call.
import { afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';

vi.mock('../shared/notify.ts', () => ({ toastError: vi.fn(), toastSuccess: vi.fn(), toastInfo: vi.fn(), alertDialog: vi.fn(() => Promise.resolve()) }));
vi.mock('../api/gen/session/session.ts', () => ({ logout: vi.fn(() => Promise.resolve({ ret: 0 })), setLanguage: vi.fn(() => Promise.resolve({ ret: 0 })) }));

import { HcsError } from '../api/hcs-error.ts';
import { handleHttpError, EXPIRED_SIGN_OUT_DELAY_MS } from './http-hooks.ts';
import { toastError, alertDialog } from '../shared/notify.ts';
import { hardNav } from '../shared/navigation.ts';
import { initI18n } from '../shared/i18n.ts';
import { getUserInfo, reloadSessionFromStorage, USER_INFO_KEY } from '../shared/session.ts';

const nav = vi.fn();
beforeAll(async () => {
  await initI18n('en_US');
});
beforeEach(() => {
  vi.clearAllMocks();
  hardNav.assign = nav;
  localStorage.setItem(USER_INFO_KEY, JSON.stringify({ userId: 'u', userName: 'alice' }));
  reloadSessionFromStorage();
  window.history.replaceState(null, '', '/drive/groupFile?x=1');
});
afterEach(() => vi.useRealTimers());

describe('handleHttpError', () => {
  it("non-zero ret: the code's message from the locale files as an error toast, never the server's English", () => {
    handleHttpError(new HcsError(409, 1, '"Docs" already exists in this folder', 'NAME_EXISTS'));
    expect(toastError).toHaveBeenLastCalledWith('A file or folder with this name already exists in this folder.');
    handleHttpError(new HcsError(429, 1, 'too many sign-in attempts, try again later', 'RATE_LIMITED', 't', 30));
    expect(toastError).toHaveBeenLastCalledWith('Too many attempts. Try again in 30 s.');
  });

  it("the server's msg (translated when it is a key) only for a code this app does not know", () => {
    handleHttpError(new HcsError(409, 1, 'a newer server explains', 'SOMETHING_NEW'));
    expect(toastError).toHaveBeenLastCalledWith('a newer server explains');
    handleHttpError(new HcsError(403, 1, 'accountFrozen', 'SOMETHING_NEW'));
    expect(toastError).toHaveBeenLastCalledWith('This account is disabled. Contact your administrator.');
  });

  it('quiet calls (the caller shows the failure) get no toast, but the session rules still apply', () => {
    handleHttpError(new HcsError(404, 1, 'no route for GET /hcs/controller/x', 'NOT_FOUND'), true);
    expect(toastError).not.toHaveBeenCalled();
    handleHttpError(new HcsError(401, 1, 'sign in first', 'UNAUTHENTICATED'), true);
    expect(nav).toHaveBeenCalledWith('/drive/login?redirect=%2FgroupFile%3Fx%3D1');
  });

  it('timeout: requestTimedOut', () => {
    handleHttpError(new HcsError(0, -1, 'requestTimedOut', 'TIMEOUT'));
    expect(toastError).toHaveBeenCalledWith('The request timed out');
  });

  it('501 and aborted calls show no toast', () => {
    handleHttpError(new HcsError(501, 1, 'not implemented', 'NOT_IMPLEMENTED'));
    handleHttpError(new HcsError(0, -1, 'aborted', 'ABORTED'));
    expect(toastError).not.toHaveBeenCalled();
  });

  it('302: to sign-in with the current location as redirect', () => {
    handleHttpError(new HcsError(302, 302, 'redirect', 'REDIRECT'));
    expect(nav).toHaveBeenCalledWith('/drive/login?redirect=%2FgroupFile%3Fx%3D1');
  });

  it('401: the local session ends and sign-in keeps the location', () => {
    handleHttpError(new HcsError(401, 1, 'sign in', 'UNAUTHENTICATED'));
    expect(getUserInfo()).toBeNull();
    expect(nav).toHaveBeenCalledWith('/drive/login?redirect=%2FgroupFile%3Fx%3D1');
  });

  it('401 from a wrong password at sign-in is just a message', () => {
    window.history.replaceState(null, '', '/drive/login');
    handleHttpError(new HcsError(401, 1, 'login.userOrPasswordError', 'LOGIN_FAILED'));
    handleHttpError(new HcsError(401, 1, 'solve the image', 'CAPTCHA_REQUIRED'));
    expect(nav).not.toHaveBeenCalled();
    expect(toastError).toHaveBeenCalledWith('Wrong user name or password.');
  });

  it('expired account: login.userValid, then sign-out after 1 s', async () => {
    vi.useFakeTimers();
    handleHttpError(new HcsError(403, 1, 'login.userValid', 'ACCOUNT_EXPIRED'));
    expect(toastError).toHaveBeenCalledWith('This account has expired. Contact your administrator.');
    await vi.advanceTimersByTimeAsync(EXPIRED_SIGN_OUT_DELAY_MS - 10);
    expect(nav).not.toHaveBeenCalled();
    await vi.advanceTimersByTimeAsync(20);
    expect(nav).toHaveBeenCalledWith('/drive/login');
    expect(getUserInfo()).toBeNull();
  });

  it('disabled account: the accountFrozen alert, sign-out on confirm', async () => {
    handleHttpError(new HcsError(403, 1, 'accountFrozen', 'ACCOUNT_FROZEN'));
    expect(alertDialog).toHaveBeenCalledWith(expect.objectContaining({ content: 'This account is disabled. Contact your administrator.' }));
    await vi.waitFor(() => expect(nav).toHaveBeenCalledWith('/drive/login'));
  });
});
