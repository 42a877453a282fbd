// The agent's transfers: each upload or download the web hands over is one CLI bulk job (runUpload / runDownload on
// @hcs/transfer-core with the append-only journal), so it resumes exactly like `drive upload` run again. The list
// of jobs is kept in agent/jobs.json (0600) and reloaded on start: jobs that were running start again as soon as
// the agent holds a session of their user, after a crash or a reboot as after a pause.
import { randomBytes } from 'node:crypto';
import { readFile, rm } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { writeSecretJson } from '../auth-file.ts';
import { toCliError, type Api } from '../api.ts';
import { EXIT } from '../exit-codes.ts';
import type { BulkEvent, Reporter } from '../events.ts';
import { downloadJobKey, runDownload, type DownloadJobOptions } from '../jobs/download.ts';
import { jobId as journalId } from '../jobs/job-state.ts';
import { runUpload, uploadJobKey, type JobContext, type UploadJobOptions } from '../jobs/upload.ts';
import { JobStats } from '../stats.ts';
import { createTransfer } from '../transfer.ts';
import { ProgressThrottle, systemClock } from '@hcs/transfer-core';
import type { Conflict, JobState, JobView } from './protocol.ts';

interface UploadSpec {
  sources: string[];
  parentId: string;
  to: string;
  conflict: Conflict;
  libCode?: string;
  instanceType?: string;
  /** The one source is a folder. */
  folder?: boolean;
}

interface DownloadSpec {
  instanceIds: string[];
  out: string;
}

export interface JobRecord {
  id: string;
  kind: 'upload' | 'download';
  userId: string;
  userName: string;
  name: string;
  createdAt: number;
  state: JobState;
  upload?: UploadSpec;
  download?: DownloadSpec;
  /** Totals of the last run, kept so a finished or paused job still shows them. */
  totals?: { files: number; done: number; failed: number; bytes: number; bytesDone: number };
  failures?: JobView['failures'];
  error?: { code: string; message: string };
}

interface Active {
  abort: AbortController;
  stats: JobStats;
  finished: Promise<void>;
}

export interface JobHost {
  /** An API client for the user and the token it sends, or null while the agent holds no session of theirs. */
  sessionFor(userId: string): { api: Api; token: string } | null;
  /** The server said this token's session ended: the web must pair again. */
  sessionEnded(userId: string, token: string): void;
  /** A job changed (state, totals or progress). */
  changed(job: JobView, userId: string): void;
}

const PROGRESS_EVERY_MS = 250;
/** Finished jobs kept in the list. */
const KEEP_DONE = 100;
const MAX_FAILURES_SHOWN = 50;

export class JobManager {
  private readonly jobs = new Map<string, JobRecord>();
  private readonly active = new Map<string, Active>();
  /** Per job: progress at most every PROGRESS_EVERY_MS, the last of a burst never lost. */
  private readonly progress = new Map<string, ProgressThrottle>();
  private readonly file: string;
  private readonly stateDir: string;
  private readonly server: string;
  private readonly concurrency: number;
  private readonly host: JobHost;
  private saving: Promise<void> = Promise.resolve();

  constructor(opts: { server: string; stateDir: string; concurrency: number; host: JobHost }) {
    this.server = opts.server;
    this.stateDir = opts.stateDir;
    this.file = join(opts.stateDir, 'agent', 'jobs.json');
    this.concurrency = opts.concurrency;
    this.host = opts.host;
  }

  async load(): Promise<void> {
    let list: unknown;
    try {
      list = JSON.parse(await readFile(this.file, 'utf8'));
    } catch (err) {
      // No list yet; a corrupt one (it is written atomically, so only by hand) starts empty rather than not at all.
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT' && !(err instanceof SyntaxError)) throw err;
    }
    for (const j of Array.isArray(list) ? (list as JobRecord[]) : []) if (j && typeof j.id === 'string') this.jobs.set(j.id, j);
  }

  /** Jobs of one user, newest first. */
  list(userId: string): JobView[] {
    return [...this.jobs.values()].filter((j) => j.userId === userId).sort((a, b) => b.createdAt - a.createdAt).map((j) => this.view(j));
  }

  get(id: string, userId: string): JobRecord | undefined {
    const j = this.jobs.get(id);
    return j && j.userId === userId ? j : undefined;
  }

