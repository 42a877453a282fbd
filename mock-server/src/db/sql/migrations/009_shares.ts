// 009: internal shares (issue #17 part 1). A share is one owner's share of one item (a file or a folder, in any
// space); its recipients are users, departments (their whole subtree) or groups (every member), each with a share
// role (a builtin groupShare_* role). Cancelling a share deletes its rows, so the next access decision no longer
// finds it; an item purged from the recycle bin takes its shares with it.
import { sql, type Kysely } from 'kysely';
import type { Migration } from 'kysely/migration';
import type { SqlDialect } from '../tx.ts';
import { columnTypes } from './column-types.ts';

export function sharesMigration(dialect: SqlDialect): Migration {
  return {
    async up(db: Kysely<unknown>) {
      const t = columnTypes(dialect);
      await db.schema
        .createTable('shares')
        .addColumn('id', t.text, (c) => c.primaryKey())
        .addColumn('instance_id', t.text, (c) => c.notNull().references('instances.id').onDelete('cascade'))
        .addColumn('owner_id', t.text, (c) => c.notNull().references('users.id').onDelete('cascade'))
        .addColumn('created_at', t.time, (c) => c.notNull())
        .addColumn('updated_at', t.time, (c) => c.notNull())
        .execute();
      // One share per owner and item: sharing it again changes that share. Also the gate's lookup by item.
      await db.schema.createIndex('shares_item_owner').on('shares').columns(['instance_id', 'owner_id']).unique().execute();
      // Shared by me, newest first, keyset on (created_at, id).
      await db.schema.createIndex('shares_owner_page').on('shares').columns(['owner_id', 'created_at', 'id']).execute();
      await db.schema
        .createTable('share_recipients')
        .addColumn('share_id', t.text, (c) => c.notNull().references('shares.id').onDelete('cascade'))
        .addColumn('kind', t.text, (c) => c.notNull().check(sql`kind in ('user', 'dept', 'group')`))
        .addColumn('recipient_id', t.text, (c) => c.notNull())
        .addColumn('role_id', t.text, (c) => c.notNull().references('roles.id'))
        .addPrimaryKeyConstraint('share_recipients_pk', ['share_id', 'kind', 'recipient_id'])
        .execute();
      // Shared with me: from the caller's user id, department chain and groups to their shares.
      await db.schema.createIndex('share_recipients_to').on('share_recipients').columns(['kind', 'recipient_id', 'share_id']).execute();
    },
  };
}
