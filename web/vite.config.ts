import { defineConfig, type Plugin, type ProxyOptions } from 'vite';
import { existsSync, readFileSync } from 'node:fs';
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

export default defineConfig(({ mode }) => ({
  base: '/drive/',
  // The server sends these precompressed files as they are (Content-Encoding br or gzip), so nothing is compressed
  // per request; the original stays for clients that accept neither.
  plugins: mode === 'mock' ? [react(), mockSkins()] : [react(), compression({ algorithms: ['brotliCompress', 'gzip'], threshold: 1024 })],
  define: { __HCS_MOCK__: JSON.stringify(mode === 'mock') },
  server: {
    proxy: (mode === 'mock'
      ? {}
      : { '/hcs': toServer, '/s3': toServer, '/drive/static/i18n': toServer, '/drive/static/skin': toServer }) as Record<string, ProxyOptions>,
  },
  // The manifest (dist/.vite/manifest.json) lets scripts/check-budget.ts weigh what each route loads.
  build: { outDir: 'dist', emptyOutDir: true, manifest: true, chunkSizeWarningLimit: 1500 },
}));
