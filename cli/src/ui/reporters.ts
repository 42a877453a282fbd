// Human reporters for bulk jobs: the live ink view on a terminal, plain lines when output is piped.
import { createElement as h } from 'react';
import { render, type Instance } from 'ink';
import { formatSize } from '@hcs/transfer-core';
import type { BulkEvent, Reporter } from '../events.ts';
import { formatDuration } from '../format.ts';
import { JobStats } from '../stats.ts';
import { BulkView, summaryText, type FinishedItem } from './bulk-view.ts';

/** Renders the ink view, redrawing at most every 100 ms however many events arrive. */
export class InkReporter implements Reporter {
  private readonly stats = new JobStats();
  private readonly finished: FinishedItem[] = [];
  private instance: Instance | undefined;
  private timer: NodeJS.Timeout | undefined;
  private dirty = false;
  private seq = 0;
  stopping = false;
  private readonly stdout: NodeJS.WriteStream;

  constructor(stdout: NodeJS.WriteStream = process.stdout) {
    this.stdout = stdout;
  }

  private view() {
    return h(BulkView, {
      job: this.stats.job,
      finished: [...this.finished],
      active: [...this.stats.active.values()],
      files: this.stats.files,
      done: this.stats.done,
      failed: this.stats.failed,
      bytes: this.stats.bytes,
      bytesDone: this.stats.bytesDone,
      speed: this.stats.speed(),
      timeLeft: this.stats.timeLeft(),
      stopping: this.stopping,
    });
  }

  emit(e: BulkEvent): void {
    this.stats.apply(e);
    if (e.type === 'file-done') this.finished.push({ key: String(this.seq++), path: e.path, bytes: e.bytes, outcome: e.outcome });
    if (e.type === 'file-failed') this.finished.push({ key: String(this.seq++), path: e.path, bytes: e.bytes, outcome: 'failed', message: `${e.code}: ${e.message}` });
    if (e.type === 'summary') {
      this.stats.bytesDone = e.bytesDone;
      this.stats.done = e.done;
    }
    if (!this.instance) {
      this.instance = render(this.view(), { stdout: this.stdout, exitOnCtrlC: false, patchConsole: false });
      this.timer = setInterval(() => this.flush(), 100);
      this.timer.unref();
      return;
    }
    this.dirty = true;
    if (e.type === 'summary' || e.type === 'file-failed') this.flush();
  }

  private flush(): void {
    if (!this.instance) return;
    this.dirty = false;
    this.instance.rerender(this.view());
  }

  async close(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    if (this.instance) {
      if (this.dirty) this.flush();
      this.instance.unmount();
      await this.instance.waitUntilExit().catch(() => undefined);
    }
  }
}

/** One line per finished or failed file and a closing summary; for logs and pipes. */
export class PlainReporter implements Reporter {
  private readonly out: NodeJS.WritableStream;
  constructor(out: NodeJS.WritableStream = process.stdout) {
    this.out = out;
  }
  emit(e: BulkEvent): void {
    switch (e.type) {
      case 'start':
        this.out.write(`${e.job}: ${e.files} files, ${formatSize(e.bytes)}${e.alreadyDone ? ` (${e.alreadyDone} already done)` : ''} -> ${e.target}\n`);
        break;
      case 'file-done':
        this.out.write(`${e.outcome.padEnd(10)} ${e.path} (${formatSize(e.bytes)})\n`);
        break;
      case 'file-failed':
        this.out.write(`failed     ${e.path}: ${e.code}: ${e.message}\n`);
        break;
      case 'summary':
        this.out.write(
          summaryText({ files: e.files, done: e.done, failed: e.failed, bytes: e.bytes, bytesDone: e.bytesDone, speed: e.elapsedMs > 0 ? (e.bytesDone / e.elapsedMs) * 1000 : 0, timeLeft: 0 }) +
            ` · ${formatDuration(e.elapsedMs / 1000)} elapsed${e.interrupted ? ' · interrupted (run the same command to resume)' : ''}\n`,
        );
        break;
      default:
        break;
    }
  }
  async close(): Promise<void> {}
}

/** The per-file failure report printed after the view closes (stderr, so stdout stays parseable). */
export function failureReport(summary: Extract<BulkEvent, { type: 'summary' }>): string {
  if (summary.failures.length === 0) return '';
  const lines = summary.failures.map((f) => `  ${f.path}\n      ${f.code}: ${f.message}`);
  return `${summary.failures.length} file(s) failed:\n${lines.join('\n')}\n`;
}
