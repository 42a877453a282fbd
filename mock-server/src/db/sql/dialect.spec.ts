// The database layer under the repositories: node:sqlite through Kysely, pg's types, transactions, opening.
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Kysely, sql, type Insertable } from 'kysely';
import { describe, expect, it } from 'vitest';
import { NodeSqliteDialect, limitPlaceholders } from './node-sqlite-dialect.ts';
import { databaseUrlFromEnv, openSqlDatabase } from './open.ts';
import type { Schema, UsersTable } from './schema.ts';
import { deferred, describeEachDialect, unique } from './test-databases.ts';
import { dialectOf, forUpdate, transaction, type Db } from './tx.ts';

const turn = () => new Promise<void>((resolve) => setImmediate(resolve));

async function addUser(db: Db, values: Partial<Insertable<UsersTable>> = {}): Promise<string> {
  const id = unique('u');
  await db
    .insertInto('users')
    .values({ id, user_name: id, user_name_key: id, password_hash: 'x', password_changed_at: 1, created_at: 1, updated_at: 1, ...values })
    .execute();
  return id;
}

async function counter(db: Db, key: string): Promise<number | undefined> {
  const r = await db.selectFrom('rate_limits').select('count').where('key', '=', key).executeTakeFirst();
  return r?.count;
}

