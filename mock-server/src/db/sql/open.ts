// The one entry point to the database: SQLite in the data dir (embedded default), or PostgreSQL when
// HCS_DATABASE_URL names one. Either way the caller gets a migrated Kysely<Schema> and the same code runs on it.
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { Kysely } from 'kysely';
import { NodeSqliteDialect } from './node-sqlite-dialect.ts';
import { createPostgresKysely, isPostgresUrl } from './postgres.ts';
import { migrateToLatest } from './migrations/index.ts';
import type { Schema } from './schema.ts';
import type { Db, SqlDialect } from './tx.ts';

export interface SqlDatabaseConfig {
  /** postgres://... selects PostgreSQL; unset selects SQLite in dataDir. */
  databaseUrl?: string | undefined;
  /** Holds the SQLite file (created 0700 when missing). */
  dataDir: string;
  /** SQLite file name in dataDir (default hcs.sqlite, the wave-1 file, which migration 001 converts in place). */
  sqliteFile?: string;
  /** PostgreSQL connections per process (default 10). */
  poolSize?: number;
  /** An idle PostgreSQL connection broke; the pool replaces it. */
  onIdleError?: (err: Error) => void;
}

export interface SqlDatabase {
  db: Db;
  dialect: SqlDialect;
  /** Waits for queries in flight, then closes the SQLite file or ends the PostgreSQL pool. */
  close(): Promise<void>;
}

/** HCS_DATABASE_URL, checked: anything but a postgres:// URL is a configuration error, not a silent SQLite. */
export function databaseUrlFromEnv(env: NodeJS.ProcessEnv = process.env): string | undefined {
  const url = env.HCS_DATABASE_URL?.trim();
  if (!url) return undefined;
  // The value itself is never echoed: it may carry a password.
  if (!isPostgresUrl(url)) throw new Error('HCS_DATABASE_URL must be a postgres:// or postgresql:// URL (unset it to use SQLite)');
  return url;
}

/** Opens the database and applies pending migrations; the promise rejects (and nothing stays open) if they fail. */
export async function openSqlDatabase(config: SqlDatabaseConfig): Promise<SqlDatabase> {
  let db: Kysely<Schema>;
  let dialect: SqlDialect;
  if (config.databaseUrl) {
    dialect = 'postgres';
    db = createPostgresKysely<Schema>({
      url: config.databaseUrl,
      ...(config.poolSize !== undefined ? { poolSize: config.poolSize } : {}),
      ...(config.onIdleError ? { onIdleError: config.onIdleError } : {}),
    });
  } else {
    dialect = 'sqlite';
    mkdirSync(config.dataDir, { recursive: true, mode: 0o700 });
    db = new Kysely<Schema>({ dialect: new NodeSqliteDialect({ path: join(config.dataDir, config.sqliteFile ?? 'hcs.sqlite') }) });
  }
  try {
    await migrateToLatest(db, dialect);
  } catch (err) {
    await db.destroy();
    throw err;
  }
  return { db, dialect, close: () => db.destroy() };
}
