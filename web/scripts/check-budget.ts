// Build-time weight check (issue #22 defect 10): after `vite build`, adds up the JS a route makes the browser load
// and fails the build when a route is over its budget. A route loads the entry chunk with everything it imports
// statically, plus the lazy chunks its page needs (each with its own static imports) and the locale chunk of the
// language it starts in (the heavier one is counted); Vite's manifest names them all, so the check follows the real
// graph rather than guessing from file names. Sizes are gzip (level 9), which is what the server sends to a browser
// without brotli: the larger of the two encodings it serves.
// It also fails when a page of the route table (app/pages.tsx) is bundled into the entry instead of being a lazy
// chunk of its own: every screen added to the app would otherwise weigh on the sign-in page.
import { existsSync, readFileSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { gzipSync } from 'node:zlib';

/** The part of a Vite manifest entry (build.manifest) the check reads. */
export interface ManifestChunk {
  file: string;
  name?: string;
  src?: string;
  isEntry?: boolean;
  isDynamicEntry?: boolean;
  imports?: string[];
  dynamicImports?: string[];
}
export type Manifest = Record<string, ManifestChunk>;

export interface RouteBudget {
  route: string;
  /** Manifest keys (source paths relative to web/) of the lazy modules the route loads on first paint. */
  lazy: string[];
  /** The build fails above this. */
  maxBytes: number;
}

export interface RouteWeight {
  route: string;
  bytes: number;
  maxBytes: number;
  files: string[];
  ok: boolean;
}

/** A language's locale files: one chunk named locale-<lang> (vite.config.ts), or each file a chunk of its own. */
const LOCALE_KEY = /^src\/locales\/(\w+)\/[^/]+\.json$/;
const LOCALE_CHUNK = /^locale-(\w+)$/;

/**
 * Issue #22's limits: the sign-in page at 250 KB of JS gzip and the personal files screen at 400 KB. The sign-in page
 * loads no antd (plain HTML, app/antd-root.tsx comes with the other pages) and one language; the files screen draws
 * its list with its own table, pagination and native selects (shared/ListTable.tsx, ListPagination.tsx,
 * NativeSelect.tsx) rather than antd's Table, Pagination and Select.
 */
export const BUDGETS: RouteBudget[] = [
  { route: '/login', lazy: ['src/features/account/LoginPage.tsx'], maxBytes: 250_000 },
  {
    route: '/personalFile',
    lazy: ['src/app/antd-root.tsx', 'src/app/layout/AppLayout.tsx', 'src/features/files/PersonalFilePage.tsx'],
    maxBytes: 400_000,
  },
];

/** The JS files loaded for the entry plus the given lazy modules: each with its static imports, transitively. */
export function routeFiles(manifest: Manifest, lazy: readonly string[]): string[] {
  const entries = Object.entries(manifest).filter(([, c]) => c.isEntry);
  if (entries.length === 0) throw new Error('the manifest has no entry chunk');
  const seen = new Set<string>();
  const visit = (key: string) => {
    if (seen.has(key)) return;
    const chunk = manifest[key];
    // A renamed or no longer lazy page must fail the check, not silently weigh nothing.
    if (!chunk) throw new Error(`${key} is not a chunk of the build (renamed, or no longer loaded lazily?)`);
    seen.add(key);
    for (const dep of chunk.imports ?? []) visit(dep);
  };
  for (const [key] of entries) visit(key);
  for (const key of lazy) visit(key);
  return [...new Set([...seen].map((k) => manifest[k]!.file).filter((f) => f.endsWith('.js')))].sort();
}

/** Files the server would have to send uncompressed: over the compression threshold, without a .br or .gz copy. */
export function missingPrecompressed(files: readonly string[], sizeOf: (file: string) => number, exists: (file: string) => boolean, threshold = 1024): string[] {
  return files.filter((f) => sizeOf(f) > threshold && !(exists(`${f}.br`) && exists(`${f}.gz`)));
}

/** The JS files of the heaviest language's locale chunk(s): the app starts in one language and fetches only its own. */
export function heaviestLocale(manifest: Manifest, sizeOf: (file: string) => number): string[] {
  const byLang = new Map<string, Set<string>>();
  for (const [key, chunk] of Object.entries(manifest)) {
    const lang = LOCALE_KEY.exec(key)?.[1] ?? LOCALE_CHUNK.exec(chunk.name ?? '')?.[1];
    if (lang && chunk.file.endsWith('.js')) byLang.set(lang, (byLang.get(lang) ?? new Set()).add(chunk.file));
  }
  const weigh = (files: Set<string>) => [...files].reduce((sum, f) => sum + sizeOf(f), 0);
  return [...([...byLang.values()].sort((a, b) => weigh(b) - weigh(a))[0] ?? [])].sort();
}

export function checkBudgets(manifest: Manifest, budgets: readonly RouteBudget[], sizeOf: (file: string) => number): RouteWeight[] {
  const locale = heaviestLocale(manifest, sizeOf);
  return budgets.map(({ route, lazy, maxBytes }) => {
    const files = [...new Set([...routeFiles(manifest, lazy), ...locale])].sort();
    const bytes = files.reduce((sum, f) => sum + sizeOf(f), 0);
    return { route, bytes, maxBytes, files, ok: bytes <= maxBytes };
  });
}

/** The modules app/pages.tsx loads with import('…'), as manifest keys (paths relative to web/). */
export function pageModules(pagesSource: string): string[] {
  const keys = [...pagesSource.matchAll(/import\(\s*['"](\.{1,2}\/[^'"]+)['"]\s*\)/g)].map(([, spec]) => {
    const parts = ['src', 'app'];
    for (const seg of spec!.split('/')) {
      if (seg === '..') parts.pop();
      else if (seg !== '.') parts.push(seg);
    }
    return parts.join('/');
  });
  return [...new Set(keys)].sort();
}

/**
 * Pages that are not a lazy chunk of their own: missing from the manifest as a chunk, or in the entry's static graph
 * (a static import somewhere in the entry pulled them in, so every route, the sign-in page included, downloads them).
 */
export function pagesInEntry(manifest: Manifest, pages: readonly string[]): string[] {
  const entry = new Set(routeFiles(manifest, []));
  return pages.filter((key) => {
    const chunk = manifest[key];
    return !chunk || !chunk.isDynamicEntry || entry.has(chunk.file);
  });
}

function main(): void {
  // HCS_WEB_DIST: a build made elsewhere (`vite build --outDir`), as the server and the e2e harness take it.
  const dist = process.env.HCS_WEB_DIST ?? join(import.meta.dirname, '..', 'dist');
  const manifest = JSON.parse(readFileSync(join(dist, '.vite', 'manifest.json'), 'utf8')) as Manifest;
  const gzipSize = (file: string) => gzipSync(readFileSync(join(dist, file)), { level: 9 }).length;
  const weights = checkBudgets(manifest, BUDGETS, gzipSize);
  const kb = (n: number) => `${(n / 1000).toFixed(1)} KB`;
  let failed = false;
  const eager = pagesInEntry(manifest, pageModules(readFileSync(join(import.meta.dirname, '..', 'src', 'app', 'pages.tsx'), 'utf8')));
  if (eager.length > 0) {
    console.error(`[budget] pages bundled into the entry instead of loading lazily: ${eager.join(', ')} (import them only through app/pages.tsx)`);
    failed = true;
  }
  for (const w of weights) {
    console.log(`[budget] ${w.ok ? 'ok  ' : 'OVER'} ${w.route}: ${kb(w.bytes)} JS gzip (limit ${kb(w.maxBytes)}; ${w.files.length} files)`);
    const plain = missingPrecompressed(w.files, (f) => statSync(join(dist, f)).size, (f) => existsSync(join(dist, f)));
    if (plain.length > 0) console.error(`[budget] ${w.route}: no .br/.gz copy of ${plain.join(', ')}: the server would send them uncompressed`);
    failed ||= !w.ok || plain.length > 0;
  }
  if (failed) {
    console.error('[budget] failed: split what a route does not need on first paint into a lazy chunk, and keep the compression plugin');
    process.exit(1);
  }
}

// Run as a script (npm run build -w web), not when a test imports it.
if (process.argv[1] && resolve(process.argv[1]) === import.meta.filename) main();