describeEachDialect((get, dialect) => {
  it('round-trips epoch milliseconds past 2^32, 0/1 flags, NULLs and unicode exactly, as JS numbers and strings', async () => {
    const { db } = get();
    const maxDate = 8.64e15; // the last millisecond a JS Date can hold
    const realName = '张三 · Zoë ✓ 😀 "quoted" \'single\' \\ back';
    const id = await addUser(db, {
      real_name: realName,
      created_at: maxDate,
      updated_at: Number.MAX_SAFE_INTEGER,
      quota_bytes: 80e9,
      is_admin: 1,
      must_change_password: 0,
      language_id: null,
      deleted_at: null,
    });
    const row = await db.selectFrom('users').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
    expect(row.created_at).toBe(maxDate);
    expect(row.updated_at).toBe(Number.MAX_SAFE_INTEGER);
    expect(row.quota_bytes).toBe(80e9);
    expect([row.is_admin, row.must_change_password, row.is_enabled]).toEqual([1, 0, 1]);
    expect([row.language_id, row.deleted_at]).toEqual([null, null]);
    expect(row.real_name).toBe(realName);
    // pg answers COUNT(*) as int8 and SUM(bigint) as numeric: both must arrive as numbers.
    const agg = await db
      .selectFrom('users')
      .select((eb) => [eb.fn.countAll<number>().as('n'), eb.fn.sum<number>('quota_bytes').as('total')])
      .where('id', '=', id)
      .executeTakeFirstOrThrow();
    expect(agg).toEqual({ n: 1, total: 80e9 });
  });

  it('binds a whole number as an integer: 5 cast to text is "5", not "5.0"', async () => {
    const r = await sql<{ v: string }>`select cast(${5} as text) as v`.execute(get().db);
    expect(r.rows[0]?.v).toBe('5');
  });

  it('refuses to read an integer past 2^53 instead of rounding it', async () => {
    await expect(sql`select cast(${'1152921504606846977'} as bigint) as v`.execute(get().db)).rejects.toThrow(/range|too large/i);
  });

  it('rolls a failed transaction back, and a failed nested one back to its savepoint only', async () => {
    const { db } = get();
    const [a, b, c] = [unique('tx'), unique('tx'), unique('tx')];
    await expect(
      transaction(db, async (trx) => {
        await trx.insertInto('rate_limits').values({ key: a, count: 1, window_start: 1 }).execute();
        throw new Error('boom');
      }),
    ).rejects.toThrow('boom');
    expect(await counter(db, a)).toBeUndefined();

    await transaction(db, async (trx) => {
      await trx.insertInto('rate_limits').values({ key: b, count: 1, window_start: 1 }).execute();
      await expect(
        transaction(trx, async (inner) => {
          await inner.insertInto('rate_limits').values({ key: c, count: 1, window_start: 1 }).execute();
          throw new Error('inner');
        }),
      ).rejects.toThrow('inner');
    });
    expect(await counter(db, b)).toBe(1);
    expect(await counter(db, c)).toBeUndefined();
  });

  it('refuses text with a NUL character the same way on both databases (PostgreSQL cannot take it), and goes on', async () => {
    const { db } = get();
    const key = unique('nul');
    await expect(db.selectFrom('rate_limits').select('count').where('key', '=', `${key}\u0000.txt`).execute()).rejects.toMatchObject({
      code: 'BAD_REQUEST',
      status: 400,
    });
    await expect(
      transaction(db, async (trx) => {
        await trx.insertInto('rate_limits').values({ key, count: 1, window_start: 1 }).execute();
        await trx.updateTable('rate_limits').set({ key: `${key}\u0000` }).where('key', '=', key).execute();
      }),
    ).rejects.toMatchObject({ code: 'BAD_REQUEST' });
    expect(await counter(db, key)).toBeUndefined(); // the transaction rolled back
    await db.insertInto('rate_limits').values({ key, count: 2, window_start: 1 }).execute();
    expect(await counter(db, key)).toBe(2);
  });

  it('check-then-write transactions on one row never lose an update (forUpdate on PostgreSQL, one writer on SQLite)', async () => {
    const { db } = get();
    const key = unique('rmw');
    await db.insertInto('rate_limits').values({ key, count: 0, window_start: 1 }).execute();
    const log: string[] = [];
    const bump = (name: string) =>
      transaction(db, async (trx) => {
        log.push(`${name} start`);
        const row = await forUpdate(trx, trx.selectFrom('rate_limits').select('count').where('key', '=', key)).executeTakeFirstOrThrow();
        // Give the other transaction every chance to read the same value before this one writes.
        await turn();
        await turn();
        await trx.updateTable('rate_limits').set({ count: row.count + 1 }).where('key', '=', key).execute();
        log.push(`${name} end`);
      });
    await Promise.all([bump('A'), bump('B'), bump('C')]);
    expect(await counter(db, key)).toBe(3);
    if (dialect === 'sqlite') {
      // One connection: each transaction holds it from BEGIN to COMMIT, the others queue in arrival order.
      expect(log).toEqual(['A start', 'A end', 'B start', 'B end', 'C start', 'C end']);
    }
  });

  it('forUpdate locks rows on PostgreSQL only; dialectOf reads the dialect from any handle', async () => {
    const { db } = get();
    const q = forUpdate(db, db.selectFrom('rate_limits').select('key')).compile().sql;
    expect(/for update/i.test(q)).toBe(dialect === 'postgres');
    expect(dialectOf(db)).toBe(dialect);
    expect(await transaction(db, async (trx) => dialectOf(trx))).toBe(dialect);
  });
});