  async add(job: Omit<JobRecord, 'id' | 'createdAt' | 'state'>): Promise<JobView> {
    const rec: JobRecord = { ...job, id: randomBytes(12).toString('base64url'), createdAt: Date.now(), state: 'running' };
    this.jobs.set(rec.id, rec);
    // Finished jobs are kept for the panel's finished list, up to a bound, oldest forgotten first.
    const done = [...this.jobs.values()].filter((j) => j.state === 'done').sort((a, b) => a.createdAt - b.createdAt);
    for (const old of done.slice(0, Math.max(0, done.length - KEEP_DONE))) await this.forget(old);
    await this.save();
    this.start(rec);
    return this.view(rec);
  }

  /** Starts every job of the user that should be running and is not (after a pairing or a restart). */
  wake(userId: string): void {
    for (const j of this.jobs.values()) if (j.userId === userId && j.state === 'running') this.start(j);
  }

  async pause(job: JobRecord): Promise<void> {
    if (job.state !== 'running') return;
    job.state = 'paused';
    await this.stop(job);
    await this.save();
    this.notify(job, true);
  }

  async resume(job: JobRecord): Promise<void> {
    if (job.state === 'running' || job.state === 'done') return;
    job.state = 'running';
    delete job.error;
    await this.save();
    this.start(job);
  }

  /** Stops the job and forgets it with its journal (files already transferred stay where they are). */
  async delete(job: JobRecord): Promise<void> {
    await this.forget(job);
    await this.save();
    this.host.changed({ ...this.view(job), state: 'deleted' }, job.userId);
  }

  private async forget(job: JobRecord): Promise<void> {
    this.jobs.delete(job.id);
    this.progress.get(job.id)?.cancel();
    this.progress.delete(job.id);
    await this.stop(job);
    const key = job.kind === 'upload' ? uploadJobKey(this.account(job), this.uploadOptions(job)) : downloadJobKey(this.account(job), this.downloadOptions(job));
    const base = join(this.stateDir, 'jobs', journalId(job.kind, key));
    await Promise.all([rm(`${base}.jsonl`, { force: true }), rm(`${base}.engine.json`, { force: true })]);
  }

  /** Stops the running jobs of every other user; they stay running and go on when their user pairs again. */
  async suspendAllBut(userId: string): Promise<void> {
    await Promise.all([...this.jobs.values()].filter((j) => j.userId !== userId).map((j) => this.stop(j)));
  }

  /** Stops every running job without changing its state: they start again on the next run of the agent. */
  async shutdown(): Promise<void> {
    await Promise.all([...this.jobs.values()].map((j) => this.stop(j)));
    await this.saving;
  }

  private async stop(job: JobRecord): Promise<void> {
    const a = this.active.get(job.id);
    if (!a) return;
    a.abort.abort();
    await a.finished;
  }

  private account(job: JobRecord) {
    return { server: this.server, user: job.userName };
  }

  private uploadOptions(job: JobRecord): UploadJobOptions {
    const u = job.upload!;
    return { sources: u.sources, to: u.to, concurrency: this.concurrency, conflict: u.conflict, restart: false, targetId: u.parentId, confine: true };
  }

  private downloadOptions(job: JobRecord): DownloadJobOptions {
    const d = job.download!;
    return { remotes: [], instanceIds: d.instanceIds, out: d.out, concurrency: this.concurrency, overwrite: false, restart: false };
  }

  private start(job: JobRecord): void {
    if (this.active.has(job.id)) return;
    const session = this.host.sessionFor(job.userId);
    if (!session) {
      this.notify(job, true);
      return;
    }
    const { api, token } = session;
    const abort = new AbortController();
    const stats = new JobStats();
    const reporter: Reporter = {
      emit: (e: BulkEvent) => {
        stats.apply(e);
        this.notify(job, e.type === 'start' || e.type === 'summary');
      },
      close: async () => {},
    };
    const ctx: JobContext = {
      api,
      transfer: (resumePath) => createTransfer(api, resumePath),
      reporter,
      stateDir: this.stateDir,
      account: this.account(job),
      signal: abort.signal,
    };
    // One cheap call first: a session that ended while the agent was idle (or stopped) shows as such, and the job
    // waits for a new pairing, instead of every file failing with the transfer engine's generic refusal.
    const run = api
      .call((c) => c.GET('/hcs/controller/System/Current/User', { signal: abort.signal }))
      .then(() => (job.kind === 'upload' ? runUpload(ctx, this.uploadOptions(job)) : runDownload(ctx, this.downloadOptions(job))));
    const finished = run.then(
      (result) => this.settle(job, result, abort.signal, undefined, token),
      (err: unknown) => this.settle(job, stats, abort.signal, err, token),
    );
    this.active.set(job.id, { abort, stats, finished });
    this.notify(job, true);
  }

