// Cross-site replication (issue #20 part 3) as jobs on the database queue, shared by every node.
//
// A sweep (every HCS_REPLICATION_SWEEP_SECONDS on each node under one dedupe key, and at once after a config changes
// or a file is filed) records, per config and target site, the blobs that have no replica row there yet as pending
// (a bounded batch; the next sweep takes the next one) and queues one copy job per replica, keyed by blob and site.
// It also re-queues pending replicas whose job was lost between the two statements (the dedupe key makes that a
// no-op while the job is there), and deletes the copies of purged blobs once their delay has run out.
//
// A copy job copies one blob (copy.ts) and marks the replica synced. A failed attempt is retried by the queue with
// backoff; the replica keeps the reason and turns failed after the last attempt, until an administrator retries it.
// A node that stops aborts its copies (their attempts go back to the queue), and a node that dies loses its lease:
// either way the job runs again and finds the object there, or copies it again under the same key.
import type { AppContext } from '../context.ts';
import { enqueue, type Job } from '../db/sql/jobs.ts';
import type { JobContext, JobHandler } from '../db/sql/worker.ts';
import { EMBEDDED_CONNECTION, findSiteByName, getConnection, getSite, listSites } from '../db/storage-repo.ts';
import {
  dropReplica, dueDeletions, getReplica, keyInUse, listSyncConfigs, queueMissing, setCaughtUp, setReplicaState, syncedCopyOfKey,
} from '../db/replication-repo.ts';
import { storeOf } from '../storage/connections.ts';
import type { ObjectStore, StoreLocation } from '../storage/object-store.ts';
import { blobStore, clientEndpoint } from '../storage/routing.ts';
import { copyBlob } from './copy.ts';

export const SWEEP_JOB = 'replication.sweep';
export const COPY_JOB = 'replication.copy';
/** Copies tried before a replica is shown failed (each waits longer: the queue's backoff). */
export const COPY_ATTEMPTS = 8;
/** Blobs recorded per config and site in one sweep. */
const SWEEP_BATCH = 500;

interface CopyPayload { blobId: string; siteId: string }

const copyKey = (blobId: string, siteId: string) => `replication:${blobId}:${siteId}`;

/** Queues a sweep now (a config changed, a file was filed); a no-op while one waits. */
export async function nudgeReplication(ctx: Pick<AppContext, 'db'>): Promise<void> {
  await enqueue(ctx.db, { kind: SWEEP_JOB, dedupeKey: SWEEP_JOB, maxAttempts: 3 });
}

/**
 * A file was filed in a library: when a sync config covers the library, a sweep is queued now rather than at the next
 * interval. Never fails the filing (the next sweep finds the file anyway).
 */
export async function replicateFiled(ctx: Pick<AppContext, 'db' | 'log'>, libCode: string): Promise<void> {
  try {
    const covered = await ctx.db.selectFrom('sync_configs').select('id').where('lib_code', '=', libCode).limit(1).executeTakeFirst();
    if (covered) await nudgeReplication(ctx);
  } catch (err) {
    ctx.log.warn({ err }, 'replication: could not queue a sweep after a filing');
  }
}

export async function queueCopy(ctx: Pick<AppContext, 'db'>, blobId: string, siteId: string): Promise<void> {
  const payload: CopyPayload = { blobId, siteId };
  await enqueue(ctx.db, { kind: COPY_JOB, dedupeKey: copyKey(blobId, siteId), payload, maxAttempts: COPY_ATTEMPTS });
}

/** A store on a connection's bucket: connection zero is the server's own store. The caller destroys it when `owned`. */
export async function storeOnConnection(ctx: AppContext, connectionId: string, bucket?: string): Promise<{ store: ObjectStore; owned: boolean }> {
  if (connectionId === EMBEDDED_CONNECTION) {
    const own = ctx.store();
    return bucket === undefined || bucket === own.bucket ? { store: own, owned: false } : { store: own.forBucket(bucket), owned: true };
  }
  const row = await getConnection(ctx.db, connectionId);
  if (!row) throw new Error(`storage connection ${connectionId} no longer exists`);
  return { store: storeOf(ctx.keyring, row, bucket ?? row.bucket), owned: true };
}

