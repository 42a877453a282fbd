import { defineConfig } from 'vite';
import react from '@vitejs/plugin-react';

// `npm run dev` proxies /hcs and /s3 to a running server; `npm run dev:mock` (mode "mock") starts msw in the browser
// with the contract's generated handlers instead, so the app runs with no server at all.
export default defineConfig(({ mode }) => ({
  base: '/drive/',
  plugins: [react()],
  define: { __HCS_MOCK__: JSON.stringify(mode === 'mock') },
  server: {
    proxy:
      mode === 'mock'
        ? {}
        : {
            '/hcs': { target: 'http://localhost:8080', changeOrigin: false },
            '/s3': { target: 'http://localhost:8080', changeOrigin: false },
            '/drive/static/i18n': { target: 'http://localhost:8080', changeOrigin: false },
            '/drive/static/skin': { target: 'http://localhost:8080', changeOrigin: false },
          },
  },
  build: { outDir: 'dist', emptyOutDir: true, chunkSizeWarningLimit: 1500 },
}));
