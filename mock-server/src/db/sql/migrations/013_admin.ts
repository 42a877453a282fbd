// 013: administration consoles (issue #18 part 1).
// - sys_config gains what typed entries need: their type, description, allowed options (JSON array), whether any
//   signed-in user may read them (public_read), and whether an administrator added them (custom). The server's own
//   settings are described in code (config-store.ts) and only their values live here; internal keys (node key
//   fingerprints, gateway mappings) are neither, so the console never lists them.
// - admin_versions: one counter per area (config, ipWhitelist) bumped in the transaction of every change, so each
//   node keeps what it read only until the counter moves.
// - ip_whitelist: the IP white list. Matching happens in the server (node:net BlockList), so addresses are kept as
//   written.
// - op_logs gains indexes for the console's filters, each ending in id: rows come newest first by id (keyset pages).
import { sql, type Kysely } from 'kysely';
import type { Migration } from 'kysely/migration';
import type { SqlDialect } from '../tx.ts';
import { columnTypes } from './column-types.ts';

export function adminMigration(dialect: SqlDialect): Migration {
  return {
    async up(db: Kysely<unknown>) {
      const t = columnTypes(dialect);
      await db.schema.alterTable('sys_config').addColumn('config_type', t.text, (c) => c.notNull().defaultTo('string')).execute();
      await db.schema.alterTable('sys_config').addColumn('description', t.text, (c) => c.notNull().defaultTo('')).execute();
      await db.schema.alterTable('sys_config').addColumn('options', t.text, (c) => c.notNull().defaultTo('')).execute();
      await db.schema.alterTable('sys_config').addColumn('public_read', t.flag, (c) => c.notNull().defaultTo(0)).execute();
      await db.schema.alterTable('sys_config').addColumn('custom', t.flag, (c) => c.notNull().defaultTo(0)).execute();
      await db.schema
        .createTable('admin_versions')
        .addColumn('name', t.text, (c) => c.primaryKey())
        .addColumn('version', t.time, (c) => c.notNull().defaultTo(0))
        .execute();
      await sql`insert into admin_versions (name, version) values ('config', 0), ('ipWhitelist', 0)`.execute(db);
      await db.schema
        .createTable('ip_whitelist')
        .addColumn('id', t.text, (c) => c.primaryKey())
        .addColumn('ip_value', t.text, (c) => c.notNull())
        .addColumn('kind', t.text, (c) => c.notNull().check(sql`kind in ('single', 'cidr', 'range')`))
        .addColumn('target_type', t.text, (c) => c.notNull().check(sql`target_type in ('all', 'role', 'dept', 'user')`))
        .addColumn('target_id', t.text, (c) => c.notNull().defaultTo(''))
        .addColumn('scope', t.text, (c) => c.notNull().check(sql`scope in ('console', 'drive')`))
        .addColumn('enabled', t.flag, (c) => c.notNull().defaultTo(1))
        .addColumn('remark', t.text, (c) => c.notNull().defaultTo(''))
        .addColumn('created_by', t.text, (c) => c.notNull())
        .addColumn('created_at', t.time, (c) => c.notNull())
        .addColumn('updated_at', t.time, (c) => c.notNull())
        .execute();
      await db.schema.createIndex('op_logs_type').on('op_logs').columns(['op_type', 'id']).execute();
      await db.schema.createIndex('op_logs_user_id').on('op_logs').columns(['user_id', 'id']).execute();
      await db.schema.createIndex('op_logs_object').on('op_logs').columns(['object_id', 'id']).execute();
    },
  };
}
