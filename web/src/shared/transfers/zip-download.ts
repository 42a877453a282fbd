// Folders (and several items at once) download as the server's streamed zip. Where the browser lets the page write a
// picked file, the zip streams into it through this task, so the transfer panel shows its real progress and lists it
// as finished only once the last byte is written. The zip has no length up front and no byte ranges (each ticket is
// single-use), so a stopped zip starts over; memory stays at one network chunk.
import { createDownloadMachine, Emitter, RequestError, SpeedMeter, systemClock, type DownloadStatus, type Progress, type TransferError } from '@hcs/transfer-core';
import type { DownloadTaskLike } from './engine.ts';

export interface ZipDownloadInput {
  uid: string;
  handle: FileSystemFileHandle;
  /** A fresh single-use zip URL (getZipDownloadUrl) for each run. */
  url: () => Promise<string>;
  fetch?: (url: string, init: RequestInit) => Promise<Response>;
  /** How often progress is reported while bytes stream in (default 250 ms). */
  progressEveryMs?: number;
}

type Events = { status: { to: DownloadStatus; from: DownloadStatus; error?: TransferError }; progress: Progress };


export class ZipDownload implements DownloadTaskLike {
  readonly id: string;
  readonly events = new Emitter<Events>();
  readonly #input: ZipDownloadInput;
  readonly #machine = createDownloadMachine('wait');
  readonly #meter = new SpeedMeter(systemClock);
  #error: TransferError | undefined;
  #progress: Progress = { loaded: 0, total: 0, speed: 0, timeLeft: undefined, phase: 'transferring' };
  #ctrl: AbortController | undefined;

  constructor(input: ZipDownloadInput) {
    this.id = input.uid;
    this.#input = input;
    this.#machine.onChange((to, from) => this.events.emit('status', { to, from, ...(this.#error && to === 'refresh' ? { error: this.#error } : {}) }));
  }

  get status(): DownloadStatus {
    return this.#machine.status;
  }
  get error(): TransferError | undefined {
    return this.#error;
  }
  get progress(): Progress {
    return this.#progress;
  }

  async run(): Promise<void> {
    if (this.status !== 'wait') return;
    this.#error = undefined;
    const ctrl = new AbortController();
    this.#ctrl = ctrl;
    this.#machine.transition('resume');
    this.#meter.reset();
    this.#report(0, true);
    let writable: FileSystemWritableFileStream | undefined;
    try {
      const url = await this.#input.url();
      const res = await (this.#input.fetch ?? fetch)(url, { signal: ctrl.signal, credentials: 'same-origin' });
      if (!res.ok || !res.body) throw new Error(`zip answered HTTP ${res.status}`);
      writable = await this.#input.handle.createWritable({ keepExistingData: false });
      let loaded = 0;
      const reader = res.body.getReader();
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        await writable.write(value);
        loaded += value.byteLength;
        this.#report(loaded);
      }
      // Committed before success: a zip the panel calls finished is on disk.
      await writable.close();
      writable = undefined;
      this.#report(loaded, true);
      this.#machine.transition('success');
    } catch (err) {
      await writable?.abort().catch(() => {});
      if (ctrl.signal.aborted) return; // paused or deleted: the status already says so
      this.#error = new RequestError({ cause: err });
      if (this.#machine.can('refresh')) this.#machine.transition('refresh');
    } finally {
      if (this.#ctrl === ctrl) this.#ctrl = undefined;
    }
  }

  pause(): boolean {
    if (!this.#machine.can('pause')) return false;
    this.#ctrl?.abort();
    this.#machine.transition('pause');
    return true;
  }

  /** Paused or interrupted: waits for its turn and starts over (the zip cannot continue where it stopped). */
  resume(): boolean {
    if (this.status !== 'pause' && this.status !== 'refresh') return false;
    this.#machine.transition('wait');
    return true;
  }

  retry(): boolean {
    if (this.status !== 'error' && this.status !== 'refresh') return false;
    this.#machine.transition('wait');
    return true;
  }

  networkLost(): void {
    if (this.status !== 'resume') return;
    this.#ctrl?.abort();
    this.#error = new RequestError();
    this.#machine.transition('refresh');
  }

  async delete(): Promise<void> {
    this.#ctrl?.abort();
    if (this.#machine.can('deleted')) this.#machine.transition('deleted');
  }

  #lastReport = 0;
  #report(loaded: number, force = false): void {
    this.#meter.record(loaded);
    const now = Date.now();
    if (!force && now - this.#lastReport < (this.#input.progressEveryMs ?? 250)) return;
    this.#lastReport = now;
    this.#progress = this.#meter.progress(loaded, loaded, 'transferring');
    this.events.emit('progress', this.#progress);
  }
}
