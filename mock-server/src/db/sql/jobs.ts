// The job queue: rows in the jobs table, the same code on SQLite and PostgreSQL, so background work (the upload
// janitor now; recycle-bin retention, LDAP sync, replication later) survives restarts and is shared by the nodes.
//
// Life of a job: queued -> (claim) running -> done, or back to queued with a later run_at (retry with
// exponential backoff) until max_attempts, then failed. A claim leases the job to one worker until lease_until;
// the worker extends the lease with heartbeats, and a job whose lease ran out (the worker died) is claimed again.
// Every call that changes a claimed job names the claim (worker and attempt), so a worker whose lease was taken
// over can no longer touch the job: its heartbeat, complete or fail answers false/'lost'.
import type { ExpressionBuilder, Selectable } from 'kysely';
import type { JobState, JobsTable, Schema } from './schema.ts';
import { dialectOf, type Db } from './tx.ts';

export interface Job {
  id: number;
  kind: string;
  dedupeKey: string | null;
  payload: unknown;
  state: JobState;
  /** Claims so far, this one included while running. */
  attempts: number;
  maxAttempts: number;
  runAt: number;
  leaseUntil: number | null;
  lockedBy: string | null;
  lastError: string | null;
  createdAt: number;
  updatedAt: number;
  finishedAt: number | null;
}

/** What identifies one claim of a job: the worker that holds it and which attempt this is. */
export type Claim = Pick<Job, 'id' | 'attempts'> & { lockedBy: string };

function toJob(r: Selectable<JobsTable>): Job {
  return {
    id: r.id,
    kind: r.kind,
    dedupeKey: r.dedupe_key,
    payload: JSON.parse(r.payload) as unknown,
    state: r.state,
    attempts: r.attempts,
    maxAttempts: r.max_attempts,
    runAt: r.run_at,
    leaseUntil: r.lease_until,
    lockedBy: r.locked_by,
    lastError: r.last_error,
    createdAt: r.created_at,
    updatedAt: r.updated_at,
    finishedAt: r.finished_at,
  };
}

export interface EnqueueInput {
  kind: string;
  payload?: unknown;
  /** At most one pending job per key: enqueueing it again while one waits or runs does nothing. */
  dedupeKey?: string;
  /** Earliest start (epoch ms; default now). */
  runAt?: number;
  /** Claims before the job fails for good (default 5). */
  maxAttempts?: number;
}

/**
 * Adds a job. `created` is false when a pending job already holds the dedupe key; `id` is then that job's (null
 * in the rare case it finished between the two statements, which leaves nothing pending to report).
 */
export async function enqueue(db: Db, input: EnqueueInput, now = Date.now()): Promise<{ id: number | null; created: boolean }> {
  const row = await db
    .insertInto('jobs')
    .values({
      kind: input.kind,
      dedupe_key: input.dedupeKey ?? null,
      payload: JSON.stringify(input.payload ?? {}),
      max_attempts: input.maxAttempts ?? 5,
      run_at: input.runAt ?? now,
      created_at: now,
      updated_at: now,
    })
    // The conflict target names the partial unique index jobs_dedupe (pending jobs only).
    .onConflict((oc) => oc.column('dedupe_key').where('finished_at', 'is', null).doNothing())
    .returning('id')
    .executeTakeFirst();
  if (row) return { id: row.id, created: true };
  if (input.dedupeKey === undefined) throw new Error('the job insert returned no row');
  const pending = await db
    .selectFrom('jobs')
    .select('id')
    .where('dedupe_key', '=', input.dedupeKey)
    .where('finished_at', 'is', null)
    .executeTakeFirst();
  return { id: pending?.id ?? null, created: false };
}

export interface ClaimInput {
  workerId: string;
  /** Jobs to take at most. */
  limit: number;
  leaseMs: number;
  /** Only these kinds (the ones the worker has handlers for); all kinds when omitted. */
  kinds?: readonly string[];
}

/**
 * Claims up to `limit` due jobs in run_at order, in one statement: UPDATE ... WHERE id IN (SELECT ... LIMIT n)
 * RETURNING. On PostgreSQL the inner SELECT is FOR UPDATE SKIP LOCKED, so concurrent workers lock disjoint rows
 * instead of both picking the same ones (READ COMMITTED would otherwise let two UPDATEs claim one job, since the
 * inner SELECT is not re-run after waiting for the lock) and never wait for each other. SQLite runs one write at
 * a time, so the statement alone is atomic. Also takes over running jobs whose lease ran out and that have
 * attempts left (reapExpired fails the others).
 */
export async function claim(db: Db, input: ClaimInput, now = Date.now()): Promise<Job[]> {
  if (input.limit <= 0 || (input.kinds && input.kinds.length === 0)) return [];
  let due = db
    .selectFrom('jobs')
    .select('id')
    .where((eb) =>
      eb.or([
        eb.and([eb('state', '=', 'queued'), eb('run_at', '<=', now)]),
        eb.and([eb('state', '=', 'running'), eb('lease_until', '<', now), eb('attempts', '<', eb.ref('max_attempts'))]),
      ]),
    )
    .orderBy('run_at')
    .orderBy('id')
    .limit(input.limit);
  if (input.kinds) due = due.where('kind', 'in', input.kinds);
  if (dialectOf(db) === 'postgres') due = due.forUpdate().skipLocked();
  const rows = await db
    .updateTable('jobs')
    .set((eb) => ({
      state: 'running',
      attempts: eb('attempts', '+', 1),
      lease_until: now + input.leaseMs,
      locked_by: input.workerId,
      updated_at: now,
    }))
    .where('id', 'in', due)
    .returningAll()
    .execute();
  // RETURNING order is not defined: hand them out in the order they were due.
  return rows.map(toJob).sort((a, b) => a.runAt - b.runAt || a.id - b.id);
}

