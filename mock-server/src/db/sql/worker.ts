// A worker loop over the job queue: claims due jobs of the kinds it has handlers for, runs up to `concurrency` at
// a time, heartbeats their leases while they run, and completes or fails them. Every node may run one; the queue
// hands each job to one of them.
//
// Lanes keep long jobs from starving short ones: kinds put in a lane share that lane's slots, the other kinds the
// worker's own `concurrency`. Held copies to a slow site fill the copy lane only, and the sweeps, the janitor and
// retention still run. One claim per round covers every kind whose lane has a free slot, limited to the fewest free
// slots among them, so no lane is ever given more than it has room for.
import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import { DEFAULT_BACKOFF, claim, complete, fail, heartbeat, reapExpired, release, type Backoff, type Job } from './jobs.ts';
import type { Db } from './tx.ts';

export interface JobContext {
  /** Aborted when this worker lost the job's lease (another worker may run it now): stop and return. */
  signal: AbortSignal;
  /** Extends the lease now (long steps between the automatic heartbeats); false when the lease is lost. */
  heartbeat(): Promise<boolean>;
}

/** Runs one job. A throw fails this attempt (retried with backoff until max attempts). */
export type JobHandler = (job: Job, ctx: JobContext) => Promise<void>;

export interface WorkerOptions {
  handlers: Record<string, JobHandler>;
  /** Names this worker in locked_by (default host:pid:random). */
  workerId?: string;
  /** Jobs run at once, of the kinds in no lane (default 1). */
  concurrency?: number;
  /** Kinds with slots of their own: a lane runs at most `concurrency` of its kinds at once, beside the rest. */
  lanes?: { kinds: string[]; concurrency: number }[];
  /** How often to look for due jobs when there were none (default 1000 ms). */
  pollMs?: number;
  /** Lease per claim (default 60 s): a job whose worker stops heartbeating is taken over after this. */
  leaseMs?: number;
  /** Heartbeat interval (default a third of the lease, so two can be missed before it runs out). */
  heartbeatMs?: number;
  backoff?: Backoff;
  /** Clock (tests move it instead of waiting). */
  now?: () => number;
  /** A claim or bookkeeping query failed (database down); the loop goes on at the next poll. */
  onError?: (err: unknown) => void;
}

interface Lane {
  kinds: string[];
  concurrency: number;
  running: number;
}

