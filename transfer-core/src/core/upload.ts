// One file's upload: the protocol of spec section 4 driven through the upload state machine.
// Resumable at every step: the hash (checkpoint or cached digest), the session (local record, or the server's
// part record found by content + folder + name) and the parts (S3 ListParts is authoritative).
import type { Clock, FileSource, PartRecord, UploadSession, UploadTarget } from '../ports/index.ts';
import { systemClock } from './clock.ts';
import { DEFAULT_SYNC_SPEED, MAX_FILE_SIZE, MIN_PART_SIZE, PART_CONCURRENCY } from './constants.ts';
import { Emitter } from './emitter.ts';
import type { EngineDeps } from './engine-options.ts';
import {
  DirectUploadError,
  FileMissingError,
  FileTooLargeError,
  FileVerificationError,
  InitMultipartError,
  isAbort,
  MergeSigningError,
  PartInfoError,
  PartInfoLostError,
  PartUploadError,
  SpaceNotEnoughError,
  StorageHttpError,
  TimeoutError,
  TransferError,
  UploadFailedError,
  UploadSecurityError,
} from './errors.ts';
import { computeProof, hashSource, type HashCheckpoint } from './hash.ts';
import { asTransferError, isHashMismatch, isHcsError, isSessionMissing } from './hcs-errors.ts';
import { partRange, planParts, type PartPlan } from './part-size.ts';
import { ProgressThrottle, SpeedMeter, type Progress } from './progress.ts';
import { withRetry } from './retry.ts';
import { storageClientFor, type StorageClient, type ListedPart } from './s3.ts';
import { createUploadMachine, type StateMachine, type UploadStatus } from './state-machine.ts';
import { TokenBucket } from './throttle.ts';

export interface UploadInput {
  /** Stable id for the UI; defaults to a random one. */
  id?: string;
  source: FileSource;
  target: UploadTarget;
}

export interface UploadResult {
  instanceId: string;
  /** True when the content was already stored (instant transfer with proof of possession). */
  instant: boolean;
  fMd5: string;
}

export type UploadEvents = {
  status: { to: UploadStatus; from: UploadStatus; error?: TransferError };
  progress: Progress;
};

/** What survives a crash, keyed by file identity + target folder + name (values JSON). */
export interface UploadRecord {
  v: 1;
  identity: string;
  hash?: string;
  hashCheckpoint?: HashCheckpoint;
  fId?: string;
  objectKey?: string;
  bucketName?: string;
  partSize?: number;
  syncSpeed?: number;
  uploadId?: string | null;
}

interface Session {
  fId: string;
  objectKey: string;
  bucketName: string;
  partSize: number;
  syncSpeed: number;
  uploadId: string | null;
  serverParts: PartRecord[];
}

const CHECKPOINT_INTERVAL_MS = 2000;

export function uploadRecordKey(source: FileSource, target: UploadTarget): string {
  return `upload:${JSON.stringify([source.identity, target.parentId ?? '', target.fileSharingId ?? '', source.name])}`;
}

export class UploadTask {
  readonly id: string;
  readonly source: FileSource;
  readonly target: UploadTarget;
  readonly events = new Emitter<UploadEvents>();
  readonly #machine: StateMachine<UploadStatus>;
  readonly #deps: EngineDeps;
  readonly #clock: Clock;
  readonly #storage: StorageClient;
  readonly #meter: SpeedMeter;
  readonly #key: string;
  #ctrl: AbortController | undefined;
  #error: TransferError | undefined;
  #result: UploadResult | undefined;
  #progress: Progress;
  readonly #progressThrottle: ProgressThrottle;
  /**
   * A file below the minimum part size is always one PUT: there are no parts to resume, its hash costs less
   * than reading a record, and the server reuses an unfinished session for the same content by itself. So it
   * keeps no resume record and skips the session lookup: bulk jobs of small files save three fsynced state
   * writes and one request per file. The record it would have written is kept in memory for delete().
   */
  readonly #small: boolean;
  #memoryRecord: UploadRecord | undefined;