describe('sqlite specifics', () => {
  function tempDir(): string {
    return mkdtempSync(join(tmpdir(), 'hcs-sql-'));
  }

  it('a query from another caller waits while a transaction holds the connection, and sees only its commit', async () => {
    const dir = tempDir();
    const { db, close } = await openSqlDatabase({ dataDir: dir });
    try {
      const key = unique('hold');
      await db.insertInto('rate_limits').values({ key, count: 0, window_start: 1 }).execute();
      const wroteOne = deferred();
      const gate = deferred();
      const trx = transaction(db, async (t) => {
        await t.updateTable('rate_limits').set({ count: 1 }).where('key', '=', key).execute();
        wroteOne.resolve();
        await gate.promise;
        await t.updateTable('rate_limits').set({ count: 2 }).where('key', '=', key).execute();
      });
      await wroteOne.promise;
      // Sharing the connection mid-transaction would read the uncommitted 1 (or write into the transaction).
      const outside = counter(db, key);
      // An event-loop turn in which a query that did not queue would run (and read 1); then let the transaction end.
      await turn();
      gate.resolve();
      await trx;
      expect(await outside).toBe(2);
    } finally {
      await close();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('creates the data dir 0700 and the file 0600, with WAL, foreign keys, NORMAL sync, a busy timeout and temporary tables in memory', async () => {
    const parent = tempDir();
    const dir = join(parent, 'data');
    const { db, close } = await openSqlDatabase({ dataDir: dir });
    try {
      expect(statSync(dir).mode & 0o777).toBe(0o700);
      expect(statSync(join(dir, 'hcs.sqlite')).mode & 0o777).toBe(0o600);
      const pragma = async (name: string) => Object.values((await sql.raw(`pragma ${name}`).execute(db)).rows[0] as object)[0] as unknown;
      expect(await pragma('journal_mode')).toBe('wal');
      expect(await pragma('foreign_keys')).toBe(1);
      expect(await pragma('synchronous')).toBe(1); // NORMAL
      expect(await pragma('busy_timeout')).toBe(5000);
      expect(await pragma('temp_store')).toBe(2); // MEMORY: the folder-chain walk materialises one per request
    } finally {
      await close();
      rmSync(parent, { recursive: true, force: true });
    }
  });

  it('reuses a prepared statement per SQL text and keeps at most statementCacheSize of them', async () => {
    const dialect = new NodeSqliteDialect({ path: ':memory:', statementCacheSize: 2 });
    const db = new Kysely<Schema>({ dialect });
    try {
      const q = (n: number) => sql`select ${n} as v`.execute(db); // same text, different parameters
      await q(1);
      await q(2);
      expect(dialect.statementCacheStats()).toEqual({ size: 1, hits: 1, misses: 1 });
      await sql`select 2 as w`.execute(db);
      await sql`select 3 as x`.execute(db); // third text: the least recently used ('select ? as v') goes
      expect(dialect.statementCacheStats().size).toBe(2);
      await q(3);
      expect(dialect.statementCacheStats()).toEqual({ size: 2, hits: 1, misses: 4 });
    } finally {
      await db.destroy();
    }
  });

  it('writes an integer bound to a LIMIT into the statement text, so SQLite does not re-prepare it at each run', async () => {
    const text = `select * from t where a = ? and b = 'limit ?' -- limit ?\n order by "limit" limit ? offset ?`;
    expect(limitPlaceholders(text)).toEqual({ at: [text.lastIndexOf('limit ?') + 6], param: [1], count: 3 });
    expect(limitPlaceholders('select 1 /* limit ? */ limit  ?').param).toEqual([0]);
    expect(limitPlaceholders("select ? from t where x = 'it''s' limit ?")).toMatchObject({ param: [1], count: 2 });
    const dialect = new NodeSqliteDialect({ path: ':memory:' });
    const db = new Kysely<Schema>({ dialect });
    try {
      await sql`create table t (n integer)`.execute(db);
      for (let n = 1; n <= 5; n++) await sql`insert into t (n) values (${n})`.execute(db);
      const page = async (limit: unknown, offset: number) =>
        (await sql<{ n: number }>`select n from t where n > ${0} order by n limit ${limit} offset ${offset}`.execute(db)).rows.map((r) => r.n);
      const before = dialect.statementCacheStats().size;
      expect(await page(2, 1)).toEqual([2, 3]);
      expect(await page(2, 3)).toEqual([4, 5]);
      // One statement per limit value (offset stays a parameter: SQLite does not re-prepare for it).
      expect(dialect.statementCacheStats().size).toBe(before + 1);
      expect(await page(3, 0)).toEqual([1, 2, 3]);
      expect(dialect.statementCacheStats().size).toBe(before + 2);
      expect(await page(BigInt(1), 0)).toEqual([1]);
      // What is not an integer stays a parameter, for SQLite to judge as before.
      await expect(page(1.5, 0)).rejects.toThrow(/datatype mismatch/);
      // The query builder's limit too.
      expect((await db.selectFrom('t' as never).select('n' as never).orderBy('n' as never).limit(2).execute()).length).toBe(2);
    } finally {
      await db.destroy();
    }
  });

  it('streams a select through iterate(), in chunks of the size asked', async () => {
    const db = new Kysely<Schema>({ dialect: new NodeSqliteDialect({ path: ':memory:' }) });
    try {
      await sql`create table rate_limits (key text primary key, count integer not null, window_start integer not null)`.execute(db);
      for (let i = 1; i <= 5; i++) await db.insertInto('rate_limits').values({ key: `k${i}`, count: i, window_start: 0 }).execute();
      const seen: number[] = [];
      for await (const row of db.selectFrom('rate_limits').select('count').orderBy('count').stream(2)) seen.push(row.count);
      expect(seen).toEqual([1, 2, 3, 4, 5]);
    } finally {
      await db.destroy();
    }
  });

  it('makes plain row objects named by the columns, the last of duplicate names winning, any name an own property', async () => {
    const db = new Kysely<Schema>({ dialect: new NodeSqliteDialect({ path: ':memory:' }) });
    try {
      await sql`create table t (a integer, b text)`.execute(db);
      await sql`insert into t (a, b) values (1, 'x'), (2, null)`.execute(db);
      const rows = (await sql<Record<string, unknown>>`select a, b, a + 10 as a, 'p' as "__proto__", 'q' as "it's ""odd""" from t order by b desc`.execute(db)).rows;
      expect(rows.map((r) => Object.keys(r))).toEqual([['a', 'b', '__proto__', 'it\'s "odd"'], ['a', 'b', '__proto__', 'it\'s "odd"']]);
      expect(rows.map((r) => [r.a, r.b, Object.getOwnPropertyDescriptor(r, '__proto__')?.value, r['it\'s "odd"']])).toEqual([
        [11, 'x', 'p', 'q'],
        [12, null, 'p', 'q'],
      ]);
      // A column called __proto__ is data: the rows' prototype stays the plain object's.
      expect(rows.every((r) => Object.getPrototypeOf(r) === Object.prototype)).toBe(true);
      // RETURNING reads rows too; a write without it answers its counts.
      const ret = await sql<{ a: number }>`insert into t (a, b) values (3, 'z') returning a`.execute(db);
      expect(ret.rows).toEqual([{ a: 3 }]);
      expect((await sql`update t set b = 'y' where a < 3`.execute(db)).numAffectedRows).toBe(2n);
      const streamed: unknown[] = [];
      for await (const row of db.selectFrom('t' as never).select(['a' as never, 'b' as never]).orderBy('a' as never).stream(2)) streamed.push(row);
      expect(streamed).toEqual([{ a: 1, b: 'y' }, { a: 2, b: 'y' }, { a: 3, b: 'z' }]);
    } finally {
      await db.destroy();
    }
  });

  it('refuses a boolean or a Date parameter with what to store instead', async () => {
    const db = new Kysely<Schema>({ dialect: new NodeSqliteDialect({ path: ':memory:' }) });
    try {
      await expect(sql`select ${true} as v`.execute(db)).rejects.toThrow(/boolean \(store 0 or 1\)/);
      await expect(sql`select ${new Date()} as v`.execute(db)).rejects.toThrow(/epoch milliseconds/);
    } finally {
      await db.destroy();
    }
  });
});

describe('HCS_DATABASE_URL', () => {
  it('selects PostgreSQL with a postgres URL, SQLite when unset, and refuses anything else without echoing it', () => {
    expect(databaseUrlFromEnv({})).toBeUndefined();
    expect(databaseUrlFromEnv({ HCS_DATABASE_URL: ' ' })).toBeUndefined();
    expect(databaseUrlFromEnv({ HCS_DATABASE_URL: 'postgres://u:p@db/hcs' })).toBe('postgres://u:p@db/hcs');
    expect(databaseUrlFromEnv({ HCS_DATABASE_URL: 'postgresql://db/hcs' })).toBe('postgresql://db/hcs');
    expect(() => databaseUrlFromEnv({ HCS_DATABASE_URL: 'mysql://u:secret@db/hcs' })).toThrow(/must be a postgres/);
    try {
      databaseUrlFromEnv({ HCS_DATABASE_URL: 'mysql://u:secret@db/hcs' });
    } catch (err) {
      expect(String(err)).not.toContain('secret');
    }
  });
});
