// A Kysely dialect for node:sqlite's DatabaseSync: the embedded default, with no native add-on to build.
//
// Written here rather than taken from npm: no kept package provides one (Kysely's own SqliteDialect expects
// better-sqlite3's `stmt.reader`, which node:sqlite lacks, and binds parameters as one array where node:sqlite
// wants them spread; the generic community dialect is a one-person package that would still need everything
// below wrapped around it). Kysely's SqliteAdapter, SqliteQueryCompiler and SqliteIntrospector do the SQL;
// this file only runs it: one connection behind a FIFO mutex, statements cached per SQL text, BEGIN IMMEDIATE.
import { DatabaseSync, type SQLInputValue, type StatementSync } from 'node:sqlite';
import { closeSync, openSync } from 'node:fs';
import {
  CompiledQuery,
  SqliteAdapter,
  SqliteIntrospector,
  SqliteQueryCompiler,
  type DatabaseConnection,
  type DatabaseIntrospector,
  type Dialect,
  type DialectAdapter,
  type Driver,
  type Kysely,
  type QueryCompiler,
  type QueryResult,
} from 'kysely';
import { Mutex } from './mutex.ts';
import { assertStorableParameters } from './errors.ts';
import { installSqliteNotify } from './sqlite-notify.ts';

export interface NodeSqliteConfig {
  /** Database file; created 0600 when missing (it holds password hashes). ':memory:' for a private in-memory one. */
  path: string;
  /** How long a write waits for another process's write lock before SQLITE_BUSY (default 5000 ms). */
  busyTimeoutMs?: number;
  /** Prepared statements kept, least recently used dropped first (default 1000). */
  statementCacheSize?: number;
}

export interface StatementCacheStats {
  size: number;
  hits: number;
  misses: number;
}

interface CachedStatement {
  stmt: StatementSync;
  /** The statement yields rows (SELECT, or any statement with RETURNING): read them with all(), not run(). */
  reader: boolean;
  /** Makes a row object of one of its result arrays (readers only; see rowMaker). */
  row: RowMaker;
}

type RowMaker = (values: unknown[]) => Record<string, unknown>;

/**
 * A function that makes a row object, named by the statement's columns, from the array node:sqlite returns for a
 * row (setReturnArrays). node:sqlite's own row objects are built in V8's dictionary mode (v8::Object::New with
 * names and values makes a slow object), so every read of a column was a hash lookup and every object shaped
 * unlike the next: measured on a 27-column page of 51 rows, all() took 133-145 us and reading each row's columns
 * into an object 70 us more, where all() returning arrays took 97-103 us and this function's object literal 3 us
 * more. One function per statement, compiled from its column names, so every row of it has one shape.
 * Duplicate names keep the last column's value, as node:sqlite's objects do.
 */
function rowMaker(names: readonly string[]): RowMaker {
  // A computed key defines `__proto__` as an own property; the literal form would set the prototype instead.
  const fields = names.map((n, i) => `${n === '__proto__' ? `[${JSON.stringify(n)}]` : JSON.stringify(n)}: a[${i}]`);
  // Compiled from column names only, each one quoted by JSON.stringify: no value ever reaches the source text.
  return new Function('a', `'use strict'; return { ${fields.join(', ')} };`) as RowMaker;
}

/** Sets a prepared statement that yields rows to return arrays, and gives the function that makes its row objects. */
function arrayStatement(stmt: StatementSync): { reader: boolean; row: RowMaker } {
  const names = stmt.columns().map((c) => c.name);
  if (names.length === 0) return { reader: false, row: () => ({}) };
  stmt.setReturnArrays(true);
  return { reader: true, row: rowMaker(names) };
}

/**
 * Compiling SQL is a measurable share of a short query, and Kysely sends the same texts again and again, so
 * statements are kept per text. node:sqlite resets a statement at each all()/run(), so one statement serves every
 * caller in turn (the connection mutex means one at a time). Query texts built with a variable number of
 * placeholders can be many, hence the bound: the least recently used statement goes first.
 */
class StatementCache {
  readonly #db: DatabaseSync;
  readonly #max: number;
  readonly #entries = new Map<string, CachedStatement>();
  #hits = 0;
  #misses = 0;

