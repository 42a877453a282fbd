// 014: business libraries (issue #18 part 2).
// - business_libs.is_enabled (a disabled library leaves every list but the administrators') and custom (1 for
//   libraries administrators made; NetDisk and SysConfig stay 0 and are not edited through the library calls).
// - classifiers (document types of a library, with features) and lib_attributes (their typed fields; codes unique
//   per library, so a filter or exisAttrCode names one attribute).
// - instance_classifiers (a file's classifier) and instance_attrs (its values), deleted with the file's row; the
//   (attr_id, value_key) and (attr_id, value_num) indexes serve the list filters; (attr_id, unique_key) enforces
//   unique attributes.
import { sql, type Kysely } from 'kysely';
import type { Migration } from 'kysely/migration';
import type { SqlDialect } from '../tx.ts';
import { columnTypes } from './column-types.ts';

export function bizlibsMigration(dialect: SqlDialect): Migration {
  return {
    async up(db: Kysely<unknown>) {
      const t = columnTypes(dialect);
      await db.schema.alterTable('business_libs').addColumn('is_enabled', t.flag, (c) => c.notNull().defaultTo(1)).execute();
      await db.schema.alterTable('business_libs').addColumn('custom', t.flag, (c) => c.notNull().defaultTo(0)).execute();
      await sql`create unique index business_libs_code_key on business_libs (lower(lib_code))`.execute(db);
      await db.schema
        .createTable('classifiers')
        .addColumn('id', t.text, (c) => c.primaryKey())
        .addColumn('lib_code', t.text, (c) => c.notNull().references('business_libs.lib_code').onDelete('cascade'))
        .addColumn('code', t.text, (c) => c.notNull())
        .addColumn('code_key', t.text, (c) => c.notNull())
        .addColumn('name', t.text, (c) => c.notNull())
        .addColumn('name_en', t.text, (c) => c.notNull())
        .addColumn('features', t.text, (c) => c.notNull().defaultTo('[]'))
        .addColumn('sort', t.int, (c) => c.notNull().defaultTo(0))
        .addColumn('created_at', t.time, (c) => c.notNull())
        .execute();
      await db.schema.createIndex('classifiers_lib_code').on('classifiers').columns(['lib_code', 'code_key']).unique().execute();
      await db.schema
        .createTable('lib_attributes')
        .addColumn('id', t.text, (c) => c.primaryKey())
        .addColumn('classifier_id', t.text, (c) => c.notNull().references('classifiers.id').onDelete('cascade'))
        .addColumn('lib_code', t.text, (c) => c.notNull())
        .addColumn('code', t.text, (c) => c.notNull())
        .addColumn('code_key', t.text, (c) => c.notNull())
        .addColumn('name', t.text, (c) => c.notNull())
        .addColumn('name_en', t.text, (c) => c.notNull())
        .addColumn('data_type', t.text, (c) => c.notNull().check(sql`data_type in ('text', 'number', 'date', 'enumeration', 'user', 'department')`))
        .addColumn('required', t.flag, (c) => c.notNull().defaultTo(0))
        .addColumn('is_unique', t.flag, (c) => c.notNull().defaultTo(0))
        .addColumn('options', t.text, (c) => c.notNull().defaultTo('[]'))
        .addColumn('sort', t.int, (c) => c.notNull().defaultTo(0))
        .execute();
      await db.schema.createIndex('lib_attributes_lib_code').on('lib_attributes').columns(['lib_code', 'code_key']).unique().execute();
      await db.schema.createIndex('lib_attributes_classifier').on('lib_attributes').columns(['classifier_id', 'sort']).execute();
      await db.schema
        .createTable('instance_classifiers')
        .addColumn('instance_id', t.text, (c) => c.primaryKey().references('instances.id').onDelete('cascade'))
        .addColumn('classifier_id', t.text, (c) => c.notNull().references('classifiers.id').onDelete('cascade'))
        .addColumn('lib_code', t.text, (c) => c.notNull())
        .execute();
      await db.schema.createIndex('instance_classifiers_classifier').on('instance_classifiers').columns(['classifier_id', 'instance_id']).execute();
      await db.schema
        .createTable('instance_attrs')
        .addColumn('instance_id', t.text, (c) => c.notNull().references('instances.id').onDelete('cascade'))
        .addColumn('attr_id', t.text, (c) => c.notNull().references('lib_attributes.id').onDelete('cascade'))
        .addColumn('value_text', t.text, (c) => c.notNull())
        .addColumn('value_key', t.text, (c) => c.notNull())
        .addColumn('value_num', sql`double precision`)
        .addColumn('unique_key', t.text)
        .addPrimaryKeyConstraint('instance_attrs_pk', ['instance_id', 'attr_id'])
        .execute();
      await db.schema.createIndex('instance_attrs_value').on('instance_attrs').columns(['attr_id', 'value_key']).execute();
      await db.schema.createIndex('instance_attrs_num').on('instance_attrs').columns(['attr_id', 'value_num']).execute();
      // A unique attribute's value_key is repeated here (null otherwise: nulls never collide), so the database itself
      // refuses a second file with the value, whichever node writes it.
      await db.schema.createIndex('instance_attrs_unique').on('instance_attrs').columns(['attr_id', 'unique_key']).unique().execute();
    },
  };
}
