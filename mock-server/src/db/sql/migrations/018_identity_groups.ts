// 018: directory groups as drive groups, and returning users (issue #19).
// - directory_groups: a drive group that mirrors a directory group (LDAP: its entryUUID, or its DN without a group
//   base; OIDC: a groups-claim value of one provider). The link outlives the directory group, so a group that comes
//   back finds its drive group (and its files) again; the drive group is never deleted by sync.
// - directory_memberships: which group memberships the directory made, and through which source ('ldap' or
//   'oidc:<providerId>'). Only these are ever removed by sync or sign-in; members added by hand have no row here.
//   A row whose group_members row an administrator removed is stale and is re-made or dropped on the next pass.
// - directory_disabled: accounts sync disabled because their entry left the directory. Only these are enabled
//   again when the entry returns: an administrator's freeze has no row and holds.
// - identity_sync_reports gains what a sync did to accounts coming back and to groups.
// - ldap_config.group_mapping and oidc_providers.group_mapping: the administrators' mapping (JSON).
import type { Kysely } from 'kysely';
import type { Migration } from 'kysely/migration';
import type { SqlDialect } from '../tx.ts';
import { columnTypes } from './column-types.ts';

export function identityGroupsMigration(dialect: SqlDialect): Migration {
  return {
    async up(db: Kysely<unknown>) {
      const t = columnTypes(dialect);
      await db.schema
        .createTable('directory_groups')
        .addColumn('source', t.text, (c) => c.notNull())
        .addColumn('external_id', t.text, (c) => c.notNull())
        .addColumn('group_id', t.text, (c) => c.notNull().references('groups.id').onDelete('cascade'))
        .addColumn('name', t.text, (c) => c.notNull())
        .addColumn('updated_at', t.time, (c) => c.notNull())
        .addPrimaryKeyConstraint('directory_groups_pk', ['source', 'external_id'])
        .execute();
      await db.schema.createIndex('directory_groups_group').on('directory_groups').column('group_id').execute();

      await db.schema
        .createTable('directory_memberships')
        .addColumn('group_id', t.text, (c) => c.notNull().references('groups.id').onDelete('cascade'))
        .addColumn('user_id', t.text, (c) => c.notNull().references('users.id').onDelete('cascade'))
        .addColumn('source', t.text, (c) => c.notNull())
        .addColumn('created_at', t.time, (c) => c.notNull())
        .addPrimaryKeyConstraint('directory_memberships_pk', ['group_id', 'user_id'])
        .execute();
      await db.schema.createIndex('directory_memberships_source').on('directory_memberships').columns(['source', 'user_id']).execute();

      await db.schema
        .createTable('directory_disabled')
        .addColumn('user_id', t.text, (c) => c.primaryKey().references('users.id').onDelete('cascade'))
        .addColumn('source', t.text, (c) => c.notNull())
        .addColumn('disabled_at', t.time, (c) => c.notNull())
        .execute();

      for (const col of ['reenabled', 'groups_added', 'members_added', 'members_removed']) {
        await db.schema.alterTable('identity_sync_reports').addColumn(col, t.int, (c) => c.notNull().defaultTo(0)).execute();
      }
      await db.schema.alterTable('ldap_config').addColumn('group_mapping', t.text, (c) => c.notNull().defaultTo('{}')).execute();
      await db.schema.alterTable('oidc_providers').addColumn('group_mapping', t.text, (c) => c.notNull().defaultTo('{}')).execute();
    },
  };
}
