// The desktop client / upload plugin the header and the upload plugin tip offer (spec 7: getToolName's msg is a path
// under /hcs/). Asked once per language; a server without a tool makes the offers disappear instead of leaving
// buttons that do nothing.
import { useQuery } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import { getToolName } from '../api/gen/session/session.ts';
import { isLanguage } from './i18n.ts';

/** getToolName answers a path under /hcs/; anything else (another origin, a script URL) is refused. */
export function toolDownloadUrl(msg: string): string | null {
  const path = msg.trim().replace(/^\/+/, '');
  if (!path || path.includes('..') || path.includes('//') || /^[a-z][a-z0-9+.-]*:/i.test(path)) return null;
  return path.startsWith('hcs/') ? `/${path}` : `/hcs/${path}`;
}

export function clientPlatform(ua = navigator.userAgent): 'mac' | 'linux' | 'windows' {
  if (/Mac OS X/.test(ua)) return 'mac';
  if (/Linux/.test(ua) && !/Android/.test(ua)) return 'linux';
  return 'windows';
}

/** The tool's URL; null when this server offers none; undefined while asking. */
export function useClientToolUrl(): string | null | undefined {
  const { i18n } = useTranslation();
  const lang = isLanguage(i18n.language) ? i18n.language : undefined;
  const q = useQuery({
    queryKey: ['client-tool', lang, clientPlatform()],
    queryFn: async ({ signal }) => toolDownloadUrl((await getToolName({ ...(lang ? { lang } : {}), type: clientPlatform() }, { signal, quiet: true })).msg),
    staleTime: Infinity,
    retry: false,
  });
  if (q.isError) return null;
  return q.data;
}