/** The bucket a site's copies go to: its connection's default bucket. */
async function siteBucket(ctx: AppContext, connectionId: string): Promise<string> {
  if (connectionId === EMBEDDED_CONNECTION) return ctx.store().bucket;
  const row = await getConnection(ctx.db, connectionId);
  if (!row) throw new Error(`storage connection ${connectionId} no longer exists`);
  return row.bucket;
}

function reason(err: unknown): string {
  const e = err as { name?: string; message?: string; $metadata?: { httpStatusCode?: number } };
  const status = e.$metadata?.httpStatusCode;
  return `${e.name ?? 'Error'}${status ? ` (HTTP ${status})` : ''}: ${e.message ?? String(err)}`.slice(0, 500);
}

export interface Replication {
  sweep: JobHandler;
  copy: JobHandler;
  /** Queues a sweep now and every sweep interval. */
  start(): Promise<void>;
  /** Stops the timer and aborts the copies this node runs (they go back to the queue). */
  stop(): void;
}

export function startReplication(ctx: AppContext): Replication {
  const { db } = ctx;
  const running = new Set<AbortController>();
  let timer: NodeJS.Timeout | undefined;

  const sweep: JobHandler = async () => {
    const now = Date.now();
    const sites = new Map((await listSites(db)).map((s) => [s.id, s]));
    for (const config of await listSyncConfigs(db)) {
      let caughtUp = true;
      for (const siteId of config.targetSites) {
        if (!sites.has(siteId) || siteId === config.sourceSite) continue;
        const queued = await queueMissing(db, config, siteId, SWEEP_BATCH, now);
        if (queued.length >= SWEEP_BATCH) caughtUp = false;
        for (const blobId of queued) await queueCopy(ctx, blobId, siteId);
      }
      if (caughtUp !== (config.caughtUpAt !== null)) await setCaughtUp(db, config, caughtUp, now);
    }
    // Pending replicas whose job never made it to the queue (a node died between the two statements).
    const stale = await db.selectFrom('blob_replicas').select(['blob_id', 'site_id'])
      .where('state', '=', 'pending').where('gone_at', 'is', null).where('queued_at', '<', now - ctx.config.replication.sweepMs)
      .orderBy('queued_at').limit(SWEEP_BATCH).execute();
    for (const r of stale) await queueCopy(ctx, r.blob_id, r.site_id);
    for (const r of await dueDeletions(db, now - ctx.config.replication.deleteDelayMs, SWEEP_BATCH)) {
      const site = sites.get(r.site_id);
      // Content filed again after the purge has the same key: its live replica keeps the object.
      if (site && !(await keyInUse(db, r.site_id, r.object_key))) {
        const { store, owned } = await storeOnConnection(ctx, site.connection_id, await siteBucket(ctx, site.connection_id));
        try {
          await store.deleteObject(r.object_key);
        } finally {
          if (owned) store.destroy();
        }
      }
      await dropReplica(db, r.blob_id, r.site_id);
    }
  };

  const copy: JobHandler = async (job: Job, jc: JobContext) => {
    const { blobId, siteId } = job.payload as CopyPayload;
    const replica = await getReplica(db, blobId, siteId);
    if (!replica || replica.gone_at !== null || replica.state === 'synced') return;
    const blob = await db.selectFrom('blobs').select(['sha256', 'size', 'bucket', 'object_key', 'connection_id']).where('id', '=', blobId).executeTakeFirst();
    if (!blob) return; // purged meanwhile: its replica row is marked gone in the same transaction
    const site = await getSite(db, siteId);
    if (!site) {
      await setReplicaState(db, blobId, siteId, 'failed', 'the target site was deleted');
      return;
    }
    const abort = new AbortController();
    const onLost = () => abort.abort();
    jc.signal.addEventListener('abort', onLost);
    running.add(abort);
    const opened: ObjectStore[] = [];
    try {
      const targetBucket = await siteBucket(ctx, site.connection_id);
      if (site.connection_id === blob.connection_id && targetBucket === blob.bucket) {
        // The site's storage is the origin's: the blob is there already.
        await setReplicaState(db, blobId, siteId, 'synced', null);
        return;
      }
      const src = await storeOnConnection(ctx, blob.connection_id, blob.bucket);
      if (src.owned) opened.push(src.store);
      const dst = await storeOnConnection(ctx, site.connection_id, targetBucket);
      if (dst.owned) opened.push(dst.store);
      await copyBlob(src.store, dst.store, { key: blob.object_key, size: Number(blob.size), sha256: blob.sha256 }, {
        sameEndpoint: site.connection_id === blob.connection_id, signal: abort.signal, partCopyBytes: ctx.config.replication.partCopyBytes,
      });
      await setReplicaState(db, blobId, siteId, 'synced', null);
    } catch (err) {
      const why = abort.signal.aborted ? 'interrupted: the node stopped' : reason(err);
      await setReplicaState(db, blobId, siteId, job.attempts >= job.maxAttempts ? 'failed' : 'pending', why).catch(() => undefined);
      throw err;
    } finally {
      jc.signal.removeEventListener('abort', onLost);
      running.delete(abort);
      for (const s of opened) s.destroy();
    }
  };

  return {
    sweep,
    copy,
    async start() {
      timer = setInterval(() => {
        nudgeReplication(ctx).catch((err: unknown) => ctx.log.warn({ err }, 'replication: could not queue a sweep'));
      }, ctx.config.replication.sweepMs);
      timer.unref();
      await nudgeReplication(ctx);
    },
    stop() {
      if (timer) clearInterval(timer);
      for (const a of running) a.abort();
    },
  };
}

