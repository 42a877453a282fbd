// Scripted engine tasks for the web's unit tests: real engine state machines (so a transition the engine would
// refuse fails the test), with the outcome of each run decided by the test. Not imported by the app.
import { createDownloadMachine, createUploadMachine, Emitter, type DownloadStatus, type Progress, type StateMachine, type TransferError, type UploadStatus } from '@hcs/transfer-core';
import type { DownloadJob, DownloadTaskLike, TransferEngine, UploadJob, UploadTaskLike } from '../shared/transfers/engine.ts';

type Events<S> = { status: { to: S; from: S; error?: TransferError }; progress: Progress };

class Scripted<S extends string> {
  readonly id: string;
  readonly events = new Emitter<Events<S>>();
  readonly machine: StateMachine<S>;
  error: TransferError | undefined;
  progress: Progress = { loaded: 0, total: 0, speed: 0, timeLeft: undefined, phase: 'hashing' };
  /** Aborted when the run is paused or deleted, like the engine's in-flight requests. */
  signal: AbortSignal | undefined;
  runs = 0;
  deleted = 0;
  #end: (() => void) | undefined;
  #ctrl: AbortController | undefined;

  constructor(id: string, machine: StateMachine<S>) {
    this.id = id;
    this.machine = machine;
    machine.onChange((to, from) => this.events.emit('status', { to, from, ...(this.error ? { error: this.error } : {}) }));
  }
  get status(): S {
    return this.machine.status;
  }
  protected start(running: S): Promise<void> {
    this.runs += 1;
    this.#ctrl = new AbortController();
    this.signal = this.#ctrl.signal;
    this.machine.transition(running);
    return new Promise((resolve) => (this.#end = resolve));
  }
  protected end(to?: S): void {
    if (to) this.machine.transition(to);
    this.#ctrl?.abort();
    this.#end?.();
    this.#end = undefined;
  }
  emitProgress(p: Partial<Progress>): void {
    this.progress = { ...this.progress, ...p };
    this.events.emit('progress', this.progress);
  }
  fail(error: TransferError, to: S): void {
    this.error = error;
    this.end(to);
  }
  pause(): boolean {
    if (!this.machine.can('pause' as S)) return false;
    this.end('pause' as S);
    return true;
  }
  async delete(): Promise<void> {
    this.deleted += 1;
    if (this.machine.can('deleted' as S)) this.end('deleted' as S);
  }
}

export class ScriptedUpload extends Scripted<UploadStatus> implements UploadTaskLike {
  readonly job: UploadJob;
  result: { instanceId: string } | undefined;
  constructor(job: UploadJob) {
    super(job.uid, createUploadMachine());
    this.job = job;
  }
  run(): Promise<void> {
    return this.start('checking');
  }
  phase(to: 'uploading' | 'merging'): void {
    this.machine.transition(to);
  }
  succeed(instanceId: string): void {
    this.result = { instanceId };
    this.end('success');
  }
  resume(): boolean {
    if (this.status !== 'pause') return false;
    this.machine.transition('ready');
    return true;
  }
  retry(): boolean {
    if (this.status !== 'error' && this.status !== 'onTimeout') return false;
    this.error = undefined;
    this.machine.transition('ready');
    return true;
  }
}

export class ScriptedDownload extends Scripted<DownloadStatus> implements DownloadTaskLike {
  readonly job: DownloadJob;
  /** What the next prepare() rejects with (permission refused, file gone); undefined lets it pass. */
  prepareError: unknown;
  prepared = 0;
  constructor(job: DownloadJob) {
    // Like the engine's DownloadTask created with initial status 'pause'.
    super(job.uid, createDownloadMachine(job.restored ? 'pause' : 'wait'));
    this.job = job;
  }
  async prepare(): Promise<void> {
    this.prepared += 1;
    if (this.prepareError !== undefined) throw this.prepareError;
  }
  run(): Promise<void> {
    return this.start('resume');
  }
  succeed(): void {
    this.end('success');
  }
  resume(): boolean {
    if (this.status !== 'pause' && this.status !== 'refresh') return false;
    this.error = undefined;
    this.machine.transition('wait');
    return true;
  }
  retry(): boolean {
    if (this.status !== 'error' && this.status !== 'refresh') return false;
    this.error = undefined;
    this.machine.transition('wait');
    return true;
  }
  networkLost(): void {
    if (this.status === 'resume') this.end('refresh');
  }
}

export function scriptedEngine() {
  const uploads: ScriptedUpload[] = [];
  const downloads: ScriptedDownload[] = [];
  const engine: TransferEngine = {
    createUpload: (job) => {
      const t = new ScriptedUpload(job);
      uploads.push(t);
      return t;
    },
    createDownload: (job) => {
      const t = new ScriptedDownload(job);
      downloads.push(t);
      return t;
    },
    identityOf: (file, name) => `${name}:${file.size}:${file.lastModified}`,
  };
  /** The task of the upload named `name` (the latest one created for it). */
  const upload = (name: string) => [...uploads].reverse().find((u) => u.job.name === name)!;
  const runs = () => uploads.reduce((n, u) => n + u.runs, 0);
  return { engine, uploads, downloads, upload, runs };
}

/** A TransferError-shaped failure (code + messageKey), as the engine reports them. */
export const failure = (code: string, extra: Record<string, unknown> = {}): TransferError =>
  Object.assign(new Error(`[${code}] failed`), { code, messageKey: `transfer.error.${code}`, serverMessage: undefined, ...extra }) as unknown as TransferError;
