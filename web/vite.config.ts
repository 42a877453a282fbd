import { defineConfig, type Plugin, type ProxyOptions } from 'vite';
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import react from '@vitejs/plugin-react';
import { compression } from 'vite-plugin-compression2';

// `npm run dev` proxies /hcs and /s3 to a running server; `npm run dev:mock` (mode "mock") starts msw in the browser
// with the contract's generated handlers instead, so the app runs with no server at all.
const SERVER = 'http://localhost:8080';
const toServer: ProxyOptions = { target: SERVER, changeOrigin: false };

/** With no server (mock mode) the skins the server would serve come straight from its assets folder. */
function mockSkins(): Plugin {
  const dir = new URL('../mock-server/assets/skin/', import.meta.url).pathname;
  return {
    name: 'hcs-mock-skins',
    configureServer(server) {
      server.middlewares.use((req, res, next) => {
        const m = /^\/drive\/static\/skin\/([a-z0-9-]+)\/skin\.css$/.exec(req.url?.split('?')[0] ?? '');
        const file = m ? `${dir}${m[1]}/skin.css` : '';
        if (!m) return next();
        res.statusCode = existsSync(file) ? 200 : 404;
        res.setHeader('Content-Type', 'text/css; charset=utf-8');
        res.end(existsSync(file) ? readFileSync(file) : '');
      });
    },
  };
}

/**
 * `import { Button, Modal } from 'antd'` names antd's index, which re-exports every component; the bundler then counts
 * every component as reachable from every page that imports antd at all, and its automatic chunks mix what one page
 * needs with what only another does: /personalFile loaded Result, Card, Skeleton, ColorPicker... that it never draws
 * (issue #22 weight). Pointing each import at the component's own module, as babel-plugin-import did for antd 4, keeps
 * each page's chunks to what it uses. The same for @ant-design/icons. Build only: the app's behaviour is unchanged,
 * only the module a name is taken from; a name not found in antd's index is left on the index import.
 */
function directComponentImports(): Plugin {
  const require = createRequire(import.meta.url);
  const index = readFileSync(require.resolve('antd/es/index.js'), 'utf8');
  const antd = new Map([...index.matchAll(/export \{ default as (\w+) \} from '\.\/([\w-]+)';/g)].map(([, name, dir]) => [name!, `antd/es/${dir}`]));
  const ICON = /^[A-Z]\w*(?:Outlined|Filled|TwoTone)$/;
  const moduleOf = (pkg: string, name: string) => (pkg === 'antd' ? antd.get(name) : ICON.test(name) ? `@ant-design/icons/${name}` : undefined);
  const IMPORT = /import\s*\{([^}]*)\}\s*from\s*(['"])(antd|@ant-design\/icons)\2;?/g;
  return {
    name: 'hcs-direct-component-imports',
    apply: 'build',
    transform(code, id) {
      if (id.includes('/node_modules/') || !/\.[jt]sx?$/.test(id) || !IMPORT.test(code)) return null;
      IMPORT.lastIndex = 0;
      const out = code.replace(IMPORT, (_all, list: string, _q: string, pkg: string) => {
        const kept: string[] = [];
        const direct: string[] = [];
        for (const spec of list.split(',').map((s) => s.trim()).filter(Boolean)) {
          const [name, local = name] = spec.split(/\s+as\s+/) as [string, string?];
          const target = moduleOf(pkg, name);
          if (target) direct.push(`import ${local} from '${target}';`);
          else kept.push(spec);
        }
        return [...direct, kept.length > 0 ? `import { ${kept.join(', ')} } from '${pkg}';` : ''].join('');
      });
      return { code: out, map: null };
    },
  };
}

/**
 * antd's Table imports its column-filter dropdown (with Tree, Menu, Radio and a search input) whether any column
 * filters or not; no table of the app does. Build only: the dropdown is swapped for stubs/antd-table-filter.js, which
 * fails loudly if a column ever declares `filters`. Measured on /personalFile: 15.5 KB of JS gzip less.
 */
function noTableFilters(): Plugin {
  const stub = new URL('./stubs/antd-table-filter.js', import.meta.url).pathname;
  const FILTER_HOOK = /antd[\\/]es[\\/]table[\\/]hooks[\\/]useFilter[\\/]index\.js$/;
  return {
    name: 'hcs-no-table-filters',
    apply: 'build',
    enforce: 'pre',
    resolveId(source, importer) {
      return source === './FilterDropdown' && importer !== undefined && FILTER_HOOK.test(importer) ? stub : null;
    },
  };
}

/**
 * The @rc-component packages under antd declare no `sideEffects`, so the bundler keeps every module they import even
 * when nothing of it is used (antd's form context alone pulled in @rc-component/form's Form, Field, List and its
 * validator). Their modules only define components and helpers; styles come from antd's CSS-in-JS at render. Measured
 * on /personalFile: 9.7 KB of JS gzip less.
 */
const RC_COMPONENT = /node_modules[\\/]@rc-component[\\/]/;

/**
 * Chunks named by what they hold rather than left to automatic splitting (issue #22 weight, scripts/check-budget.ts).
 * Each language's locale files form one chunk, fetched when the app starts in that language (shared/i18n.ts): one
 * request instead of one per area file, and never the other language.
 */
const CHUNK_GROUPS = [
  {
    name: (id: string) => {
      const lang = /[\\/]src[\\/]locales[\\/](\w+)[\\/][^\\/]+\.json$/.exec(id)?.[1];
      return lang ? `locale-${lang}` : null;
    },
  },
];

export default defineConfig(({ mode }) => ({
  base: '/drive/',
  // The server sends these precompressed files as they are (Content-Encoding br or gzip), so nothing is compressed
  // per request; the original stays for clients that accept neither.
  plugins:
    mode === 'mock'
      ? [react(), mockSkins()]
      : [react(), directComponentImports(), noTableFilters(), compression({ algorithms: ['brotliCompress', 'gzip'], threshold: 1024 })],
  define: { __HCS_MOCK__: JSON.stringify(mode === 'mock') },
  server: {
    proxy: (mode === 'mock'
      ? {}
      : { '/hcs': toServer, '/s3': toServer, '/drive/static/i18n': toServer, '/drive/static/skin': toServer }) as Record<string, ProxyOptions>,
  },
  // The manifest (dist/.vite/manifest.json) lets scripts/check-budget.ts weigh what each route loads.
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    manifest: true,
    chunkSizeWarningLimit: 1500,
    rolldownOptions: {
      output: { codeSplitting: { groups: CHUNK_GROUPS } },
      treeshake: { moduleSideEffects: (id: string) => !RC_COMPONENT.test(id) },
    },
  },
}));
