// One row of the web upload queue as the engine's TransferQueue sees it: the engine's UploadTask plus the two
// things only the web has. A *held* upload is paused before it ever ran (pause all on a waiting row, a network loss,
// a row restored after a page reload: spec 4 brings them back paused), which the engine's state machine does not
// allow from ready. And a row restored without its File has no task until the user picks the file again.
import { Emitter, type Progress, type TransferError, type UploadStatus } from '@hcs/transfer-core';
import type { UploadTaskLike } from './engine.ts';

type StatusEvent = { to: UploadStatus; from: UploadStatus; error?: TransferError };
type Events = { status: StatusEvent; progress: Progress };

const IDLE: Progress = { loaded: 0, total: 0, speed: 0, timeLeft: undefined, phase: 'hashing' };

export class QueuedUpload {
  readonly id: string;
  readonly events = new Emitter<Events>();
  #task: UploadTaskLike | undefined;
  #held: boolean;
  #deleted = false;
  #off: Array<() => void> = [];

  constructor(id: string, task: UploadTaskLike | undefined, held: boolean) {
    this.id = id;
    if (task) this.#bind(task);
    this.#held = held;
  }

  get task(): UploadTaskLike | undefined {
    return this.#task;
  }
  get needsFile(): boolean {
    return !this.#task;
  }
  get status(): UploadStatus {
    if (this.#deleted) return 'deleted';
    return this.#held || !this.#task ? 'pause' : this.#task.status;
  }
  get error(): TransferError | undefined {
    return this.#task?.error;
  }
  get progress(): Progress {
    return this.#task?.progress ?? IDLE;
  }

  /** Gives a file-less row (restored after a reload) its task; it stays paused until resumed. */
  attach(task: UploadTaskLike): void {
    this.#bind(task);
    if (task.status === 'ready') this.#held = true;
  }

  #bind(task: UploadTaskLike): void {
    for (const off of this.#off) off();
    this.#task = task;
    this.#off = [
      task.events.on('status', (e) => {
        if (!this.#held) this.events.emit('status', e);
      }),
      task.events.on('progress', (p) => this.events.emit('progress', p)),
    ];
  }

  run(): Promise<void> {
    if (!this.#task || this.#held) return Promise.reject(new Error(`cannot run upload ${this.id} in status ${this.status}`));
    return this.#task.run();
  }

  pause(): boolean {
    if (!this.#task || this.#deleted) return false;
    if (this.#task.status === 'ready' && !this.#held) {
      this.#held = true;
      this.events.emit('status', { to: 'pause', from: 'ready' });
      return true;
    }
    return this.#task.pause();
  }

  resume(): boolean {
    if (!this.#task || this.#deleted) return false;
    if (this.#held) {
      this.#held = false;
      this.events.emit('status', { to: 'ready', from: 'pause' });
      return true;
    }
    return this.#task.resume();
  }

  retry(): boolean {
    return !this.#held && (this.#task?.retry() ?? false);
  }

  /** Stops the upload and ends its server session (quota reservation, staged parts); a file-less row just goes. */
  async delete(): Promise<void> {
    if (this.#deleted) return;
    const from = this.status;
    this.#held = false;
    if (this.#task) {
      await this.#task.delete();
      return;
    }
    this.#deleted = true;
    this.events.emit('status', { to: 'deleted', from });
  }
}
