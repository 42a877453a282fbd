// SQLite through node:sqlite: WAL, foreign keys on, versioned migrations applied at start.
// The repositories are the only code that writes SQL, so a PostgreSQL implementation can sit behind the
// same interfaces later without touching handlers.
import { DatabaseSync, type StatementSync } from 'node:sqlite';
import { closeSync, mkdirSync, openSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

export type Db = DatabaseSync;

const MIGRATIONS_DIR = new URL('./migrations/', import.meta.url);

export function openDatabase(dataDir: string, file = 'hcs.sqlite'): Db {
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const path = join(dataDir, file);
  // SQLite would create the file 0644 (less the umask) and gives its -wal and -shm files the database's mode: it
  // holds password hashes, so it is created private (an existing file keeps its mode; app.ts tightens that).
  closeSync(openSync(path, 'a', 0o600));
  const db = new DatabaseSync(path);
  db.exec('PRAGMA journal_mode = WAL');
  db.exec('PRAGMA synchronous = NORMAL');
  db.exec('PRAGMA foreign_keys = ON');
  db.exec('PRAGMA busy_timeout = 5000');
  cacheStatements(db);
  migrate(db);
  return db;
}

const MAX_CACHED_STATEMENTS = 2000;

/**
 * Repositories call db.prepare(sql) per query; compiling the SQL each time was a measurable share of every
 * request. Statements are cached by their text (node:sqlite resets a statement on each run/get/all, and
 * nothing here iterates lazily or changes statement options, so sharing one is safe). SQL built with a
 * variable number of placeholders can make many texts; past the cap they are prepared uncached.
 */
function cacheStatements(db: DatabaseSync): void {
  const prepare = db.prepare.bind(db);
  const cache = new Map<string, StatementSync>();
  db.prepare = (sql: string, options?: Parameters<DatabaseSync['prepare']>[1]) => {
    if (options !== undefined) return prepare(sql, options);
    let stmt = cache.get(sql);
    if (!stmt) {
      stmt = prepare(sql);
      if (cache.size < MAX_CACHED_STATEMENTS) cache.set(sql, stmt);
    }
    return stmt;
  };
}

export function migrate(db: Db): number[] {
  db.exec('CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at INTEGER NOT NULL)');
  const applied = new Set(
    (db.prepare('SELECT version FROM schema_migrations').all() as { version: number }[]).map((r) => r.version),
  );
  const files = readdirSync(MIGRATIONS_DIR)
    .filter((f) => /^\d+_.+\.sql$/.test(f))
    .sort();
  const done: number[] = [];
  for (const f of files) {
    const version = Number(f.split('_')[0]);
    if (applied.has(version)) continue;
    const sql = readFileSync(new URL(f, MIGRATIONS_DIR), 'utf8');
    transaction(db, () => {
      db.exec(sql);
      db.prepare('INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)').run(version, f, Date.now());
    });
    done.push(version);
  }
  return done;
}

let depth = 0;
/**
 * Runs fn in one transaction (BEGIN IMMEDIATE, so concurrent writers queue instead of failing later).
 * Nested calls join the outer transaction through savepoints.
 */
export function transaction<T>(db: Db, fn: () => T): T {
  if (depth > 0) {
    const sp = `sp${depth}`;
    db.exec(`SAVEPOINT ${sp}`);
    depth++;
    try {
      const out = fn();
      db.exec(`RELEASE ${sp}`);
      return out;
    } catch (e) {
      db.exec(`ROLLBACK TO ${sp}`);
      db.exec(`RELEASE ${sp}`);
      throw e;
    } finally {
      depth--;
    }
  }
  db.exec('BEGIN IMMEDIATE');
  depth++;
  try {
    const out = fn();
    db.exec('COMMIT');
    return out;
  } catch (e) {
    db.exec('ROLLBACK');
    throw e;
  } finally {
    depth--;
  }
}
