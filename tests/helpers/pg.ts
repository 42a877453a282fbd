// Fresh PostgreSQL databases for tests, on the throwaway server of tests/pg/postgres.sh:
//   bash tests/pg/postgres.sh start && eval "$(bash tests/pg/postgres.sh env)"
// exports HCS_TEST_DATABASE_URL. Each test file takes its own database (CREATE DATABASE with a random name) and
// drops it when done, so files never see each other's rows and can run in parallel on one server.
import { createHash, randomBytes } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { migrateToLatest } from '../../mock-server/src/db/sql/migrations/index.ts';
import { createPostgresKysely } from '../../mock-server/src/db/sql/postgres.ts';

/** Why PostgreSQL tests cannot run here, or undefined when they can. */
export function postgresSkipReason(): string | undefined {
  if (process.env.HCS_TEST_DATABASE_URL) return undefined;
  return 'HCS_TEST_DATABASE_URL is not set (bash tests/pg/postgres.sh start && eval "$(bash tests/pg/postgres.sh env)")';
}

export interface TestPgDatabase {
  /** postgres:// URL of the new database. */
  url: string;
  name: string;
  /** Drops the database, ending any connection still open to it. */
  drop(): Promise<void>;
}

function serverUrl(): string {
  const url = process.env.HCS_TEST_DATABASE_URL;
  if (!url) throw new Error(postgresSkipReason());
  return url;
}

async function onServer<T>(fn: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: serverUrl() });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}

export async function createTestPgDatabase(): Promise<TestPgDatabase> {
  const name = `hcs_test_${randomBytes(6).toString('hex')}`;
  await onServer((c) => c.query(`CREATE DATABASE ${pg.escapeIdentifier(name)}`));
  const url = new URL(serverUrl());
  url.pathname = `/${name}`;
  return { url: url.toString(), name, drop: () => dropTestPgDatabase(url.toString()) };
}

/**
 * A new database with every migration already applied: a copy of a template database (CREATE DATABASE ... TEMPLATE)
 * that the first caller of the run migrates, so a test server's start finds its schema in place instead of running
 * the migrations again (1 to 1.5 s each on PostgreSQL, measured under CI load, against 0.3 s for the copy). The
 * server still runs its migrator, which finds nothing to do. The template's name carries a hash of the migration
 * sources, so a changed migration gets a template of its own. Suites that test migrating itself (migrations.spec.ts,
 * nodes racing to migrate) take an empty database from createTestPgDatabase.
 */
export async function createMigratedTestPgDatabase(): Promise<TestPgDatabase> {
  const template = await (migratedTemplate ??= ensureMigratedTemplate());
  const name = `hcs_test_${randomBytes(6).toString('hex')}`;
  await onServer((c) => c.query(`CREATE DATABASE ${pg.escapeIdentifier(name)} TEMPLATE ${pg.escapeIdentifier(template)}`));
  const url = new URL(serverUrl());
  url.pathname = `/${name}`;
  return { url: url.toString(), name, drop: () => dropTestPgDatabase(url.toString()) };
}

let migratedTemplate: Promise<string> | undefined;

const MIGRATIONS_DIR = fileURLToPath(new URL('../../mock-server/src/db/sql/migrations/', import.meta.url));

/** SHA-256 of every file under the migrations folder, in name order. */
function migrationsHash(): string {
  const h = createHash('sha256');
  const walk = (dir: string) => {
    for (const e of readdirSync(dir, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : 1))) {
      const path = `${dir}${e.name}`;
      if (e.isDirectory()) walk(`${path}/`);
      else h.update(path.slice(MIGRATIONS_DIR.length)).update('\0').update(readFileSync(path)).update('\0');
    }
  };
  walk(MIGRATIONS_DIR);
  return h.digest('hex').slice(0, 16);
}

/**
 * The template's name, migrated. Test processes running side by side may all find it missing: each migrates a
 * database of its own and renames it to the template's name, and the ones that lose the race (the name taken) drop
 * theirs and use the winner's.
 */
async function ensureMigratedTemplate(): Promise<string> {
  const template = `hcs_template_${migrationsHash()}`;
  const exists = await onServer(async (c) => (await c.query('SELECT 1 FROM pg_database WHERE datname = $1', [template])).rowCount === 1);
  if (exists) return template;
  const build = await createTestPgDatabase();
  try {
    const db = createPostgresKysely({ url: build.url, poolSize: 1 });
    try {
      await migrateToLatest(db, 'postgres');
    } finally {
      await db.destroy();
    }
    // A closed pool's backend may still be ending: the rename waits for it (55006, "being accessed by other users").
    for (let attempt = 0; ; attempt++) {
      try {
        await onServer((c) => c.query(`ALTER DATABASE ${pg.escapeIdentifier(build.name)} RENAME TO ${pg.escapeIdentifier(template)}`));
        return template;
      } catch (err) {
        const code = (err as { code?: string }).code;
        if (code === '42P04') break; // another process named its template first
        if (code !== '55006' || attempt >= 50) throw err;
        await new Promise((r) => setTimeout(r, 100));
      }
    }
  } catch (err) {
    await build.drop();
    throw err;
  }
  await build.drop();
  return template;
}

/** Drops a database createTestPgDatabase made, given its URL, ending any connection still open to it. */
export async function dropTestPgDatabase(databaseUrl: string): Promise<void> {
  const name = decodeURIComponent(new URL(databaseUrl).pathname.slice(1));
  await onServer((c) => c.query(`DROP DATABASE IF EXISTS ${pg.escapeIdentifier(name)} WITH (FORCE)`));
}
