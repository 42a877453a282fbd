// @vitest-environment node
// Completeness of the translations: every key exists in both languages (per file and merged), every t('...') key
// used in the source exists, every route name key exists, and files are plain nested JSON of strings.
import { describe, expect, it } from 'vitest';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';

const LOCALES = import.meta.dirname;
const SRC = join(LOCALES, '..');
const LANGS = ['zh_CN', 'en_US'] as const;

type Tree = { [k: string]: unknown };

function flatten(tree: Tree, prefix = ''): Map<string, unknown> {
  const out = new Map<string, unknown>();
  for (const [k, v] of Object.entries(tree)) {
    const key = prefix ? `${prefix}.${k}` : k;
    if (v && typeof v === 'object' && !Array.isArray(v)) for (const [kk, vv] of flatten(v as Tree, key)) out.set(kk, vv);
    else out.set(key, v);
  }
  return out;
}

/**
 * A language's string files by name: the locale files (web/src/locales/<lang>/*.json, in the locale chunk every page
 * loads) and the strings that travel with one screen's chunk (web/src/features/<area>/<name>.<lang>.json, added by
 * shared/page-strings.ts), named "features/<area>/<name>" so both languages' files pair up.
 */
function stringFiles(lang: string): [name: string, path: string][] {
  const out: [string, string][] = readdirSync(join(LOCALES, lang)).filter((n) => n.endsWith('.json')).map((f) => [f, join(LOCALES, lang, f)]);
  const features = join(SRC, 'features');
  for (const area of readdirSync(features)) {
    if (!statSync(join(features, area)).isDirectory()) continue;
    for (const f of readdirSync(join(features, area))) {
      const m = /^(.+)\.(zh_CN|en_US)\.json$/.exec(f);
      if (m && m[2] === lang) out.push([`features/${area}/${m[1]}`, join(features, area, f)]);
    }
  }
  return out.sort(([a], [b]) => a.localeCompare(b));
}

function readLang(lang: string): { files: Map<string, Map<string, unknown>>; merged: Map<string, unknown> } {
  const files = new Map<string, Map<string, unknown>>();
  const merged = new Map<string, unknown>();
  for (const [f, path] of stringFiles(lang)) {
    const flat = flatten(JSON.parse(readFileSync(path, 'utf8')) as Tree);
    files.set(f, flat);
    for (const [k, v] of flat) merged.set(k, v);
  }
  return { files, merged };
}

function sourceFiles(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) {
      if (name === 'gen' || name === 'node_modules' || name === 'locales') continue;
      out.push(...sourceFiles(p));
    } else if (/\.(ts|tsx)$/.test(name) && !/\.spec\.tsx?$/.test(name)) out.push(p);
  }
  return out;
}

const zh = readLang('zh_CN');
const en = readLang('en_US');

