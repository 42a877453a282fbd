// 007: favourites, per-user labels, document templates and name search (issue #16 items 2, 3, 5 and 6).
//
// Name search matches a substring of name_key (the NFC, lower-cased name) in any script, Chinese included, so a
// word index will not do: both databases index the name's trigrams (runs of 3 code points). SQLite gets an FTS5
// table with the trigram tokenizer, kept current by triggers on instances (the same transaction as every insert,
// rename and delete); its rowid is the instance row's, and search re-checks the name on the instance it joins, so an
// entry could only ever cost time, never return a wrong row. PostgreSQL gets a GIN index over hcs_name_trigrams(
// name_key), the same trigrams as an array, which the database keeps current itself. Not pg_trgm: it takes trigrams
// only of what the database's LC_CTYPE calls letters and digits, and under the C ctype (tests/pg/postgres.sh, and
// any cluster initialised without a UTF-8 locale) it finds none in Chinese, so its index could not serve a CJK
// keyword at all (show_trgm('财务说明') is empty there; the search fell back to reading every row). Trigrams cannot
// serve a keyword of 1 or 2 characters: those scan the caller's spaces through instances_space_name instead
// (search-repo.ts).
import { sql, type Kysely } from 'kysely';
import type { Migration } from 'kysely/migration';
import type { SqlDialect } from '../tx.ts';
import { columnTypes } from './column-types.ts';
import { isNull } from './core-steps.ts';

export function searchMigration(dialect: SqlDialect): Migration {
  return {
    async up(db: Kysely<unknown>) {
      const t = columnTypes(dialect);
      await db.schema
        .createTable('favourites')
        .addColumn('user_id', t.text, (c) => c.notNull().references('users.id').onDelete('cascade'))
        .addColumn('instance_id', t.text, (c) => c.notNull().references('instances.id').onDelete('cascade'))
        .addColumn('created_at', t.time, (c) => c.notNull())
        .addPrimaryKeyConstraint('favourites_pk', ['user_id', 'instance_id'])
        .execute();
      await db.schema.createIndex('favourites_user_time').on('favourites').columns(['user_id', 'created_at']).execute();
      // Listings mark the favourites of a page's ids.
      await db.schema.createIndex('favourites_instance').on('favourites').columns(['instance_id', 'user_id']).execute();

      await db.schema
        .createTable('labels')
        .addColumn('id', t.text, (c) => c.primaryKey())
        .addColumn('user_id', t.text, (c) => c.notNull().references('users.id').onDelete('cascade'))
        .addColumn('name', t.text, (c) => c.notNull())
        .addColumn('name_key', t.text, (c) => c.notNull())
        .addColumn('color', t.text, (c) => c.notNull())
        .addColumn('created_at', t.time, (c) => c.notNull())
        .addUniqueConstraint('labels_user_name', ['user_id', 'name_key'])
        .execute();
      await db.schema
        .createTable('instance_labels')
        .addColumn('label_id', t.text, (c) => c.notNull().references('labels.id').onDelete('cascade'))
        .addColumn('instance_id', t.text, (c) => c.notNull().references('instances.id').onDelete('cascade'))
        .addColumn('user_id', t.text, (c) => c.notNull().references('users.id').onDelete('cascade'))
        .addColumn('created_at', t.time, (c) => c.notNull())
        .addPrimaryKeyConstraint('instance_labels_pk', ['label_id', 'instance_id'])
        .execute();
      await db.schema.createIndex('instance_labels_item').on('instance_labels').columns(['instance_id', 'user_id']).execute();

      await db.schema
        .createTable('templates')
        .addColumn('id', t.text, (c) => c.primaryKey())
        .addColumn('name', t.text, (c) => c.notNull())
        .addColumn('kind', t.text, (c) => c.notNull().check(sql`kind in ('docx', 'xlsx', 'pptx', 'txt')`))
        .addColumn('blob_id', t.text, (c) => c.notNull().references('blobs.id'))
        .addColumn('size', t.bytes, (c) => c.notNull())
        .addColumn('created_by', t.text, (c) => c.notNull().references('users.id'))
        .addColumn('created_at', t.time, (c) => c.notNull())
        .execute();

      // The candidates of a search are first narrowed to the caller's spaces; a short keyword walks this in name order.
      await db.schema
        .createIndex('instances_space_name')
        .on('instances')
        .columns(['space_kind', 'space_id', 'name_key', 'id'])
        .where(isNull('deleted_at'))
        .execute();
      // The administrators' file view: every file, newest first.
      await db.schema.createIndex('instances_created_all').on('instances').columns(['created_at', 'id']).execute();

      if (dialect === 'postgres') {
        // Immutable (substr and char_length of the argument only), so it may define an index; search-repo.ts asks
        // hcs_name_trigrams(name_key) @> the keyword's trigrams, which that index answers.
        await sql`create function hcs_name_trigrams(t text) returns text[] language sql immutable strict parallel safe as $$
          select coalesce(array_agg(distinct substr(t, i, 3)), '{}'::text[]) from generate_series(1, char_length(t) - 2) as i
        $$`.execute(db);
        await sql`create index instances_name_trigrams on instances using gin (hcs_name_trigrams(name_key))`.execute(db);
        return;
      }
      await sql`create virtual table instances_fts using fts5(name_key, tokenize = 'trigram', detail = 'none')`.execute(db);
      await sql`insert into instances_fts (rowid, name_key) select rowid, name_key from instances`.execute(db);
      await sql`create trigger instances_fts_insert after insert on instances begin
        insert into instances_fts (rowid, name_key) values (new.rowid, new.name_key);
      end`.execute(db);
      await sql`create trigger instances_fts_delete after delete on instances begin
        delete from instances_fts where rowid = old.rowid;
      end`.execute(db);
      await sql`create trigger instances_fts_rename after update of name_key on instances begin
        delete from instances_fts where rowid = old.rowid;
        insert into instances_fts (rowid, name_key) values (new.rowid, new.name_key);
      end`.execute(db);
    },
  };
}
