// Strings that travel with the chunk of the screen that shows them (company sign-in's: the sign-in page and
// /integrationPlatform) rather than in the locale chunk every page loads, which /personalFile's budget
// (web/scripts/check-budget.ts) has no room for. Added only to a language already loaded: a bundle holding just these would stop i18n.ts from loading that
// language's locale files.
import i18n from 'i18next';

type Tree = { [k: string]: string | Tree };

export function addStrings(bundles: { zh_CN: Tree; en_US: Tree }): void {
  for (const [lang, strings] of Object.entries(bundles)) {
    if (i18n.hasResourceBundle(lang, 'translation')) i18n.addResourceBundle(lang, 'translation', strings, true, false);
  }
}
