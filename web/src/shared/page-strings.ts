// Strings that travel with the chunk of the screen that shows them (company sign-in's, the administration consoles',
// storage's) rather than in the locale chunk every page loads, which /personalFile's budget
// (web/scripts/check-budget.ts) has no room for. They are added only to a language already loaded (a bundle holding
// just these would stop i18n.ts from loading that language's locale files); a screen loaded before i18n starts (a
// unit test importing it) has its strings added when a language is loaded or switched to.
import i18n from 'i18next';

type Tree = { [k: string]: string | Tree };
type Bundles = { zh_CN: Tree; en_US: Tree };

const known: Bundles[] = [];

function apply(bundles: Bundles): void {
  // i18next binds its resource methods in init(): before that there is nothing to add to.
  if (!i18n.isInitialized) return;
  for (const [lang, strings] of Object.entries(bundles)) {
    if (i18n.hasResourceBundle(lang, 'translation')) i18n.addResourceBundle(lang, 'translation', strings, true, false);
  }
}

i18n.on('initialized', () => known.forEach(apply));
i18n.on('languageChanged', () => known.forEach(apply));

export function addStrings(bundles: Bundles): void {
  known.push(bundles);
  apply(bundles);
}
