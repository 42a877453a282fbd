// PostgreSQL through pg: a pool per server process, driven by Kysely's PostgresDialect.
import pg from 'pg';
import { Kysely, PostgresDialect, type CompiledQuery, type DatabaseConnection, type Dialect, type Driver, type QueryResult } from 'kysely';
import { assertStorableParameters } from './errors.ts';

export interface PostgresConfig {
  /** postgres://user:password@host:port/database (never logged: it may hold the password). */
  url: string;
  /** Connections this process keeps at most (default 10). */
  poolSize?: number;
  /** An idle pooled connection broke (server restart, network); the pool drops it and opens a new one later. */
  onIdleError?: (err: Error) => void;
}

/**
 * pg returns int8 (bigint columns: times, sizes; COUNT(*)) and numeric (SUM of bigints) as strings, because
 * they can exceed a JS number. Every such value in this schema is an epoch millisecond, a byte count or a count,
 * so they become numbers here, in this one place; a value past 2^53 would be silently rounded, so it throws.
 */
function parseInteger(text: string): number {
  const n = Number(text);
  if (!Number.isSafeInteger(n)) throw new RangeError(`database integer ${text} is outside the range a JS number holds exactly`);
  return n;
}

function parseNumeric(text: string): number {
  // SUM/AVG come back as numeric: whole values are checked like int8; fractions (AVG) are floats by nature.
  return /^-?\d+$/.test(text) ? parseInteger(text) : Number(text);
}

/** Parsers for one pool only, so nothing else in the process that uses pg sees its types change. */
export function postgresTypes(): pg.CustomTypesConfig {
  const types = new pg.TypeOverrides();
  types.setTypeParser(pg.types.builtins.INT8, parseInteger);
  types.setTypeParser(pg.types.builtins.NUMERIC, parseNumeric);
  return types;
}

export function isPostgresUrl(url: string): boolean {
  return /^postgres(ql)?:\/\//i.test(url);
}

export function createPostgresKysely<DB>(config: PostgresConfig): Kysely<DB> {
  if (!isPostgresUrl(config.url)) throw new Error('the database URL must start with postgres:// or postgresql://');
  const pool = new pg.Pool({
    connectionString: config.url,
    max: config.poolSize ?? 10,
    types: postgresTypes(),
    application_name: 'hcs-drive',
  });
  // An 'error' event without a listener would crash the process; the pool already discards the broken client.
  pool.on('error', (err) => config.onIdleError?.(err));
  return new Kysely<DB>({ dialect: checkingParameters(new PostgresDialect({ pool })) });
}

/** The connection with every query's parameters checked first (assertStorableParameters); all else is the original's. */
function checkedConnection(connection: DatabaseConnection): DatabaseConnection {
  return new Proxy(connection, {
    get(target, prop) {
      if (prop === 'executeQuery') {
        return <R>(q: CompiledQuery): Promise<QueryResult<R>> => {
          assertStorableParameters(q.parameters);
          return target.executeQuery<R>(q);
        };
      }
      if (prop === 'streamQuery') {
        return <R>(q: CompiledQuery, chunkSize: number): AsyncIterableIterator<QueryResult<R>> => {
          assertStorableParameters(q.parameters);
          return target.streamQuery<R>(q, chunkSize);
        };
      }
      // The original's own methods use private fields: call them on it, not on the proxy.
      const value: unknown = Reflect.get(target, prop, target);
      return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
    },
  });
}

/** The dialect with its driver's connections checked (checkedConnection). */
function checkingParameters(dialect: Dialect): Dialect {
  return {
    createAdapter: () => dialect.createAdapter(),
    createQueryCompiler: () => dialect.createQueryCompiler(),
    createIntrospector: (db) => dialect.createIntrospector(db),
    createDriver: (): Driver => {
      const driver = dialect.createDriver();
      return new Proxy(driver, {
        get(target, prop) {
          if (prop === 'acquireConnection') return async () => checkedConnection(await target.acquireConnection());
          const value: unknown = Reflect.get(target, prop, target);
          return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
        },
      });
    },
  };
}
