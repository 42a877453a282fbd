// The job queue on both databases. Time is passed in (`now`), so leases expire and backoffs elapse without waiting.
import { expect, it } from 'vitest';
import { backoffDelay, claim, complete, enqueue, fail, heartbeat, listJobs, pruneFinished, reapExpired, type Job } from './jobs.ts';
import { describeEachDialect, unique } from './test-databases.ts';

const T0 = 1_700_000_000_000;
const LEASE = 30_000;

describeEachDialect((get, dialect) => {
  const take = (kind: string, workerId: string, now: number, limit = 1) =>
    claim(get().db, { workerId, limit, leaseMs: LEASE, kinds: [kind] }, now);
  const claimOf = (job: Job) => ({ id: job.id, attempts: job.attempts, lockedBy: job.lockedBy! });

  it('hands a due job to one claim, leased to that worker, with its payload', async () => {
    const { db } = get();
    const kind = unique('kind');
    const { id, created } = await enqueue(db, { kind, payload: { path: '/a', n: 1 } }, T0);
    expect(created).toBe(true);
    const [job, ...rest] = await take(kind, 'w1', T0, 5);
    expect(rest).toEqual([]);
    expect(job).toMatchObject({ id, kind, state: 'running', attempts: 1, lockedBy: 'w1', leaseUntil: T0 + LEASE, payload: { path: '/a', n: 1 } });
    expect(await take(kind, 'w2', T0 + 1)).toEqual([]);
  });

  it('claims due jobs in run_at order and leaves future ones until their time', async () => {
    const { db } = get();
    const kind = unique('kind');
    const later = await enqueue(db, { kind, runAt: T0 + 5000 }, T0);
    const first = await enqueue(db, { kind, runAt: T0 - 10 }, T0);
    const second = await enqueue(db, { kind, runAt: T0 }, T0);
    expect((await take(kind, 'w', T0, 10)).map((j) => j.id)).toEqual([first.id, second.id]);
    expect(await take(kind, 'w', T0 + 4999, 10)).toEqual([]);
    expect((await take(kind, 'w', T0 + 5000, 10)).map((j) => j.id)).toEqual([later.id]);
  });

  it('keeps one pending job per dedupe key, and takes the key again once that job is over', async () => {
    const { db } = get();
    const kind = unique('kind');
    const key = unique('key');
    const a = await enqueue(db, { kind, dedupeKey: key, payload: { v: 1 } }, T0);
    expect(await enqueue(db, { kind, dedupeKey: key, payload: { v: 2 } }, T0)).toEqual({ id: a.id, created: false });
    const [job] = await take(kind, 'w', T0);
    expect(job?.payload).toEqual({ v: 1 });
    expect(await enqueue(db, { kind, dedupeKey: key }, T0)).toEqual({ id: a.id, created: false }); // running counts as pending
    expect(await complete(db, claimOf(job!), T0 + 1)).toBe(true);
    const b = await enqueue(db, { kind, dedupeKey: key }, T0 + 2);
    expect(b.created).toBe(true);
    expect(b.id).not.toBe(a.id);
  });

  it('lets another worker take over a job whose lease ran out; the first one can then no longer touch it', async () => {
    const { db } = get();
    const kind = unique('kind');
    await enqueue(db, { kind }, T0);
    const [mine] = await take(kind, 'w1', T0);
    expect(await take(kind, 'w2', T0 + LEASE)).toEqual([]); // the lease runs until T0 + LEASE inclusive
    const [theirs] = await take(kind, 'w2', T0 + LEASE + 1);
    expect(theirs).toMatchObject({ id: mine!.id, lockedBy: 'w2', attempts: 2 });
    expect(await heartbeat(db, claimOf(mine!), LEASE, T0 + LEASE + 2)).toBe(false);
    expect(await complete(db, claimOf(mine!), T0 + LEASE + 2)).toBe(false);
    expect(await fail(db, { ...claimOf(mine!), maxAttempts: 5 }, 'late', T0 + LEASE + 2)).toBe('lost');
    expect(await complete(db, claimOf(theirs!), T0 + LEASE + 3)).toBe(true);
    const [row] = await listJobs(db, { kind });
    expect(row).toMatchObject({ state: 'done', lockedBy: 'w2', finishedAt: T0 + LEASE + 3, leaseUntil: null });
  });

  it('extends the lease on heartbeat, so nobody takes over a job that is still being worked on', async () => {
    const { db } = get();
    const kind = unique('kind');
    await enqueue(db, { kind }, T0);
    const [job] = await take(kind, 'w1', T0);
    expect(await heartbeat(db, claimOf(job!), LEASE, T0 + LEASE - 1)).toBe(true);
    expect(await take(kind, 'w2', T0 + LEASE + 1)).toEqual([]);
    const [row] = await listJobs(db, { kind });
    expect(row?.leaseUntil).toBe(T0 + 2 * LEASE - 1);
  });

  it('retries a failed job with exponential backoff, then fails it for good after max attempts', async () => {
    const { db } = get();
    const kind = unique('kind');
    const backoff = { baseMs: 1000, maxMs: 60_000 };
    await enqueue(db, { kind, maxAttempts: 3 }, T0);
    let now = T0;
    for (const [attempt, delay] of [
      [1, 1000],
      [2, 2000],
    ] as const) {
      const [job] = await take(kind, 'w', now);
      expect(job?.attempts).toBe(attempt);
      expect(await fail(db, { ...claimOf(job!), maxAttempts: job!.maxAttempts }, `try ${attempt} broke`, now, backoff)).toBe('retry');
      const [row] = await listJobs(db, { kind });
      expect(row).toMatchObject({ state: 'queued', runAt: now + delay, lastError: `try ${attempt} broke`, lockedBy: null });
      expect(await take(kind, 'w', now + delay - 1)).toEqual([]);
      now += delay;
    }
    const [last] = await take(kind, 'w', now);
    expect(await fail(db, { ...claimOf(last!), maxAttempts: 3 }, 'still broken', now, backoff)).toBe('failed');
    const [row] = await listJobs(db, { kind });
    expect(row).toMatchObject({ state: 'failed', attempts: 3, lastError: 'still broken', finishedAt: now });
    expect(await take(kind, 'w', now + 10 ** 9)).toEqual([]);
    expect([1, 2, 3, 10, 40].map((n) => backoffDelay(n, backoff))).toEqual([1000, 2000, 4000, 60_000, 60_000]);
  });

  it('fails a job whose worker vanished on its last attempt instead of running it again', async () => {
    const { db } = get();
    const kind = unique('kind');
    await enqueue(db, { kind, maxAttempts: 1 }, T0);
    await take(kind, 'w1', T0);
    expect(await take(kind, 'w2', T0 + LEASE + 1)).toEqual([]);
    expect(await reapExpired(db, T0 + LEASE + 1)).toBeGreaterThanOrEqual(1);
    const [row] = await listJobs(db, { kind });
    expect(row).toMatchObject({ state: 'failed', finishedAt: T0 + LEASE + 1 });
  });

  it('never hands one job to two of many concurrent claims', async () => {
    const { db } = get();
    const kind = unique('kind');
    const total = 300;
    for (let i = 0; i < total; i += 50) {
      await db
        .insertInto('jobs')
        .values(Array.from({ length: 50 }, () => ({ kind, run_at: T0, created_at: T0, updated_at: T0 })))
        .execute();
    }
    const seen = new Map<number, string>();
    const duplicates: number[] = [];
    // More claimers than pooled connections on PostgreSQL, so claims really run at the same time and contend.
    const claimers = dialect === 'postgres' ? 24 : 8;
    await Promise.all(
      Array.from({ length: claimers }, async (_, w) => {
        for (;;) {
          const jobs = await claim(db, { workerId: `w${w}`, limit: 3, leaseMs: LEASE, kinds: [kind] }, T0);
          if (jobs.length === 0) return;
          for (const j of jobs) {
            if (seen.has(j.id)) duplicates.push(j.id);
            seen.set(j.id, j.lockedBy!);
          }
        }
      }),
    );
    expect(duplicates).toEqual([]);
    expect(seen.size).toBe(total);
    const running = await db.selectFrom('jobs').select(['id', 'locked_by', 'attempts']).where('kind', '=', kind).execute();
    expect(running.every((r) => r.attempts === 1 && r.locked_by === seen.get(r.id))).toBe(true);
  });

  it('lists jobs newest first for a status screen, by state and kind, page by page, and prunes finished ones', async () => {
    const { db } = get();
    const kind = unique('kind');
    const ids: number[] = [];
    for (let i = 0; i < 5; i++) ids.push((await enqueue(db, { kind }, T0)).id!);
    const [job] = await take(kind, 'w', T0);
    await complete(db, claimOf(job!), T0 + 1);
    const page1 = await listJobs(db, { kind, limit: 2 });
    expect(page1.map((j) => j.id)).toEqual([ids[4], ids[3]]);
    const page2 = await listJobs(db, { kind, limit: 2, beforeId: page1[1]!.id });
    expect(page2.map((j) => j.id)).toEqual([ids[2], ids[1]]);
    expect((await listJobs(db, { kind, state: 'done' })).map((j) => j.id)).toEqual([ids[0]]);
    expect(await pruneFinished(db, T0 + 2)).toBeGreaterThanOrEqual(1);
    expect(await listJobs(db, { kind, state: 'done' })).toEqual([]);
    expect(await listJobs(db, { kind })).toHaveLength(4);
  });
});
