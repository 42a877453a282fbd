// Replication state where users see files (issue #20): listing rows and getFolderInfo entries, at a bounded cost
// whatever the library's size, so a listing is no slower for it.
// - A file: its blob's replica rows, one indexed query (blob_replicas' primary key) for a whole page of rows.
// - A folder, rolled up: never a walk of the folder. The copies that are behind (pending or failed, read through the
//   (site_id, state) index, at most LAG_LIMIT of them) are joined to their files in the library and walked up the
//   folder chain; a page's folder that one of them reaches is behind. A folder none reaches is synced, unless a
//   covering config is not caught up (a sweep has not recorded every blob under it yet: 023_sync_status): then it is
//   pending, marked partial. With nothing behind, the rollup costs one empty index read.
import type { Db } from '../db/sql/tx.ts';
import { chainOf, getInstanceChains, type InstanceRow } from '../db/instances-repo.ts';
import { findSiteByName } from '../db/storage-repo.ts';
import { lagBelow, replicasOf, syncConfigsOfLibrary, type SyncConfig } from '../db/replication-repo.ts';
import type { components } from '@hcs/openapi/schema';

export type ReplicationState = components['schemas']['ReplicationState'];

/** Copies behind that one folder rollup reads at most (beyond it the figures are partial). */
const LAG_LIMIT = 10_000;

/** Blob ids per IN list: well under SQLite's and PostgreSQL's bound parameters. */
const IN_CHUNK = 1000;

/** The configs covering an item whose folder chain (ancestors, and the item itself) is `chain`. */
export function covering(configs: readonly SyncConfig[], chain: Iterable<string>): SyncConfig[] {
  const ids = new Set(chain);
  return configs.filter((c) => c.folderId === null || ids.has(c.folderId));
}

/** Per target site: what is behind. */
interface SiteLag { pending: number; failed: number; bytes: number; oldest: number | null; reason?: string }

/** One item's copies at its target sites, kept per site so a caller can also answer for one site. */
export class ItemSync {
  readonly sites = new Map<string, SiteLag>();
  partial = false;

  constructor(targets: Iterable<string>) {
    for (const s of targets) this.sites.set(s, { pending: 0, failed: 0, bytes: 0, oldest: null });
  }

  behind(siteId: string, failed: boolean, bytes: number, queuedAt: number, reason: string | null): void {
    const s = this.sites.get(siteId);
    if (!s) return;
    if (failed) s.failed++;
    else s.pending++;
    s.bytes += bytes;
    s.oldest = s.oldest === null ? queuedAt : Math.min(s.oldest, queuedAt);
    if (failed && reason && s.reason === undefined) s.reason = reason;
  }

  /** Whether the copy at `siteId` is still being made (a target there with a pending copy). */
  pendingAt(siteId: string | undefined): boolean {
    const s = siteId === undefined ? undefined : this.sites.get(siteId);
    return s !== undefined && (s.pending > 0 || (this.partial && s.failed === 0));
  }

  view(now: number): ReplicationState {
    let failed = false;
    let pending = this.partial;
    let bytes = 0;
    let oldest: number | null = null;
    let reason: string | undefined;
    for (const s of this.sites.values()) {
      failed ||= s.failed > 0;
      pending ||= s.pending > 0;
      bytes += s.bytes;
      if (s.oldest !== null) oldest = oldest === null ? s.oldest : Math.min(oldest, s.oldest);
      reason ??= s.reason;
    }
    return {
      state: failed ? 'failed' : pending ? 'pending' : 'synced',
      lagSeconds: oldest === null ? 0 : Math.max(0, Math.floor((now - oldest) / 1000)),
      lagBytes: bytes,
      ...(reason !== undefined ? { reason } : {}),
      ...(this.partial ? { partial: true } : {}),
    };
  }
}

/**
 * The replication of `items` (files and folders of one library), each against the configs covering it
 * (`configsOf`, empty: not replicated, left out of the answer).
 */
export async function syncOfItems(
  db: Db, libCode: string, items: readonly InstanceRow[], configsOf: (item: InstanceRow) => readonly SyncConfig[],
): Promise<Map<string, ItemSync>> {
  const out = new Map<string, ItemSync>();
  const files: InstanceRow[] = [];
  const folders: InstanceRow[] = [];
  const sitesOfFolders = new Set<string>();
  for (const item of items) {
    const configs = configsOf(item);
    if (configs.length === 0) continue;
    const targets = new Set(configs.flatMap((c) => c.targetSites.filter((t) => t !== c.sourceSite)));
    const sync = new ItemSync(targets);
    out.set(item.id, sync);
    if (item.isFolder) {
      folders.push(item);
      for (const t of targets) sitesOfFolders.add(t);
      sync.partial = configs.some((c) => c.caughtUpAt === null);
    } else if (item.blobId !== null) {
      files.push(item);
    }
  }
  await filesSync(db, files, out);
  if (folders.length && sitesOfFolders.size) await foldersSync(db, libCode, folders, [...sitesOfFolders], out);
  return out;
}

