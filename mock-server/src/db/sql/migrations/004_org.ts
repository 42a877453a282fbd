// 004: the organisation (issue #14). Departments become a tree with a materialised id path (`/root/a/b/`), so a
// subtree is one prefix query and "never under itself" is a string test; names are unique among siblings
// case-insensitively; the company is the root department `root`. Department managers administer their subtree;
// accounts get labels and optional e-mail and phone.
import { sql, type Kysely } from 'kysely';
import type { Migration } from 'kysely/migration';
import type { SqlDialect } from '../tx.ts';
import { columnTypes } from './column-types.ts';

/** The company: the root of the department tree, seeded here so every database has exactly one. */
export const ROOT_DEPT_ID = 'root';

export function orgMigration(dialect: SqlDialect): Migration {
  return {
    async up(db: Kysely<unknown>) {
      const t = columnTypes(dialect);
      // Defaults keep inserts written before this migration (fixtures, tests) valid; the repository fills them.
      await db.schema.alterTable('departments').addColumn('name_key', t.text, (c) => c.notNull().defaultTo('')).execute();
      await db.schema.alterTable('departments').addColumn('sort', t.int, (c) => c.notNull().defaultTo(0)).execute();
      await db.schema.alterTable('departments').addColumn('path', t.text, (c) => c.notNull().defaultTo('')).execute();

      const now = Date.now();
      await sql`insert into departments (id, name, parent_id, quota_bytes, used_bytes, created_at)
        select ${ROOT_DEPT_ID}, ${'Company'}, null, null, 0, ${now}
        where not exists (select 1 from departments where id = ${ROOT_DEPT_ID})`.execute(db);
      // Departments from before the tree hang under the root; then paths are filled top-down, one level a round.
      await sql`update departments set parent_id = ${ROOT_DEPT_ID} where parent_id is null and id <> ${ROOT_DEPT_ID}`.execute(db);
      await sql`update departments set name_key = lower(name), path = ${`/${ROOT_DEPT_ID}/`} where id = ${ROOT_DEPT_ID}`.execute(db);
      for (let depth = 0; depth < 1000; depth++) {
        const res = await sql`update departments set name_key = lower(name),
            path = (select p.path from departments p where p.id = departments.parent_id) || id || '/'
          where path = '' and parent_id in (select id from departments where path <> '')`.execute(db);
        if (Number(res.numAffectedRows ?? 0) === 0) break;
      }
      await sql`create unique index departments_sibling_name on departments (coalesce(parent_id, ''), name_key)`.execute(db);
      await db.schema.createIndex('departments_path').on('departments').column('path').execute();

      await db.schema.alterTable('users').addColumn('email', t.text, (c) => c.notNull().defaultTo('')).execute();
      await db.schema.alterTable('users').addColumn('phone', t.text, (c) => c.notNull().defaultTo('')).execute();
      await db.schema.createIndex('users_dept').on('users').column('dept_id').execute();

      await db.schema
        .createTable('dept_managers')
        .addColumn('dept_id', t.text, (c) => c.notNull().references('departments.id').onDelete('cascade'))
        .addColumn('user_id', t.text, (c) => c.notNull().references('users.id').onDelete('cascade'))
        .addPrimaryKeyConstraint('dept_managers_pk', ['dept_id', 'user_id'])
        .execute();
      await db.schema.createIndex('dept_managers_user').on('dept_managers').column('user_id').execute();

      await db.schema
        .createTable('user_labels')
        .addColumn('user_id', t.text, (c) => c.notNull().references('users.id').onDelete('cascade'))
        .addColumn('label', t.text, (c) => c.notNull())
        .addColumn('label_key', t.text, (c) => c.notNull())
        .addPrimaryKeyConstraint('user_labels_pk', ['user_id', 'label_key'])
        .execute();
      await db.schema.createIndex('user_labels_label').on('user_labels').column('label_key').execute();
    },
  };
}
