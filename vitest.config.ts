import { defineConfig } from 'vitest/config';
import { webProjects } from './web/vitest.config.ts';

// One vitest run covers every package; each package is a project so `--project NAME` runs one.
export default defineConfig({
  test: {
    projects: [
      { test: { name: 'openapi', root: 'openapi', include: ['client/**/*.spec.ts'], environment: 'node' } },
      { test: { name: 'bench', root: 'bench', include: ['src/**/*.spec.ts'], environment: 'node' } },
      { test: { name: 'transfer-core', root: 'transfer-core', include: ['src/**/*.spec.ts'], environment: 'node' } },
      { test: { name: 'mock-server', root: 'mock-server', include: ['src/**/*.spec.ts'], environment: 'node', testTimeout: 30000 } },
      { test: { name: 'cli', root: 'cli', include: ['src/**/*.spec.ts', 'src/**/*.spec.tsx'], environment: 'node', testTimeout: 30000 } },
      ...webProjects,
      {
        test: {
          name: 'e2e',
          root: 'tests',
          include: ['e2e/**/*.e2e-spec.ts'],
          environment: 'node',
          // One module graph per run, as in 'tests' below: each file launches its own browser and server.
          isolate: false,
          testTimeout: 180000,
          hookTimeout: 120000,
          fileParallelism: false,
          // expect.poll's own default (1 s) is shorter than a loaded CI machine takes to render a page after it has
          // loaded (seen: the sign-in page's provider button); polls wait as long as Playwright's actions do.
          expect: { poll: { timeout: 30_000, interval: 100 } },
        },
      },
      {
        test: {
          name: 'tests',
          root: 'tests',
          include: ['**/*.int-spec.ts', '**/*.contract-spec.ts', '**/*.cli-spec.ts'],
          environment: 'node',
          // The files of a run share one module graph: the server's modules load once per run, not once per file
          // (an integration shard took 106 s instead of 119 s). Each file starts servers of its own; no file mocks a
          // module, and what the server's modules keep between calls (validators, signing keys) suits any server
          // (the whole suite passed this way on SQLite and on PostgreSQL).
          isolate: false,
          testTimeout: 120000,
          hookTimeout: 120000,
          fileParallelism: false,
        },
      },
    ],
  },
});
