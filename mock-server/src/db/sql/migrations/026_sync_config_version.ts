// 026: a change counter for the sync configs (admin_versions, as for the run-time config and the IP white list).
// Every listing and folder-info answer asks which configs cover the library; each node keeps the (small) table and
// reads it again only when the counter moved, instead of one more query on every listing.
import { sql, type Kysely } from 'kysely';
import type { Migration } from 'kysely/migration';

export function syncConfigVersionMigration(): Migration {
  return {
    async up(db: Kysely<unknown>) {
      await sql`insert into admin_versions (name, version) values ('syncConfigs', 0)`.execute(db);
    },
  };
}