  constructor(db: DatabaseSync, max: number) {
    this.#db = db;
    this.#max = max;
  }

  get(sql: string): CachedStatement {
    const hit = this.#entries.get(sql);
    if (hit) {
      this.#hits++;
      // Re-inserting moves the entry to the end of the Map's order: the front is the least recently used. A full
      // cache only: until then nothing is evicted and the order does not matter (deleting and re-adding a long text
      // on every hit was 10 us of a listing).
      if (this.#entries.size >= this.#max) {
        this.#entries.delete(sql);
        this.#entries.set(sql, hit);
      }
      return hit;
    }
    this.#misses++;
    const stmt = this.#db.prepare(sql);
    const entry = { stmt, ...arrayStatement(stmt) };
    if (this.#max > 0) {
      if (this.#entries.size >= this.#max) {
        const oldest = this.#entries.keys().next();
        if (!oldest.done) this.#entries.delete(oldest.value);
      }
      this.#entries.set(sql, entry);
    }
    return entry;
  }

  stats(): StatementCacheStats {
    return { size: this.#entries.size, hits: this.#hits, misses: this.#misses };
  }
}

/**
 * node:sqlite binds every JS number as a REAL, so 5 lands in a TEXT column as '5.0' and LIMIT 5.0 is a datatype
 * mismatch. Safe integers go as BigInt (bound as INTEGER) instead; epoch milliseconds, sizes and 0/1 flags are
 * all integers. Anything node:sqlite cannot bind fails here with a message that says what to pass instead.
 */
function bindValue(value: unknown, index: number): SQLInputValue {
  if (typeof value === 'number') return Number.isSafeInteger(value) ? BigInt(value) : value;
  if (value === null || typeof value === 'string' || typeof value === 'bigint' || value instanceof Uint8Array) return value;
  const what = value instanceof Date ? 'a Date (store epoch milliseconds)' : typeof value === 'boolean' ? 'a boolean (store 0 or 1)' : typeof value;
  throw new TypeError(`SQL parameter ${index + 1} is ${what}, which the database layer does not store`);
}

function bind(parameters: readonly unknown[]): SQLInputValue[] {
  assertStorableParameters(parameters);
  return parameters.map(bindValue);
}

function quoteId(name: string): string {
  return `"${name.replace(/"/g, '""')}"`;
}

/** Where a statement text binds its LIMIT: the character offset of each `limit ?` placeholder and its parameter's index. */
interface LimitPlaceholders {
  at: number[];
  param: number[];
  /** All the placeholders found: a text whose count differs from its parameters' is left as it is. */
  count: number;
  /**
   * The texts with their limits written in, by the limits' values: the same string each time, so the statement
   * cache finds it by its cached hash instead of hashing a newly built text on every run.
   */
  texts?: Map<string, string>;
}

/**
 * The `?` placeholders of `text` that a LIMIT keyword directly precedes, skipping quoted strings, quoted identifiers
 * and comments. Kysely's SQLite compiler writes every parameter as a bare `?`.
 */
export function limitPlaceholders(text: string): LimitPlaceholders {
  const out: LimitPlaceholders = { at: [], param: [], count: 0 };
  let n = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === "'" || c === '"' || c === '`' || c === '[') {
      const close = c === '[' ? ']' : c;
      i = text.indexOf(close, i + 1);
      // A doubled quote inside is two quoted runs back to back: the scan simply goes on after each.
      if (i < 0) break;
    } else if (c === '-' && text[i + 1] === '-') {
      i = text.indexOf('\n', i);
      if (i < 0) break;
    } else if (c === '/' && text[i + 1] === '*') {
      i = text.indexOf('*/', i + 2);
      if (i < 0) break;
      i++;
    } else if (c === '?') {
      if (/(^|[^\w$])limit\s*$/i.test(text.slice(Math.max(0, i - 12), i))) {
        out.at.push(i);
        out.param.push(n);
      }
      n++;
    }
  }
  out.count = n;
  return out;
}

const integral = (v: unknown): v is number | bigint => (typeof v === 'number' && Number.isSafeInteger(v)) || typeof v === 'bigint';

/** Statement texts whose LIMIT placeholders are remembered at most (the cache is emptied past it). */
const LIMIT_PLANS = 2000;

