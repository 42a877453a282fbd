// One file's download: signed ranged GETs straight from storage, 3 parts in parallel, written positionally to a
// sink, the set of finished parts persisted after each part, SHA-256 verified at the end.
import type { Clock, DownloadFileInfo, DownloadSink, DownloadSinkFactory, SinkVerifier } from '../ports/index.ts';
import { systemClock } from './clock.ts';
import { HASH_CHUNK, MAX_FILE_SIZE, PART_CONCURRENCY } from './constants.ts';
import { Emitter } from './emitter.ts';
import type { EngineDeps } from './engine-options.ts';
import type { TransferError } from './errors.ts';
import { DownloadInfoError, DownloadVerificationError, FileTooLargeError, RequestError, StorageHttpError } from './errors.ts';
import { asTransferError } from './hcs-errors.ts';
import { OrderedHasher } from './ordered-hash.ts';
import { partRange, type PartPlan } from './part-size.ts';
import { ProgressThrottle, SpeedMeter, type Progress } from './progress.ts';
import { withRetry } from './retry.ts';
import { storageClientFor, type StorageClient } from './s3.ts';
import { createDownloadMachine, type DownloadStatus, type StateMachine } from './state-machine.ts';
import { randomId } from './upload.ts';

export interface DownloadInput {
  id?: string;
  instanceId: string;
  fileSharingId?: string;
  /** Where the bytes go (a .part file in Node, a picked file in the browser). */
  sinks: DownloadSinkFactory;
  /**
   * Key of the resume record (default `download:<instanceId>`). A caller that may run two downloads of the same file
   * into different targets (the web app: two picked files) gives each its own, or one would trust the other's parts.
   */
  recordKey?: string;
}

export type DownloadEvents = {
  status: { to: DownloadStatus; from: DownloadStatus; error?: TransferError };
  progress: Progress;
};

/** Partial state persisted after every finished part. */
export interface DownloadRecord {
  v: 1;
  instanceId: string;
  fMd5: string;
  fileSize: number;
  partSize: number;
  name: string;
  done: number[];
}

export const downloadRecordKey = (instanceId: string) => `download:${instanceId}`;

/** Gathered write size: a few large writes per part instead of one per ~64 KiB network chunk. */
const WRITE_BATCH = 4 * 1024 * 1024;

function concat(chunks: Uint8Array[], total: number): Uint8Array {
  const out = new Uint8Array(total);
  let at = 0;
  for (const c of chunks) {
    out.set(c, at);
    at += c.byteLength;
  }
  return out;
}

export class DownloadTask {
  readonly id: string;
  readonly instanceId: string;
  readonly events = new Emitter<DownloadEvents>();
  readonly #input: DownloadInput;
  readonly #recordKey: string;
  readonly #deps: EngineDeps;
  readonly #clock: Clock;
  readonly #machine: StateMachine<DownloadStatus>;
  readonly #storage: StorageClient;
  readonly #meter: SpeedMeter;
  #ctrl: AbortController | undefined;
  #sink: DownloadSink | undefined;
  #error: TransferError | undefined;
  #info: DownloadFileInfo | undefined;
  #progress: Progress = { loaded: 0, total: 0, speed: 0, timeLeft: undefined, phase: 'transferring' };
  readonly #progressThrottle: ProgressThrottle;

