// Sync configs and blob replicas (migration 016_replication): what is replicated where, and how far each copy got.
import { newId } from '../ids.ts';
import { sql, type Selectable } from 'kysely';
import { transaction, type Db } from './sql/tx.ts';
import { bumpVersion, Versioned } from '../config-store.ts';
import type { BlobReplicasTable, ReplicaState, SyncConfigsTable } from './sql/schema-replication.ts';

export type SyncConfigRow = Selectable<SyncConfigsTable>;
export type ReplicaRow = Selectable<BlobReplicasTable>;

export interface SyncConfig {
  id: string;
  libCode: string;
  folderId: string | null;
  sourceSite: string;
  targetSites: string[];
  createdAt: number;
  updatedAt: number;
  /** See 023_sync_status: every blob under the config has a replica row at each target site. */
  caughtUpAt: number | null;
}

function configOf(r: SyncConfigRow): SyncConfig {
  return {
    id: r.id, libCode: r.lib_code, folderId: r.folder_id, sourceSite: r.source_site, targetSites: JSON.parse(r.target_sites) as string[],
    createdAt: r.created_at, updatedAt: r.updated_at, caughtUpAt: r.caught_up_at,
  };
}

export async function listSyncConfigs(db: Db): Promise<SyncConfig[]> {
  return (await db.selectFrom('sync_configs').selectAll().orderBy('created_at').orderBy('id').execute()).map(configOf);
}

export async function getSyncConfig(db: Db, id: string): Promise<SyncConfig | undefined> {
  const r = await db.selectFrom('sync_configs').selectAll().where('id', '=', id).executeTakeFirst();
  return r && configOf(r);
}

export async function saveSyncConfig(
  db: Db, c: { id?: string | undefined; libCode: string; folderId: string | null; sourceSite: string; targetSites: string[] }, now = Date.now(),
): Promise<SyncConfig | undefined> {
  const values = { lib_code: c.libCode, folder_id: c.folderId, source_site: c.sourceSite, target_sites: JSON.stringify(c.targetSites), updated_at: now, caught_up_at: null };
  const saved = await transaction(db, async (trx) => {
    if (c.id) {
      const r = await trx.updateTable('sync_configs').set(values).where('id', '=', c.id).returningAll().executeTakeFirst();
      if (r) await bumpVersion(trx, SYNC_CONFIGS);
      return r && configOf(r);
    }
    const r = await trx.insertInto('sync_configs').values({ id: newId(9), ...values, created_at: now }).returningAll().executeTakeFirstOrThrow();
    await bumpVersion(trx, SYNC_CONFIGS);
    return configOf(r);
  });
  configCache.get(db)?.invalidate();
  return saved;
}

/**
 * A sweep's finding: whether every blob under the config, as the sweep read it, was recorded at every target site
 * (023_sync_status). An edit since the sweep read the config (its updated_at moved) keeps the edit's null.
 */
export async function setCaughtUp(db: Db, c: SyncConfig, caughtUp: boolean, now = Date.now()): Promise<void> {
  await transaction(db, async (trx) => {
    const r = await trx.updateTable('sync_configs').set({ caught_up_at: caughtUp ? now : null }).where('id', '=', c.id).where('updated_at', '=', c.updatedAt).executeTakeFirst();
    if (Number(r.numUpdatedRows) > 0) await bumpVersion(trx, SYNC_CONFIGS);
  });
  configCache.get(db)?.invalidate();
}

export async function deleteSyncConfig(db: Db, id: string): Promise<boolean> {
  const deleted = await transaction(db, async (trx) => {
    const r = await trx.deleteFrom('sync_configs').where('id', '=', id).executeTakeFirst();
    if (Number(r.numDeletedRows) === 0) return false;
    await bumpVersion(trx, SYNC_CONFIGS);
    return true;
  });
  configCache.get(db)?.invalidate();
  return deleted;
}

/** The live files' blobs under a config: the library, or one folder's subtree of it (walked by parent, folders only). */
function blobsUnder(c: SyncConfig) {
  return c.folderId === null
    ? sql`select distinct i.blob_id as id from instances i where i.lib_code = ${c.libCode} and i.deleted_at is null and i.blob_id is not null`
    : sql`select distinct i.blob_id as id from instances i where i.deleted_at is null and i.blob_id is not null and i.parent_id in (
        with recursive sub(id) as (
          select id from instances where id = ${c.folderId} and lib_code = ${c.libCode} and deleted_at is null
          union all
          select f.id from instances f join sub on f.parent_id = sub.id where f.is_folder = 1 and f.deleted_at is null
        ) select id from sub)`;
}

/**
 * Records up to `limit` blobs under the config that have no replica row for the site yet, as pending, and answers
 * them. The insert skips rows that exist (a sweep on another node, another config naming the same blob), so a blob
 * is queued for a site once.
 */