  constructor(input: UploadInput, deps: EngineDeps) {
    this.id = input.id ?? randomId();
    this.source = input.source;
    this.target = input.target;
    this.#deps = deps;
    this.#clock = deps.clock ?? systemClock;
    this.#machine = createUploadMachine();
    this.#meter = new SpeedMeter(this.#clock);
    this.#key = uploadRecordKey(input.source, input.target);
    this.#small = input.source.size < MIN_PART_SIZE;
    this.#progress = { loaded: 0, total: input.source.size, speed: 0, timeLeft: undefined, phase: 'hashing' };
    this.#storage = storageClientFor(deps, this.#clock);
    this.#progressThrottle = new ProgressThrottle(this.#clock, deps.progressIntervalMs ?? 250, () => this.events.emit('progress', this.#progress));
    this.#machine.onChange((to, from) => {
      // A paused, finished or failed transfer reports no progress after its status.
      this.#progressThrottle.cancel();
      this.events.emit('status', { to, from, error: to === 'error' || to === 'onTimeout' ? this.#error : undefined });
    });
  }

  get status(): UploadStatus {
    return this.#machine.status;
  }
  get error(): TransferError | undefined {
    return this.#error;
  }
  get result(): UploadResult | undefined {
    return this.#result;
  }
  get progress(): Progress {
    return this.#progress;
  }

  /** Pause from checking/uploading: in-flight requests are cancelled; finished parts stay on storage. */
  pause(): boolean {
    if (!this.#machine.can('pause')) return false;
    this.#machine.transition('pause');
    this.#ctrl?.abort(new DOMException('paused', 'AbortError'));
    return true;
  }

  /** pause -> ready; the queue starts it when a slot is free. */
  resume(): boolean {
    if (this.status !== 'pause') return false;
    this.#machine.transition('ready');
    return true;
  }

  /** error/onTimeout -> ready. */
  retry(): boolean {
    if (this.status !== 'error' && this.status !== 'onTimeout') return false;
    this.#error = undefined;
    this.#machine.transition('ready');
    return true;
  }

  /** Cancel: stops requests, aborts the multipart upload on the server side and forgets the local record. */
  async delete(): Promise<void> {
    if (this.#machine.isTerminal()) return;
    this.#machine.transition('deleted');
    this.#ctrl?.abort(new DOMException('deleted', 'AbortError'));
    const rec = this.#memoryRecord ?? (await this.#deps.resumeStore.get<UploadRecord>(this.#key).catch(() => undefined));
    await this.#deps.resumeStore.delete(this.#key).catch(() => {});
    if (rec?.fId) await this.#deps.controlPlane.destroyPartInfo({ fId: rec.fId, abort: true }).catch(() => {});
  }

  /**
   * Runs a ready upload until it settles: success, error, onTimeout, or pause/deleted by a caller.
   * Never rejects; the outcome is the status (and error/result).
   */
  async run(): Promise<void> {
    if (this.status !== 'ready') throw new Error(`cannot run an upload in status ${this.status}`);
    const ctrl = new AbortController();
    this.#ctrl = ctrl;
    this.#meter.reset();
    this.#machine.transition('checking');
    try {
      this.#result = await this.#execute(ctrl.signal);
      this.#setProgress(this.source.size, 'transferring', true);
      this.#machine.transition('success');
    } catch (err) {
      // The status was changed by pause()/delete() while we awaited; TS narrowed it to 'checking' at the top.
      const now = this.status as UploadStatus;
      if (ctrl.signal.aborted && (now === 'pause' || now === 'deleted')) return;
      this.#error = asTransferError(err, UploadFailedError);
      const timedOut = err instanceof TimeoutError || (err instanceof TransferError && err.cause instanceof TimeoutError);
      if (!this.#machine.isTerminal()) this.#machine.transition(timedOut ? 'onTimeout' : 'error');
    } finally {
      this.#ctrl = undefined;
    }
  }

  async #execute(signal: AbortSignal): Promise<UploadResult> {
    const { source } = this;
    if (source.size > MAX_FILE_SIZE) throw new FileTooLargeError();
    // Spec 8: a hash mismatch at save-instance ends in [202] with the hash forgotten, so a retry hashes again.
    const rec = await this.#loadRecord();
    const hash = await this.#hash(rec, signal);
    return this.#transfer(rec, hash, signal);
  }

  async #loadRecord(): Promise<UploadRecord> {
    const rec = await this.#deps.resumeStore.get<UploadRecord>(this.#key).catch(() => undefined);
    return rec && rec.v === 1 && rec.identity === this.source.identity ? rec : { v: 1, identity: this.source.identity };
  }

  async #saveRecord(rec: UploadRecord): Promise<void> {
    if (this.#small) {
      this.#memoryRecord = rec;
      return;
    }
    await this.#deps.resumeStore.set(this.#key, rec);
  }