describe('locale files', () => {
  it('both languages have the same files', () => {
    expect([...en.files.keys()]).toEqual([...zh.files.keys()]);
  });

  // i18next's plural forms (key_one, key_other, ...) depend on the language: Chinese has one form, English two, so
  // `total_one` exists in English only. Keys are compared by their base name.
  const base = (keys: Iterable<string>) => [...new Set([...keys].map((k) => k.replace(/_(zero|one|two|few|many|other)$/, '')))].sort();

  it.each([...zh.files.keys()])('%s has the same keys in zh_CN and en_US', (file) => {
    const a = base(zh.files.get(file)?.keys() ?? []);
    const b = base(en.files.get(file)?.keys() ?? []);
    expect({ file, onlyInZh: a.filter((k) => !b.includes(k)), onlyInEn: b.filter((k) => !a.includes(k)) }).toEqual({
      file,
      onlyInZh: [],
      onlyInEn: [],
    });
  });

  it('every value is a non-empty string', () => {
    for (const [lang, { merged }] of [['zh_CN', zh], ['en_US', en]] as const) {
      const bad = [...merged].filter(([, v]) => typeof v !== 'string' || v.trim() === '').map(([k]) => `${lang}:${k}`);
      expect(bad).toEqual([]);
    }
  });

  it('no two files define the same key (the server deep-merges them into one translate.json)', () => {
    for (const { files } of [zh, en]) {
      const seen = new Map<string, string>();
      const dupes: string[] = [];
      for (const [file, flat] of files)
        for (const k of flat.keys()) {
          if (seen.has(k)) dupes.push(`${k} in ${seen.get(k)} and ${file}`);
          seen.set(k, file);
        }
      expect(dupes).toEqual([]);
    }
  });

  it('no two locale files share a top-level key (so a shallow merge of the files loses nothing)', () => {
    for (const lang of LANGS) {
      const owner = new Map<string, string>();
      const clashes: string[] = [];
      // A screen's own strings are deep-merged into the loaded language (page-strings.ts), never merged shallowly.
      for (const [f, path] of stringFiles(lang).filter(([name]) => !name.startsWith('features/'))) {
        for (const k of Object.keys(JSON.parse(readFileSync(path, 'utf8')) as Tree)) {
          if (owner.has(k)) clashes.push(`${lang}: "${k}" in ${owner.get(k)} and ${f}`);
          owner.set(k, f);
        }
      }
      expect(clashes).toEqual([]);
    }
  });

  it("the spec's message keys exist", () => {
    for (const k of ['accountFrozen', 'login.userValid', 'requestTimedOut', 'PasswordModifiedSuccessful', 'login.PasswordModifiedFailed', 'LoginOutSuccessful', 'LoginOutError']) {
      expect(zh.merged.has(k), k).toBe(true);
      expect(en.merged.has(k), k).toBe(true);
    }
  });
});

describe('keys used in code', () => {
  const files = sourceFiles(SRC);
  // t('key'), t("key"), i18n.t('key') and the spec's message keys passed as nameKey/titleKey props.
  const CALL = /\bt\(\s*(['"])([A-Za-z0-9_.-]+)\1/g;
  const PROP = /\b(?:nameKey|titleKey|key)\s*:\s*(['"])((?:routes|common|layout|login|account|errors|home|files|transfer|table)\.[A-Za-z0-9_.-]+)\1/g;

  it('finds the calls (the scanner itself works)', () => {
    const all = files.map((f) => readFileSync(f, 'utf8')).join('\n');
    expect([...all.matchAll(CALL)].length).toBeGreaterThan(50);
  });

  it.each(LANGS)('every literal key exists in %s', (lang) => {
    const merged = lang === 'zh_CN' ? zh.merged : en.merged;
    const missing: string[] = [];
    for (const f of files) {
      const text = readFileSync(f, 'utf8');
      for (const re of [CALL, PROP]) for (const m of text.matchAll(re)) if (!merged.has(m[2]!)) missing.push(`${relative(SRC, f)}: ${m[2]}`);
    }
    expect(missing).toEqual([]);
  });

  it.each(LANGS)('every key built from a template exists in %s', async (lang) => {
    const merged = lang === 'zh_CN' ? zh.merged : en.merged;
    const { strengthLevel } = await import('../features/account/PasswordDialog.tsx');
    const { NAME_PROBLEMS } = await import('../shared/format.ts');
    const dynamic = [
      ...['zh_CN', 'en_US'].map((l) => `common.languages.${l}`),
      ...[0, 1, 2, 3, 4, 5].map((s) => `account.password.strengthLevel.${strengthLevel(s)}`),
      ...['404', '403', '500', 'init', 'other'].flatMap((k) => [`errors.page.${k}.title`, `errors.page.${k}.text`]),
      ...['simpleConfiguration', 'intelligentCollaboration', 'multiTerminalBackup', 'dataSecurity'].flatMap((s) => [`home.slides.${s}.title`, `home.slides.${s}.text`]),
      ...['feedback', 'help'].flatMap((k) => [`layout.info.${k}`, `layout.userMenu.${k}`]),
      ...NAME_PROBLEMS.map((p) => `files.nameProblem.${p}`),
      ...['wait', 'resume', 'pause', 'success', 'deleted'].map((s) => `transfer.downloadStatus.${s}`),
    ];
    expect(dynamic.filter((k) => !merged.has(k))).toEqual([]);
  });
});