function message(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

export class Worker {
  readonly workerId: string;
  readonly #db: Db;
  readonly #handlers: Record<string, JobHandler>;
  readonly #lanes: Lane[];
  readonly #laneOf = new Map<string, Lane>();
  readonly #pollMs: number;
  readonly #leaseMs: number;
  readonly #heartbeatMs: number;
  readonly #backoff: Backoff;
  readonly #now: () => number;
  readonly #onError: (err: unknown) => void;
  readonly #running = new Set<Promise<void>>();
  #loop: Promise<void> | undefined;
  #stopping = false;
  #wake: (() => void) | undefined;

  constructor(db: Db, options: WorkerOptions) {
    this.#db = db;
    this.#handlers = options.handlers;
    this.workerId = options.workerId ?? `${hostname()}:${process.pid}:${randomBytes(4).toString('hex')}`;
    const kinds = Object.keys(options.handlers);
    const laned = new Set<string>();
    this.#lanes = [];
    for (const l of options.lanes ?? []) {
      const lane: Lane = { kinds: l.kinds.filter((k) => kinds.includes(k) && !laned.has(k)), concurrency: Math.max(1, l.concurrency), running: 0 };
      for (const k of lane.kinds) laned.add(k);
      if (lane.kinds.length) this.#lanes.push(lane);
    }
    const rest = kinds.filter((k) => !laned.has(k));
    if (rest.length) this.#lanes.unshift({ kinds: rest, concurrency: Math.max(1, options.concurrency ?? 1), running: 0 });
    for (const lane of this.#lanes) for (const k of lane.kinds) this.#laneOf.set(k, lane);
    this.#pollMs = options.pollMs ?? 1000;
    this.#leaseMs = options.leaseMs ?? 60_000;
    this.#heartbeatMs = options.heartbeatMs ?? Math.max(1, Math.floor(this.#leaseMs / 3));
    this.#backoff = options.backoff ?? DEFAULT_BACKOFF;
    this.#now = options.now ?? Date.now;
    this.#onError = options.onError ?? (() => {});
  }

  /** Jobs running now. */
  get active(): number {
    return this.#running.size;
  }

  /** Resolves when the jobs running now have finished (tests, shutdown). */
  async settled(): Promise<void> {
    await Promise.allSettled([...this.#running]);
  }

  /** Starts the background loop (idempotent). */
  start(): void {
    if (this.#loop || this.#stopping) return;
    this.#loop = this.#run();
  }

  /** Stops claiming and resolves once the jobs already running have finished (graceful shutdown). */
  async stop(): Promise<void> {
    this.#stopping = true;
    this.#wake?.();
    await this.#loop;
    await this.settled();
  }

  /**
   * One round: fails jobs whose last attempt's worker vanished, then claims as many due jobs as there are free
   * slots and starts them. Returns the jobs started (the loop calls this; tests call it directly).
   */
  async runOnce(): Promise<Job[]> {
    const open = this.#lanes.filter((l) => l.running < l.concurrency);
    if (this.#stopping || open.length === 0) return [];
    const free = Math.min(...open.map((l) => l.concurrency - l.running));
    const now = this.#now();
    await reapExpired(this.#db, now);
    if (this.#stopping) return [];
    const jobs = await claim(this.#db, { workerId: this.workerId, limit: free, leaseMs: this.#leaseMs, kinds: open.flatMap((l) => l.kinds) }, now);
    if (this.#stopping) {
      // Told to stop while the claim was on its way: what it took goes back to the queue for the next worker.
      await Promise.all(jobs.map((job) => release(this.#db, { id: job.id, attempts: job.attempts, lockedBy: this.workerId })));
      return [];
    }
    for (const job of jobs) {
      const lane = this.#laneOf.get(job.kind)!;
      lane.running++;
      const p = this.#execute(job).finally(() => {
        lane.running--;
        this.#running.delete(p);
        this.#wake?.();
      });
      this.#running.add(p);
    }
    return jobs;
  }

  async #run(): Promise<void> {
    while (!this.#stopping) {
      let started = 0;
      try {
        started = (await this.runOnce()).length;
      } catch (err) {
        this.#onError(err);
      }
      if (this.#stopping) break;
      // Full: wait for a slot. Claimed some and slots remain: more may be due, look again at once.
      // Found nothing: wait for the poll interval (or a finished job, or stop).
      const full = this.#lanes.every((l) => l.running >= l.concurrency);
      if (full) await this.#sleep(undefined);
      else if (started === 0) await this.#sleep(this.#pollMs);
    }
  }

  #sleep(ms: number | undefined): Promise<void> {
    return new Promise((resolve) => {
      let timer: NodeJS.Timeout | undefined;
      const done = (): void => {
        clearTimeout(timer);
        if (this.#wake === done) this.#wake = undefined;
        resolve();
      };
      if (ms !== undefined) timer = setTimeout(done, ms);
      this.#wake = done;
    });
  }

  async #execute(job: Job): Promise<void> {
    const handler = this.#handlers[job.kind];
    const c = { id: job.id, attempts: job.attempts, lockedBy: this.workerId };
    const lost = new AbortController();
    let beating: Promise<boolean> | undefined;
    const beat = async (): Promise<boolean> => {
      // One heartbeat at a time: a slow database must not pile them up.
      beating ??= heartbeat(this.#db, c, this.#leaseMs, this.#now())
        .then((held) => {
          if (!held) lost.abort(new Error('the job lease was lost'));
          return held;
        })
        .catch((err: unknown) => {
          this.#onError(err);
          return !lost.signal.aborted;
        })
        .finally(() => {
          beating = undefined;
        });
      return beating;
    };
    const timer = setInterval(() => void beat(), this.#heartbeatMs);
    try {
      if (!handler) throw new Error(`no handler for job kind ${job.kind}`);
      await handler(job, { signal: lost.signal, heartbeat: beat });
      clearInterval(timer);
      if (!lost.signal.aborted) await complete(this.#db, c, this.#now());
    } catch (err) {
      clearInterval(timer);
      if (!lost.signal.aborted) {
        try {
          await fail(this.#db, { ...c, maxAttempts: job.maxAttempts }, message(err), this.#now(), this.#backoff);
        } catch (bookkeeping) {
          this.#onError(bookkeeping);
        }
      }
    } finally {
      clearInterval(timer);
      await beating;
    }
  }
}
