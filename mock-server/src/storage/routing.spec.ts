// Storage routing's lookups on both databases: a signed read finds its content's location through an index, not by
// reading every blob (it runs for each ranged part of every download).
import { expect, it } from 'vitest';
import { sql } from 'kysely';
import { describeEachDialect } from '../db/sql/test-databases.ts';
import { keyLocation, keyLocationQuery } from './routing.ts';

describeEachDialect((get, dialect) => {
  it('keyLocation finds a blob by its key and bucket through the blobs_object_key index', async () => {
    const { db } = get();
    const now = Date.now();
    const rows = Array.from({ length: 5000 }, (_, i) => ({
      id: `rk-${i}`, sha256: `rk-sha-${i}`, size: i, bucket: i % 2 ? 'b1' : 'b2', object_key: `staging/rk-${i}`, ref_count: 1, verified: 1 as const,
      created_at: now, connection_id: i % 3 ? '0' : 'c1',
    }));
    for (let i = 0; i < rows.length; i += 500) await db.insertInto('blobs').values(rows.slice(i, i + 500)).execute();
    if (dialect === 'postgres') await sql`analyze blobs`.execute(db);

    expect(await keyLocation(db, 'staging/rk-3', 'b1')).toEqual({ connectionId: 'c1', bucket: 'b1' });
    // The same key named in another bucket is not that content.
    expect(await keyLocation(db, 'staging/rk-3', 'b2')).toBeUndefined();

    const compiled = keyLocationQuery(db, 'staging/rk-3', 'b1').compile();
    const plan = (await db.executeQuery<Record<string, string>>({ ...compiled, sql: `explain ${dialect === 'sqlite' ? 'query plan ' : ''}${compiled.sql}` })).rows
      .map((r) => r.detail ?? r['QUERY PLAN'])
      .join(' | ');
    if (dialect === 'sqlite') {
      expect(plan).toMatch(/SEARCH blobs USING INDEX blobs_object_key/);
    } else {
      expect(plan).toMatch(/Index Scan using blobs_object_key|Bitmap Index Scan on blobs_object_key/);
      expect(plan).not.toMatch(/Seq Scan/);
    }
  });
});
