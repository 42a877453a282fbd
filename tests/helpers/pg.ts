// Fresh PostgreSQL databases for tests, on the throwaway server of tests/pg/postgres.sh:
//   bash tests/pg/postgres.sh start && eval "$(bash tests/pg/postgres.sh env)"
// exports HCS_TEST_DATABASE_URL. Each test file takes its own database (CREATE DATABASE with a random name) and
// drops it when done, so files never see each other's rows and can run in parallel on one server.
import { randomBytes } from 'node:crypto';
import pg from 'pg';

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

/** Drops a database createTestPgDatabase made, given its URL, ending any connection still open to it. */
export async function dropTestPgDatabase(databaseUrl: string): Promise<void> {
  const name = decodeURIComponent(new URL(databaseUrl).pathname.slice(1));
  await onServer((c) => c.query(`DROP DATABASE IF EXISTS ${pg.escapeIdentifier(name)} WITH (FORCE)`));
}
