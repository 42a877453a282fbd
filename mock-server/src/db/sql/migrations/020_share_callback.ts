// 020: the share callback (issue #17). A platform that shares through the drive (an application embedding its file
// picker) is told each link made for it.
// - share_callbacks: where each platform's callbacks go, registered by administrators. No secret is stored: the
//   signing secret is derived from the server secret and key_nonce, and a new nonce (re-registering) revokes it.
// - share_callback_deliveries: one per link created with a callback, with how its sending went (the owner reads it
//   as the link's callbackStatus).
import { sql, type Kysely } from 'kysely';
import type { Migration } from 'kysely/migration';
import type { SqlDialect } from '../tx.ts';
import { columnTypes } from './column-types.ts';

export function shareCallbackMigration(dialect: SqlDialect): Migration {
  return {
    async up(db: Kysely<unknown>) {
      const t = columnTypes(dialect);
      await db.schema
        .createTable('share_callbacks')
        .addColumn('platform_id', t.text, (c) => c.primaryKey())
        .addColumn('url', t.text, (c) => c.notNull())
        .addColumn('key_nonce', t.text, (c) => c.notNull())
        .addColumn('created_at', t.time, (c) => c.notNull())
        .addColumn('updated_at', t.time, (c) => c.notNull())
        .execute();
      await db.schema
        .createTable('share_callback_deliveries')
        .addColumn('link_id', t.text, (c) => c.primaryKey().references('links.id').onDelete('cascade'))
        .addColumn('platform_id', t.text, (c) => c.notNull())
        .addColumn('status', t.text, (c) => c.notNull().check(sql`status in ('pending', 'delivered', 'failed')`))
        .addColumn('attempts', t.int, (c) => c.notNull().defaultTo(0))
        .addColumn('http_status', t.int)
        .addColumn('updated_at', t.time, (c) => c.notNull())
        .execute();
    },
  };
}