export async function queueMissing(db: Db, c: SyncConfig, siteId: string, limit: number, now = Date.now()): Promise<string[]> {
  const found = await sql<{ id: string; object_key: string; size: number | string }>`
    select b.id, b.object_key, b.size from blobs b
    where b.id in (${blobsUnder(c)})
      and not exists (select 1 from blob_replicas r where r.blob_id = b.id and r.site_id = ${siteId})
    limit ${limit}`.execute(db);
  if (found.rows.length === 0) return [];
  const inserted = await db
    .insertInto('blob_replicas')
    .values(found.rows.map((b) => ({
      blob_id: b.id, site_id: siteId, state: 'pending' as const, object_key: b.object_key, size: Number(b.size), error: null,
      queued_at: now, synced_at: null, gone_at: null, updated_at: now,
    })))
    .onConflict((oc) => oc.columns(['blob_id', 'site_id']).doNothing())
    .returning('blob_id')
    .execute();
  return inserted.map((r) => r.blob_id);
}

export async function getReplica(db: Db, blobId: string, siteId: string): Promise<ReplicaRow | undefined> {
  return db.selectFrom('blob_replicas').selectAll().where('blob_id', '=', blobId).where('site_id', '=', siteId).executeTakeFirst();
}

export async function setReplicaState(db: Db, blobId: string, siteId: string, state: ReplicaState, error: string | null, now = Date.now()): Promise<void> {
  await db
    .updateTable('blob_replicas')
    .set({ state, error, updated_at: now, ...(state === 'synced' ? { synced_at: now } : {}) })
    .where('blob_id', '=', blobId)
    .where('site_id', '=', siteId)
    .execute();
}

/** An administrator's retry of a failed replica: pending again, its lag counted from now. */
export async function retryReplica(db: Db, blobId: string, siteId: string, now = Date.now()): Promise<boolean> {
  const r = await db
    .updateTable('blob_replicas')
    .set({ state: 'pending', error: null, queued_at: now, updated_at: now })
    .where('blob_id', '=', blobId).where('site_id', '=', siteId).where('state', '=', 'failed').where('gone_at', 'is', null)
    .executeTakeFirst();
  return Number(r.numUpdatedRows) > 0;
}

/** Replicas of purged blobs whose delay ran out. */
export async function dueDeletions(db: Db, before: number, limit: number): Promise<ReplicaRow[]> {
  return db.selectFrom('blob_replicas').selectAll().where('gone_at', 'is not', null).where('gone_at', '<=', before).limit(limit).execute();
}

/** Whether a live replica at the site uses the key (content uploaded again after a purge lands on the same key). */
export async function keyInUse(db: Db, siteId: string, objectKey: string): Promise<boolean> {
  const r = await db
    .selectFrom('blob_replicas').select('blob_id')
    .where('site_id', '=', siteId).where('object_key', '=', objectKey).where('gone_at', 'is', null)
    .executeTakeFirst();
  return r !== undefined;
}

/** Whether a site holds a synced copy under this object key (a signed read of that copy). */
export async function syncedCopyOfKey(db: Db, siteId: string, objectKey: string): Promise<boolean> {
  const r = await db
    .selectFrom('blob_replicas').select('blob_id')
    .where('site_id', '=', siteId).where('object_key', '=', objectKey).where('state', '=', 'synced').where('gone_at', 'is', null)
    .executeTakeFirst();
  return r !== undefined;
}

export async function dropReplica(db: Db, blobId: string, siteId: string): Promise<void> {
  await db.deleteFrom('blob_replicas').where('blob_id', '=', blobId).where('site_id', '=', siteId).execute();
}

export interface SiteProgress {
  siteId: string;
  synced: number;
  pending: number;
  failed: number;
  syncedBytes: number;
  lagBytes: number;
  /** Queue time of the oldest copy not made yet (null when none is behind). */
  oldestQueuedAt: number | null;
}

export async function progressBySite(db: Db): Promise<SiteProgress[]> {
  const rows = await db
    .selectFrom('blob_replicas')
    .select(['site_id', 'state'])
    .select((eb) => [eb.fn.countAll<number | string>().as('n'), eb.fn.sum<number | string>('size').as('bytes'), eb.fn.min<number | string>('queued_at').as('oldest')])
    .where('gone_at', 'is', null)
    .groupBy(['site_id', 'state'])
    .execute();
  const by = new Map<string, SiteProgress>();
  for (const r of rows) {
    const p = by.get(r.site_id) ?? { siteId: r.site_id, synced: 0, pending: 0, failed: 0, syncedBytes: 0, lagBytes: 0, oldestQueuedAt: null };
    const n = Number(r.n);
    const bytes = Number(r.bytes ?? 0);
    if (r.state === 'synced') {
      p.synced += n;
      p.syncedBytes += bytes;
    } else {
      p[r.state] += n;
      p.lagBytes += bytes;
      const oldest = Number(r.oldest);
      p.oldestQueuedAt = p.oldestQueuedAt === null ? oldest : Math.min(p.oldestQueuedAt, oldest);
    }
    by.set(r.site_id, p);
  }
  return [...by.values()];
}

