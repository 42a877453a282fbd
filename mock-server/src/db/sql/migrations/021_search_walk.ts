// 021: the space name index that walks for a common or short keyword (search-repo.ts) leaves out space roots.
// The walk asks for `parent_id is not null` (a root is not a search result). With roots in the index that condition
// needed each row's heap tuple, so the walk could not be an index-only scan: on PostgreSQL a common word over
// 1,000,000 files visited ~13,000 rows to fill a page of 20 in 155 ms; with the condition in the index's predicate the
// same walk reads only the index, in 2.6 ms (README, name search). Only search uses this index.
import { sql, type Kysely, type SqlBool } from 'kysely';
import type { Migration } from 'kysely/migration';

export function searchWalkMigration(): Migration {
  return {
    async up(db: Kysely<unknown>) {
      await db.schema.dropIndex('instances_space_name').execute();
      await db.schema
        .createIndex('instances_space_name')
        .on('instances')
        .columns(['space_kind', 'space_id', 'name_key', 'id'])
        .where(sql<SqlBool>`deleted_at is null and parent_id is not null`)
        .execute();
    },
  };
}
