import { defineConfig, type ProxyOptions } from 'vite';
import react from '@vitejs/plugin-react';

// `npm run dev` proxies /hcs and /s3 to a running server; `npm run dev:mock` (mode "mock") starts msw in the browser
// with the contract's generated handlers instead, so the app runs with no server at all.
const SERVER = 'http://localhost:8080';
const toServer: ProxyOptions = { target: SERVER, changeOrigin: false };

export default defineConfig(({ mode }) => ({
  base: '/drive/',
  plugins: [react()],
  define: { __HCS_MOCK__: JSON.stringify(mode === 'mock') },
  server: {
    proxy: (mode === 'mock'
      ? {}
      : { '/hcs': toServer, '/s3': toServer, '/drive/static/i18n': toServer, '/drive/static/skin': toServer }) as Record<string, ProxyOptions>,
  },
  build: { outDir: 'dist', emptyOutDir: true, chunkSizeWarningLimit: 1500 },
}));
