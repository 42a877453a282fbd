// 001: the tables the server uses today (wave 1), on SQLite and PostgreSQL. Same columns, constraints, partial
// unique indexes and keyset-listing indexes as the wave-1 migrations 001_initial.sql and 003 to 005 (files, upload bounds,
// captchas; kept as a test fixture in wave1-fixture/),
// less the 14 tables no code reads or writes (roles, user_roles, shares, share_items, share_targets, favourites,
// labels, ip_access, cloud_connections, buckets, nodes, regions, sync_configs, ldap_config): the issues that
// bring those features add their own tables. New here: the per-folder child counts (issue #12 item 6).
//
// A SQLite data dir created by the wave-1 migration system is converted in place instead (recognised by its
// table schema_migrations): see wave1.ts. Both paths end with the same schema;
// migrations.spec.ts compares them.
import { sql, type Kysely } from 'kysely';
import type { Migration } from 'kysely/migration';
import type { SqlDialect } from '../tx.ts';
import { columnTypes, type ColumnTypes } from './column-types.ts';
import { addChildCounts, addUploadBounds, createCaptchas, createDownloadTickets, isNull, isNotNull } from './core-steps.ts';
import { convertWave1, dropEmptyWave1Bookkeeping, wave1Versions } from './wave1.ts';

type Db = Kysely<unknown>;