class NodeSqliteConnection implements DatabaseConnection {
  readonly #db: DatabaseSync;
  readonly #cache: StatementCache;
  readonly #limits = new Map<string, LimitPlaceholders>();

  constructor(db: DatabaseSync, cache: StatementCache) {
    this.#db = db;
    this.#cache = cache;
  }

  /**
   * SQLite (3.53, as node:sqlite bundles it) plans with the value bound to a LIMIT and marks the statement to be
   * prepared again whenever that parameter is bound anew: each run of a cached statement with `limit ?` was parsed
   * and planned afresh. Measured under perf on the listing benchmark, re-preparing was 23% of the server's CPU; a
   * listing page's statement took 220 us with `limit ?` and 150 us with `limit 51`. So an integer bound to a LIMIT
   * is written into the text (the statement cache then keeps one statement per page size); OFFSET is not affected.
   */
  #literalLimits(query: CompiledQuery): { text: string; parameters: readonly unknown[] } {
    let plan = this.#limits.get(query.sql);
    if (!plan) {
      plan = limitPlaceholders(query.sql);
      if (this.#limits.size >= LIMIT_PLANS) this.#limits.clear();
      this.#limits.set(query.sql, plan);
    }
    if (plan.at.length === 0 || plan.count !== query.parameters.length || !plan.param.every((i) => integral(query.parameters[i]))) {
      return { text: query.sql, parameters: query.parameters };
    }
    const values = plan.param.map((i) => String(query.parameters[i]));
    const key = values.join(',');
    plan.texts ??= new Map();
    let text = plan.texts.get(key);
    if (text === undefined) {
      text = '';
      let from = 0;
      plan.at.forEach((at, k) => {
        text += query.sql.slice(from, at) + values[k]!;
        from = at + 1;
      });
      text += query.sql.slice(from);
      // Page sizes are few; a text bound with many different limits keeps only the latest ones.
      if (plan.texts.size >= 16) plan.texts.clear();
      plan.texts.set(key, text);
    }
    const parameters = plan.param.length === 1 ? query.parameters.toSpliced(plan.param[0]!, 1) : query.parameters.filter((_, i) => !plan.param.includes(i));
    return { text, parameters };
  }

  async executeQuery<R>(query: CompiledQuery): Promise<QueryResult<R>> {
    const { text, parameters } = this.#literalLimits(query);
    const { stmt, reader, row } = this.#cache.get(text);
    const params = bind(parameters);
    if (reader) {
      const arrays = stmt.all(...params) as unknown as unknown[][];
      const rows = new Array<R>(arrays.length);
      for (let i = 0; i < arrays.length; i++) rows[i] = row(arrays[i]!) as R;
      return { rows };
    }
    const { changes, lastInsertRowid } = stmt.run(...params);
    return { numAffectedRows: BigInt(changes), insertId: BigInt(lastInsertRowid), rows: [] };
  }

  async *streamQuery<R>(query: CompiledQuery, chunkSize: number): AsyncIterableIterator<QueryResult<R>> {
    // A statement of its own: an iterate() in progress would be reset if the same cached statement ran again
    // inside the loop (the holder of the connection may query while it streams).
    const stmt = this.#db.prepare(query.sql);
    const { row: make } = arrayStatement(stmt);
    let rows: R[] = [];
    for (const values of stmt.iterate(...bind(query.parameters))) {
      rows.push(make(values as unknown as unknown[]) as R);
      if (rows.length >= Math.max(1, chunkSize)) {
        yield { rows };
        rows = [];
      }
    }
    if (rows.length > 0) yield { rows };
  }
}

class NodeSqliteDriver implements Driver {
  readonly #config: Required<NodeSqliteConfig>;
  readonly #mutex = new Mutex();
  #db: DatabaseSync | undefined;
  #cache: StatementCache | undefined;
  #connection: NodeSqliteConnection | undefined;

  constructor(config: NodeSqliteConfig) {
    this.#config = { busyTimeoutMs: 5000, statementCacheSize: 1000, ...config };
  }

