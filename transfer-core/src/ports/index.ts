// The engine's ports: everything the neutral core needs from its environment. Node and browser adapters
// implement them with identical names (src/node, src/browser); tests implement them in memory (src/test).
import type { components } from '@hcs/openapi/client';

type Schemas = components['schemas'];

/** Bytes of one local file, read at any offset (File/Blob in the browser, a file handle in Node). */
export interface FileSource {
  readonly name: string;
  readonly size: number;
  /**
   * Identity that changes when the content may have changed (path or name + size + mtime). Resume records and
   * the hash cache are keyed by it, so an edited file is never resumed onto old parts.
   */
  readonly identity: string;
  /** Exactly `length` bytes from `offset` (less only at end of file); must fail if the file changed or vanished. */
  read(offset: number, length: number, signal?: AbortSignal): Promise<Uint8Array>;
  /**
   * The same range as a Blob the transport sends itself, read from the file as it goes out (browsers: a slice of the
   * picked File). Optional; where given, upload bodies are sent from it rather than read into memory first: a part
   * holds no memory while it is sent, and Chromium's DevTools protocol leaves it out of its request events (an
   * 8 MiB byte body became a 61 MB event for every client listening, Playwright's included). A file changed since it
   * was picked fails the request, and the engine then reads the range to tell it from a network failure.
   */
  slice?(offset: number, length: number): Blob;
  close?(): Promise<void>;
}

/** Incremental SHA-256. update/digest are async so a Web Worker can do the work off the main thread. */
export interface Hasher {
  update(data: Uint8Array): Promise<void>;
  /** Lower-case hex; the hasher cannot be used afterwards. */
  digest(): Promise<string>;
  /**
   * Serialised internal state, or undefined when this implementation cannot checkpoint (node:crypto).
   * A checkpoint lets a resumed upload continue hashing where it stopped instead of from zero.
   */
  save(): Promise<Uint8Array | undefined>;
  dispose(): void;
}

export interface HasherFactory {
  /** A fresh hasher, or one restored from `state` (from save()); rejects when the state is not loadable. */
  create(state?: Uint8Array): Promise<Hasher>;
  /** Whether create(state) can restore checkpoints; when false, the engine does not store them. */
  readonly checkpoints: boolean;
}

/** Durable JSON records: upload checkpoints, download partial state. Values must be JSON-serialisable. */
export interface ResumeStore {
  get<T>(key: string): Promise<T | undefined>;
  set<T>(key: string, value: T): Promise<void>;
  delete(key: string): Promise<void>;
  /** Keys starting with prefix (to reload unfinished downloads as paused). */
  keys(prefix: string): Promise<string[]>;
}

export interface TransportRequest {
  method: 'GET' | 'PUT' | 'POST' | 'DELETE' | 'HEAD';
  url: string;
  headers: Record<string, string>;
  body?: Uint8Array | string | Blob;
  signal?: AbortSignal;
  /**
   * Bytes of the body sent so far in this attempt, so progress moves within a part. A transport that cannot tell
   * never calls it (the part then counts when it is done).
   */
  onUploadProgress?: (sentBytes: number) => void;
}

export interface TransportResponse {
  readonly status: number;
  header(name: string): string | null;
  text(): Promise<string>;
  /** The body as chunks as they arrive (downloads stream to the sink; memory stays bounded). */
  chunks(): AsyncIterable<Uint8Array>;
}

/** The HTTP client used for the S3 requests sent straight to storage. Rejects only on network failure/abort. */
export interface Transport {
  request(req: TransportRequest): Promise<TransportResponse>;
}

export type FileUploadable = Schemas['FileUploadable'];
export type SignedRequest = Schemas['SignedRequest'];
export type UploadSession = Schemas['UploadSession'];
export type PartRecord = Schemas['PartRecord'];
export type DownloadFileInfo = Schemas['DownloadFileInfo'];
export type CloudProvider = Schemas['CloudProvider'];
export type StorageAction = 'initMultipart' | 'uploadPart' | 'listParts' | 'completeMultipart' | 'abortMultipart' | 'putObject' | 'getObject' | 'headObject';

/** Where an upload goes and how it is registered; names are plain (the control plane encodes them). */
export interface UploadTarget {
  parentId?: string;
  category?: string;
  platformId?: string;
  instanceType?: string;
  fileSharingId?: string;
  /** What to do when the folder already holds the name (the caller asks the user after checkFileExist). */
  conflict?: 'newVersion' | 'keepBoth';
  /** A file of a custom business library: its classifier and attribute values, filed with it (saveInstance). */
  attrs?: { classifierId: string; values: Record<string, string | number | null> };
}

/** One file of a bulk-upload request (the contract's BulkUploadFile, with a plain name). */
export interface BulkUploadFile {
  name: string;
  size: number;
  sha256: string;
  parentId?: string;
}

/** The server's answer for one file of a bulk-upload request. */
export interface BulkUploadOutcome {
  outcome: 'uploaded' | 'instant' | 'skipped' | 'failed';
  instanceId?: string;
  code?: string;
  msg?: string;
}

