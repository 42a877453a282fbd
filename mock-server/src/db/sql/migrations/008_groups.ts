// 008: groups (issue #15). The groups and group_members tables of 001 gain what group management needs:
// - groups.description, groups.name_key (lower-cased name, unique among live groups: a name heads remote paths,
//   `group:<name>/a`), groups.updated_at. Groups from before keep their names; a duplicate among them gets its id
//   appended to its key so the index can be built (it is then reached by id).
// - group_members.level: 1 a full member (the group role applies to the whole group space), 2 a second-level member
//   (nothing by default; their role is granted on named folders, as rows of `grants`). created_at: when they joined.
// - group_handovers: an administrator's offer of the group to another member, pending until the receiver accepts or
//   declines (or it is cancelled); at most one pending per group.
import { sql, type Kysely } from 'kysely';
import type { Migration } from 'kysely/migration';
import type { SqlDialect } from '../tx.ts';
import { columnTypes } from './column-types.ts';

export function groupsMigration(dialect: SqlDialect): Migration {
  return {
    async up(db: Kysely<unknown>) {
      const t = columnTypes(dialect);
      await db.schema.alterTable('groups').addColumn('description', t.text, (c) => c.notNull().defaultTo('')).execute();
      await db.schema.alterTable('groups').addColumn('name_key', t.text, (c) => c.notNull().defaultTo('')).execute();
      await db.schema.alterTable('groups').addColumn('updated_at', t.time, (c) => c.notNull().defaultTo(0)).execute();
      await sql`
        update groups set name_key = case
          when exists (select 1 from groups o where o.dissolved_at is null and lower(o.name) = lower(groups.name) and o.id < groups.id)
          then lower(name) || '#' || id else lower(name) end,
          updated_at = created_at`.execute(db);
      await sql`create unique index groups_live_name on groups (name_key) where dissolved_at is null and name_key <> ''`.execute(db);
      await db.schema.alterTable('group_members').addColumn('level', t.int, (c) => c.notNull().defaultTo(1)).execute();
      await db.schema.alterTable('group_members').addColumn('created_at', t.time, (c) => c.notNull().defaultTo(0)).execute();
      // A user's groups (searchGroup, the access decision) are read by user.
      await db.schema.createIndex('group_members_user').on('group_members').columns(['user_id', 'group_id']).execute();
      await db.schema
        .createTable('group_handovers')
        .addColumn('id', t.text, (c) => c.primaryKey())
        .addColumn('group_id', t.text, (c) => c.notNull().references('groups.id').onDelete('cascade'))
        .addColumn('from_user_id', t.text, (c) => c.notNull().references('users.id').onDelete('cascade'))
        .addColumn('to_user_id', t.text, (c) => c.notNull().references('users.id').onDelete('cascade'))
        .addColumn('status', t.text, (c) => c.notNull().check(sql`status in ('pending', 'accepted', 'declined', 'cancelled')`))
        .addColumn('created_at', t.time, (c) => c.notNull())
        .addColumn('decided_at', t.time)
        .execute();
      await db.schema.createIndex('group_handovers_group').on('group_handovers').columns(['group_id', 'created_at']).execute();
      await db.schema.createIndex('group_handovers_to').on('group_handovers').columns(['to_user_id', 'status']).execute();
      await sql`create unique index group_handovers_one_pending on group_handovers (group_id) where status = 'pending'`.execute(db);
    },
  };
}
