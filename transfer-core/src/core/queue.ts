// The scheduler: which transfers run now. The web runs one upload at a time (spec 4/9), the CLI N; each transfer
// runs its own 3 parts in parallel. Network loss pauses and remembers; network return resumes what it paused.
import type { DownloadStatus, UploadStatus } from './state-machine.ts';
import { Emitter } from './emitter.ts';
import type { TransferError } from './errors.ts';
import type { Progress } from './progress.ts';

/** What the queue needs from an UploadTask or a DownloadTask. */
export interface QueueTask<S extends string> {
  readonly id: string;
  readonly status: S;
  readonly error: TransferError | undefined;
  readonly progress: Progress;
  readonly events: { on(e: 'status', fn: (p: { to: S; from: S; error?: TransferError }) => void): () => void; on(e: 'progress', fn: (p: Progress) => void): () => void };
  run(): Promise<void>;
  pause(): boolean;
  resume(): boolean;
  retry(): boolean;
  delete(): Promise<void>;
}

export interface QueueStates<S extends string> {
  /** Waiting for a slot (upload: ready, download: wait). */
  queued: S;
  /** Running (they occupy a slot). */
  active: readonly S[];
  /** Finished for good; the queue drops the task (spec: success leaves the list). */
  terminal: readonly S[];
}

export const UPLOAD_QUEUE_STATES: QueueStates<UploadStatus> = { queued: 'ready', active: ['checking', 'uploading', 'merging'], terminal: ['success', 'deleted'] };
export const DOWNLOAD_QUEUE_STATES: QueueStates<DownloadStatus> = { queued: 'wait', active: ['resume'], terminal: ['success', 'deleted'] };

export type QueueEvents<T> = {
  status: { task: T; to: string; from: string; error?: TransferError };
  progress: { task: T; progress: Progress };
  /** A task reached success (the UI adds it at the top of the finished list). */
  finished: { task: T };
  /** Every task has settled (nothing queued or running). */
  idle: Record<string, never>;
  /** start() on a queued item (spec: "only shows the warning that it is uploading"). */
  alreadyQueued: { task: T };
};

export class TransferQueue<S extends string, T extends QueueTask<S>> {
  readonly events = new Emitter<QueueEvents<T>>();
  readonly #states: QueueStates<S>;
  readonly #tasks: T[] = [];
  readonly #running = new Set<T>();
  readonly #unsubscribe = new Map<T, Array<() => void>>();
  #concurrency: number;
  #online = true;
  #held = false;
  /** Items paused or held by a network loss, resumed on return. */
  #remembered = new Set<T>();

  constructor(states: QueueStates<S>, opts: { concurrency?: number } = {}) {
    this.#states = states;
    this.#concurrency = Math.max(1, opts.concurrency ?? 1);
  }

  get tasks(): readonly T[] {
    return this.#tasks;
  }
  get online(): boolean {
    return this.#online;
  }
  get concurrency(): number {
    return this.#concurrency;
  }
  set concurrency(n: number) {
    this.#concurrency = Math.max(1, n);
    this.#pump();
  }

  get(id: string): T | undefined {
    return this.#tasks.find((t) => t.id === id);
  }

  add(task: T): T {
    this.#tasks.push(task);
    this.#unsubscribe.set(task, [
      task.events.on('status', (e) => {
        this.events.emit('status', { task, to: e.to, from: e.from, error: e.error });
        if (e.to === 'success') this.events.emit('finished', { task });
        if (this.#states.terminal.includes(e.to)) this.#drop(task);
      }),
      task.events.on('progress', (progress) => this.events.emit('progress', { task, progress })),
    ]);
    this.#pump();
    return task;
  }

  /** Manual start: a paused item resumes; a queued one only reports that it is already waiting. */
  start(id: string): boolean {
    const t = this.get(id);
    if (!t) return false;
    if (t.status === this.#states.queued) {
      this.events.emit('alreadyQueued', { task: t });
      return false;
    }
    return this.resume(id);
  }

  pause(id: string): boolean {
    return this.get(id)?.pause() ?? false;
  }

  resume(id: string): boolean {
    const ok = this.get(id)?.resume() ?? false;
    this.#pump();
    return ok;
  }

  retry(id: string): boolean {
    const ok = this.get(id)?.retry() ?? false;
    this.#pump();
    return ok;
  }

  async delete(id: string): Promise<void> {
    const t = this.get(id);
    if (!t) return;
    this.#remembered.delete(t);
    await t.delete();
    this.#drop(t);
    this.#pump();
  }

  /** Pauses running items and holds queued ones (they cannot be paused: spec 4 pauses only checking/uploading). */
  pauseAll(): void {
    this.#held = true;
    for (const t of this.#tasks) t.pause();
  }

  resumeAll(): void {
    this.#held = false;
    for (const t of this.#tasks) t.resume();
    this.#pump();
  }

  get held(): boolean {
    return this.#held;
  }

  /** Spec 4: pause and remember running items, hold queued ones, start nothing until the network returns. */
  networkLost(): void {
    this.#online = false;
    for (const t of this.#tasks) {
      const lost = (t as { networkLost?: () => void }).networkLost;
      if (lost) {
        lost.call(t);
        continue;
      }
      if (t.status === this.#states.queued) this.#remembered.add(t);
      else if (this.#states.active.includes(t.status) && t.pause()) this.#remembered.add(t);
    }
  }

  /** Resumes what networkLost() paused (downloads, per spec, stay in refresh until resumed by the user). */
  networkReturned(): void {
    this.#online = true;
    for (const t of this.#remembered) t.resume();
    this.#remembered.clear();
    this.#pump();
  }

  /** Resolves when nothing is queued or running. */
  whenIdle(): Promise<void> {
    if (this.#isIdle()) return Promise.resolve();
    return new Promise((resolve) => {
      const off = this.events.on('idle', () => {
        off();
        resolve();
      });
    });
  }

  #isIdle(): boolean {
    return this.#running.size === 0 && !this.#tasks.some((t) => t.status === this.#states.queued && this.#online && !this.#held);
  }

  #drop(task: T): void {
    const i = this.#tasks.indexOf(task);
    if (i >= 0) this.#tasks.splice(i, 1);
    for (const off of this.#unsubscribe.get(task) ?? []) off();
    this.#unsubscribe.delete(task);
  }

  #pump(): void {
    if (this.#online && !this.#held) {
      for (const t of this.#tasks) {
        if (this.#running.size >= this.#concurrency) break;
        if (t.status !== this.#states.queued || this.#running.has(t)) continue;
        this.#running.add(t);
        void t.run().catch(() => {}).finally(() => {
          this.#running.delete(t);
          this.#pump();
        });
      }
    }
    if (this.#isIdle()) queueMicrotask(() => this.#isIdle() && this.events.emit('idle', {}));
  }
}