  async init(): Promise<void> {
    const { path } = this.#config;
    // SQLite would create the file 0644 (less the umask), and its -wal and -shm files take the database's mode.
    if (path !== ':memory:') closeSync(openSync(path, 'a', 0o600));
    const db = new DatabaseSync(path);
    // WAL: readers in other processes never block the writer; NORMAL is durable across a process crash in WAL
    // mode (only an OS crash can lose the last commits), at a fraction of FULL's fsyncs.
    db.exec('PRAGMA journal_mode = WAL');
    db.exec('PRAGMA synchronous = NORMAL');
    db.exec('PRAGMA foreign_keys = ON');
    db.exec(`PRAGMA busy_timeout = ${Math.floor(this.#config.busyTimeoutMs)}`);
    // Temporary tables in memory: every recursive walk (the access gate's folder chain on each request) and IN
    // (subquery) materialises one, and with the default the connection puts them in a temp file once it has one;
    // measured in the server, the folder-chain query took 128 us per call that way and 16 us in memory.
    db.exec('PRAGMA temp_store = MEMORY');
    installSqliteNotify(db);
    this.#db = db;
    this.#cache = new StatementCache(db, this.#config.statementCacheSize);
    this.#connection = new NodeSqliteConnection(db, this.#cache);
  }

  /** Holding the connection means holding the mutex: Kysely keeps it from begin to commit of a transaction. */
  async acquireConnection(): Promise<DatabaseConnection> {
    await this.#mutex.lock();
    return this.#connection!;
  }

  async releaseConnection(): Promise<void> {
    this.#mutex.unlock();
  }

  /**
   * IMMEDIATE takes the write lock at BEGIN, so a transaction that reads and then writes never fails halfway with
   * SQLITE_BUSY because another process wrote in between: writers queue at BEGIN (busy_timeout) instead. SQLite
   * transactions are serializable whatever isolation level is asked for.
   */
  async beginTransaction(connection: DatabaseConnection): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw('begin immediate'));
  }

  async commitTransaction(connection: DatabaseConnection): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw('commit'));
  }

  async rollbackTransaction(connection: DatabaseConnection): Promise<void> {
    // Some errors (a full disk, an interrupt) make SQLite roll back by itself; a second rollback would throw and
    // hide the error that caused the first.
    if (this.#db?.isTransaction) await connection.executeQuery(CompiledQuery.raw('rollback'));
  }

  async savepoint(connection: DatabaseConnection, name: string): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw(`savepoint ${quoteId(name)}`));
  }

  async rollbackToSavepoint(connection: DatabaseConnection, name: string): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw(`rollback to ${quoteId(name)}`));
  }

  async releaseSavepoint(connection: DatabaseConnection, name: string): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw(`release ${quoteId(name)}`));
  }

  async destroy(): Promise<void> {
    // Wait for the current holder so a query in flight is not cut off by close().
    await this.#mutex.lock();
    try {
      this.#db?.close();
      this.#db = undefined;
    } finally {
      this.#mutex.unlock();
    }
  }

  stats(): StatementCacheStats {
    return this.#cache?.stats() ?? { size: 0, hits: 0, misses: 0 };
  }
}

/**
 * Kysely's SQLite adapter, with two facts about this driver. It serialises callers itself (the mutex above), so
 * Kysely must not add its own connection mutex on top. And SQLite DDL is transactional, so the migrator may run
 * each migration and its bookkeeping row in one transaction: a migration that fails halfway leaves nothing.
 */
class NodeSqliteAdapter extends SqliteAdapter {
  override get supportsMultipleConnections(): boolean {
    return true;
  }

  override get supportsTransactionalDdl(): boolean {
    return true;
  }
}

export class NodeSqliteDialect implements Dialect {
  readonly #driver: NodeSqliteDriver;

  constructor(config: NodeSqliteConfig) {
    this.#driver = new NodeSqliteDriver(config);
  }

  createDriver(): Driver {
    return this.#driver;
  }

  createQueryCompiler(): QueryCompiler {
    return new SqliteQueryCompiler();
  }

  createAdapter(): DialectAdapter {
    return new NodeSqliteAdapter();
  }

  createIntrospector(db: Kysely<unknown>): DatabaseIntrospector {
    return new SqliteIntrospector(db);
  }

  /** Prepared-statement cache figures (tests, diagnostics). */
  statementCacheStats(): StatementCacheStats {
    return this.#driver.stats();
  }
}
