// The layout rules of spec 2, as pure functions so they are tested on their own and the layout only asks.

/** Pages shown without the header and without sign-in (public share download, agreement/privacy pages). */
export const HEADERLESS_PATHS = [
  '/fileDownload',
  '/userServiceAgreement',
  '/privacyPolicy',
  '/userServiceAgreementEn',
  '/privacyPolicyEn',
] as const;

export function isHeaderlessPath(path: string): boolean {
  return (HEADERLESS_PATHS as readonly string[]).includes(normalize(path));
}

/** The header is hidden on /fileDownload and the agreement/privacy pages. */
export function showHeader(path: string): boolean {
  return !isHeaderlessPath(path);
}

/**
 * The left menu shows on /personalFile, or when the menu mode is a business library and the path is not /home,
 * /fileDownload or an agreement/privacy page.
 */
export function showLeftMenu(path: string, currentLib: string | null): boolean {
  const p = normalize(path);
  if (p === '/personalFile') return true;
  if (!currentLib) return false;
  return p !== '/home' && !isHeaderlessPath(p);
}

function normalize(path: string): string {
  const p = path.split(/[?#]/)[0] ?? '';
  return p.length > 1 && p.endsWith('/') ? p.slice(0, -1) : p;
}