  async #hash(rec: UploadRecord, signal: AbortSignal): Promise<string> {
    if (rec.hash) return rec.hash;
    let lastSaved = this.#clock.now();
    const hash = await hashSource(this.source, this.#deps.hasherFactory, {
      signal,
      checkpoint: rec.hashCheckpoint,
      onProgress: (n) => this.#setProgress(n, 'hashing'),
      onCheckpoint: async (cp) => {
        if (this.#clock.now() - lastSaved < CHECKPOINT_INTERVAL_MS) return;
        lastSaved = this.#clock.now();
        rec.hashCheckpoint = cp;
        await this.#saveRecord(rec);
      },
    });
    rec.hash = hash;
    delete rec.hashCheckpoint;
    await this.#saveRecord(rec);
    this.#meter.reset();
    return hash;
  }

  #retry<T>(fn: () => Promise<T>, signal: AbortSignal): Promise<T> {
    return withRetry(fn, { clock: this.#clock, signal, onUnauthorized: this.#deps.onUnauthorized, baseDelayMs: this.#deps.retryBaseMs });
  }

  async #transfer(rec: UploadRecord, hash: string, signal: AbortSignal): Promise<UploadResult> {
    const { controlPlane: cp } = this.#deps;
    const { source, target } = this;
    let session = await this.#findSession(rec, hash, signal);
    if (!session) {
      const u = await this.#retry(() => cp.getFileUploadable({ ...target, fSize: source.size, fName: source.name, fMd5: hash, platformId: this.#deps.platformId ?? target.platformId }, signal), signal).catch((err) => {
        throw asTransferError(err, UploadFailedError);
      });
      if (u.uploadflag === 1) return this.#instant(u.fId, u.proof, hash, signal);
      if (u.uploadflag === 2) throw new SpaceNotEnoughError({ group: target.instanceType === '2' });
      if (u.uploadflag !== 3 || !u.fId || !u.objectKey || !u.bucketName) throw new UploadFailedError({ cause: new Error(`uploadflag ${u.uploadflag}`) });
      session = { fId: u.fId, objectKey: u.objectKey, bucketName: u.bucketName, partSize: u.partSize ?? 0, syncSpeed: u.syncSpeed ?? DEFAULT_SYNC_SPEED, uploadId: null, serverParts: [] };
      Object.assign(rec, { fId: session.fId, objectKey: session.objectKey, bucketName: session.bucketName, partSize: session.partSize, syncSpeed: session.syncSpeed, uploadId: null });
      await this.#saveRecord(rec);
    }
    this.#machine.transition('uploading');
    const plan = planParts(source.size, session.partSize || undefined);
    const rate = Math.min(session.syncSpeed > 0 ? session.syncSpeed : DEFAULT_SYNC_SPEED, this.#deps.maxBytesPerSecond ?? Infinity);
    const bucket = new TokenBucket(rate, this.#clock);
    if (plan.partCount === 1 && !session.uploadId) {
      await this.#putObject(rec, session, bucket, signal);
    } else {
      await this.#multipart(rec, session, plan, bucket, signal);
    }
    return this.#save(rec, session, plan, hash, signal);
  }

  /** An unfinished session for this content: ours (local record), else one from another tab or machine. */
  async #findSession(rec: UploadRecord, hash: string, signal: AbortSignal): Promise<Session | null> {
    const cp = this.#deps.controlPlane;
    const get = (q: Parameters<typeof cp.getPartInfo>[0]) =>
      this.#retry(() => cp.getPartInfo(q, signal), signal).catch((err) => {
        if (isSessionMissing(err)) return null;
        throw asTransferError(err, PartInfoError);
      });
    const matches = (s: UploadSession | null): s is UploadSession => !!s && s.fMd5 === hash && s.fSize === this.source.size && s.partSize > 0;
    let s: UploadSession | null = rec.fId ? await get({ fId: rec.fId }) : null;
    if (!matches(s) && !this.#small) s = await get({ fMd5: hash, parentId: this.target.parentId, fName: this.source.name });
    if (!matches(s)) return null;
    const ours = s.fId === rec.fId;
    Object.assign(rec, { fId: s.fId, objectKey: s.objectKey, bucketName: s.bucketName, partSize: s.partSize, uploadId: s.uploadId });
    await this.#saveRecord(rec);
    return {
      fId: s.fId,
      objectKey: s.objectKey,
      bucketName: s.bucketName,
      partSize: s.partSize,
      syncSpeed: (ours && rec.syncSpeed) || DEFAULT_SYNC_SPEED,
      uploadId: s.uploadId,
      serverParts: s.parts,
    };
  }

  async #instant(fId: string | undefined, proof: { proofId: string; offset: number; length: number } | undefined, hash: string, signal: AbortSignal): Promise<UploadResult> {
    if (!fId || !proof) throw new UploadFailedError({ cause: new Error('uploadflag 1 without fId/proof') });
    const answer = await computeProof(this.source, this.#deps.hasherFactory, proof.offset, proof.length, signal).catch((err) => {
      throw asTransferError(err, UploadFailedError);
    });
    // Not retried on 5xx: the challenge is single-use, so a second answer would be refused anyway.
    const res = await this.#deps.controlPlane
      .secondTransfer({ ...this.target, platformId: this.#deps.platformId ?? this.target.platformId, fId, proofId: proof.proofId, proof: answer, instanceName: this.source.name }, signal)
      .catch((err) => {
        throw asTransferError(err, UploadFailedError);
      });
    await this.#deps.resumeStore.delete(this.#key).catch(() => {});
    return { instanceId: res.instanceId, instant: true, fMd5: hash };
  }

  async #readExact(start: number, size: number, signal: AbortSignal): Promise<Uint8Array> {
    const bytes = await this.source.read(start, size, signal).catch((err) => {
      if (isAbort(err, signal)) throw err;
      throw new FileMissingError({ cause: err });
    });
    if (bytes.byteLength !== size) throw new FileMissingError({ cause: new Error(`short read at ${start}: ${bytes.byteLength} of ${size}`) });
    return bytes;
  }

  /**
   * What an upload request sends for a range: a slice the transport reads as it sends (FileSource.slice: a browser's
   * File) or, without one, the bytes read now.
   */
  async #body(start: number, size: number, signal: AbortSignal): Promise<Uint8Array | Blob> {
    if (!this.source.slice) return this.#readExact(start, size, signal);
    const blob = this.source.slice(start, size);
    if (blob.size !== size) throw new FileMissingError({ cause: new Error(`short slice at ${start}: ${blob.size} of ${size}`) });
    return blob;
  }

  /**
   * After a failed request whose body was a slice: a file that changed or vanished since it was picked fails the
   * send like the network does, so the range is read to tell them apart (FileMissingError when it cannot be).
   */
  async #sliceStillReadable(body: Uint8Array | Blob, start: number, err: unknown, signal: AbortSignal): Promise<void> {
    if (!(body instanceof Blob) || isAbort(err, signal) || body.size === 0) return;
    await this.#readExact(start, 1, signal);
  }

  async #putObject(rec: UploadRecord, session: Session, bucket: TokenBucket, signal: AbortSignal): Promise<void> {
    const size = this.source.size;
    const body = await this.#body(0, size, signal);
    await bucket.take(size, signal);
    this.#setProgress(0, 'transferring', true);
    const onSent = (sent: number) => this.#setProgress(Math.min(sent, size), 'transferring');
    await this.#storage.putObject(session.bucketName, session.objectKey, session.fId, body, signal, onSent).catch(async (err) => {
      // A single PUT is signed with the hash the file had when it was hashed: storage refuses bytes that differ.
      if (err instanceof StorageHttpError && err.s3Code === 'XAmzContentSHA256Mismatch') await this.#hashWasWrong(rec, session, err);
      await this.#sliceStillReadable(body, 0, err, signal);
      throw asTransferError(err, DirectUploadError);
    });
  }

  /** Spec 8: the hash is wrong; forget it and the session so the next attempt hashes and uploads afresh. */
  async #hashWasWrong(rec: UploadRecord, session: Session, cause: unknown): Promise<never> {
    await this.#deps.controlPlane.destroyPartInfo({ fId: session.fId, abort: true }).catch(() => {});
    await this.#deps.resumeStore.delete(this.#key).catch(() => {});
    Object.keys(rec).forEach((k) => k !== 'v' && k !== 'identity' && delete rec[k as keyof UploadRecord]);
    throw new FileVerificationError({ cause });
  }

  async #multipart(rec: UploadRecord, session: Session, plan: PartPlan, bucket: TokenBucket, signal: AbortSignal): Promise<void> {
    const cp = this.#deps.controlPlane;
    const { bucketName, objectKey, fId } = session;
    const done = new Map<number, { etag: string; size: number }>();
    if (session.uploadId) {
      let listed: ListedPart[];
      try {
        listed = await this.#storage.listParts(bucketName, objectKey, fId, session.uploadId, signal);
      } catch (err) {
        if (!(err instanceof StorageHttpError && err.s3Code === 'NoSuchUpload')) throw asTransferError(err, PartInfoError);
        // The multipart upload is gone (aborted or expired on storage): its parts are lost, start a new one.
        await this.#retry(() => cp.deletePartInfo({ fId }, signal), signal).catch(() => {});
        session.uploadId = null;
        listed = [];
      }
      // Storage is authoritative: a part counts only if storage holds it with the size this plan expects.
      for (const p of listed) {
        if (p.partNumber <= plan.partCount && p.size === partRange(plan, p.partNumber).size) done.set(p.partNumber, { etag: p.etag, size: p.size });
      }
      const recorded = new Set(session.serverParts.map((p) => p.partNumber));
      const unrecorded = [...done].filter(([n]) => !recorded.has(n)).map(([partNumber, p]) => ({ partNumber, etag: p.etag, size: p.size }));
      for (let i = 0; i < unrecorded.length; i += 10_000) {
        const batch = unrecorded.slice(i, i + 10_000);
        await this.#retry(() => cp.setPartInfo({ fId, parts: batch }, signal), signal).catch((err) => {
          throw asTransferError(err, PartInfoError);
        });
      }
    }
    if (!session.uploadId) {
      const uploadId = await this.#storage.initMultipart(bucketName, objectKey, fId, signal).catch((err) => {
        throw asTransferError(err, InitMultipartError);
      });
      await this.#retry(() => cp.initPartInfo({ fId, uploadId, objectKey, partSize: plan.partSize, partCount: plan.partCount }, signal), signal).catch((err) => {
        throw asTransferError(err, InitMultipartError);
      });
      session.uploadId = uploadId;
      rec.uploadId = uploadId;
      rec.partSize = plan.partSize;
      await this.#saveRecord(rec);
    }
    const uploadId = session.uploadId;
    let loaded = [...done.values()].reduce((s, p) => s + p.size, 0);
    this.#setProgress(loaded, 'transferring', true);
    // Bytes of the parts in flight that storage has received so far: the bar moves within a part, not in part steps.
    const sending = new Map<number, number>();
    const inFlight = () => [...sending.values()].reduce((a, b) => a + b, 0);
    const pending: number[] = [];
    for (let n = 1; n <= plan.partCount; n++) if (!done.has(n)) pending.push(n);

    // N workers pull part numbers from one list: memory stays at partSize x concurrency. The first failure stops
    // the others (their parts stay resumable); a pause aborts them all through the parent signal.
    const batch = new AbortController();
    const onParentAbort = () => batch.abort(signal.reason);
    signal.addEventListener('abort', onParentAbort, { once: true });
    let firstError: unknown;
    const worker = async () => {
      for (let n = pending.shift(); n !== undefined && !batch.signal.aborted; n = pending.shift()) {
        const { start, size } = partRange(plan, n);
        const body = await this.#body(start, size, batch.signal);
        await bucket.take(size, batch.signal);
        const etag = await this.#storage
          .uploadPart(bucketName, objectKey, fId, uploadId, n, body, batch.signal, (sent) => {
            sending.set(n, Math.min(sent, size));
            this.#setProgress(loaded + inFlight(), 'transferring');
          })
          .catch(async (err) => {
            await this.#sliceStillReadable(body, start, err, batch.signal);
            throw err;
          });
        // Fully sent: counted as in flight until it is recorded, so the total never dips in between.
        sending.set(n, size);
        done.set(n, { etag, size });
        await this.#retry(() => cp.setPartInfo({ fId, parts: [{ partNumber: n, etag, size }] }, batch.signal), batch.signal).catch((err) => {
          throw asTransferError(err, PartInfoError);
        });
        loaded += size;
        sending.delete(n);
        this.#setProgress(loaded + inFlight(), 'transferring');
      }
    };
    const workers = Array.from({ length: Math.min(this.#deps.partConcurrency ?? PART_CONCURRENCY, Math.max(1, pending.length)) }, () =>
      worker().catch((err) => {
        firstError ??= err;
        batch.abort(err);
      }),
    );
    try {
      await Promise.all(workers);
    } finally {
      signal.removeEventListener('abort', onParentAbort);
    }
    if (signal.aborted) throw signal.reason;
    if (firstError !== undefined) throw firstError instanceof TimeoutError ? new PartUploadError({ cause: firstError }) : asTransferError(firstError, PartUploadError);
    if (done.size !== plan.partCount) throw new PartInfoLostError();

    this.#machine.transition('merging');
    this.#setProgress(loaded, 'merging', true);
    const parts = [...done].map(([partNumber, p]) => ({ partNumber, etag: p.etag }));
    await this.#storage.completeMultipart(bucketName, objectKey, fId, uploadId, parts, MergeSigningError, signal).catch((err) => {
      if (err instanceof StorageHttpError && (err.s3Code === 'InvalidPart' || err.s3Code === 'InvalidPartOrder' || err.s3Code === 'NoSuchUpload')) {
        throw new PartInfoLostError({ cause: err });
      }
      throw asTransferError(err, PartUploadError);
    });
  }

  async #save(rec: UploadRecord, session: Session, plan: PartPlan, hash: string, signal: AbortSignal): Promise<UploadResult> {
    const cp = this.#deps.controlPlane;
    try {
      const res = await this.#retry(
        () =>
          cp.saveInstance(
            {
              ...this.target,
              platformId: this.#deps.platformId ?? this.target.platformId,
              fId: session.fId,
              fMd5: hash,
              fSize: this.source.size,
              objectKey: session.objectKey,
              bucketName: session.bucketName,
              fName: this.source.name,
              partSize: plan.partSize,
              partNum: plan.partCount,
              lastPartSize: plan.lastPartSize,
              uploadSpeed: Math.round(this.#meter.speed()),
            },
            signal,
          ),
        signal,
      );
      await this.#deps.resumeStore.delete(this.#key).catch(() => {});
      return { instanceId: res.instanceId, instant: false, fMd5: hash };
    } catch (err) {
      if (isHashMismatch(err)) await this.#hashWasWrong(rec, session, err);
      if (isHcsError(err) && err.ret === 2) throw new UploadSecurityError({ cause: err, serverMessage: err.message });
      throw asTransferError(err, UploadFailedError);
    }
  }

  #setProgress(loaded: number, phase: Progress['phase'], force = false): void {
    this.#meter.record(loaded);
    this.#progress = this.#meter.progress(loaded, this.source.size, phase);
    this.#progressThrottle.push(force || loaded >= this.source.size);
  }
}

export function randomId(): string {
  const b = new Uint8Array(9);
  crypto.getRandomValues(b);
  return Array.from(b, (x) => x.toString(16).padStart(2, '0')).join('');
}
