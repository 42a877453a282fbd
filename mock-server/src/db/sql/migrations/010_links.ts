// 010: public links and upload links (issue #17 part 2).
// - links: one public link; its address (link_key) is random, its extraction code kept only as a salted hash.
//   Counters (views, downloads, uploads) are changed only by conditional UPDATEs, so limits hold on every node.
//   token_epoch goes up when the code or the address changes: every visitor token of an older epoch is dead.
// - link_items: what a link shares (an upload link: its one folder).
// - link_tokens: visitor share tokens, stored as SHA-256 of the token.
// - link_grants: downloads already counted for a token (ranged requests resume them without counting again).
// - link_uploads: files visitors uploaded through a link (renameInstance reaches only these).
// - link_sessions: the owner's upload sessions opened through a link: the only ones its visitors' calls may touch.
// - link_logs: the share log (every visit, code attempt, preview, download and upload).
// - link_lockouts: wrong-code failures per link and per address with the lockout they earned (doubling backoff).
// - link_policy: the administrators' link policy (one row; absent: the env defaults).
import { sql, type Kysely } from 'kysely';
import type { Migration } from 'kysely/migration';
import type { SqlDialect } from '../tx.ts';
import { columnTypes } from './column-types.ts';

export function linksMigration(dialect: SqlDialect): Migration {
  return {
    async up(db: Kysely<unknown>) {
      const t = columnTypes(dialect);
      await db.schema
        .createTable('links')
        .addColumn('id', t.text, (c) => c.primaryKey())
        .addColumn('link_key', t.text, (c) => c.notNull().unique())
        .addColumn('owner_id', t.text, (c) => c.notNull().references('users.id').onDelete('cascade'))
        .addColumn('share_type', t.text, (c) => c.notNull().check(sql`share_type in ('download', 'upload')`))
        .addColumn('code_hash', t.text)
        .addColumn('expire_at', t.time)
        .addColumn('max_views', t.int)
        .addColumn('max_downloads', t.int)
        .addColumn('view_count', t.int, (c) => c.notNull().defaultTo(0))
        .addColumn('download_count', t.int, (c) => c.notNull().defaultTo(0))
        .addColumn('preview_only', t.flag, (c) => c.notNull().defaultTo(0))
        .addColumn('verify_code', t.flag, (c) => c.notNull().defaultTo(0))
        .addColumn('watermark', t.flag, (c) => c.notNull().defaultTo(0))
        .addColumn('upload_max_bytes', t.bytes)
        .addColumn('upload_max_files', t.int)
        .addColumn('upload_allow_list', t.flag, (c) => c.notNull().defaultTo(0))
        .addColumn('upload_count', t.int, (c) => c.notNull().defaultTo(0))
        .addColumn('upload_bytes', t.bytes, (c) => c.notNull().defaultTo(0))
        .addColumn('status', t.text, (c) => c.notNull().check(sql`status in ('active', 'cancelled', 'deleted')`))
        .addColumn('token_epoch', t.int, (c) => c.notNull().defaultTo(0))
        .addColumn('created_at', t.time, (c) => c.notNull())
        .addColumn('updated_at', t.time, (c) => c.notNull())
        .execute();
      await db.schema.createIndex('links_owner').on('links').columns(['owner_id', 'created_at']).execute();
      await db.schema
        .createTable('link_items')
        .addColumn('link_id', t.text, (c) => c.notNull().references('links.id').onDelete('cascade'))
        .addColumn('instance_id', t.text, (c) => c.notNull())
        .addColumn('position', t.int, (c) => c.notNull())
        .addPrimaryKeyConstraint('link_items_pk', ['link_id', 'instance_id'])
        .execute();
      await db.schema.createIndex('link_items_instance').on('link_items').columns(['instance_id']).execute();
      await db.schema
        .createTable('link_tokens')
        .addColumn('id', t.text, (c) => c.primaryKey())
        .addColumn('link_id', t.text, (c) => c.notNull().references('links.id').onDelete('cascade'))
        .addColumn('epoch', t.int, (c) => c.notNull())
        .addColumn('ip', t.text, (c) => c.notNull())
        .addColumn('created_at', t.time, (c) => c.notNull())
        .addColumn('expires_at', t.time, (c) => c.notNull())
        .addColumn('revoked', t.flag, (c) => c.notNull().defaultTo(0))
        .execute();
      await db.schema.createIndex('link_tokens_link').on('link_tokens').columns(['link_id']).execute();
      await db.schema
        .createTable('link_grants')
        .addColumn('token_id', t.text, (c) => c.notNull().references('link_tokens.id').onDelete('cascade'))
        .addColumn('instance_id', t.text, (c) => c.notNull())
        .addColumn('created_at', t.time, (c) => c.notNull())
        .addPrimaryKeyConstraint('link_grants_pk', ['token_id', 'instance_id'])
        .execute();
      await db.schema
        .createTable('link_uploads')
        .addColumn('link_id', t.text, (c) => c.notNull().references('links.id').onDelete('cascade'))
        .addColumn('instance_id', t.text, (c) => c.notNull())
        .addColumn('token_id', t.text, (c) => c.notNull())
        .addColumn('created_at', t.time, (c) => c.notNull())
        .addPrimaryKeyConstraint('link_uploads_pk', ['link_id', 'instance_id'])
        .execute();
      await db.schema
        .createTable('link_sessions')
        .addColumn('session_id', t.text, (c) => c.primaryKey())
        .addColumn('link_id', t.text, (c) => c.notNull().references('links.id').onDelete('cascade'))
        .addColumn('token_id', t.text, (c) => c.notNull())
        .addColumn('created_at', t.time, (c) => c.notNull())
        .execute();
      await db.schema
        .createTable('link_logs')
        .addColumn('id', t.serialIdType, (c) => t.serialId(c))
        .addColumn('link_id', t.text, (c) => c.notNull())
        .addColumn('owner_id', t.text, (c) => c.notNull())
        .addColumn('opt_subject', t.text, (c) => c.notNull())
        .addColumn('opt_type', t.text, (c) => c.notNull())
        .addColumn('opt_obj', t.text, (c) => c.notNull())
        .addColumn('opt_obj_name', t.text, (c) => c.notNull())
        .addColumn('opt_device', t.text, (c) => c.notNull())
        .addColumn('ip', t.text, (c) => c.notNull())
        .addColumn('created_at', t.time, (c) => c.notNull())
        .execute();
      await db.schema.createIndex('link_logs_link').on('link_logs').columns(['link_id', 'id']).execute();
      await db.schema
        .createTable('link_lockouts')
        .addColumn('key', t.text, (c) => c.primaryKey())
        .addColumn('failures', t.int, (c) => c.notNull())
        .addColumn('last_at', t.time, (c) => c.notNull())
        .addColumn('locked_until', t.time, (c) => c.notNull())
        .execute();
      await db.schema
        .createTable('link_policy')
        .addColumn('id', t.int, (c) => c.primaryKey())
        .addColumn('code_required', t.flag, (c) => c.notNull())
        .addColumn('max_expire_days', t.int)
        .addColumn('allowed_roles', t.text, (c) => c.notNull())
        .addColumn('updated_at', t.time, (c) => c.notNull())
        .execute();
    },
  };
}
