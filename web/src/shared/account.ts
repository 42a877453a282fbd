// Session actions shared by the header, the password dialog, the HTTP hooks and the login page.
import { logout, setLanguage } from '../api/gen/session/session.ts';
import { LANGUAGE_KEY, type Language } from './i18n.ts';
import { hardNav, loginUrl } from './navigation.ts';
import { clearSession, getUserInfo, LANG_CHANGE_FLAG_KEY, saveSnapshot, setUserInfo } from './session.ts';
import { flashAfterReload } from './notify.ts';

let signingOut = false;

/**
 * Signs out: revokes the server session (a failure is reported but never keeps the user signed in locally),
 * clears userInfo and the snapshot (which also signs out other tabs) and goes to /login.
 */
export async function signOut(opts: { callServer?: boolean; quiet?: boolean; redirect?: string } = {}): Promise<void> {
  if (signingOut) return;
  signingOut = true;
  try {
    // A single sign-on session also ends at its provider (RP-initiated logout), which sends the browser back to /login.
    let providerLogout: string | undefined;
    if (opts.callServer !== false) {
      try {
        providerLogout = (await logout({ quiet: true })).data?.logoutUrl;
        if (!opts.quiet) flashAfterReload('success', 'LoginOutSuccessful');
      } catch {
        if (!opts.quiet) flashAfterReload('error', 'LoginOutError');
      }
    }
    clearSession();
    hardNav.assign(providerLogout ?? loginUrl(opts.redirect));
  } finally {
    signingOut = false;
  }
}

/**
 * Spec 4: saves the language on the server (when signed in), stores it locally, sets langChangeFlag and reloads;
 * the snapshot carries the current library, which start-up reselects when it sees the flag.
 */
export async function changeLanguage(lang: Language): Promise<void> {
  const user = getUserInfo();
  if (user) {
    await setLanguage({ languageId: lang });
    setUserInfo({ ...user, languageId: lang });
  }
  localStorage.setItem(LANGUAGE_KEY, lang);
  localStorage.setItem(LANG_CHANGE_FLAG_KEY, '1');
  saveSnapshot();
  hardNav.reload();
}
