// Running totals of a bulk job: what the summary line shows and what the summary event reports.
// Speed is measured over a sliding window so a stall shows as a falling speed rather than an average.
import type { BulkEvent, JobKind } from './events.ts';

export interface ActiveFile {
  path: string;
  bytes: number;
  loaded: number;
  phase: 'hashing' | 'transferring' | 'verifying';
}

export class JobStats {
  job: JobKind = 'upload';
  files = 0;
  bytes = 0;
  done = 0;
  failed = 0;
  skipped = 0;
  /** Bytes of finished files plus the progress of active ones. */
  bytesDone = 0;
  readonly startedAt: number;
  readonly active = new Map<string, ActiveFile>();
  readonly failures: Array<{ path: string; code: string; message: string }> = [];
  private finishedBytes = 0;
  private samples: Array<{ t: number; bytes: number }> = [];
  private readonly now: () => number;
  private readonly windowMs: number;

  constructor(now: () => number = Date.now, windowMs = 5000) {
    this.now = now;
    this.startedAt = now();
    this.windowMs = windowMs;
  }

  /** Files an earlier run finished: counted as done without events (a 10,000-file re-run stays quiet). */
  skipDone(files: number, bytes: number): void {
    this.done += files;
    this.finishedBytes += bytes;
    this.bytesDone += bytes;
    // Speed measures this run only.
    this.samples = this.samples.map((s) => ({ ...s, bytes: s.bytes + bytes }));
  }

  apply(e: BulkEvent): void {
    switch (e.type) {
      case 'start':
        this.job = e.job;
        this.files = e.files;
        this.bytes = e.bytes;
        this.skipDone(e.alreadyDone, e.alreadyDoneBytes);
        break;
      case 'file-start':
        this.active.set(e.path, { path: e.path, bytes: e.bytes, loaded: 0, phase: 'hashing' });
        break;
      case 'progress': {
        const a = this.active.get(e.path) ?? { path: e.path, bytes: e.bytes, loaded: 0, phase: e.phase };
        a.loaded = e.loaded;
        a.phase = e.phase;
        this.active.set(e.path, a);
        break;
      }
      case 'file-done':
        this.active.delete(e.path);
        this.done++;
        if (e.outcome === 'skipped') this.skipped++;
        this.finishedBytes += e.bytes;
        break;
      case 'file-failed':
        this.active.delete(e.path);
        this.failed++;
        this.failures.push({ path: e.path, code: e.code, message: e.message });
        break;
      case 'summary':
        break;
    }
    let inFlight = 0;
    // Hashing reads the file but moves no bytes: only transfer progress counts towards speed.
    for (const a of this.active.values()) if (a.phase !== 'hashing') inFlight += a.loaded;
    this.bytesDone = this.finishedBytes + inFlight;
    const t = this.now();
    this.samples.push({ t, bytes: this.bytesDone });
    while (this.samples.length > 2 && this.samples[0]!.t < t - this.windowMs) this.samples.shift();
  }

  /** Bytes per second over the window; 0 until measurable. */
  speed(): number {
    const first = this.samples[0];
    const last = this.samples[this.samples.length - 1];
    if (!first || !last || last.t - first.t < 200) return 0;
    return Math.max(0, ((last.bytes - first.bytes) / (last.t - first.t)) * 1000);
  }

  /** Seconds left at the current speed, undefined when unknown. */
  timeLeft(): number | undefined {
    const s = this.speed();
    return s > 0 ? Math.max(0, (this.bytes - this.bytesDone) / s) : undefined;
  }

  elapsedMs(): number {
    return this.now() - this.startedAt;
  }

  summary(interrupted: boolean): Extract<BulkEvent, { type: 'summary' }> {
    return {
      type: 'summary',
      job: this.job,
      files: this.files,
      done: this.done,
      failed: this.failed,
      skipped: this.skipped,
      bytes: this.bytes,
      bytesDone: this.bytesDone,
      elapsedMs: this.elapsedMs(),
      interrupted,
      failures: [...this.failures],
    };
  }
}
