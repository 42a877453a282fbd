// What the two databases say when a unique index refuses a row, read in one place. Repositories that rely on a
// unique index for correctness under concurrency (a name per folder, a user name) map its violation to the
// API's NAME_EXISTS here, whichever database raised it.
import { AppError } from '../../http/errors.ts';

type ErrorFields = { field: string; message: string }[];

/** The unique indexes whose violation means "that name is taken". */
export type UniqueKey = 'instance-name' | 'user-name' | 'label-name';

/**
 * How each database names the index in its error: PostgreSQL reports the index (constraint) name; SQLite reports
 * the columns ("UNIQUE constraint failed: instances.parent_id, instances.name_key").
 */
const KEYS: Record<UniqueKey, { postgres: string; sqlite: string }> = {
  'instance-name': { postgres: 'instances_unique_name', sqlite: 'instances.parent_id, instances.name_key' },
  'user-name': { postgres: 'users_user_name_key_key', sqlite: 'users.user_name_key' },
  'label-name': { postgres: 'labels_user_name', sqlite: 'labels.user_id, labels.name_key' },
};

interface DriverError {
  /** pg: SQLSTATE; node:sqlite: ERR_SQLITE_ERROR. */
  code?: unknown;
  /** node:sqlite: the extended result code. */
  errcode?: unknown;
  /** pg: the violated constraint. */
  constraint?: unknown;
  message?: unknown;
}

const SQLITE_CONSTRAINT_UNIQUE = 2067;
const SQLITE_CONSTRAINT_PRIMARYKEY = 1555;
const PG_UNIQUE_VIOLATION = '23505';

/** Which known unique index the error is a violation of: a key, 'other' for any other unique index, or undefined. */
export function uniqueViolation(err: unknown): UniqueKey | 'other' | undefined {
  if (!(err instanceof Error)) return undefined;
  const e = err as DriverError;
  if (e.code === PG_UNIQUE_VIOLATION) {
    const found = (Object.keys(KEYS) as UniqueKey[]).find((k) => KEYS[k].postgres === e.constraint);
    return found ?? 'other';
  }
  if (e.errcode === SQLITE_CONSTRAINT_UNIQUE || e.errcode === SQLITE_CONSTRAINT_PRIMARYKEY) {
    const columns = /constraint failed: (.*)$/.exec(String(e.message))?.[1]?.trim();
    const found = (Object.keys(KEYS) as UniqueKey[]).find((k) => KEYS[k].sqlite === columns);
    return found ?? 'other';
  }
  return undefined;
}

/** NAME_EXISTS when `err` is a violation of `key`, else `err` itself: for `catch (e) { throw asNameExists(e, ...) }`. */
export function asNameExists(err: unknown, key: UniqueKey, message: string, fields?: ErrorFields): unknown {
  if (uniqueViolation(err) !== key) return err;
  return new AppError('NAME_EXISTS', message, fields ? { fields } : undefined);
}

/**
 * PostgreSQL cannot hold U+0000 in text at all (it refuses the query), and SQLite would; so neither is asked to:
 * a request that carries one in any value the database would see (an id, a name, a remark) is refused the same way
 * on both, instead of a 500 on one and a silent "not found" on the other. Checked on every query's parameters.
 */
export function assertStorableParameters(parameters: readonly unknown[]): void {
  for (const p of parameters) {
    if (typeof p === 'string' && p.includes('\u0000')) {
      throw new AppError('BAD_REQUEST', 'text with a NUL character (U+0000) is not accepted');
    }
  }
}
