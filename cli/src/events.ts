// The events a bulk job reports. The ink view, the plain-text log and `--json` all consume this one
// stream, so what a script sees is exactly what a person sees.
export type JobKind = 'upload' | 'download';

export type FileOutcome = 'uploaded' | 'instant' | 'skipped' | 'downloaded';

export type BulkEvent =
  | { type: 'start'; job: JobKind; files: number; bytes: number; alreadyDone: number; alreadyDoneBytes: number; target: string }
  | { type: 'file-start'; path: string; bytes: number }
  | { type: 'progress'; path: string; loaded: number; bytes: number; phase: 'hashing' | 'transferring' | 'verifying' }
    /** `sent`: bytes this run moved over the network (less than `bytes` after a resume, 0 for instant). */
  | { type: 'file-done'; path: string; bytes: number; outcome: FileOutcome; remote: string; sent?: number }
  | { type: 'file-failed'; path: string; bytes: number; code: string; message: string }
  | {
      type: 'summary';
      job: JobKind;
      files: number;
      done: number;
      failed: number;
      skipped: number;
      bytes: number;
      bytesDone: number;
      elapsedMs: number;
      interrupted: boolean;
      failures: Array<{ path: string; code: string; message: string }>;
    };

export interface Reporter {
  emit(event: BulkEvent): void;
  /** Stops any rendering and flushes output. */
  close(): Promise<void>;
}

/**
 * Serialises an event as one JSON line with a timestamp. Field names are stable: scripts parse them.
 * `event` carries the type so the line reads naturally with jq (`select(.event=="file-failed")`).
 */
export function jsonLine(event: BulkEvent, now: number = Date.now()): string {
  const { type, ...rest } = event;
  return JSON.stringify({ event: type, ts: new Date(now).toISOString(), ...rest }) + '\n';
}

/** Emits `--json` lines; progress is throttled per file so a fast job does not flood the pipe. */
export class JsonReporter implements Reporter {
  private readonly lastProgress = new Map<string, number>();
  private readonly out: NodeJS.WritableStream;
  private readonly intervalMs: number;
  private readonly now: () => number;
  constructor(out: NodeJS.WritableStream, opts: { intervalMs?: number; now?: () => number } = {}) {
    this.out = out;
    this.intervalMs = opts.intervalMs ?? 500;
    this.now = opts.now ?? Date.now;
  }
  emit(event: BulkEvent): void {
    const t = this.now();
    if (event.type === 'progress') {
      const last = this.lastProgress.get(event.path);
      if (last !== undefined && t - last < this.intervalMs && event.loaded < event.bytes) return;
      this.lastProgress.set(event.path, t);
    } else if (event.type === 'file-done' || event.type === 'file-failed') {
      this.lastProgress.delete(event.path);
    }
    this.out.write(jsonLine(event, t));
  }
  async close(): Promise<void> {}
}
