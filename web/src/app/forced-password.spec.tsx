// A reset or new account must change its password before anything else (issue #14: resetPassword, the server answers
// PASSWORD_CHANGE_REQUIRED to everything else): the signed-in frame opens the change-password dialog by itself and it
// cannot be dismissed.
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { fireEvent, screen, waitFor } from '@testing-library/react';
import { http } from 'msw';
import { ok, renderApp, server, shellHandlers } from '../test/render-app.tsx';
import { clearSession, reloadSessionFromStorage, USER_INFO_KEY, userInfoFromServer } from '../shared/session.ts';
import { mockUser } from '../mocks/fixtures.ts';
import { HcsError } from '../api/hcs-error.ts';
import { toastError } from '../shared/notify.ts';
import type * as Notify from '../shared/notify.ts';
import { handleHttpError } from './http-hooks.ts';

vi.mock('../shared/notify.ts', async (importOriginal) => {
  const real = await importOriginal<typeof Notify>();
  return { ...real, toastError: vi.fn(real.toastError) };
});

beforeAll(() => server.listen({ onUnhandledFrame: 'error' }));
afterAll(() => server.close());
beforeEach(() => {
  localStorage.clear();
  sessionStorage.clear();
  clearSession();
  vi.mocked(toastError).mockClear();
});

function signInAs(mustChangePassword: boolean) {
  const user = { ...mockUser, isAdmin: false, mustChangePassword };
  server.resetHandlers(http.get('*/hcs/controller/System/Current/User', () => ok(user)), ...shellHandlers());
  localStorage.setItem(USER_INFO_KEY, JSON.stringify(userInfoFromServer(user)));
  reloadSessionFromStorage();
}

describe('forced password change', () => {
  it('opens by itself for an account that must change its password, without a way to dismiss it', async () => {
    signInAs(true);
    await renderApp('/personalFile');
    expect((await screen.findByTestId('password-forced')).textContent).toContain('must change');
    expect(screen.queryByRole('button', { name: 'Cancel' })).toBeNull();
    expect(document.querySelector('.ant-modal-close')).toBeNull();
  });

  it('stays closed for everyone else', async () => {
    signInAs(false);
    await renderApp('/personalFile');
    await screen.findByTestId('user-menu');
    // The dialog is rendered ahead (forceRender) but not open: no forced notice, and it opens only from the menu.
    await waitFor(() => expect(document.querySelector('.ant-modal-wrap:not([style*="display: none"]) [data-testid="password-form"]')).toBeNull());
    expect(screen.queryByTestId('password-forced')).toBeNull();
    fireEvent.click(screen.getByTestId('user-menu'));
    fireEvent.click(await screen.findByRole('menuitem', { name: 'Change password' }));
    await screen.findByTestId('password-form');
    expect(screen.getByRole('button', { name: 'Cancel' })).toBeTruthy();
  });

  it('the calls refused behind the dialog raise no toast each (other codes still do)', () => {
    handleHttpError(new HcsError(403, 1, 'change the password first', 'PASSWORD_CHANGE_REQUIRED'));
    expect(toastError).not.toHaveBeenCalled();
    handleHttpError(new HcsError(403, 1, 'no', 'FORBIDDEN'));
    expect(toastError).toHaveBeenCalledTimes(1);
  });
});
