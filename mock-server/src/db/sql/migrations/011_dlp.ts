// 011: DLP and approval (issue #17 part 4).
// - dlp_rules: the administrators' rules checked before an external share (kind + value, see the contract's
//   DlpRuleKind).
// - dlp_checks: approval requests for a blocked share. The items and the hits are kept as JSON as they were when
//   the request was sent (the approver decides on what was asked, even if names change later). dept_id is the
//   approving department; its managers (or those above it) decide. status moves once, from pending.
import { sql, type Kysely } from 'kysely';
import type { Migration } from 'kysely/migration';
import type { SqlDialect } from '../tx.ts';
import { columnTypes } from './column-types.ts';

export function dlpMigration(dialect: SqlDialect): Migration {
  return {
    async up(db: Kysely<unknown>) {
      const t = columnTypes(dialect);
      await db.schema
        .createTable('dlp_rules')
        .addColumn('id', t.text, (c) => c.primaryKey())
        .addColumn('kind', t.text, (c) => c.notNull().check(sql`kind in ('extension', 'maxSize', 'label', 'keyword')`))
        .addColumn('value', t.text, (c) => c.notNull())
        .addColumn('enabled', t.flag, (c) => c.notNull().defaultTo(1))
        .addColumn('remark', t.text, (c) => c.notNull().defaultTo(''))
        .addColumn('created_at', t.time, (c) => c.notNull())
        .addColumn('updated_at', t.time, (c) => c.notNull())
        .execute();
      await db.schema
        .createTable('dlp_checks')
        .addColumn('id', t.text, (c) => c.primaryKey())
        .addColumn('requester_id', t.text, (c) => c.notNull().references('users.id').onDelete('cascade'))
        .addColumn('dept_id', t.text, (c) => c.notNull().references('departments.id').onDelete('cascade'))
        .addColumn('instance_ids', t.text, (c) => c.notNull())
        .addColumn('item_key', t.text, (c) => c.notNull())
        .addColumn('items', t.text, (c) => c.notNull())
        .addColumn('hits', t.text, (c) => c.notNull())
        .addColumn('reason', t.text, (c) => c.notNull().defaultTo(''))
        .addColumn('status', t.text, (c) => c.notNull().check(sql`status in ('pending', 'approved', 'rejected')`))
        .addColumn('comment', t.text, (c) => c.notNull().defaultTo(''))
        .addColumn('decided_by', t.text, (c) => c.references('users.id').onDelete('set null'))
        .addColumn('created_at', t.time, (c) => c.notNull())
        .addColumn('decided_at', t.time)
        .execute();
      await db.schema.createIndex('dlp_checks_requester').on('dlp_checks').columns(['requester_id', 'created_at']).execute();
      await db.schema.createIndex('dlp_checks_dept').on('dlp_checks').columns(['dept_id', 'status', 'created_at']).execute();
      // One pending request per requester and set of items: asking again answers the pending one.
      await sql`create unique index dlp_checks_one_pending on dlp_checks (requester_id, item_key) where status = 'pending'`.execute(db);
    },
  };
}
