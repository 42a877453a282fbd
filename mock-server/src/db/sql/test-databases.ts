// Test support (imported by *.spec.ts only): runs a suite on SQLite always and on PostgreSQL when
// HCS_TEST_DATABASE_URL names a server (tests/pg/postgres.sh), saying why when it does not.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe } from 'vitest';
import { createMigratedTestPgDatabase, postgresSkipReason } from '../../../../tests/helpers/pg.ts';
import { openSqlDatabase, type SqlDatabase } from './open.ts';
import type { SqlDialect } from './tx.ts';

export interface TestDatabase extends SqlDatabase {
  /** Closes it and removes the SQLite dir or drops the PostgreSQL database. */
  dispose(): Promise<void>;
}

/** A new, migrated database of that dialect, for one test file or one test. */
export async function openTestDatabase(dialect: SqlDialect, options: { poolSize?: number } = {}): Promise<TestDatabase> {
  if (dialect === 'sqlite') {
    const dir = mkdtempSync(join(tmpdir(), 'hcs-sql-'));
    const opened = await openSqlDatabase({ dataDir: dir });
    return {
      ...opened,
      dispose: async () => {
        await opened.close();
        rmSync(dir, { recursive: true, force: true });
      },
    };
  }
  const pg = await createMigratedTestPgDatabase();
  try {
    const opened = await openSqlDatabase({ dataDir: tmpdir(), databaseUrl: pg.url, poolSize: options.poolSize ?? 16 });
    return {
      ...opened,
      dispose: async () => {
        await opened.close();
        await pg.drop();
      },
    };
  } catch (err) {
    await pg.drop();
    throw err;
  }
}

const skipPostgres = postgresSkipReason();
if (skipPostgres) console.warn(`[db/sql tests] PostgreSQL skipped: ${skipPostgres}`);

/** The dialects a suite runs on, with the reason a dialect is skipped. */
export const DIALECTS: { dialect: SqlDialect; skip: string | undefined }[] = [
  { dialect: 'sqlite', skip: undefined },
  { dialect: 'postgres', skip: skipPostgres },
];

/**
 * Declares the suite once per dialect, each on one database shared by the file's tests (they keep apart by
 * using their own kinds, keys and names). `db()` is valid inside tests and hooks.
 */
export function describeEachDialect(body: (db: () => SqlDatabase, dialect: SqlDialect) => void, options: { poolSize?: number } = {}): void {
  for (const { dialect, skip } of DIALECTS) {
    describe.skipIf(skip !== undefined)(skip ? `${dialect} (skipped: ${skip})` : dialect, () => {
      let opened: TestDatabase | undefined;
      beforeAll(async () => {
        opened = await openTestDatabase(dialect, options);
      });
      afterAll(async () => {
        await opened?.dispose();
      });
      body(() => {
        if (!opened) throw new Error('the test database is not open yet');
        return opened;
      }, dialect);
    });
  }
}

/** A promise with its resolve exposed: lets a test hold work at a known point instead of sleeping. */
export function deferred<T = void>(): { promise: Promise<T>; resolve: (value: T) => void } {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((r) => {
    resolve = r;
  });
  return { promise, resolve };
}

let seq = 0;
/** A name no other test in the process uses (tables, kinds, keys). */
export function unique(prefix: string): string {
  return `${prefix}_${process.pid}_${++seq}`;
}
