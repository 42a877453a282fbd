// Statements compiled once per shape (shaped.ts), on both databases: each run binds its own arguments into the kept
// text, the text and parameters are exactly the builder's own compile, and a builder that writes an argument into
// the text is refused instead of run with the first run's value.
import { describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { describeEachDialect } from './test-databases.ts';
import { shapedStatement } from './shaped.ts';

describe('shapedStatement', () => {
  describeEachDialect((opened) => {
    // The shape decides the text (the order and a literal limit); the arguments are bound.
    const build = (c: { desc: boolean; limit: number }, low: number, high: number, label: string) =>
      sql<{ n: number; label: string }>`select n, ${label} as label from (select 1 as n union all select 2 union all select 3 union all select 4) t
        where n between ${low} and ${high} order by n ${sql.raw(c.desc ? 'desc' : 'asc')} limit ${sql.lit(c.limit)}`;
    const statement = shapedStatement(build);
    const shape = (c: { desc: boolean; limit: number }) => `${c.desc ? 'desc' : 'asc'} ${c.limit}`;

    it('binds each run its own arguments, and each shape its own text', async () => {
      const db = opened().db;
      const run = async (c: { desc: boolean; limit: number }, low: number, high: number, label: string) =>
        (await statement.execute(db, shape(c), c, low, high, label)).rows.map((r) => `${Number(r.n)}${r.label}`);
      expect(await run({ desc: false, limit: 3 }, 1, 4, 'a')).toEqual(['1a', '2a', '3a']);
      // The same shape again, other arguments: nothing of the first run's values is kept.
      expect(await run({ desc: false, limit: 3 }, 2, 3, 'b')).toEqual(['2b', '3b']);
      expect(await run({ desc: true, limit: 2 }, 1, 4, 'c')).toEqual(['4c', '3c']);
      expect(await run({ desc: true, limit: 2 }, 1, 1, 'd')).toEqual(['1d']);
    });

    it('sends exactly what the builder itself compiles, for every shape', () => {
      const db = opened().db;
      for (const desc of [false, true]) {
        for (const limit of [1, 2, 51]) {
          const c = { desc, limit };
          const fresh = build(c, 7, 9, 'x').compile(db);
          expect(statement.compiled(db, shape(c), c, 7, 9, 'x')).toEqual({ sql: fresh.sql, parameters: [...fresh.parameters] });
        }
      }
    });

    it('refuses a builder that writes an argument into the text', () => {
      const db = opened().db;
      const wrong = shapedStatement((_: undefined, limit: number) => sql`select 1 limit ${sql.lit(limit)}`);
      expect(() => wrong.compiled(db, 'any', undefined, 5)).toThrow(/written into the SQL text/);
    });
  });
});
