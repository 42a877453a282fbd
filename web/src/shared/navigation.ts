// Full-page navigations (sign-out, 401, language reload). They go through this object so tests can observe them
// (jsdom cannot navigate) and so every URL is built under the /drive/ base in one place.
export const BASE = '/drive';

export const hardNav = {
  assign(url: string): void {
    window.location.assign(url);
  },
  reload(): void {
    window.location.reload();
  },
};

/** The route the user is on, relative to the base (what `redirect` carries). */
export function currentAppLocation(): string {
  const { pathname, search } = window.location;
  const rel = pathname.startsWith(`${BASE}/`) ? pathname.slice(BASE.length) : pathname;
  return `${rel || '/'}${search}`;
}

/** Only same-app paths are accepted as a post-sign-in destination (no open redirect to another origin). */
export function safeRedirect(target: string | null | undefined, fallback = '/personalFile'): string {
  if (!target || !target.startsWith('/') || target.startsWith('//') || target.startsWith('/\\')) return fallback;
  if (target === '/login' || target.startsWith('/login?')) return fallback;
  return target;
}

export function loginUrl(redirect?: string): string {
  const r = redirect && safeRedirect(redirect, '') ? `?redirect=${encodeURIComponent(redirect)}` : '';
  return `${BASE}/login${r}`;
}