  constructor(input: DownloadInput, deps: EngineDeps, initial: DownloadStatus = 'wait') {
    this.id = input.id ?? randomId();
    this.instanceId = input.instanceId;
    this.#input = input;
    this.#recordKey = input.recordKey ?? downloadRecordKey(input.instanceId);
    this.#deps = deps;
    this.#clock = deps.clock ?? systemClock;
    this.#machine = createDownloadMachine(initial);
    this.#meter = new SpeedMeter(this.#clock);
    this.#storage = storageClientFor(deps, this.#clock);
    this.#progressThrottle = new ProgressThrottle(this.#clock, deps.progressIntervalMs ?? 250, () => this.events.emit('progress', this.#progress));
    this.#machine.onChange((to, from) => {
      // A paused, finished or failed download reports no progress after its status.
      this.#progressThrottle.cancel();
      this.events.emit('status', { to, from, error: to === 'error' || to === 'refresh' ? this.#error : undefined });
    });
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
  /** File facts once the download has started (name, size, hash). */
  get info(): DownloadFileInfo | undefined {
    return this.#info;
  }

  pause(): boolean {
    if (!this.#machine.can('pause')) return false;
    this.#machine.transition('pause');
    this.#ctrl?.abort(new DOMException('paused', 'AbortError'));
    return true;
  }

  /** pause/refresh -> wait (spec: resume clears the cancel flag and restarts). */
  resume(): boolean {
    if (this.status !== 'pause' && this.status !== 'refresh') return false;
    this.#error = undefined;
    this.#machine.transition('wait');
    return true;
  }

  retry(): boolean {
    if (this.status !== 'error' && this.status !== 'refresh') return false;
    this.#error = undefined;
    this.#machine.transition('wait');
    return true;
  }

  /** Spec 4: network loss turns a running download into refresh (request exception); it keeps its parts. */
  networkLost(): void {
    if (this.status !== 'resume') return;
    this.#error = new RequestError();
    this.#machine.transition('refresh');
    this.#ctrl?.abort(new DOMException('offline', 'AbortError'));
  }

  /** Stops the download and removes its partial data and local record. */
  async delete(): Promise<void> {
    if (this.#machine.isTerminal()) return;
    this.#machine.transition('deleted');
    this.#ctrl?.abort(new DOMException('deleted', 'AbortError'));
    await this.#deps.resumeStore.delete(this.#recordKey).catch(() => {});
    const sink = this.#sink ?? (await this.#openForDelete());
    await sink?.abort().catch(() => {});
  }

  async #openForDelete(): Promise<DownloadSink | undefined> {
    const rec = await this.#deps.resumeStore.get<DownloadRecord>(this.#recordKey).catch(() => undefined);
    if (!rec) return undefined;
    return this.#input.sinks.open({ key: this.#recordKey, name: rec.name, size: rec.fileSize, resume: true }).catch(() => undefined);
  }

  async run(): Promise<void> {
    if (this.status !== 'wait') throw new Error(`cannot run a download in status ${this.status}`);
    const ctrl = new AbortController();
    this.#ctrl = ctrl;
    this.#meter.reset();
    this.#machine.transition('resume');
    try {
      await this.#execute(ctrl.signal);
      this.#machine.transition('success');
    } catch (err) {
      const now = this.status as DownloadStatus;
      if (ctrl.signal.aborted && (now === 'pause' || now === 'deleted' || now === 'refresh')) return;
      this.#error = asTransferError(err, RequestError);
      // A verification failure discarded the data: not resumable, only retryable from zero.
      this.#machine.transition(this.#error instanceof DownloadVerificationError || this.#error instanceof FileTooLargeError ? 'error' : 'refresh');
    } finally {
      this.#ctrl = undefined;
    }
  }

  async #execute(signal: AbortSignal): Promise<void> {
    const store = this.#deps.resumeStore;
    const key = this.#recordKey;
    const info = await withRetry(() => this.#deps.controlPlane.getDownloadFileInfo({ instanceId: this.instanceId, fileSharingId: this.#input.fileSharingId, platformId: this.#deps.platformId }, signal), {
      clock: this.#clock,
      signal,
      onUnauthorized: this.#deps.onUnauthorized,
      baseDelayMs: this.#deps.retryBaseMs,
    }).catch((err) => {
      throw asTransferError(err, DownloadInfoError);
    });
    if (!info || !info.objectKey || !/^[0-9a-f]{64}$/.test(info.fMd5) || !(info.fileSize >= 0)) throw new DownloadInfoError({ cause: new Error('empty or invalid file information') });
    if (info.fileSize > MAX_FILE_SIZE) throw new FileTooLargeError();
    this.#info = info;
    const partSize = info.partSize > 0 ? info.partSize : 8 * 1024 * 1024;
    const partCount = Math.max(1, Math.ceil(info.fileSize / partSize));
    const plan: PartPlan = { partSize, partCount, lastPartSize: info.fileSize - (partCount - 1) * partSize };

    const saved = await store.get<DownloadRecord>(key).catch(() => undefined);
    const resumable = !!saved && saved.v === 1 && saved.fMd5 === info.fMd5 && saved.fileSize === info.fileSize && saved.partSize === partSize;
    const rec: DownloadRecord = resumable ? saved : { v: 1, instanceId: this.instanceId, fMd5: info.fMd5, fileSize: info.fileSize, partSize, name: info.filename, done: [] };
    this.#sink ??= await this.#input.sinks.open({ key, name: info.filename, size: info.fileSize, resume: resumable });
    const sink = this.#sink;
    await store.set(key, rec);

    const done = new Set(rec.done);
    const loaded = [...done].reduce((s, n) => s + partRange(plan, n).size, 0);
    this.#setProgress(loaded, info.fileSize, 'transferring', true);
    const pending: number[] = [];
    for (let n = 1; n <= partCount; n++) if (!done.has(n) && partRange(plan, n).size > 0) pending.push(n);

    // Hashing in order while parts arrive saves re-reading the whole file to verify it, where the sink can read
    // back what it has written before flush (on disk, not the browser's picked file).
    const hasher = sink.readsBeforeFlush ? await this.#deps.hasherFactory.create() : undefined;
    let verifier: SinkVerifier | undefined;
    try {
      verifier = hasher ? sink.createVerifier?.() : undefined;
    } catch {
      verifier = undefined; // no background hashing here (no worker threads): the engine hashes in order itself
    }
    const ordered = hasher ? new OrderedHasher(hasher, sink, plan, info.fileSize, verifier) : undefined;
    for (const n of done) ordered?.complete(n);
    try {
      await this.#fetchParts(info, plan, pending, sink, ordered, rec, done, loaded, signal);
      await sink.flush();
      this.#meter.reset();
      this.#setProgress(0, info.fileSize, 'verifying', true);
      const actual = (await ordered?.digest()) ?? (await this.#hashSink(sink, info.fileSize, signal));
      if (actual !== info.fMd5) {
        await sink.abort().catch(() => {});
        this.#sink = undefined;
        await store.delete(key).catch(() => {});
        throw new DownloadVerificationError({ cause: new Error(`sha256 ${actual}, expected ${info.fMd5}`) });
      }
    } finally {
      hasher?.dispose();
      verifier?.dispose();
    }
    await sink.finalize();
    this.#sink = undefined;
    await store.delete(key).catch(() => {});
    this.#setProgress(info.fileSize, info.fileSize, 'verifying', true);
  }

  async #fetchParts(
    info: DownloadFileInfo,
    plan: PartPlan,
    pending: number[],
    sink: DownloadSink,
    ordered: OrderedHasher | undefined,
    rec: DownloadRecord,
    done: Set<number>,
    loaded: number,
    signal: AbortSignal,
  ): Promise<void> {
    const store = this.#deps.resumeStore;
    const key = this.#recordKey;
    const batch = new AbortController();
    const onAbort = () => batch.abort(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    let firstError: unknown;
    const worker = async () => {
      for (let n = pending.shift(); n !== undefined && !batch.signal.aborted; n = pending.shift()) {
        const { start, size } = partRange(plan, n);
        let written = 0;
        await this.#storage.send({
          method: 'GET',
          bucket: info.bucketName,
          key: info.objectKey,
          action: 'getObject',
          fId: this.instanceId,
          headers: { Range: `bytes=${start}-${start + size - 1}` },
          signal: batch.signal,
          consume: async (res, sig) => {
            // A retried attempt rewrites the part from its start; progress counts only finished parts twice never.
            loaded -= written;
            written = 0;
            ordered?.restart(n);
            if (res.status !== 206 && !(res.status === 200 && start === 0 && size === info.fileSize)) {
              throw new StorageHttpError(res.status, 'RangeIgnored', 'storage did not answer the byte range');
            }
            // Network chunks are ~64 KiB; they are gathered into writes of WRITE_BATCH so the sink sees a few
            // large positional writes instead of thousands of small ones. One write stays in flight while the
            // next batch arrives, so the socket keeps flowing during the disk write (at most two batches held).
            let batch: Uint8Array[] = [];
            let batched = 0;
            let received = 0;
            let queued = 0;
            let inflight: Promise<void> = Promise.resolve();
            const write = async (offset: number, chunks: Uint8Array[], length: number) => {
              if (sink.writev) {
                await sink.writev(offset, chunks);
                await ordered?.written(n, offset, chunks);
              } else {
                const data = chunks.length === 1 ? chunks[0]! : concat(chunks, length);
                await sink.write(offset, data);
                await ordered?.written(n, offset, data);
              }
              written += length;
              loaded += length;
              this.#setProgress(loaded, info.fileSize, 'transferring');
            };
            const flush = async () => {
              if (batched === 0) return;
              const chunks = batch;
              const length = batched;
              const offset = start + queued;
              batch = [];
              batched = 0;
              queued += length;
              const previous = inflight;
              inflight = previous.then(() => write(offset, chunks, length));
              // Observed below; without this a failed write would be an unhandled rejection until then.
              inflight.catch(() => {});
              await previous;
            };
            try {
              for await (const chunk of res.chunks()) {
                sig.throwIfAborted();
                received += chunk.byteLength;
                if (received > size) throw new StorageHttpError(res.status, 'RangeOverflow', 'more bytes than the range');
                batch.push(chunk);
                batched += chunk.byteLength;
                if (batched >= WRITE_BATCH) await flush();
              }
              await flush();
              await inflight;
              // A pause that came while the last writes were in flight still stops here: the part is fetched again.
              sig.throwIfAborted();
            } finally {
              // A retry rewrites this part from its start: no write of this attempt may land after that.
              await inflight.catch(() => {});
            }
            if (written !== size) throw new StorageHttpError(res.status, 'ShortRange', `got ${written} of ${size} bytes`);
          },
        });
        done.add(n);
        rec.done = [...done];
        // Not awaited: the store group-commits records, and a lane waiting for each fsync (which on ext4 also
        // pushes out the part file's dirty pages) idled the download. All writes are awaited before returning.
        const write = store.set(key, rec).catch((err: unknown) => {
          recordError ??= err;
        });
        recordWrites.add(write);
        void write.finally(() => recordWrites.delete(write));
      }
    };
    const recordWrites = new Set<Promise<void>>();
    let recordError: unknown;
    const workers = Array.from({ length: Math.min(this.#deps.partConcurrency ?? PART_CONCURRENCY, Math.max(1, pending.length)) }, () =>
      worker().catch((err) => {
        firstError ??= err;
        batch.abort(err);
      }),
    );
    try {
      await Promise.all(workers);
    } finally {
      signal.removeEventListener('abort', onAbort);
      await Promise.all(recordWrites);
    }
    if (signal.aborted) throw signal.reason;
    if (firstError !== undefined) throw asTransferError(firstError, RequestError);
    if (recordError !== undefined) throw asTransferError(recordError, RequestError);
  }

  async #hashSink(sink: DownloadSink, size: number, signal: AbortSignal): Promise<string> {
    const hasher = await this.#deps.hasherFactory.create();
    try {
      for (let pos = 0; pos < size; ) {
        signal.throwIfAborted();
        const want = Math.min(HASH_CHUNK, size - pos);
        const bytes = await sink.read(pos, want);
        if (bytes.byteLength !== want) throw new DownloadVerificationError({ cause: new Error(`short read of the written data at ${pos}`) });
        await hasher.update(bytes);
        pos += want;
        this.#setProgress(pos, size, 'verifying');
      }
      return await hasher.digest();
    } finally {
      hasher.dispose();
    }
  }

  #setProgress(loaded: number, total: number, phase: Progress['phase'], force = false): void {
    this.#meter.record(loaded);
    this.#progress = this.#meter.progress(loaded, total, phase);
    this.#progressThrottle.push(force);
  }
}
