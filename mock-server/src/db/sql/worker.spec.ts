// The worker loop over the queue, on both databases. Handlers are held at known points with deferred promises,
// and the clock is a variable, so nothing here waits on wall-clock time.
import { expect, it } from 'vitest';
import { enqueue, listJobs, type Job } from './jobs.ts';
import { deferred, describeEachDialect, unique } from './test-databases.ts';
import { Worker, type JobHandler } from './worker.ts';

const T0 = 1_700_000_000_000;

/** Resolves once the worker runs `n` jobs or fewer (a finished handler's bookkeeping is a few queries behind it). */
async function waitForSlot(worker: Worker, n: number): Promise<void> {
  while (worker.active > n) await new Promise((r) => setTimeout(r, 5));
}

describeEachDialect((get) => {
  it('runs each kind with its handler, retries a failing one with backoff and fails it after max attempts', async () => {
    const { db } = get();
    const [ok, broken, other] = [unique('ok'), unique('broken'), unique('other')];
    let now = T0;
    const ran: string[] = [];
    const worker = new Worker(db, {
      workerId: 'w',
      concurrency: 4,
      now: () => now,
      backoff: { baseMs: 1000, maxMs: 10_000 },
      handlers: {
        [ok]: async (job) => {
          ran.push(`${job.kind}:${JSON.stringify(job.payload)}`);
        },
        [broken]: async () => {
          throw new Error('disk on fire');
        },
      },
    });
    await enqueue(db, { kind: ok, payload: { n: 1 } }, T0);
    await enqueue(db, { kind: broken, maxAttempts: 2 }, T0);
    await enqueue(db, { kind: other }, T0);

    expect((await worker.runOnce()).map((j) => j.kind).sort()).toEqual([broken, ok].sort());
    await worker.settled();
    expect(ran).toEqual([`${ok}:{"n":1}`]);
    expect((await listJobs(db, { kind: ok }))[0]?.state).toBe('done');
    expect((await listJobs(db, { kind: broken }))[0]).toMatchObject({ state: 'queued', runAt: T0 + 1000, lastError: 'disk on fire' });
    expect((await listJobs(db, { kind: other }))[0]?.state).toBe('queued'); // no handler here: left for a worker that has one

    now = T0 + 1000;
    expect((await worker.runOnce()).map((j) => j.kind)).toEqual([broken]);
    await worker.settled();
    expect((await listJobs(db, { kind: broken }))[0]).toMatchObject({ state: 'failed', attempts: 2 });
  });

  it('aborts a handler whose lease another worker took over, and only the new holder completes the job', async () => {
    const { db } = get();
    const kind = unique('slow');
    let now = T0;
    const started = deferred<{ job: Job; heartbeat: () => Promise<boolean>; signal: AbortSignal }>();
    const resume = deferred();
    const slow: JobHandler = async (job, ctx) => {
      started.resolve({ job, ...ctx });
      await resume.promise;
    };
    const a = new Worker(db, { workerId: 'a', leaseMs: 1000, heartbeatMs: 3_600_000, now: () => now, handlers: { [kind]: slow } });
    const b = new Worker(db, { workerId: 'b', leaseMs: 1000, now: () => now, handlers: { [kind]: async () => {} } });
    await enqueue(db, { kind }, T0);
    await a.runOnce();
    const running = await started.promise;

    now = T0 + 1001; // a missed its heartbeats
    expect(await b.runOnce()).toHaveLength(1);
    await b.settled();
    expect(await running.heartbeat()).toBe(false);
    expect(running.signal.aborted).toBe(true);
    resume.resolve();
    await a.settled();
    expect((await listJobs(db, { kind }))[0]).toMatchObject({ state: 'done', lockedBy: 'b', attempts: 2 });
  });

  it('runs in the background until stopped, and stop lets running jobs finish but claims no more', async () => {
    const { db } = get();
    const kind = unique('bg');
    const events: string[] = [];
    const started = deferred();
    const gate = deferred();
    const worker = new Worker(db, {
      pollMs: 5,
      concurrency: 2,
      handlers: {
        [kind]: async (job) => {
          events.push(`start ${JSON.stringify(job.payload)}`);
          started.resolve();
          await gate.promise;
          events.push(`end ${JSON.stringify(job.payload)}`);
        },
      },
    });
    worker.start();
    await enqueue(db, { kind, payload: 1 });
    await started.promise;
    const stopped = worker.stop().then(() => events.push('stopped'));
    // The stop request is in; a job enqueued now must stay queued.
    await enqueue(db, { kind, payload: 2 });
    expect(worker.active).toBe(1);
    gate.resolve();
    await stopped;
    expect(events).toEqual(['start 1', 'end 1', 'stopped']);
    const states = (await listJobs(db, { kind })).map((j) => `${JSON.stringify(j.payload)} ${j.state}`);
    expect(states).toEqual(['2 queued', '1 done']);
  });

  it('hands back what a claim took while the worker was told to stop, untouched, and runs none of it', async () => {
    const { db } = get();
    const kind = unique('stopclaim');
    const ran: unknown[] = [];
    const worker = new Worker(db, { handlers: { [kind]: async (job) => void ran.push(job.payload) } });
    await enqueue(db, { kind, payload: 7 });
    // runOnce has passed its stop check when it returns its promise; the stop lands while its queries are under way.
    const round = worker.runOnce();
    const stopped = worker.stop();
    expect(await round).toEqual([]);
    await stopped;
    expect(ran).toEqual([]);
    expect(await listJobs(db, { kind })).toEqual([expect.objectContaining({ state: 'queued', attempts: 0, lockedBy: null })]);
  });

  it('runs at most `concurrency` jobs at once', async () => {
    const { db } = get();
    const kind = unique('par');
    const gate = deferred();
    const worker = new Worker(db, { concurrency: 3, handlers: { [kind]: () => gate.promise } });
    for (let i = 0; i < 5; i++) await enqueue(db, { kind });
    expect(await worker.runOnce()).toHaveLength(3);
    expect(await worker.runOnce()).toHaveLength(0);
    expect(worker.active).toBe(3);
    gate.resolve();
    await worker.settled();
    expect(await worker.runOnce()).toHaveLength(2);
    await worker.settled();
    expect((await listJobs(db, { kind, state: 'done' })).length).toBe(5);
  });
  it('a lane runs its kinds beside the others: held long jobs fill their lane only, and no claim over-fills a lane', async () => {
    const { db } = get();
    const [long, short] = [unique('long'), unique('short')];
    const held = deferred();
    const ran: string[] = [];
    const finished = [deferred(), deferred()];
    const worker = new Worker(db, {
      concurrency: 1,
      lanes: [{ kinds: [long], concurrency: 2 }],
      handlers: {
        [long]: () => held.promise,
        [short]: async (job) => {
          ran.push(String(job.payload));
          finished[ran.length - 1]!.resolve();
        },
      },
    });
    for (let i = 0; i < 3; i++) await enqueue(db, { kind: long });
    // The first round's limit is the fewest free slots (the other lane's one): one long job.
    expect((await worker.runOnce()).map((j) => j.kind)).toEqual([long]);
    expect((await worker.runOnce()).map((j) => j.kind)).toEqual([long]);
    // The long lane is full: the third long job waits, and short jobs still run one at a time.
    await enqueue(db, { kind: short, payload: 'a' });
    await enqueue(db, { kind: short, payload: 'b' });
    expect((await worker.runOnce()).map((j) => j.kind)).toEqual([short]);
    expect(await worker.runOnce()).toEqual([]);
    expect(worker.active).toBe(3);
    await finished[0]!.promise;
    await waitForSlot(worker, 2);
    expect((await worker.runOnce()).map((j) => j.kind)).toEqual([short]);
    await finished[1]!.promise;
    await waitForSlot(worker, 2);
    expect(ran).toEqual(['a', 'b']);
    expect(await worker.runOnce()).toEqual([]);
    held.resolve();
    await worker.settled();
    expect((await worker.runOnce()).map((j) => j.kind)).toEqual([long]);
    await worker.settled();
    expect((await listJobs(db, { kind: long, state: 'done' })).length).toBe(3);
  });
});
