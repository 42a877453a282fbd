// Transactions with an explicit handle. A repository function takes `db: Db` and runs its queries on it; inside
// transaction() that handle is the transaction, so nothing (no module-global depth, no ambient state) decides
// whether a query is part of one: the caller does, by what it passes.
import { PostgresAdapter, Transaction, sql, type Kysely, type SelectQueryBuilder } from 'kysely';
import type { Schema } from './schema.ts';

/** The database, or a transaction on it: repositories accept either. */
export type Db = Kysely<Schema>;
export type Tx = Transaction<Schema>;
export type SqlDialect = 'sqlite' | 'postgres';

/**
 * Which database a handle talks to, read from Kysely's adapter so it holds for the root handle, a transaction and
 * a connection alike (Kysely marks getExecutor internal; it has been stable across 0.2x and the tests on both
 * databases exercise this line).
 */
export function dialectOf(db: Kysely<Schema> | Kysely<unknown>): SqlDialect {
  return db.getExecutor().adapter instanceof PostgresAdapter ? 'postgres' : 'sqlite';
}

let savepointSeq = 0;

/**
 * Runs fn in one transaction and returns its result; a throw rolls everything back. On SQLite the transaction
 * is BEGIN IMMEDIATE and holds the one connection throughout, so writers queue rather than interleave; on
 * PostgreSQL it is READ COMMITTED on a pooled connection, so code that checks and then writes must lock what
 * it checked (forUpdate) or rely on a unique constraint.
 *
 * Called with a transaction handle, it nests through a savepoint: a throw inside undoes the inner work only, and
 * the outer transaction may catch it and go on. One transaction is one sequential flow: do not run its queries
 * concurrently (Promise.all) around a nested call.
 */
export async function transaction<T>(db: Db, fn: (trx: Tx) => Promise<T>): Promise<T> {
  if (!(db instanceof Transaction)) return retryingDeadlocks(() => db.transaction().execute(fn));
  const trx: Tx = db;
  // The name only needs to be unique among savepoints open at once; nothing depends on the counter's value.
  const name = sql.id(`hcs_sp_${++savepointSeq}`);
  await sql`savepoint ${name}`.execute(trx);
  try {
    const out = await fn(trx);
    await sql`release savepoint ${name}`.execute(trx);
    return out;
  } catch (err) {
    await sql`rollback to savepoint ${name}`.execute(trx);
    await sql`release savepoint ${name}`.execute(trx);
    throw err;
  }
}

/**
 * Runs fn atomically: in a new transaction, or, when `db` already is one, simply on it (the caller's transaction
 * makes it atomic and rolls it back on a throw; no savepoint is spent). For repository functions whose steps must
 * stand or fall together but that callers also use inside larger transactions.
 */
export async function atomically<T>(db: Db, fn: (trx: Db) => Promise<T>): Promise<T> {
  return db.isTransaction ? fn(db) : transaction(db, fn);
}

/** PostgreSQL's deadlock_detected and serialization_failure: the transaction was rolled back and may simply run again. */
const RETRYABLE = new Set(['40P01', '40001']);
const MAX_TRIES = 4;

/**
 * Repositories lock rows in one order (see instances-repo.ts), so deadlocks should not happen; when PostgreSQL
 * still picks a transaction as a deadlock victim, it has rolled back everything and running it again is safe (a
 * transaction's function does database work only). SQLite never reports either.
 */
async function retryingDeadlocks<T>(run: () => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await run();
    } catch (err) {
      const code = (err as { code?: unknown }).code;
      if (attempt >= MAX_TRIES || typeof code !== 'string' || !RETRYABLE.has(code)) throw err;
    }
  }
}

/**
 * Locks the selected rows until the transaction ends on PostgreSQL (SELECT ... FOR UPDATE), e.g. the space row
 * of a quota check-and-charge. SQLite has no row locks and needs none: the IMMEDIATE transaction already holds
 * the database's single write lock, so the query is left unchanged there.
 */
export function forUpdate<DB, TB extends keyof DB, O>(db: Db, qb: SelectQueryBuilder<DB, TB, O>): SelectQueryBuilder<DB, TB, O> {
  return dialectOf(db) === 'postgres' ? qb.forUpdate() : qb;
}
