// @vitest-environment node
import { describe, expect, it } from 'vitest';
import { BUDGETS, checkBudgets, heaviestLocale, missingPrecompressed, pageModules, pagesInEntry, routeFiles, type Manifest } from './check-budget.ts';

// A fabricated build: the entry shares a vendor chunk with the files page; the sign-in page is small; the files page
// pulls a table chunk that only it imports; a lazy chunk nobody asked for must not count.
const manifest: Manifest = {
  'index.html': { file: 'assets/index.js', isEntry: true, imports: ['_vendor.js'], dynamicImports: ['src/Login.tsx', 'src/Files.tsx'] },
  '_vendor.js': { file: 'assets/vendor.js' },
  '_table.js': { file: 'assets/table.js', imports: ['_vendor.js'] },
  'src/Login.tsx': { file: 'assets/Login.js', src: 'src/Login.tsx', imports: ['_vendor.js'] },
  'src/Files.tsx': { file: 'assets/Files.js', src: 'src/Files.tsx', imports: ['_table.js', '_vendor.js'], dynamicImports: ['src/Preview.tsx'] },
  'src/Preview.tsx': { file: 'assets/Preview.js', src: 'src/Preview.tsx' },
  '_style.css': { file: 'assets/style.css' },
};
const sizes: Record<string, number> = {
  'assets/index.js': 100,
  'assets/vendor.js': 1000,
  'assets/table.js': 500,
  'assets/Login.js': 10,
  'assets/Files.js': 50,
  'assets/Preview.js': 9999,
};
const sizeOf = (f: string) => sizes[f] ?? 0;

describe('bundle budget check', () => {
  it("holds the routes to issue #22's limits: 250 KB for the sign-in page, 400 KB for the files screen", () => {
    expect(Object.fromEntries(BUDGETS.map((b) => [b.route, b.maxBytes]))).toEqual({ '/login': 250_000, '/personalFile': 400_000 });
  });

  it('counts the entry, its static imports and the route lazy chunk with its imports, each file once', () => {
    expect(routeFiles(manifest, ['src/Files.tsx'])).toEqual(['assets/Files.js', 'assets/index.js', 'assets/table.js', 'assets/vendor.js']);
    expect(routeFiles(manifest, ['src/Login.tsx'])).toEqual(['assets/Login.js', 'assets/index.js', 'assets/vendor.js']);
  });

  it('fails the route over its budget and passes the one under it', () => {
    const [login, files] = checkBudgets(
      manifest,
      [
        { route: '/login', lazy: ['src/Login.tsx'], maxBytes: 1200 },
        { route: '/files', lazy: ['src/Files.tsx'], maxBytes: 1600 },
      ],
      sizeOf,
    );
    expect(login).toMatchObject({ route: '/login', bytes: 1110, ok: true });
    expect(files).toMatchObject({ route: '/files', bytes: 1650, ok: false });
  });

  it('refuses a lazy module the build does not have, instead of weighing nothing', () => {
    expect(() => routeFiles(manifest, ['src/Gone.tsx'])).toThrow(/not a chunk/);
  });

  it('names the files over the threshold that lack a brotli or gzip copy', () => {
    const onDisk = new Set(['assets/vendor.js.br', 'assets/vendor.js.gz', 'assets/table.js.gz']);
    const files = ['assets/vendor.js', 'assets/table.js', 'assets/Login.js'];
    expect(missingPrecompressed(files, sizeOf, (f) => onDisk.has(f), 20)).toEqual(['assets/table.js']);
  });

  it('adds the heavier language\'s locale chunk to every route, never both languages', () => {
    const withLocales: Manifest = {
      ...manifest,
      'src/locales/zh_CN/common.json': { file: 'assets/locale-zh_CN.js', src: 'src/locales/zh_CN/common.json', isDynamicEntry: true },
      'src/locales/zh_CN/files.json': { file: 'assets/locale-zh_CN.js', src: 'src/locales/zh_CN/files.json', isDynamicEntry: true },
      // One chunk per language (vite.config.ts's group) appears under its chunk name.
      '_locale-en_US-x.js': { file: 'assets/locale-en_US.js', name: 'locale-en_US' },
    };
    const localeSizes = (f: string) => ({ 'assets/locale-zh_CN.js': 40, 'assets/locale-en_US.js': 30 })[f] ?? sizeOf(f);
    expect(heaviestLocale(withLocales, localeSizes)).toEqual(['assets/locale-zh_CN.js']);
    const [login] = checkBudgets(withLocales, [{ route: '/login', lazy: ['src/Login.tsx'], maxBytes: 1149 }], localeSizes);
    expect(login).toMatchObject({ bytes: 1150, ok: false });
    expect(login!.files).toContain('assets/locale-zh_CN.js');
    expect(login!.files).not.toContain('assets/locale-en_US.js');
  });

  it('reads the pages of app/pages.tsx as manifest keys', () => {
    const source = `
      login: lazy(() => import('../features/account/LoginPage.tsx')),
      recycleBin: lazy(() => import("../features/recycle/BinScreen.tsx").then((m) => ({ default: m.RecycleBinPage }))),
      recycleBinManage: lazy(() => import('../features/recycle/BinScreen.tsx').then((m) => ({ default: m.RecycleManagePage }))),
      const [{ default: Page }, { AntdRoot }] = await Promise.all([load(), import('./antd-root.tsx')]);
      export const AppLayout = withAntd(() => import('./layout/AppLayout.tsx'));`;
    expect(pageModules(source)).toEqual([
      'src/app/antd-root.tsx',
      'src/app/layout/AppLayout.tsx',
      'src/features/account/LoginPage.tsx',
      'src/features/recycle/BinScreen.tsx',
    ]);
  });

  it('names a page bundled into the entry (a static import pulled it in) and passes the lazy ones', () => {
    const build: Manifest = {
      'index.html': { file: 'assets/index.js', isEntry: true, imports: ['src/Eager.tsx'], dynamicImports: ['src/Login.tsx', 'src/Eager.tsx'] },
      'src/Login.tsx': { file: 'assets/Login.js', src: 'src/Login.tsx', isDynamicEntry: true },
      // Imported statically by the entry and lazily by pages.tsx: the bundler keeps it in the entry's graph.
      'src/Eager.tsx': { file: 'assets/Eager.js', src: 'src/Eager.tsx', isDynamicEntry: true },
    };
    expect(pagesInEntry(build, ['src/Login.tsx', 'src/Eager.tsx', 'src/Inlined.tsx'])).toEqual(['src/Eager.tsx', 'src/Inlined.tsx']);
  });
});