/** This node's site (HCS_SITE), when it has one the database knows. */
async function nodeSite(ctx: AppContext) {
  const name = ctx.config.node.site;
  return name ? findSiteByName(ctx.db, name) : undefined;
}

/**
 * Where a caller reads a blob: this node's site's copy when the node has a site (HCS_SITE) other than the origin's
 * and the copy there is synced, else where the blob was stored. The store is the location's cached one (ObjectStore.at):
 * the caller does not destroy it. `endpoint` is what the caller's S3 requests go to (clientEndpoint).
 */
export async function nearestBlobStore(ctx: AppContext, blobId: string, callerEndpoint: string): Promise<{ store: ObjectStore; endpoint: string }> {
  const site = await nodeSite(ctx);
  if (site) {
    const replica = await getReplica(ctx.db, blobId, site.id);
    if (replica && replica.state === 'synced' && replica.gone_at === null) {
      const at = { connectionId: site.connection_id, bucket: await siteBucket(ctx, site.connection_id) };
      const store = await ctx.store().at(at);
      return { store, endpoint: clientEndpoint(at, store, callerEndpoint) };
    }
  }
  return blobStore(ctx, blobId, callerEndpoint);
}

/**
 * The location of this node's site's synced copy of the content a client names by bucket and key (a signed read of a
 * copy nearestBlobStore handed out); undefined when the node has no site, the bucket is not its site's, or there is no
 * synced copy of that key there.
 */
export async function replicaKeyLocation(ctx: AppContext, key: string, bucket: string): Promise<StoreLocation | undefined> {
  const site = await nodeSite(ctx);
  if (!site || (await siteBucket(ctx, site.connection_id)) !== bucket) return undefined;
  return (await syncedCopyOfKey(ctx.db, site.id, key)) ? { connectionId: site.connection_id, bucket } : undefined;
}

/** What getCloudProvider answers: an S3 location's public description (never its credentials). */
export interface CloudProviderView {
  cloudProvider: 's3';
  host: string;
  region: string;
  bucketName: string;
  pathStyle: boolean;
}

/**
 * The storage nearest the caller, as getCloudProvider describes it: the answering node's site's own connection when
 * the node has a site (HCS_SITE) whose storage is not the embedded store, else the embedded store at `embeddedHost`
 * (the address the caller reaches this server's /s3 by).
 */
export async function nearestCloudProvider(ctx: AppContext, embeddedHost: string): Promise<CloudProviderView> {
  const site = await nodeSite(ctx);
  if (site && site.connection_id !== EMBEDDED_CONNECTION) {
    const row = await getConnection(ctx.db, site.connection_id);
    if (row) return { cloudProvider: 's3', host: row.endpoint, region: row.region, bucketName: row.bucket, pathStyle: true };
  }
  const store = ctx.store();
  return { cloudProvider: 's3', host: embeddedHost, region: store.region, bucketName: store.bucket, pathStyle: true };
}
