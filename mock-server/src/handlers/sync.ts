// Cross-site replication's calls (contract tag "sync", issue #20 part 3): sync configs, progress, retries, and a
// file's or folder's copies. The contract marks all but instanceStatus admin, and instanceStatus needs view on the
// entry, so the route layer has refused everyone else already.
import type { AppContext, Handlers } from '../context.ts';
import { done, ok } from '../http/envelope.ts';
import { AppError } from '../http/errors.ts';
import { getBusinessLib } from '../db/libraries-repo.ts';
import { NETDISK } from '../db/seed.ts';
import { getInstanceRow } from '../db/instances-repo.ts';
import { getSite, listSites } from '../db/storage-repo.ts';
import {
  blobsInFolder, deleteSyncConfig, getSyncConfig, listFailures, listSyncConfigs, progressBySite, replicasOf, retryReplica, saveSyncConfig,
  type ReplicaRow, type SyncConfig,
} from '../db/replication-repo.ts';
import { nudgeReplication, queueCopy } from '../replication/runner.ts';
import type { components } from '@hcs/openapi/schema';

type Schemas = components['schemas'];

/** Files a folder's status counts at most: a status read stays one bounded query, whatever the tree's size. */
const FOLDER_STATUS_LIMIT = 10_000;

function configView(c: SyncConfig): Schemas['SyncConfig'] {
  return { id: c.id, libCode: c.libCode, folderId: c.folderId, sourceSiteId: c.sourceSite, targetSiteIds: c.targetSites, createTime: c.createdAt, updateTime: c.updatedAt };
}

const secondsSince = (now: number, t: number | null) => (t === null ? 0 : Math.max(0, Math.floor((now - t) / 1000)));

export function syncHandlers(ctx: AppContext): Handlers {
  const { db } = ctx;

  async function siteNames(): Promise<Map<string, string>> {
    return new Map((await listSites(db)).map((s) => [s.id, s.name]));
  }

  async function config(id: string): Promise<SyncConfig> {
    const c = await getSyncConfig(db, id);
    if (!c) throw new AppError('NOT_FOUND', `no sync config ${id}`);
    return c;
  }

  return {
    async addOrUpdateSyncConfig(req) {
      const b = req.body;
      if (b.id) await config(b.id);
      // NetDisk (personal, group and department files) is no business library row but is replicated like one.
      if (b.libCode !== NETDISK && !(await getBusinessLib(db, b.libCode))) throw new AppError('NOT_FOUND', `no library ${b.libCode}`);
      for (const id of [b.sourceSiteId, ...b.targetSiteIds]) if (!(await getSite(db, id))) throw new AppError('NOT_FOUND', `no site ${id}`);
      if (b.targetSiteIds.includes(b.sourceSiteId)) {
        throw new AppError('BAD_REQUEST', 'a target site is the source site', { fields: [{ field: 'targetSiteIds', message: 'source' }] });
      }
      const folderId = b.folderId ?? null;
      if (folderId !== null) {
        const f = await getInstanceRow(db, folderId);
        if (!f || f.deletedAt !== null) throw new AppError('NOT_FOUND', `no folder ${folderId}`);
        if (!f.isFolder || f.libCode !== b.libCode) {
          throw new AppError('BAD_REQUEST', 'folderId is not a folder of the library', { fields: [{ field: 'folderId', message: 'not a folder of the library' }] });
        }
      }
      const saved = await saveSyncConfig(db, { id: b.id, libCode: b.libCode, folderId, sourceSite: b.sourceSiteId, targetSites: b.targetSiteIds });
      if (!saved) throw new AppError('NOT_FOUND', `no sync config ${b.id}`);
      await nudgeReplication(ctx);
      return ok(configView(saved));
    },

    async deleteSyncConfig(req) {
      if (!(await deleteSyncConfig(db, req.body.id))) throw new AppError('NOT_FOUND', `no sync config ${req.body.id}`);
      return done();
    },

    async listSyncConfigs() {
      return ok({ list: (await listSyncConfigs(db)).map(configView) });
    },

    async getSyncConfig(req) {
      return ok(configView(await config(req.query.id)));
    },

    async getClusterSyncStatus() {
      const now = Date.now();
      const [names, progress, failures] = await Promise.all([siteNames(), progressBySite(db), listFailures(db, 100)]);
      return ok({
        sites: progress.map((p) => ({
          siteId: p.siteId, siteName: names.get(p.siteId) ?? '', synced: p.synced, pending: p.pending, failed: p.failed,
          syncedBytes: p.syncedBytes, lagBytes: p.lagBytes, lagSeconds: secondsSince(now, p.oldestQueuedAt),
        })),
        failures: failures.map((f) => ({
          blobId: f.blob_id, siteId: f.site_id, siteName: names.get(f.site_id) ?? '', size: Number(f.size), reason: f.error ?? '',
          queuedAt: f.queued_at, updatedAt: f.updated_at,
        })),
      });
    },

    async retryClusterSync(req) {
      const { blobId, siteId } = req.body;
      if ((blobId === undefined) !== (siteId === undefined)) {
        throw new AppError('BAD_REQUEST', 'give both blobId and siteId, or neither', { fields: [{ field: blobId === undefined ? 'blobId' : 'siteId', message: 'required' }] });
      }
      const targets = blobId !== undefined && siteId !== undefined ? [{ blob_id: blobId, site_id: siteId }] : await listFailures(db, 10_000);
      let retried = 0;
      for (const r of targets) {
        if (!(await retryReplica(db, r.blob_id, r.site_id))) continue;
        await queueCopy(ctx, r.blob_id, r.site_id);
        retried++;
      }
      if (blobId !== undefined && retried === 0) throw new AppError('NOT_FOUND', 'no failed copy of that blob at that site');
      return ok({ retried });
    },

    async getInstanceSyncStatus(req) {
      const row = await getInstanceRow(db, req.query.instanceId);
      if (!row || row.deletedAt !== null) throw new AppError('NOT_FOUND', 'the entry does not exist');
      const blobs = row.isFolder ? await blobsInFolder(db, row.id, FOLDER_STATUS_LIMIT + 1) : row.blobId ? [row.blobId] : [];
      const truncated = blobs.length > FOLDER_STATUS_LIMIT;
      const replicas = await replicasOf(db, [...new Set(blobs.slice(0, FOLDER_STATUS_LIMIT))]);
      const names = await siteNames();
      const now = Date.now();
      const bySite = new Map<string, ReplicaRow[]>();
      for (const r of replicas) bySite.set(r.site_id, [...(bySite.get(r.site_id) ?? []), r]);
      const sites = [...bySite].map(([siteId, rs]) => {
        const behind = rs.filter((r) => r.state !== 'synced');
        const failed = rs.filter((r) => r.state === 'failed');
        const oldest = behind.length ? Math.min(...behind.map((r) => r.queued_at)) : null;
        return {
          siteId, siteName: names.get(siteId) ?? '',
          syncStatus: failed.length ? 'failed' as const : behind.length ? 'pending' as const : 'synced' as const,
          synced: rs.length - behind.length, pending: behind.length - failed.length, failed: failed.length,
          lagBytes: behind.reduce((n, r) => n + Number(r.size), 0), lagSeconds: secondsSince(now, oldest),
          ...(failed[0]?.error ? { reason: failed[0].error } : {}),
        };
      });
      return ok({ instanceId: row.id, isFolder: row.isFolder, sites, truncated });
    },
  };
}
