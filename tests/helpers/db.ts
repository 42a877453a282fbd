// The database a test server uses, and SQL on it, whichever it is. By default a server runs on SQLite in its data
// dir; with HCS_TEST_DATABASE_URL set (tests/pg/postgres.sh) every data dir gets a PostgreSQL database of its own,
// created the first time a server starts on it and recorded in the data dir, so a server restarted on the same
// data dir (a crash test, a restart test) finds the same database again.
//
// Tests read and change rows through TestSql: plain SQL with ? placeholders, which runs on both (PostgreSQL folds
// unquoted aliases to lower case, so aliases are written in lower case).
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { DatabaseSync, type SQLInputValue } from 'node:sqlite';
import { CompiledQuery, type Kysely } from 'kysely';
import pg from 'pg';
import { dialectOf } from '../../mock-server/src/db/sql/tx.ts';
import { createMigratedTestPgDatabase, dropTestPgDatabase, postgresSkipReason } from './pg.ts';

/** True when the suite runs on PostgreSQL (HCS_TEST_DATABASE_URL). */
export const ON_POSTGRES = postgresSkipReason() === undefined;

const URL_FILE = 'test-database-url';

/**
 * The environment a server on this data dir needs for its database: HCS_DATABASE_URL of the data dir's own
 * PostgreSQL database (created now if it has none yet), or nothing on SQLite.
 */
export async function databaseEnvFor(dataDir: string): Promise<Record<string, string>> {
  if (!ON_POSTGRES) return {};
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const file = join(dataDir, URL_FILE);
  if (existsSync(file)) return { HCS_DATABASE_URL: readFileSync(file, 'utf8').trim() };
  const created = await createMigratedTestPgDatabase();
  writeFileSync(file, created.url, { mode: 0o600 });
  return { HCS_DATABASE_URL: created.url };
}

/** Drops the data dir's PostgreSQL database, if it has one (call before removing the data dir). */
export async function dropDatabaseOf(dataDir: string): Promise<void> {
  const file = join(dataDir, URL_FILE);
  if (existsSync(file)) await dropTestPgDatabase(readFileSync(file, 'utf8').trim());
}

export interface TestSql {
  get<T = Record<string, unknown>>(text: string, ...args: unknown[]): Promise<T | undefined>;
  all<T = Record<string, unknown>>(text: string, ...args: unknown[]): Promise<T[]>;
  /** Runs a statement; resolves to the rows it changed. */
  run(text: string, ...args: unknown[]): Promise<number>;
  close(): Promise<void>;
}

/** ? placeholders as PostgreSQL's $1, $2 ... (the tests' SQL has no ? inside string literals). */
function numbered(text: string): string {
  let n = 0;
  return text.replace(/\?/g, () => `$${++n}`);
}

/** SQL through a running server's own database handle (built.ctx.db): same connection pool, same database. */
export function sqlOn(db: Kysely<any>): TestSql {
  const postgres = dialectOf(db) === 'postgres';
  const exec = async (text: string, args: unknown[]) => db.executeQuery(CompiledQuery.raw(postgres ? numbered(text) : text, args));
  return {
    get: async <T>(text: string, ...args: unknown[]) => (await exec(text, args)).rows[0] as T | undefined,
    all: async <T>(text: string, ...args: unknown[]) => (await exec(text, args)).rows as T[],
    run: async (text: string, ...args: unknown[]) => Number((await exec(text, args)).numAffectedRows ?? 0n),
    close: async () => {},
  };
}

/**
 * SQL on the database of a server that runs in another process (or has stopped): the SQLite file in its data dir
 * (read-only: the server may be writing it) or its PostgreSQL database.
 */
export async function openServerSql(dataDir: string, opts: { readOnly?: boolean } = {}): Promise<TestSql> {
  const env = ON_POSTGRES ? await databaseEnvFor(dataDir) : {};
  if (env.HCS_DATABASE_URL) {
    const client = new pg.Client({ connectionString: env.HCS_DATABASE_URL });
    // The server's own parser choices: int8 and numeric as numbers (every value in this schema fits).
    client.setTypeParser(pg.types.builtins.INT8, Number);
    client.setTypeParser(pg.types.builtins.NUMERIC, Number);
    await client.connect();
    return {
      get: async <T>(text: string, ...args: unknown[]) => (await client.query(numbered(text), args)).rows[0] as T | undefined,
      all: async <T>(text: string, ...args: unknown[]) => (await client.query(numbered(text), args)).rows as T[],
      run: async (text: string, ...args: unknown[]) => (await client.query(numbered(text), args)).rowCount ?? 0,
      close: () => client.end(),
    };
  }
  const db = new DatabaseSync(join(dataDir, 'hcs.sqlite'), { readOnly: opts.readOnly ?? true });
  const bind = (args: unknown[]) => args as SQLInputValue[];
  return {
    get: async <T>(text: string, ...args: unknown[]) => db.prepare(text).get(...bind(args)) as T | undefined,
    all: async <T>(text: string, ...args: unknown[]) => db.prepare(text).all(...bind(args)) as T[],
    run: async (text: string, ...args: unknown[]) => Number(db.prepare(text).run(...bind(args)).changes),
    close: async () => db.close(),
  };
}