/** The job is still running under this very claim. */
function heldBy(c: Claim) {
  return (eb: ExpressionBuilder<Schema, 'jobs'>) => eb.and({ id: c.id, state: 'running', locked_by: c.lockedBy, attempts: c.attempts });
}

/**
 * Extends the lease of a job this claim still holds (true), or reports that it does not (false: finished, or
 * another worker took it over after the lease ran out). A lease that ran out but was not taken yet is still held.
 */
export async function heartbeat(db: Db, c: Claim, leaseMs: number, now = Date.now()): Promise<boolean> {
  const r = await db.updateTable('jobs').set({ lease_until: now + leaseMs, updated_at: now }).where(heldBy(c)).executeTakeFirst();
  return r.numUpdatedRows > 0n;
}

/** Marks the job done; false when this claim no longer holds it (its result must then be treated as lost). */
export async function complete(db: Db, c: Claim, now = Date.now()): Promise<boolean> {
  const r = await db
    .updateTable('jobs')
    .set({ state: 'done', lease_until: null, finished_at: now, updated_at: now })
    .where(heldBy(c))
    .executeTakeFirst();
  return r.numUpdatedRows > 0n;
}

/**
 * Hands a claimed job back untouched (queued, its attempt not counted): for a worker that claimed it as it was told
 * to stop. False when this claim no longer holds it.
 */
export async function release(db: Db, c: Claim, now = Date.now()): Promise<boolean> {
  const r = await db
    .updateTable('jobs')
    .set((eb) => ({ state: 'queued', attempts: eb('attempts', '-', 1), lease_until: null, locked_by: null, updated_at: now }))
    .where(heldBy(c))
    .executeTakeFirst();
  return r.numUpdatedRows > 0n;
}

export interface Backoff {
  /** Delay after the first failed attempt (default 1 s); it doubles with each further attempt. */
  baseMs: number;
  /** Longest delay (default 1 h). */
  maxMs: number;
}

export const DEFAULT_BACKOFF: Backoff = { baseMs: 1000, maxMs: 3600_000 };

/** Delay before the next try after `attempts` failed claims: base, 2 base, 4 base ... capped. */
export function backoffDelay(attempts: number, b: Backoff = DEFAULT_BACKOFF): number {
  return Math.min(b.maxMs, b.baseMs * 2 ** Math.max(0, attempts - 1));
}

const MAX_ERROR_CHARS = 2000;

/**
 * Records a failed attempt: back to queued with run_at pushed out by the backoff while attempts remain, else
 * failed for good. `error` is stored for the status screen: pass a message, never a stack or a secret.
 */
export async function fail(
  db: Db,
  job: Claim & Pick<Job, 'maxAttempts'>,
  error: string,
  now = Date.now(),
  backoff: Backoff = DEFAULT_BACKOFF,
): Promise<'retry' | 'failed' | 'lost'> {
  const lastError = error.slice(0, MAX_ERROR_CHARS);
  const retry = job.attempts < job.maxAttempts;
  const r = await db
    .updateTable('jobs')
    .set(
      retry
        ? { state: 'queued', run_at: now + backoffDelay(job.attempts, backoff), lease_until: null, locked_by: null, last_error: lastError, updated_at: now }
        : { state: 'failed', lease_until: null, last_error: lastError, finished_at: now, updated_at: now },
    )
    .where(heldBy(job))
    .executeTakeFirst();
  if (r.numUpdatedRows === 0n) return 'lost';
  return retry ? 'retry' : 'failed';
}

/** Running jobs whose lease ran out on their last attempt (the worker died) fail for good; returns how many. */
export async function reapExpired(db: Db, now = Date.now()): Promise<number> {
  const r = await db
    .updateTable('jobs')
    .set({ state: 'failed', lease_until: null, last_error: 'the worker stopped answering on the last attempt', finished_at: now, updated_at: now })
    .where('state', '=', 'running')
    .where('lease_until', '<', now)
    .where((eb) => eb('attempts', '>=', eb.ref('max_attempts')))
    .executeTakeFirst();
  return Number(r.numUpdatedRows);
}

export interface ListJobsQuery {
  state?: JobState;
  kind?: string;
  /** Newest first; pass the last id of a page to get the next one. */
  beforeId?: number;
  limit?: number;
}

/** Jobs for a status screen, newest first. */
export async function listJobs(db: Db, q: ListJobsQuery = {}): Promise<Job[]> {
  let query = db
    .selectFrom('jobs')
    .selectAll()
    .orderBy('id', 'desc')
    .limit(Math.min(Math.max(1, q.limit ?? 50), 500));
  if (q.state) query = query.where('state', '=', q.state);
  if (q.kind) query = query.where('kind', '=', q.kind);
  if (q.beforeId !== undefined) query = query.where('id', '<', q.beforeId);
  return (await query.execute()).map(toJob);
}

/** Deletes jobs that finished before `before` (retention); returns how many. */
export async function pruneFinished(db: Db, before: number): Promise<number> {
  const r = await db.deleteFrom('jobs').where('finished_at', 'is not', null).where('finished_at', '<', before).executeTakeFirst();
  return Number(r.numDeletedRows);
}
