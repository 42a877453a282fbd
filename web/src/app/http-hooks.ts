// What happens on every failed /hcs call (spec 8), wired into the orval mutator through setHttpHooks.
import { setHttpHooks } from '../api/http.ts';
import type { HcsError } from '../api/hcs-error.ts';
import { i18n } from '../shared/i18n.ts';
import { errorMessage } from '../shared/error-message.ts';
import { hardNav, currentAppLocation, loginUrl } from '../shared/navigation.ts';
import { alertDialog, toastError } from '../shared/notify.ts';
import { clearSession, getUserInfo } from '../shared/session.ts';
import { signOut } from '../shared/account.ts';

export const EXPIRED_SIGN_OUT_DELAY_MS = 1000;

let frozenAlertOpen = false;
let expiredPending = false;

function onLoginPage(): boolean {
  return currentAppLocation().startsWith('/login');
}

/**
 * `quiet`: the caller shows this failure itself (inline in a dialog, or as its page's "not available" state), so
 * only what concerns the whole session happens here: sign-out, redirects, the frozen/expired alerts.
 */
export function handleHttpError(err: HcsError, quiet = false): void {
  switch (err.code) {
    case 'ABORTED':
      return;
    case 'NOT_IMPLEMENTED':
      // The page that asked shows its "not available on this server" state; a toast on top would only repeat it.
      return;
    case 'PASSWORD_CHANGE_REQUIRED':
      // The signed-in frame holds the change-password dialog open until the password is changed; a toast per refused
      // call behind it would only repeat that.
      return;
    case 'ACCOUNT_FROZEN':
      if (frozenAlertOpen) return;
      frozenAlertOpen = true;
      void alertDialog({ title: i18n.t('common.prompt'), content: i18n.t('accountFrozen'), okText: i18n.t('common.confirm') }).then(() => {
        frozenAlertOpen = false;
        void signOut({ quiet: true });
      });
      return;
    case 'ACCOUNT_EXPIRED':
      toastError(i18n.t('login.userValid'));
      if (expiredPending || onLoginPage()) return;
      expiredPending = true;
      setTimeout(() => {
        expiredPending = false;
        void signOut({ quiet: true });
      }, EXPIRED_SIGN_OUT_DELAY_MS);
      return;
    case 'REDIRECT':
      hardNav.assign(loginUrl(currentAppLocation()));
      return;
  }
  // Other 401 codes (wrong password, CAPTCHA) answer a sign-in attempt and are that form's to show.
  if (err.status === 401 && (err.code === 'UNAUTHENTICATED' || err.code === 'HTTP_401')) {
    if (onLoginPage()) return;
    // The session ended on the server (expiry, password changed elsewhere): the spec reloads the page, which with no
    // session means the sign-in screen; keep where the user was so they come back to it.
    const here = currentAppLocation();
    if (getUserInfo()) clearSession();
    hardNav.assign(loginUrl(here));
    return;
  }
  if (!quiet) toastError(errorMessage(err));
}

export function installHttpHooks(): void {
  setHttpHooks({ onError: handleHttpError, userName: () => getUserInfo()?.userName });
}
