import { configDefaults, defineConfig, type TestProjectInlineConfiguration } from 'vitest/config';
import react from '@vitejs/plugin-react';

// The web app's specs that need modules of their own: they replace modules with vi.mock, or test what a fresh start
// loads. The others share one module graph per worker (isolate: false), which takes the web specs from 161 s to about
// 60 s on two cores; each of those files sets up the state it reads (language, session, msw handlers) itself.
const FRESH_MODULES = [
  'src/app/forced-password.spec.tsx',
  'src/app/http-hooks.spec.ts',
  'src/app/shell.spec.tsx',
  'src/features/admin-console/admin-console.spec.tsx',
  'src/features/files/FileBrowser.renders.spec.tsx',
  'src/features/files/FileBrowser.spec.tsx',
  'src/shared/i18n.spec.ts',
  'src/shared/sharing/share-download.spec.ts',
];

const project = (name: string, test: TestProjectInlineConfiguration['test']): TestProjectInlineConfiguration => ({
  extends: false,
  root: import.meta.dirname,
  plugins: [react()],
  define: { __HCS_MOCK__: 'false' },
  test: { name, environment: 'jsdom', setupFiles: ['src/test/setup.ts'], testTimeout: 20000, ...test },
});

/** The root config's two web projects: `web` (shared modules) and `web-fresh` (a module graph per file). */
export const webProjects = [
  project('web', { include: ['src/**/*.spec.ts', 'src/**/*.spec.tsx', 'scripts/**/*.spec.ts'], exclude: [...configDefaults.exclude, ...FRESH_MODULES], isolate: false }),
  project('web-fresh', { include: FRESH_MODULES }),
];

export default defineConfig({ test: { projects: webProjects } });