/** The /hcs calls of the transfer protocol, typed. Failures reject with HcsError (status, ret, code). */
export interface ControlPlane {
  /**
   * bulk-upload (contract extension): small files in one request, the server stores and files them. `bodies[i]`
   * holds exactly `files[i].size` bytes. Results answer files in order.
   */
  bulkUpload?(
    req: { parentId?: string; category?: string; instanceType?: string; conflict: 'keepBoth' | 'newVersion' | 'skip'; files: BulkUploadFile[]; bodies: Uint8Array[] },
    signal?: AbortSignal,
  ): Promise<BulkUploadOutcome[]>;
  checkFileExist(q: { parentId?: string; name: string; fileSharingId?: string }, signal?: AbortSignal): Promise<{ exists: boolean; instanceId: string | null; classifierId: 'Folder' | 'File' | null }>;
  getFileUploadable(q: UploadTarget & { fSize: number; fName: string; fMd5: string }, signal?: AbortSignal): Promise<FileUploadable>;
  signStorageRequest(q: { httpVerb: TransportRequest['method']; bucketName: string; resourceUri: string; action: StorageAction; amzDate?: string; contentType?: string; fMd5?: string; fId?: string; platformId?: string }, signal?: AbortSignal): Promise<SignedRequest>;
  secondTransfer(b: UploadTarget & { fId: string; proofId: string; proof: string; instanceName: string }, signal?: AbortSignal): Promise<{ instanceId: string }>;
  initPartInfo(b: { fId: string; uploadId: string; objectKey?: string; partSize?: number; partCount?: number }, signal?: AbortSignal): Promise<void>;
  setPartInfo(b: { fId: string; parts: PartRecord[] }, signal?: AbortSignal): Promise<void>;
  getPartInfo(q: { fId: string } | { fMd5: string; parentId?: string; fName: string }, signal?: AbortSignal): Promise<UploadSession | null>;
  /** Forget part records (all when partNumbers is omitted), e.g. when storage lost the multipart upload. */
  deletePartInfo(b: { fId: string; partNumbers?: number[] }, signal?: AbortSignal): Promise<void>;
  destroyPartInfo(b: { fId: string; abort?: boolean }, signal?: AbortSignal): Promise<void>;
  saveInstance(b: UploadTarget & { fId: string; fMd5: string; fSize: number; objectKey: string; fName: string; bucketName?: string; partSize?: number; partNum?: number; lastPartSize?: number; uploadSpeed?: number }, signal?: AbortSignal): Promise<{ instanceId: string }>;
  getDownloadFileInfo(q: { instanceId: string; fileSharingId?: string; platformId?: string }, signal?: AbortSignal): Promise<DownloadFileInfo>;
  getCloudProvider(q: { platformId?: string }, signal?: AbortSignal): Promise<CloudProvider>;
}

export type TimerHandle = unknown;

/** Time, injectable so retries, timeouts, throttling and speed are testable without waiting. */
export interface Clock {
  now(): number;
  setTimeout(fn: () => void, ms: number): TimerHandle;
  clearTimeout(handle: TimerHandle): void;
}

/** Where a download's bytes go. Parts arrive out of order; writes are positional. */
export interface DownloadSink {
  write(offset: number, data: Uint8Array): Promise<void>;
  /**
   * Optional gathered write of `chunks` laid end to end from `offset` (one writev in Node): the engine then hands
   * over network chunks as they came instead of copying them into one buffer first.
   */
  writev?(offset: number, chunks: readonly Uint8Array[]): Promise<void>;
  /** Make every write durable and readable through read() (verification reads the bytes back). */
  flush(): Promise<void>;
  read(offset: number, length: number): Promise<Uint8Array>;
  /**
   * read() sees every finished write before flush(), so the engine hashes while parts arrive instead of
   * reading the whole file back to verify it.
   */
  readsBeforeFlush?: boolean;
  /**
   * Optional: a verifier that hashes the written data itself, off the transfer's thread (Node: a worker thread
   * reading the file back, for large files only), so the engine only reports how far the data is written
   * contiguously. Without one the engine hashes the bytes itself as they are written.
   */
  createVerifier?(): SinkVerifier;
  /** Publish the verified file under its final name. */
  finalize(): Promise<void>;
  /** Discard the partial data (verification failed or the download was deleted). */
  abort(): Promise<void>;
}

/** Hashes a sink's bytes from its start, as far as they are written (see DownloadSink.createVerifier). */
export interface SinkVerifier {
  /** Bytes [0, end) are written and final; hashing may proceed up to `end`. */
  advance(end: number): void;
  /** SHA-256 (hex) of bytes [0, size) once they are all hashed; rejects if the data could not be read. */
  digest(size: number): Promise<string>;
  dispose(): void;
}

export interface DownloadSinkFactory {
  /**
   * Open the sink for `key`; with `resume` the bytes already written by an earlier run are kept.
   * `size` lets an implementation preallocate.
   */
  open(opts: { key: string; name: string; size: number; resume: boolean }): Promise<DownloadSink>;
}
