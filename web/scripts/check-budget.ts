// Build-time weight check (issue #22 defect 10): after `vite build`, adds up the JS a route makes the browser load
// and fails the build when a route is over its budget. A route loads the entry chunk with everything it imports
// statically, plus the lazy chunks its page needs (each with its own static imports); Vite's manifest names them
// all, so the check follows the real graph rather than guessing from file names. Sizes are gzip (level 9), which is
// what the server sends to a browser without brotli: the larger of the two encodings it serves.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';

/** The part of a Vite manifest entry (build.manifest) the check reads. */
export interface ManifestChunk {
  file: string;
  src?: string;
  isEntry?: boolean;
  imports?: string[];
  dynamicImports?: string[];
}
export type Manifest = Record<string, ManifestChunk>;

export interface RouteBudget {
  route: string;
  /** Manifest keys (source paths relative to web/) of the lazy modules the route loads on first paint. */
  lazy: string[];
  maxBytes: number;
}

export interface RouteWeight {
  route: string;
  bytes: number;
  maxBytes: number;
  files: string[];
  ok: boolean;
}

/** Issue #22: the sign-in page at most 250 KB of JS gzip, the personal files screen at most 400 KB. */
export const BUDGETS: RouteBudget[] = [
  { route: '/login', lazy: ['src/features/account/LoginPage.tsx'], maxBytes: 250_000 },
  {
    route: '/personalFile',
    lazy: ['src/app/layout/AppLayout.tsx', 'src/features/files/PersonalFilePage.tsx'],
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

export function checkBudgets(manifest: Manifest, budgets: readonly RouteBudget[], sizeOf: (file: string) => number): RouteWeight[] {
  return budgets.map(({ route, lazy, maxBytes }) => {
    const files = routeFiles(manifest, lazy);
    const bytes = files.reduce((sum, f) => sum + sizeOf(f), 0);
    return { route, bytes, maxBytes, files, ok: bytes <= maxBytes };
  });
}

function main(): void {
  const dist = join(import.meta.dirname, '..', 'dist');
  const manifest = JSON.parse(readFileSync(join(dist, '.vite', 'manifest.json'), 'utf8')) as Manifest;
  const gzipSize = (file: string) => gzipSync(readFileSync(join(dist, file)), { level: 9 }).length;
  const weights = checkBudgets(manifest, BUDGETS, gzipSize);
  const kb = (n: number) => `${(n / 1000).toFixed(1)} KB`;
  for (const w of weights) {
    console.log(`[budget] ${w.ok ? 'ok  ' : 'OVER'} ${w.route}: ${kb(w.bytes)} JS gzip (budget ${kb(w.maxBytes)}, ${w.files.length} files)`);
  }
  if (weights.some((w) => !w.ok)) {
    console.error('[budget] a route is over its JS budget: split what it does not need on first paint into a lazy chunk');
    process.exit(1);
  }
}

if (import.meta.main) main();
