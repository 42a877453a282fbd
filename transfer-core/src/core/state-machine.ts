// The upload and download status machines of spec section 4, as explicit transition tables. Every status change
// goes through transition(), so a refused move (e.g. retry of a paused item) throws instead of corrupting state.

export type UploadStatus = 'ready' | 'checking' | 'uploading' | 'pause' | 'merging' | 'success' | 'error' | 'deleted' | 'onTimeout';

/**
 * ready -> checking (hashing) -> uploading -> merging (multipart) -> success.
 * Pause only from checking/uploading; resume is pause -> ready; retry is error/onTimeout -> ready.
 * checking -> success is instant transfer; uploading -> success a single-PUT upload.
 * onTimeout is a part that outlived the 900 s part timeout after its retries: retryable like error.
 * success and deleted are terminal. Delete is allowed from every other status.
 */
export const UPLOAD_TRANSITIONS: Readonly<Record<UploadStatus, readonly UploadStatus[]>> = {
  ready: ['checking', 'deleted'],
  checking: ['uploading', 'success', 'pause', 'error', 'onTimeout', 'deleted'],
  uploading: ['merging', 'success', 'pause', 'error', 'onTimeout', 'deleted'],
  merging: ['success', 'error', 'onTimeout', 'deleted'],
  pause: ['ready', 'deleted'],
  error: ['ready', 'deleted'],
  onTimeout: ['ready', 'deleted'],
  success: [],
  deleted: [],
};

/**
 * Spec 4 download statuses: wait (queued), resume (running), pause, refresh (request exception, resumable),
 * plus success, error (verification failed: not resumable, data discarded) and deleted.
 */
export type DownloadStatus = 'wait' | 'resume' | 'pause' | 'refresh' | 'success' | 'error' | 'deleted';

export const DOWNLOAD_TRANSITIONS: Readonly<Record<DownloadStatus, readonly DownloadStatus[]>> = {
  wait: ['resume', 'pause', 'deleted'],
  resume: ['success', 'pause', 'refresh', 'error', 'deleted'],
  pause: ['wait', 'deleted'],
  refresh: ['wait', 'deleted'],
  error: ['wait', 'deleted'],
  success: [],
  deleted: [],
};

export class TransitionError extends Error {
  readonly from: string;
  readonly to: string;
  constructor(from: string, to: string) {
    super(`transition ${from} -> ${to} is not allowed`);
    this.name = 'TransitionError';
    this.from = from;
    this.to = to;
  }
}

export class StateMachine<S extends string> {
  #status: S;
  readonly #table: Readonly<Record<S, readonly S[]>>;
  readonly #listeners = new Set<(to: S, from: S) => void>();

  constructor(table: Readonly<Record<S, readonly S[]>>, initial: S) {
    this.#table = table;
    this.#status = initial;
  }

  get status(): S {
    return this.#status;
  }

  can(to: S): boolean {
    return this.#table[this.#status].includes(to);
  }

  isTerminal(): boolean {
    return this.#table[this.#status].length === 0;
  }

  transition(to: S): void {
    if (!this.can(to)) throw new TransitionError(this.#status, to);
    const from = this.#status;
    this.#status = to;
    for (const l of this.#listeners) l(to, from);
  }

  onChange(listener: (to: S, from: S) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }
}

export const createUploadMachine = (initial: UploadStatus = 'ready') => new StateMachine<UploadStatus>(UPLOAD_TRANSITIONS, initial);
export const createDownloadMachine = (initial: DownloadStatus = 'wait') => new StateMachine<DownloadStatus>(DOWNLOAD_TRANSITIONS, initial);
