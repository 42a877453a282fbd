// Cleans upload sessions after their expiry: sessions nobody finished (24 h after they were created) and ended
// sessions once no signed request of theirs can reach storage any more. The multipart upload is aborted, the
// staging object deleted and the session row (with any quota reservation) removed. A staging key that became a
// blob on save is never deleted here: the blobs table is checked first.
//
// It runs as a job of the database job queue (kind upload-janitor): every node enqueues one every 15 minutes
// under one dedupe key, so at most one is pending at a time and whichever node's worker claims it runs it. A pass
// also holds the lease "upload-janitor", so a pass started directly (at start-up, by tests) never overlaps one
// running on another node: the janitor runs on one node at a time.
import type { AppContext } from '../context.ts';
import type { ObjectStore } from '../storage/object-store.ts';
import type { Db } from '../db/sql/tx.ts';
import { isBlobKey } from '../db/blobs-repo.ts';
import { deleteExpiredSession, listExpiredSessions } from '../db/uploads-repo.ts';
import { enqueue } from '../db/sql/jobs.ts';
import { acquireLease, releaseLease, renewLease } from '../db/sql/leases.ts';
import type { JobHandler } from '../db/sql/worker.ts';

const BATCH = 200;
export const JANITOR_JOB = 'upload-janitor';
export const JANITOR_LEASE = 'upload-janitor';
/** How long a pass may run between two renewals before another node may take over. */
const LEASE_MS = 5 * 60_000;
export const JANITOR_INTERVAL_MS = 15 * 60_000;

export interface Janitor {
  /**
   * One pass over expired sessions; resolves to how many were cleaned (0 when another node is running a pass: it
   * holds the lease). Passes on this node run one after another.
   */
  sweep(now?: number): Promise<number>;
  /** The job handler the node's worker runs for JANITOR_JOB. */
  handler: JobHandler;
  /** Enqueues a pass now unless one is pending already (any node). */
  schedule(): Promise<void>;
  stop(): void;
}

/**
 * Removes what an upload session may have left in storage: its multipart upload and its staging object, unless
 * that object is a blob's content. Throws when storage fails; what is already gone is not an error.
 */
export async function cleanStaging(db: Db, store: ObjectStore, s: { objectKey: string; uploadId: string | null }): Promise<void> {
  if (s.uploadId) await store.abortMultipart(s.objectKey, s.uploadId).catch(ignoreMissing);
  if (!(await isBlobKey(db, s.objectKey))) await store.deleteObject(s.objectKey).catch(ignoreMissing);
}

/**
 * `holder` names this node in the lease table (its job worker's id). The pass timer only enqueues: the node's
 * worker (or another node's) runs the job.
 */
export function startJanitor(ctx: AppContext, holder: string, intervalMs = JANITOR_INTERVAL_MS): Janitor {
  const { db } = ctx;
  let tail: Promise<unknown> = Promise.resolve();

  const pass = async (now: number, signal?: AbortSignal): Promise<number> => {
    if (!(await acquireLease(db, JANITOR_LEASE, holder, LEASE_MS))) {
      ctx.log.debug('upload janitor: another node is running a pass');
      return 0;
    }
    let cleaned = 0;
    try {
      const rows = await listExpiredSessions(db, now, BATCH);
      for (const r of rows) {
        if (signal?.aborted) break;
        try {
          await cleanStaging(db, await ctx.store().at(r), r);
          // Re-check the expiry: the row must not have changed while storage was being cleaned.
          if (await deleteExpiredSession(db, r.id, now)) cleaned++;
        } catch (err) {
          ctx.log.warn({ err, session: r.id }, 'could not clean an expired upload session; will retry');
        }
        // Storage calls can be slow: keep the lease, and stop if it was lost (another node goes on).
        if (!(await renewLease(db, JANITOR_LEASE, holder, LEASE_MS))) break;
      }
    } finally {
      await releaseLease(db, JANITOR_LEASE, holder).catch((err: unknown) => ctx.log.warn({ err }, 'upload janitor: could not release its lease'));
    }
    return cleaned;
  };

  const sweep = (now = Date.now(), signal?: AbortSignal): Promise<number> => {
    const run = tail.then(() => pass(now, signal));
    tail = run.catch(() => undefined);
    return run;
  };

  const schedule = async (): Promise<void> => {
    await enqueue(db, { kind: JANITOR_JOB, dedupeKey: JANITOR_JOB, maxAttempts: 3 });
  };

  const timer = setInterval(() => {
    schedule().catch((err: unknown) => ctx.log.warn({ err }, 'upload janitor: could not schedule a pass'));
  }, intervalMs);
  timer.unref();
  return {
    sweep: (now) => sweep(now),
    handler: async (_job, jobCtx) => {
      await sweep(Date.now(), jobCtx.signal);
    },
    schedule,
    stop: () => clearInterval(timer),
  };
}

function ignoreMissing(e: { code?: string }): void {
  if (e.code === 'NoSuchUpload' || e.code === 'NoSuchKey' || e.code === 'NotFound') return;
  throw e;
}