async function filesSync(db: Db, files: readonly InstanceRow[], out: Map<string, ItemSync>): Promise<void> {
  const blobs = [...new Set(files.map((f) => f.blobId!))];
  const byBlob = new Map<string, Map<string, Awaited<ReturnType<typeof replicasOf>>[number]>>();
  for (let i = 0; i < blobs.length; i += IN_CHUNK) {
    for (const r of await replicasOf(db, blobs.slice(i, i + IN_CHUNK))) {
      let m = byBlob.get(r.blob_id);
      if (!m) byBlob.set(r.blob_id, (m = new Map()));
      m.set(r.site_id, r);
    }
  }
  for (const f of files) {
    const sync = out.get(f.id)!;
    const rows = byBlob.get(f.blobId!);
    for (const siteId of sync.sites.keys()) {
      const r = rows?.get(siteId);
      // No replica row yet: the sweep (queued when the file was filed) has not recorded it; it is behind since then.
      if (!r) sync.behind(siteId, false, f.size, f.updatedAt, null);
      else if (r.state !== 'synced') sync.behind(siteId, r.state === 'failed', Number(r.size), r.queued_at, r.error);
    }
  }
}

async function foldersSync(db: Db, libCode: string, folders: readonly InstanceRow[], sites: string[], out: Map<string, ItemSync>): Promise<void> {
  const folderIds = folders.map((f) => f.id);
  const { rows, truncated } = await lagBelow(db, libCode, sites, folderIds, LAG_LIMIT);
  // A blob filed twice below one folder is one copy behind, not two.
  const seen = new Set<string>();
  for (const x of rows) {
    const key = `${x.folder_id}\n${x.blob_id}\n${x.site_id}`;
    if (seen.has(key)) continue;
    seen.add(key);
    out.get(x.folder_id)?.behind(x.site_id, x.state === 'failed', Number(x.size), Number(x.queued_at), x.error);
  }
  if (truncated) for (const id of folderIds) out.get(id)!.partial = true;
}

/**
 * A listing's rows' replication: the rows of `folder` (whose ancestors are `ancestors`), each covered by the configs
 * naming the library, the folder's chain or the row itself. Costs one read of the library's configs when none
 * covers anything here, else one query for the files and one for the folders.
 */
export async function listingSync(
  db: Db, folder: InstanceRow, ancestors: readonly InstanceRow[], rows: readonly InstanceRow[],
): Promise<(row: InstanceRow) => ReplicationState | undefined> {
  const configs = await syncConfigsOfLibrary(db, folder.libCode);
  if (configs.length === 0) return () => undefined;
  const chain = [...ancestors.map((a) => a.id), folder.id];
  const states = await syncOfItems(db, folder.libCode, rows, (row) => covering(configs, [...chain, row.id]));
  const now = Date.now();
  return (row) => states.get(row.id)?.view(now);
}

/**
 * getFolderInfo's entries (a page of the walk below `root`): each one's replication, and its spec syncStatus ("0"
 * while the copy at this node's site `localSite` (HCS_SITE) is pending, else "1").
 */
export async function folderInfoSync(
  db: Db, root: InstanceRow, entries: readonly InstanceRow[], localSite: string | undefined,
): Promise<(entry: InstanceRow) => { syncStatus: '0' | '1'; replication?: ReplicationState }> {
  const configs = await syncConfigsOfLibrary(db, root.libCode);
  if (configs.length === 0) return () => ({ syncStatus: '1' });
  // Each entry's chain: its folders up to the library root, read once for the page's distinct parents.
  const parents = [...new Set(entries.map((e) => e.parentId).filter((p): p is string => p !== null))];
  const rows = await getInstanceChains(db, parents);
  const chainIds = (e: InstanceRow): string[] => {
    const up = e.parentId === null ? undefined : chainOf(rows, e.parentId);
    return up ? [...up.ancestors.map((a) => a.id), up.row.id, e.id] : [e.id];
  };
  const [states, site] = await Promise.all([
    syncOfItems(db, root.libCode, entries, (e) => covering(configs, chainIds(e))),
    localSite === undefined ? undefined : findSiteByName(db, localSite),
  ]);
  const now = Date.now();
  return (e) => {
    const sync = states.get(e.id);
    if (!sync) return { syncStatus: '1' };
    return { syncStatus: sync.pendingAt(site?.id) ? '0' : '1', replication: sync.view(now) };
  };
}
