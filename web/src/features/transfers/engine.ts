// The narrow seam between the transfer UI and the shared engine (@hcs/transfer-core/browser). The store and the
// panel only know these types, so adopting a new engine version touches this file alone.

export type ConflictChoice = 'newVersion' | 'keepBoth';

export interface UploadJob {
  uid: string;
  file: File;
  /** Target name (plain text; the engine's control plane encodes it). */
  name: string;
  parentId: string;
  instanceType: string;
  libCode: string;
  conflict: ConflictChoice;
}

/** Engine phases the UI shows (spec 4: checking = hashing and the upload-ability check). */
export type EnginePhase = 'checking' | 'uploading' | 'merging';

export interface UploadEvents {
  phase(phase: EnginePhase): void;
  /** Bytes confirmed by storage so far (parts already on the server count after a resume). */
  progress(loaded: number, total: number): void;
}

export interface UploadResult {
  instanceId: string;
}

export interface UploadEngine {
  /**
   * Runs one upload to its end. Aborting `signal` (pause, delete, network loss) must leave the server-side session
   * resumable; a later call with the same file resumes from the server's part records.
   * Rejects with an error carrying `code` and optionally `messageKey` (transfer-core TransferError) on failure.
   */
  upload(job: UploadJob, events: UploadEvents, signal: AbortSignal): Promise<UploadResult>;
  /** Ends the server-side session of a deleted upload so its quota reservation and staged parts are released. */
  discard?(job: UploadJob): Promise<void>;
}

/** What the UI can say about a failure: an i18n key, or the server's own message when it gave one. */
export interface TransferFailure {
  key: string;
  code: string;
  serverMessage?: string;
}

/** Maps engine/HTTP errors onto the spec 8 message keys (transfer.error.<code>). */
export function describeFailure(err: unknown): TransferFailure {
  const e = err as { code?: unknown; messageKey?: unknown; serverMessage?: unknown; message?: unknown; ret?: unknown };
  const code = typeof e?.code === 'string' ? e.code : 'UPLOAD_FAILED';
  let key = typeof e?.messageKey === 'string' ? e.messageKey : `transfer.error.${KNOWN_HTTP_CODES[code] ?? 'UPLOAD_FAILED'}`;
  // Spec 8: space-not-enough says "group" for group files.
  if (code === '002' && (err as { group?: unknown })?.group === true) key = 'transfer.error.002group';
  const serverMessage =
    typeof e?.serverMessage === 'string' ? e.serverMessage : typeof e?.ret === 'number' && typeof e?.message === 'string' ? e.message : undefined;
  return serverMessage === undefined ? { key, code } : { key, code, serverMessage };
}

/** HcsError codes of the envelope that have a spec 8 counterpart. */
const KNOWN_HTTP_CODES: Record<string, string> = {
  SPACE_NOT_ENOUGH: '002',
  HASH_MISMATCH: '202',
  NETWORK: 'NETWORK',
  TIMEOUT: 'TIMEOUT',
  UPLOAD_SESSION_MISSING: 'PART_INFO_LOST',
  STORAGE_ERROR: 'REQUEST',
};
