// Converting a wave-1 SQLite data dir, made by the old migration system (its SQL files are kept in wave1-fixture/,
// which the tests apply to build such a data dir; the server no longer runs them; table
// schema_migrations), to the Kysely migrations, in place and inside migration 001's transaction.
//
// How it is recognised: migration 001 finds a table schema_migrations. Its tables are then already there, with
// exactly the columns 001 would create (same definitions), so 001 applies only what that database lacks:
//   - the steps of wave-1 migrations 003 to 005 when they were not applied yet (same code as a fresh database);
//   - the per-folder child counts, computed from the rows;
// drops the wave-1 tables no code uses (an empty one is dropped; one someone filled by hand is renamed
// wave1_<name> so nothing is lost and the name is free for the issue that brings the feature back), and finally
// drops schema_migrations. From then on kysely_migration records 001 as applied. An older server started on the
// converted database then fails loudly (its 001_initial.sql finds the tables) rather than running without
// maintaining the child counts.
import { sql, type Kysely } from 'kysely';
import type { ColumnTypes } from './column-types.ts';
import { addChildCounts, addUploadBounds, createCaptchas, createDownloadTickets } from './core-steps.ts';

type Db = Kysely<unknown>;

/** The wave-1 migrations this conversion knows. A data dir with any other cannot be converted blindly. */
const KNOWN_VERSIONS = [1, 3, 4, 5];

/** Children before the tables they reference, so no drop trips a foreign key. */
const UNUSED_TABLES = [
  'share_items',
  'share_targets',
  'shares',
  'user_roles',
  'roles',
  'favourites',
  'labels',
  'ip_access',
  'buckets',
  'cloud_connections',
  'sync_configs',
  'nodes',
  'regions',
  'ldap_config',
];

async function tableExists(db: Db, name: string): Promise<boolean> {
  const r = await sql<{ n: number }>`select count(*) as n from sqlite_master where type = 'table' and name = ${name}`.execute(db);
  return (r.rows[0]?.n ?? 0) > 0;
}

/** The wave-1 versions applied, or null when this is not a wave-1 database. */
export async function wave1Versions(db: Db): Promise<number[] | null> {
  if (!(await tableExists(db, 'schema_migrations'))) return null;
  const r = await sql<{ version: number }>`select version from schema_migrations order by version`.execute(db);
  return r.rows.map((row) => row.version);
}

/**
 * An old server that stopped before its first migration committed leaves an empty schema_migrations and no
 * tables (each wave-1 migration ran in a transaction): that database is simply new.
 */
export async function dropEmptyWave1Bookkeeping(db: Db): Promise<void> {
  await sql`drop table schema_migrations`.execute(db);
}

export async function convertWave1(db: Db, t: ColumnTypes, versions: number[]): Promise<void> {
  const unknown = versions.filter((v) => !KNOWN_VERSIONS.includes(v));
  if (unknown.length > 0 || !versions.includes(1)) {
    throw new Error(
      `this data dir has wave-1 migrations [${versions.join(', ')}]; the conversion knows [${KNOWN_VERSIONS.join(', ')}] ` +
        '(teach mock-server/src/db/sql/migrations/wave1.ts the others)',
    );
  }
  if (!versions.includes(3)) await createDownloadTickets(db, t);
  if (!versions.includes(4)) await addUploadBounds(db, t);
  if (!versions.includes(5)) await createCaptchas(db, t);

  for (const name of UNUSED_TABLES) {
    if (!(await tableExists(db, name))) continue;
    const r = await sql<{ n: number }>`select count(*) as n from ${sql.table(name)}`.execute(db);
    if ((r.rows[0]?.n ?? 0) === 0) await sql`drop table ${sql.table(name)}`.execute(db);
    else await sql`alter table ${sql.table(name)} rename to ${sql.table(`wave1_${name}`)}`.execute(db);
  }

  await addChildCounts(db, t);
  await sql`
    update instances set
      child_folders = (select count(*) from instances c where c.parent_id = instances.id and c.deleted_at is null and c.is_folder = 1),
      child_files = (select count(*) from instances c where c.parent_id = instances.id and c.deleted_at is null and c.is_folder = 0)
    where is_folder = 1`.execute(db);

  await sql`drop table schema_migrations`.execute(db);
}
