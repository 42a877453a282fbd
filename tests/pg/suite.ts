// Runs vitest on one database: `node tests/pg/suite.ts sqlite|postgres <vitest args>`.
//   sqlite    without HCS_TEST_DATABASE_URL, whatever the shell exports: the embedded default;
//   postgres  with it (tests/pg/postgres.sh): every test server gets a fresh PostgreSQL database; without it the
//             run is skipped, and says so.
// npm test runs the integration suites both ways (test:int, test:int:pg) and the browser suite on SQLite only.
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const [database, ...args] = process.argv.slice(2);
const env = { ...process.env };
if (database === 'sqlite') {
  delete env.HCS_TEST_DATABASE_URL;
} else if (database === 'postgres') {
  if (!env.HCS_TEST_DATABASE_URL) {
    console.log('[tests] PostgreSQL run skipped: HCS_TEST_DATABASE_URL is not set (bash tests/pg/postgres.sh start && eval "$(bash tests/pg/postgres.sh env)")');
    process.exit(0);
  }
  console.log('[tests] on PostgreSQL (HCS_TEST_DATABASE_URL)');
} else {
  console.error('usage: node tests/pg/suite.ts sqlite|postgres <vitest args>');
  process.exit(2);
}
const root = fileURLToPath(new URL('../../', import.meta.url));
const vitest = spawnSync(process.execPath, [fileURLToPath(new URL('../../node_modules/vitest/vitest.mjs', import.meta.url)), 'run', ...args], {
  cwd: root,
  env,
  stdio: 'inherit',
});
process.exit(vitest.status ?? 1);
