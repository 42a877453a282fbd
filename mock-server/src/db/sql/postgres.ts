// PostgreSQL through pg: a pool per server process, driven by Kysely's PostgresDialect.
import pg from 'pg';
import { Kysely, PostgresDialect } from 'kysely';
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

/** Statements one connection keeps prepared at most; past that, new texts run unnamed (parsed and planned each time). */
const PREPARED_PER_CONNECTION = 500;

/**
 * A pg client that prepares each statement text once per connection (a named statement) and reuses it: the server
 * then skips parsing and planning, which on a listing's short queries is much of PostgreSQL's work. Kysely sends
 * query texts of a few fixed shapes with the values as parameters, so the names stay few; a text past the bound
 * (multi-row inserts of varying length) simply runs unnamed. Every query's values are checked here first
 * (assertStorableParameters), where Kysely hands them over.
 */
class PreparingClient extends pg.Client {
  readonly #names = new Map<string, string>();

  override query(...args: unknown[]): any {
    const [text, values] = args;
    if (typeof text === 'string' && Array.isArray(values) && args.length === 2) {
      assertStorableParameters(values);
      let name = this.#names.get(text);
      if (name === undefined && this.#names.size < PREPARED_PER_CONNECTION && /^\s*(select|with|insert|update|delete)\b/i.test(text)) {
        name = `hcs_${this.#names.size}`;
        this.#names.set(text, name);
      }
      if (name !== undefined) return super.query({ name, text, values });
    }
    return (super.query as (...a: unknown[]) => unknown)(...args);
  }
}

export function createPostgresKysely<DB>(config: PostgresConfig): Kysely<DB> {
  if (!isPostgresUrl(config.url)) throw new Error('the database URL must start with postgres:// or postgresql://');
  const pool = new pg.Pool({
    Client: PreparingClient,
    connectionString: config.url,
    max: config.poolSize ?? 10,
    types: postgresTypes(),
    application_name: 'hcs-drive',
  });
  // An 'error' event without a listener would crash the process; the pool already discards the broken client.
  pool.on('error', (err) => config.onIdleError?.(err));
  return new Kysely<DB>({ dialect: new PostgresDialect({ pool }) });
}