async function createAccounts(db: Db, t: ColumnTypes): Promise<void> {
  await db.schema
    .createTable('departments')
    .addColumn('id', t.text, (c) => c.primaryKey())
    .addColumn('name', t.text, (c) => c.notNull())
    .addColumn('parent_id', t.text, (c) => c.references('departments.id').onDelete('restrict'))
    .addColumn('quota_bytes', t.bytes)
    .addColumn('used_bytes', t.bytes, (c) => c.notNull().defaultTo(0))
    .addColumn('created_at', t.time, (c) => c.notNull())
    .execute();

  await db.schema
    .createTable('users')
    .addColumn('id', t.text, (c) => c.primaryKey())
    .addColumn('user_name', t.text, (c) => c.notNull())
    .addColumn('user_name_key', t.text, (c) => c.notNull().unique())
    .addColumn('real_name', t.text, (c) => c.notNull().defaultTo(''))
    .addColumn('dept_id', t.text, (c) => c.references('departments.id').onDelete('set null'))
    .addColumn('password_hash', t.text, (c) => c.notNull())
    .addColumn('is_enabled', t.flag, (c) => c.notNull().defaultTo(1))
    .addColumn('expired_time', t.time, (c) => c.notNull().defaultTo(1))
    .addColumn('is_admin', t.flag, (c) => c.notNull().defaultTo(0))
    .addColumn('language_id', t.text)
    .addColumn('platform_id', t.text, (c) => c.notNull().defaultTo('NetDisk'))
    .addColumn('quota_bytes', t.bytes)
    .addColumn('used_bytes', t.bytes, (c) => c.notNull().defaultTo(0))
    .addColumn('must_change_password', t.flag, (c) => c.notNull().defaultTo(0))
    .addColumn('password_changed_at', t.time, (c) => c.notNull())
    .addColumn('created_at', t.time, (c) => c.notNull())
    .addColumn('updated_at', t.time, (c) => c.notNull())
    .addColumn('deleted_at', t.time)
    .execute();

  await db.schema
    .createTable('groups')
    .addColumn('id', t.text, (c) => c.primaryKey())
    .addColumn('name', t.text, (c) => c.notNull())
    .addColumn('owner_id', t.text, (c) => c.notNull().references('users.id'))
    .addColumn('dept_id', t.text, (c) => c.references('departments.id').onDelete('set null'))
    .addColumn('quota_bytes', t.bytes)
    .addColumn('used_bytes', t.bytes, (c) => c.notNull().defaultTo(0))
    .addColumn('created_at', t.time, (c) => c.notNull())
    .addColumn('dissolved_at', t.time)
    .execute();

  await db.schema
    .createTable('group_members')
    .addColumn('group_id', t.text, (c) => c.notNull().references('groups.id').onDelete('cascade'))
    .addColumn('user_id', t.text, (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('role_code', t.text, (c) => c.notNull().defaultTo('group_ordinary_members'))
    .addColumn('parent_user_id', t.text, (c) => c.references('users.id'))
    .addPrimaryKeyConstraint('group_members_pk', ['group_id', 'user_id'])
    .execute();

  await db.schema
    .createTable('sessions')
    .addColumn('id', t.text, (c) => c.primaryKey())
    .addColumn('user_id', t.text, (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('kind', t.text, (c) => c.notNull().check(sql`kind in ('cookie', 'token')`))
    .addColumn('created_at', t.time, (c) => c.notNull())
    .addColumn('last_seen_at', t.time, (c) => c.notNull())
    .addColumn('expires_at', t.time, (c) => c.notNull())
    .addColumn('idle_ms', t.time, (c) => c.notNull())
    .addColumn('ip', t.text, (c) => c.notNull().defaultTo(''))
    .addColumn('user_agent', t.text, (c) => c.notNull().defaultTo(''))
    .addColumn('revoked_at', t.time)
    .execute();
  await db.schema.createIndex('sessions_user').on('sessions').column('user_id').execute();

  await db.schema
    .createTable('rate_limits')
    .addColumn('key', t.text, (c) => c.primaryKey())
    .addColumn('count', t.int, (c) => c.notNull())
    .addColumn('window_start', t.time, (c) => c.notNull())
    .execute();
}

async function createLibraries(db: Db, t: ColumnTypes): Promise<void> {
  await db.schema
    .createTable('business_libs')
    .addColumn('id', t.text, (c) => c.primaryKey())
    .addColumn('lib_code', t.text, (c) => c.notNull().unique())
    .addColumn('lib_name', t.text, (c) => c.notNull())
    .addColumn('lib_name_en', t.text, (c) => c.notNull())
    .addColumn('web_icon', t.text, (c) => c.notNull().defaultTo(''))
    .addColumn('is_show', t.flag, (c) => c.notNull().defaultTo(1))
    .addColumn('is_home', t.flag, (c) => c.notNull().defaultTo(1))
    .addColumn('admin_only', t.flag, (c) => c.notNull().defaultTo(0))
    .addColumn('sort', t.int, (c) => c.notNull().defaultTo(0))
    .execute();

  await db.schema
    .createTable('menus')
    .addColumn('id', t.text, (c) => c.primaryKey())
    .addColumn('lib_code', t.text, (c) => c.notNull())
    .addColumn('menu_code', t.text, (c) => c.notNull())
    .addColumn('menu_name', t.text, (c) => c.notNull())
    .addColumn('menu_str', t.text, (c) => c.notNull())
    .addColumn('menu_url', t.text, (c) => c.notNull())
    .addColumn('parent_id', t.text, (c) => c.notNull().defaultTo('0'))
    .addColumn('menu_index', t.int, (c) => c.notNull().defaultTo(0))
    .addColumn('menu_show', t.flag, (c) => c.notNull().defaultTo(1))
    .addColumn('menu_icon', t.text, (c) => c.notNull().defaultTo(''))
    .addUniqueConstraint('menus_lib_menu', ['lib_code', 'menu_code'])
    .execute();

  await db.schema
    .createTable('sys_config')
    .addColumn('config_key', t.text, (c) => c.primaryKey())
    .addColumn('config_value', t.text, (c) => c.notNull())
    .addColumn('updated_at', t.time, (c) => c.notNull())
    .execute();
}

async function createFiles(db: Db, t: ColumnTypes): Promise<void> {
  // Content-addressed objects: a blob leaves storage only when ref_count reaches 0.
  await db.schema
    .createTable('blobs')
    .addColumn('id', t.text, (c) => c.primaryKey())
    .addColumn('sha256', t.text, (c) => c.notNull().unique())
    .addColumn('size', t.bytes, (c) => c.notNull())
    .addColumn('bucket', t.text, (c) => c.notNull())
    .addColumn('object_key', t.text, (c) => c.notNull())
    .addColumn('ref_count', t.int, (c) => c.notNull().defaultTo(0).check(sql`ref_count >= 0`))
    .addColumn('verified', t.flag, (c) => c.notNull().defaultTo(0))
    .addColumn('created_at', t.time, (c) => c.notNull())
    .execute();

  await db.schema
    .createTable('instances')
    .addColumn('id', t.text, (c) => c.primaryKey())
    .addColumn('lib_code', t.text, (c) => c.notNull().defaultTo('NetDisk'))
    .addColumn('instance_type', t.text, (c) => c.notNull().defaultTo('1'))
    .addColumn('space_kind', t.text, (c) => c.notNull().check(sql`space_kind in ('user', 'group', 'dept')`))
    .addColumn('space_id', t.text, (c) => c.notNull())
    .addColumn('parent_id', t.text, (c) => c.references('instances.id').onDelete('cascade'))
    .addColumn('name', t.text, (c) => c.notNull())
    .addColumn('name_key', t.text, (c) => c.notNull())
    .addColumn('is_folder', t.flag, (c) => c.notNull().check(sql`is_folder in (0, 1)`))
    .addColumn('size', t.bytes, (c) => c.notNull().defaultTo(0))
    .addColumn('ext', t.text, (c) => c.notNull().defaultTo(''))
    .addColumn('file_type', t.text, (c) => c.notNull().defaultTo('other'))
    .addColumn('filter_cat', t.int, (c) => c.notNull().defaultTo(9))
    .addColumn('blob_id', t.text, (c) => c.references('blobs.id'))
    .addColumn('version', t.int, (c) => c.notNull().defaultTo(1))
    .addColumn('remark', t.text, (c) => c.notNull().defaultTo(''))
    .addColumn('created_by', t.text, (c) => c.notNull().references('users.id'))
    .addColumn('created_at', t.time, (c) => c.notNull())
    .addColumn('updated_at', t.time, (c) => c.notNull())
    .addColumn('deleted_at', t.time)
    .addColumn('recycle_id', t.text)
    .execute();
  const live = isNull('deleted_at');
  await db.schema.createIndex('instances_unique_name').unique().on('instances').columns(['parent_id', 'name_key']).where(live).execute();
  await db.schema
    .createIndex('instances_one_root')
    .unique()
    .on('instances')
    .columns(['space_kind', 'space_id', 'lib_code'])
    .where(isNull('parent_id'))
    .execute();
  // Keyset listing: folders first, then the sort column, then id as the tie-breaker.
  for (const [name, col] of [
    ['instances_list_name', 'name_key'],
    ['instances_list_size', 'size'],
    ['instances_list_created', 'created_at'],
    ['instances_list_updated', 'updated_at'],
  ] as const) {
    await db.schema.createIndex(name).on('instances').columns(['parent_id', 'is_folder desc', col, 'id']).where(live).execute();
  }
  await db.schema.createIndex('instances_recycle').on('instances').column('recycle_id').where(isNotNull('recycle_id')).execute();
  await db.schema.createIndex('instances_blob').on('instances').column('blob_id').where(isNotNull('blob_id')).execute();

  await db.schema
    .createTable('file_versions')
    .addColumn('id', t.text, (c) => c.primaryKey())
    .addColumn('instance_id', t.text, (c) => c.notNull().references('instances.id').onDelete('cascade'))
    .addColumn('version', t.int, (c) => c.notNull())
    .addColumn('blob_id', t.text, (c) => c.notNull().references('blobs.id'))
    .addColumn('size', t.bytes, (c) => c.notNull())
    .addColumn('created_by', t.text, (c) => c.notNull().references('users.id'))
    .addColumn('created_at', t.time, (c) => c.notNull())
    .addUniqueConstraint('file_versions_instance_version', ['instance_id', 'version'])
    .execute();

  await db.schema
    .createTable('recycle_entries')
    .addColumn('id', t.text, (c) => c.primaryKey())
    .addColumn('space_kind', t.text, (c) => c.notNull())
    .addColumn('space_id', t.text, (c) => c.notNull())
    .addColumn('instance_id', t.text, (c) => c.notNull().references('instances.id').onDelete('cascade'))
    .addColumn('original_parent_id', t.text)
    .addColumn('level', t.int, (c) => c.notNull().defaultTo(1))
    .addColumn('deleted_by', t.text, (c) => c.notNull().references('users.id'))
    .addColumn('deleted_at', t.time, (c) => c.notNull())
    .addColumn('total_bytes', t.bytes, (c) => c.notNull().defaultTo(0))
    .execute();
  await db.schema.createIndex('recycle_space').on('recycle_entries').columns(['space_kind', 'space_id', 'level', 'deleted_at']).execute();
}

async function createUploads(db: Db, t: ColumnTypes): Promise<void> {
  await db.schema
    .createTable('upload_sessions')
    .addColumn('id', t.text, (c) => c.primaryKey())
    .addColumn('user_id', t.text, (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('space_kind', t.text, (c) => c.notNull())
    .addColumn('space_id', t.text, (c) => c.notNull())
    .addColumn('parent_id', t.text, (c) => c.notNull().references('instances.id').onDelete('cascade'))
    .addColumn('lib_code', t.text, (c) => c.notNull())
    .addColumn('name', t.text, (c) => c.notNull())
    .addColumn('size', t.bytes, (c) => c.notNull())
    .addColumn('sha256', t.text, (c) => c.notNull())
    .addColumn('bucket', t.text, (c) => c.notNull())
    .addColumn('object_key', t.text, (c) => c.notNull().unique())
    .addColumn('part_size', t.bytes, (c) => c.notNull())
    .addColumn('part_count', t.int, (c) => c.notNull())
    .addColumn('upload_id', t.text)
    .addColumn('conflict', t.text, (c) => c.notNull().defaultTo('keepBoth'))
    .addColumn('existing_id', t.text)
    .addColumn('reserved_bytes', t.bytes, (c) => c.notNull())
    .addColumn('created_at', t.time, (c) => c.notNull())
    .addColumn('updated_at', t.time, (c) => c.notNull())
    .addColumn('expires_at', t.time, (c) => c.notNull())
    .execute();
  await db.schema.createIndex('upload_sessions_lookup').on('upload_sessions').columns(['user_id', 'sha256', 'parent_id', 'name']).execute();
  await db.schema.createIndex('upload_sessions_space').on('upload_sessions').columns(['space_kind', 'space_id']).execute();
  await db.schema.createIndex('upload_sessions_expiry').on('upload_sessions').column('expires_at').execute();

  await db.schema
    .createTable('upload_parts')
    .addColumn('session_id', t.text, (c) => c.notNull().references('upload_sessions.id').onDelete('cascade'))
    .addColumn('part_number', t.int, (c) => c.notNull().check(sql`part_number between 1 and 10000`))
    .addColumn('etag', t.text, (c) => c.notNull())
    .addColumn('size', t.bytes, (c) => c.notNull())
    .addPrimaryKeyConstraint('upload_parts_pk', ['session_id', 'part_number'])
    .execute();

  await db.schema
    .createTable('proof_challenges')
    .addColumn('id', t.text, (c) => c.primaryKey())
    .addColumn('user_id', t.text, (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('session_id', t.text, (c) => c.notNull().references('upload_sessions.id').onDelete('cascade'))
    .addColumn('blob_id', t.text, (c) => c.notNull().references('blobs.id'))
    .addColumn('offset', t.bytes, (c) => c.notNull())
    .addColumn('length', t.bytes, (c) => c.notNull())
    .addColumn('expires_at', t.time, (c) => c.notNull())
    .execute();
}

async function createOpLogs(db: Db, t: ColumnTypes): Promise<void> {
  await db.schema
    .createTable('op_logs')
    .addColumn('id', t.serialIdType, t.serialId)
    .addColumn('at', t.time, (c) => c.notNull())
    .addColumn('user_id', t.text)
    .addColumn('user_name', t.text, (c) => c.notNull().defaultTo(''))
    .addColumn('op_type', t.text, (c) => c.notNull())
    .addColumn('op_subject', t.text, (c) => c.notNull().defaultTo(''))
    .addColumn('object_id', t.text, (c) => c.notNull().defaultTo(''))
    .addColumn('object_name', t.text, (c) => c.notNull().defaultTo(''))
    .addColumn('device', t.text, (c) => c.notNull().defaultTo(''))
    .addColumn('ip', t.text, (c) => c.notNull().defaultTo(''))
    .addColumn('trace_id', t.text, (c) => c.notNull().defaultTo(''))
    .addColumn('result', t.text, (c) => c.notNull().check(sql`result in ('success', 'failure')`))
    .addColumn('detail', t.text, (c) => c.notNull().defaultTo(''))
    .execute();
  await db.schema.createIndex('op_logs_at').on('op_logs').column('at').execute();
  await db.schema.createIndex('op_logs_user').on('op_logs').columns(['user_id', 'at']).execute();
}

export function coreMigration(dialect: SqlDialect): Migration {
  return {
    async up(db: Db) {
      const t = columnTypes(dialect);
      // PostgreSQL support is new with these migrations: only a SQLite data dir can come from wave 1.
      const legacy = dialect === 'sqlite' ? await wave1Versions(db) : null;
      if (legacy !== null && legacy.length > 0) {
        await convertWave1(db, t, legacy);
        return;
      }
      if (legacy !== null) await dropEmptyWave1Bookkeeping(db);
      await createAccounts(db, t);
      await createLibraries(db, t);
      await createFiles(db, t);
      await createUploads(db, t);
      await createOpLogs(db, t);
      await createDownloadTickets(db, t);
      await addUploadBounds(db, t);
      await createCaptchas(db, t);
      await addChildCounts(db, t);
    },
  };
}
