// One lint setup for every package.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import globals from 'globals';
import reactHooks from 'eslint-plugin-react-hooks';
import { builtinModules } from 'node:module';
import { fileURLToPath } from 'node:url';
import noImportCycle from './eslint-rules/no-import-cycle.js';
import webLayers from './eslint-rules/web-layers.js';

const DB_ONLY = 'Only mock-server/src/db/ talks to the database: use or add a repository function there.';
const DB_IMPORTS = {
  paths: ['node:sqlite', 'pg', 'kysely'].map((name) => ({ name, message: DB_ONLY })),
  patterns: [{ group: ['kysely/*', 'pg/*', 'pg-*'], message: DB_ONLY }],
};

// One plugin object: flat config refuses a plugin name defined twice with different objects.
const local = { rules: { 'no-import-cycle': noImportCycle, 'web-layers': webLayers } };

const CORE_NEUTRAL =
  'transfer-core/src/core runs unchanged in Node and in browsers: put platform code in src/node or src/browser behind a port (src/ports).';
// Globals one runtime has and the other lacks; the ones both share are typed in transfer-core/types/web-common.d.ts.
const PLATFORM_GLOBALS = [
  ...['window', 'document', 'navigator', 'location', 'history', 'self', 'localStorage', 'sessionStorage', 'indexedDB', 'caches'],
  ...['XMLHttpRequest', 'Worker', 'FileReader', 'alert', 'requestAnimationFrame', 'matchMedia'],
  ...['process', 'Buffer', 'global', 'require', 'module', '__dirname', '__filename', 'setImmediate', 'clearImmediate'],
];

export default tseslint.config(
  {
    ignores: ['**/node_modules/**', '**/dist/**', '**/gen/**', 'web/public/**', 'tests/artifacts/**', 'data/**', '**/*.d.ts'],
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { ...globals.node, ...globals.browser }, ecmaVersion: 2023, sourceType: 'module' },
    rules: {
      '@typescript-eslint/no-explicit-any': 'off',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', destructuredArrayIgnorePattern: '^_' }],
      '@typescript-eslint/consistent-type-imports': 'error',
      'no-console': 'off',
      // Name and path validation must match control characters on purpose (spec 5 name rules, S3 XML).
      'no-control-regex': 'off',
    },
  },
  {
    // Issue #12: SQL lives in mock-server/src/db/ only; everything else reaches the database through its
    // repositories, so the database drivers and the query builder are imported nowhere else. Tests may open
    // databases directly.
    files: ['**/*.{ts,tsx,js,mjs,cjs}'],
    ignores: ['mock-server/src/db/**', 'mock-server/src/**/*.spec.ts', 'tests/**'],
    rules: {
      'no-restricted-imports': ['error', DB_IMPORTS],
    },
  },
  {
    // Issue #13 item 8: the engine's core is runtime-neutral (tsconfig.core.json checks it without DOM or Node
    // types). Specs run under Node and may use it. The options repeat DB_IMPORTS because a later block replaces
    // an earlier block's options for the same rule.
    files: ['transfer-core/src/core/**/*.ts', 'transfer-core/src/ports/**/*.ts'],
    ignores: ['**/*.spec.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: [...DB_IMPORTS.paths, ...builtinModules.map((name) => ({ name, message: CORE_NEUTRAL }))],
          patterns: [
            ...DB_IMPORTS.patterns,
            { group: ['node:*'], message: CORE_NEUTRAL },
            { group: ['../node/**', '../browser/**', '@hcs/transfer-core/node', '@hcs/transfer-core/browser'], message: CORE_NEUTRAL },
          ],
        },
      ],
      'no-restricted-globals': ['error', ...PLATFORM_GLOBALS.map((name) => ({ name, message: CORE_NEUTRAL }))],
    },
  },
  {
    // Issue #13 item 8: no import cycles in the CLI, the engine or the web app, type-only imports included (see the rule).
    files: ['cli/**/*.{ts,tsx}', 'transfer-core/**/*.ts', 'web/src/**/*.{ts,tsx}'],
    plugins: { local },
    rules: { 'local/no-import-cycle': 'error' },
  },
  {
    files: ['web/**/*.{ts,tsx}'],
    plugins: { 'react-hooks': reactHooks },
    rules: {
      'react-hooks/rules-of-hooks': 'error',
      'react-hooks/exhaustive-deps': 'warn',
    },
  },
  {
    // Issue #13 item 8: features import neither app/ nor each other, shared/ imports neither, test code stays in specs.
    files: ['web/src/**/*.{ts,tsx}'],
    plugins: { local },
    rules: { 'local/web-layers': ['error', { root: fileURLToPath(new URL('./web/src', import.meta.url)) }] },
  },
  {
    // antd's static dialogs render outside the app's antd root: without its theme or its motion setting (a reader who
    // asked for reduced motion still got the animation). shared/notify.ts draws them in the root.
    files: ['web/src/**/*.{ts,tsx}'],
    rules: {
      'no-restricted-syntax': [
        'error',
        {
          selector: "MemberExpression[object.name='Modal'][property.name=/^(confirm|info|success|error|warning)$/]",
          message: "antd's static Modal methods ignore the app's theme and motion setting: use confirmDialog or alertDialog (shared/notify.ts).",
        },
      ],
    },
  },
);
