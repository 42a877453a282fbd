// The migrations, listed here in order rather than found by scanning a folder: a bundled or packaged server
// has no folder to scan, and a list makes a forgotten file a type error instead of a silently skipped migration.
// Names sort in the order they run (Kysely refuses to run one that sorts before an applied one). Forward-only:
// no down migrations; a release that needs to undo something adds a new migration.
import type { Kysely } from 'kysely';
import { Migrator, type Migration, type MigrationProvider, type MigrationResultSet } from 'kysely/migration';
import type { SqlDialect } from '../tx.ts';
import { coreMigration } from './001_core.ts';
import { jobsMigration } from './002_jobs.ts';
import { leasesMigration } from './003_leases.ts';
import { orgMigration } from './004_org.ts';
import { rolesMigration } from './005_roles.ts';
import { recycleMigration } from './006_recycle.ts';
import { searchMigration } from './007_search.ts';
import { groupsMigration } from './008_groups.ts';
import { sharesMigration } from './009_shares.ts';
import { linksMigration } from './010_links.ts';
import { dlpMigration } from './011_dlp.ts';
import { identityMigration } from './012_identity.ts';
import { adminMigration } from './013_admin.ts';
import { bizlibsMigration } from './014_bizlibs.ts';
import { storageMigration } from './015_storage.ts';
import { replicationMigration } from './016_replication.ts';
import { pullSyncMigration } from './017_pullsync.ts';
import { identityGroupsMigration } from './018_identity_groups.ts';
import { bizlibScreensMigration } from './019_bizlib_screens.ts';
import { shareCallbackMigration } from './020_share_callback.ts';
import { searchWalkMigration } from './021_search_walk.ts';
import { storageRoutingMigration } from './022_storage_routing.ts';
import { syncStatusMigration } from './023_sync_status.ts';
import { sessionEventsMigration } from './024_session_events.ts';
import { blobKeysMigration } from './025_blob_keys.ts';
import { syncConfigVersionMigration } from './026_sync_config_version.ts';
import { userMarksMigration } from './027_user_marks.ts';

export function migrationsFor(dialect: SqlDialect): Record<string, Migration> {
  return {
    '001_core': coreMigration(dialect),
    '002_jobs': jobsMigration(dialect),
    '003_leases': leasesMigration(dialect),
    '004_org': orgMigration(dialect),
    '005_roles': rolesMigration(dialect),
    '006_recycle': recycleMigration(dialect),
    '007_search': searchMigration(dialect),
    '008_groups': groupsMigration(dialect),
    '009_shares': sharesMigration(dialect),
    '010_links': linksMigration(dialect),
    '011_dlp': dlpMigration(dialect),
    '012_identity': identityMigration(dialect),
    '013_admin': adminMigration(dialect),
    '014_bizlibs': bizlibsMigration(dialect),
    '015_storage': storageMigration(dialect),
    '016_replication': replicationMigration(dialect),
    '017_pullsync': pullSyncMigration(dialect),
    '018_identity_groups': identityGroupsMigration(dialect),
    '019_bizlib_screens': bizlibScreensMigration(dialect),
    '020_share_callback': shareCallbackMigration(dialect),
    '021_search_walk': searchWalkMigration(),
    '022_storage_routing': storageRoutingMigration(dialect),
    '023_sync_status': syncStatusMigration(dialect),
    '024_session_events': sessionEventsMigration(dialect),
    '025_blob_keys': blobKeysMigration(),
    '026_sync_config_version': syncConfigVersionMigration(),
    '027_user_marks': userMarksMigration(dialect),
  };
}

class StaticMigrationProvider implements MigrationProvider {
  readonly #migrations: Record<string, Migration>;

  constructor(migrations: Record<string, Migration>) {
    this.#migrations = migrations;
  }

  async getMigrations(): Promise<Record<string, Migration>> {
    return this.#migrations;
  }
}

/**
 * Applies every pending migration, each in its own transaction with its kysely_migration row (PostgreSQL and
 * SQLite both have transactional DDL). Several nodes starting at once on PostgreSQL take turns on Kysely's
 * advisory lock; on SQLite the IMMEDIATE transaction serialises processes. Returns the names applied now.
 */
export async function migrateToLatest<DB>(db: Kysely<DB>, dialect: SqlDialect): Promise<string[]> {
  const migrator = new Migrator({ db, provider: new StaticMigrationProvider(migrationsFor(dialect)) });
  const result: MigrationResultSet = await migrator.migrateToLatest();
  if (result.error !== undefined) {
    const failed = result.results?.find((r) => r.status === 'Error')?.migrationName;
    const cause = result.error instanceof Error ? result.error : new Error(String(result.error));
    throw new Error(`database migration ${failed ?? '(setup)'} failed: ${cause.message}`, { cause });
  }
  return (result.results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName);
}