  private async settle(job: JobRecord, result: JobStats, signal: AbortSignal, err: unknown, token: string): Promise<void> {
    this.active.delete(job.id);
    const s = result.summary(signal.aborted);
    job.totals = { files: s.files, done: s.done, failed: s.failed, bytes: s.bytes, bytesDone: s.bytesDone };
    job.failures = s.failures.slice(0, MAX_FAILURES_SHOWN);
    if (!signal.aborted) {
      if (err !== undefined) {
        const e = toCliError(err);
        if (e.exitCode === EXIT.AUTH) {
          // The session ended (expired, revoked): the job waits, running, for the web to pair again.
          this.host.sessionEnded(job.userId, token);
        } else {
          job.state = 'failed';
          job.error = { code: e.code, message: e.message };
        }
      } else {
        if (s.failures.some((f) => f.code === 'UNAUTHENTICATED')) {
          // Files refused because the session ended mid-way: the job waits, running, and the next run after the
          // web pairs again sends only what is not done yet.
          this.host.sessionEnded(job.userId, token);
        } else {
          job.state = s.failed > 0 ? 'failed' : 'done';
        }
      }
    }
    await this.save();
    if (this.jobs.has(job.id)) this.notify(job, true);
  }

  private notify(job: JobRecord, force: boolean): void {
    let throttle = this.progress.get(job.id);
    if (!throttle) {
      throttle = new ProgressThrottle(systemClock, PROGRESS_EVERY_MS, () => {
        if (this.jobs.has(job.id)) this.host.changed(this.view(job), job.userId);
      });
      this.progress.set(job.id, throttle);
    }
    throttle.push(force);
  }

  view(job: JobRecord): JobView {
    const a = this.active.get(job.id);
    const live = a?.stats;
    const t = live
      ? { files: live.files, done: live.done, failed: live.failed, bytes: live.bytes, bytesDone: live.bytesDone }
      : (job.totals ?? { files: 0, done: 0, failed: 0, bytes: 0, bytesDone: 0 });
    const target = job.kind === 'upload' ? job.upload!.to : job.download!.out;
    return {
      id: job.id,
      kind: job.kind,
      name: job.name,
      state: job.state,
      target,
      createdAt: job.createdAt,
      ...t,
      speed: live ? Math.round(live.speed()) : 0,
      ...(live?.timeLeft() !== undefined ? { timeLeft: Math.round(live.timeLeft()!) } : {}),
      ...(job.state === 'running' && !a && !this.host.sessionFor(job.userId) ? { needsToken: true } : {}),
      failures: live ? live.failures.slice(0, MAX_FAILURES_SHOWN) : (job.failures ?? []),
      ...(job.error ? { error: job.error } : {}),
      ...(job.download ? { instanceIds: job.download.instanceIds } : {}),
      ...(job.upload ? { parentId: job.upload.parentId, conflict: job.upload.conflict } : {}),
      ...(job.upload?.libCode ? { libCode: job.upload.libCode } : {}),
      ...(job.upload?.instanceType ? { instanceType: job.upload.instanceType } : {}),
      ...(job.upload?.folder ? { folder: true } : {}),
    };
  }

  /** Writes the job list atomically; writes are serialised so an older list never lands after a newer one. */
  private save(): Promise<void> {
    const snapshot = [...this.jobs.values()];
    this.saving = this.saving.then(() => writeSecretJson(this.file, snapshot));
    return this.saving;
  }
}

/** A job's display name: the first source's name, and how many more. */
export function jobName(names: readonly string[]): string {
  const first = basename(names[0] ?? '');
  return names.length > 1 ? `${first} (+${names.length - 1})` : first;
}
