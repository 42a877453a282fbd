// 003: named leases (leases.ts), e.g. "the upload janitor runs on one node at a time".
import type { Kysely } from 'kysely';
import type { Migration } from 'kysely/migration';
import type { SqlDialect } from '../tx.ts';
import { columnTypes } from './column-types.ts';

export function leasesMigration(dialect: SqlDialect): Migration {
  return {
    async up(db: Kysely<unknown>) {
      const t = columnTypes(dialect);
      await db.schema
        .createTable('leases')
        .addColumn('name', t.text, (c) => c.primaryKey())
        .addColumn('holder', t.text, (c) => c.notNull())
        .addColumn('expires_at', t.time, (c) => c.notNull())
        .addColumn('acquired_at', t.time, (c) => c.notNull())
        .execute();
    },
  };
}