export async function listFailures(db: Db, limit: number): Promise<ReplicaRow[]> {
  return db.selectFrom('blob_replicas').selectAll().where('state', '=', 'failed').where('gone_at', 'is', null).orderBy('updated_at', 'desc').limit(limit).execute();
}

export async function replicasOf(db: Db, blobIds: readonly string[]): Promise<ReplicaRow[]> {
  if (blobIds.length === 0) return [];
  return db.selectFrom('blob_replicas').selectAll().where('blob_id', 'in', blobIds).where('gone_at', 'is', null).execute();
}

/** The blobs of up to `limit` live files in a folder's subtree (a bounded walk: a status read never scans a huge tree whole). */
export async function blobsInFolder(db: Db, folderId: string, limit: number): Promise<string[]> {
  const r = await sql<{ blob_id: string }>`
    with recursive sub(id) as (
      select id from instances where id = ${folderId}
      union all
      select f.id from instances f join sub on f.parent_id = sub.id where f.is_folder = 1 and f.deleted_at is null
    )
    select i.blob_id from instances i where i.parent_id in (select id from sub) and i.deleted_at is null and i.blob_id is not null limit ${limit}`.execute(db);
  return r.rows.map((x) => x.blob_id);
}

/** The admin_versions counter every change to sync_configs moves (migration 026). */
const SYNC_CONFIGS = 'syncConfigs';

/**
 * Each node's copy of the sync configs (a small table) for the listings: read again only when the counter moved, asked
 * at most every VERSION_CHECK_MS, so another node's change shows within a second and this node's at once.
 */
const configCache = new WeakMap<Db, Versioned<SyncConfig[]>>();

/** The sync configs of a library, from this node's copy. */
export async function syncConfigsOfLibrary(db: Db, libCode: string): Promise<SyncConfig[]> {
  let cached = configCache.get(db);
  if (!cached) configCache.set(db, (cached = new Versioned(db, SYNC_CONFIGS, listSyncConfigs)));
  return (await cached.get()).filter((c) => c.libCode === libCode);
}

export interface LagBelow { folder_id: string; blob_id: string; site_id: string; state: ReplicaState; size: number | string; queued_at: number | string; error: string | null }

/**
 * The copies behind (pending or failed) at `sites` of live files in the library, each named with every one of
 * `folderIds` it lies below. Reads at most `limit` copies behind (through the (site_id, state) index), never the
 * folders' trees: each copy's file is walked up its folder chain to the library root (a folder download's page holds
 * folders below others). `truncated`: more than `limit` copies are behind.
 */
export async function lagBelow(db: Db, libCode: string, sites: readonly string[], folderIds: readonly string[], limit: number): Promise<{ rows: LagBelow[]; truncated: boolean }> {
  // Mostly nothing is behind: one index probe answers that, cheaper than preparing the walk below.
  const any = await db.selectFrom('blob_replicas').select('blob_id')
    .where('site_id', 'in', sites).where('state', 'in', ['pending', 'failed']).where('gone_at', 'is', null).limit(1).executeTakeFirst();
  if (!any) return { rows: [], truncated: false };
  // The last row (folder_id null) carries how many copies lag holds. SQLite would read the library's files by
  // lib_code, every one of them, per listing: CROSS JOIN makes it read the copies behind first, and `|| ''` keeps it
  // from the lib_code index for their files (it takes instances_blob). PostgreSQL plans the inner join it is.
  const r = await sql<Omit<LagBelow, 'folder_id'> & { folder_id: string | null }>`
    with recursive lag as (
      select r.blob_id, r.site_id, r.state, r.size, r.queued_at, r.error, i.parent_id
      from blob_replicas r cross join instances i
      where i.blob_id = r.blob_id and r.site_id in (${sql.join(sites)}) and r.state in ('pending', 'failed') and r.gone_at is null
        and i.deleted_at is null and i.lib_code || '' = ${libCode}
      limit ${limit + 1}
    ), up(blob_id, site_id, state, size, queued_at, error, folder_id) as (
      select blob_id, site_id, state, size, queued_at, error, parent_id from lag
      union all
      select up.blob_id, up.site_id, up.state, up.size, up.queued_at, up.error, p.parent_id
      from up join instances p on p.id = up.folder_id
      where p.parent_id is not null
    )
    select folder_id, blob_id, site_id, state, size, queued_at, error from up where folder_id in (${sql.join(folderIds)})
    union all
    select null, '', '', 'pending', count(*), 0, null from lag`.execute(db);
  const rows: LagBelow[] = [];
  let truncated = false;
  for (const x of r.rows) {
    if (x.folder_id === null) truncated = Number(x.size) > limit;
    else rows.push({ ...x, folder_id: x.folder_id });
  }
  return { rows, truncated };
}
