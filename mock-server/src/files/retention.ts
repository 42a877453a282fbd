// Retention of the recycle bins and of history versions, one job of the database job queue (kind
// recycle-retention), run like the upload janitor: every node enqueues one every hour under one dedupe key, whichever
// node's worker claims it runs the pass, and a pass holds the lease "recycle-retention" so passes never overlap.
// A pass:
// - moves entries older than HCS_RECYCLE_DAYS from the users' bins to the second-level bin (their bytes stop
//   counting against quota);
// - deletes second-level entries older than HCS_SEC_RECYCLE_DAYS for good (bytes leave storage once nothing
//   references them);
// - deletes history versions past their library's count and age.
import type { AppContext } from '../context.ts';
import { deleteEntry, entriesOf, moveToSecondLevel } from '../db/recycle-repo.ts';
import { pruneVersions } from '../db/versions-repo.ts';
import { enqueue } from '../db/sql/jobs.ts';
import { acquireLease, releaseLease, renewLease } from '../db/sql/leases.ts';
import { AppError } from '../http/errors.ts';
import type { JobHandler } from '../db/sql/worker.ts';
import { configStore } from '../config-store.ts';
import { clearOpLogs } from '../db/admin-console-repo.ts';

export const RETENTION_JOB = 'recycle-retention';
const LEASE = 'recycle-retention';
const LEASE_MS = 5 * 60_000;
export const RETENTION_INTERVAL_MS = 60 * 60_000;
const DAY_MS = 86_400_000;
const BATCH = 200;

export interface RetentionReport {
  /** Entries moved from users' bins to the second-level bin. */
  expired: number;
  /** Second-level entries deleted for good. */
  deleted: number;
  /** History versions deleted. */
  versions: number;
  /** Operation-log rows past the log.retentionDays setting deleted (absent when none). */
  logs?: number;
}

export interface Retention {
  /** One pass as of `now` (tests pass a fixed clock); all zero when another node holds the lease. */
  sweep(now?: number, signal?: AbortSignal): Promise<RetentionReport>;
  handler: JobHandler;
  schedule(): Promise<void>;
  stop(): void;
}

function gone(err: unknown): boolean {
  return err instanceof AppError && err.code === 'NOT_FOUND';
}

export function startRetention(ctx: AppContext, holder: string, intervalMs = RETENTION_INTERVAL_MS): Retention {
  const { db, config } = ctx;
  let tail: Promise<unknown> = Promise.resolve();

  const pass = async (now: number, signal?: AbortSignal): Promise<RetentionReport> => {
    const report: RetentionReport = { expired: 0, deleted: 0, versions: 0 };
    if (!(await acquireLease(db, LEASE, holder, LEASE_MS))) return report;
    const keep = async () => !signal?.aborted && (await renewLease(db, LEASE, holder, LEASE_MS));
    try {
      // Each step goes on in batches until nothing is due; a restore or purge by a user meanwhile is not an error.
      for (let more = true; more && (await keep()); ) {
        const due = await entriesOf(db, 1, { before: now - (await configStore(ctx).get('recycle.days')) * DAY_MS, limit: BATCH });
        for (const e of due) {
          try {
            await moveToSecondLevel(db, e.id, now);
            report.expired++;
          } catch (err) {
            if (!gone(err)) throw err;
          }
        }
        more = due.length === BATCH;
      }
      for (let more = true; more && (await keep()); ) {
        const due = await entriesOf(db, 2, { before: now - (await configStore(ctx).get('recycle.secDays')) * DAY_MS, limit: BATCH });
        for (const e of due) {
          try {
            await deleteEntry(db, ctx.store(), e);
            report.deleted++;
          } catch (err) {
            if (!gone(err)) throw err;
          }
        }
        more = due.length === BATCH;
      }
      for (let n = BATCH; n === BATCH && (await keep()); ) {
        n = await pruneVersions(db, ctx.store(), config.versions, now, BATCH);
        report.versions += n;
      }
      const logDays = await configStore(ctx).get('log.retentionDays');
      if (logDays > 0 && (await keep())) {
        const n = await clearOpLogs(db, now - logDays * DAY_MS);
        if (n) report.logs = n;
      }
    } finally {
      await releaseLease(db, LEASE, holder).catch((err: unknown) => ctx.log.warn({ err }, 'retention: could not release its lease'));
    }
    return report;
  };

  const sweep = (now = Date.now(), signal?: AbortSignal): Promise<RetentionReport> => {
    const run = tail.then(() => pass(now, signal));
    tail = run.catch(() => undefined);
    return run;
  };

  const schedule = async (): Promise<void> => {
    await enqueue(db, { kind: RETENTION_JOB, dedupeKey: RETENTION_JOB, maxAttempts: 3 });
  };

  const timer = setInterval(() => {
    schedule().catch((err: unknown) => ctx.log.warn({ err }, 'retention: could not schedule a pass'));
  }, intervalMs);
  timer.unref();
  return {
    sweep,
    handler: async (_job, jobCtx) => {
      const r = await sweep(Date.now(), jobCtx.signal);
      if (r.expired || r.deleted || r.versions) ctx.log.info(r, 'retention pass');
    },
    schedule,
    stop: () => clearInterval(timer),
  };
}
