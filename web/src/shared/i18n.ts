// i18next with one merged namespace per language: every web/src/locales/{lang}/*.json file (split by area) is
// deep-merged, exactly as the server merges them into /drive/static/i18n/{lang}/translate.json. Keys are therefore
// global ("login.userValid", "transfer.moreThan80GB"), matching the spec's message keys.
// Only the language in use is downloaded (one chunk per language, vite.config.ts): the other one is fetched when
// the app starts in it, which a language change does by reloading the page (shared/account.ts).
import i18n from 'i18next';
import { initReactI18next } from 'react-i18next';

export const LANGUAGES = ['zh_CN', 'en_US'] as const;
export type Language = (typeof LANGUAGES)[number];
export const DEFAULT_LANGUAGE: Language = 'zh_CN';
export const LANGUAGE_KEY = 'languageId';

type Tree = { [k: string]: string | Tree };

const BUNDLES: Record<Language, Record<string, () => Promise<Tree>>> = {
  zh_CN: import.meta.glob<Tree>('../locales/zh_CN/*.json', { import: 'default' }),
  en_US: import.meta.glob<Tree>('../locales/en_US/*.json', { import: 'default' }),
};

function deepMerge(into: Tree, from: Tree): Tree {
  for (const [k, v] of Object.entries(from)) {
    const cur = into[k];
    if (typeof v === 'object' && v !== null && typeof cur === 'object' && cur !== null) deepMerge(cur, v);
    else into[k] = typeof v === 'object' && v !== null ? deepMerge({}, v) : v;
  }
  return into;
}

/** The merged translations of one language, from its locale files (fetched on first use). */
export async function loadLocale(lang: Language): Promise<Tree> {
  const files = Object.entries(BUNDLES[lang]).sort(([a], [b]) => a.localeCompare(b));
  const trees = await Promise.all(files.map(([, load]) => load()));
  return trees.reduce<Tree>((out, tree) => deepMerge(out, tree), {});
}

export function isLanguage(v: unknown): v is Language {
  return v === 'zh_CN' || v === 'en_US';
}

/** The browser's language when it is exactly one we ship (zh-CN / en-US), else undefined. */
export function browserLanguage(langs: readonly string[] = navigator.languages ?? [navigator.language]): Language | undefined {
  for (const l of langs) {
    const norm = l.replace('-', '_');
    if (isLanguage(norm)) return norm;
  }
  return undefined;
}

export function storedLanguage(): Language | undefined {
  const v = localStorage.getItem(LANGUAGE_KEY);
  return isLanguage(v) ? v : undefined;
}

/** Spec 9: the stored language, else the browser's if zh_CN or en_US, else the server's setting, else zh_CN. */
export async function resolveLanguage(serverLanguage: () => Promise<string | undefined>): Promise<Language> {
  const local = storedLanguage() ?? browserLanguage();
  if (local) return local;
  try {
    const server = await serverLanguage();
    if (isLanguage(server)) return server;
  } catch {
    // An unreachable server must not keep the app from starting; the default language applies.
  }
  return DEFAULT_LANGUAGE;
}

export async function initI18n(lang: Language): Promise<typeof i18n> {
  if (!i18n.isInitialized) {
    await i18n.use(initReactI18next).init({
      resources: { [lang]: { translation: await loadLocale(lang) } },
      lng: lang,
      fallbackLng: false,
      interpolation: { escapeValue: false },
      returnNull: false,
    });
  } else if (i18n.language !== lang) {
    if (!i18n.hasResourceBundle(lang, 'translation')) i18n.addResourceBundle(lang, 'translation', await loadLocale(lang));
    await i18n.changeLanguage(lang);
  }
  document.documentElement.lang = lang === 'zh_CN' ? 'zh-CN' : 'en-US';
  return i18n;
}

/** Server messages are either i18n keys (accountFrozen, login.userValid...) or plain text; show whichever applies. */
export function translateMessage(msg: string): string {
  return msg && i18n.exists(msg) ? i18n.t(msg) : msg;
}

export { i18n };
