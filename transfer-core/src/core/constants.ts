// Numbers from the spec (section 9) and the storage protocol. Names say where each comes from.
export const MiB = 1024 * 1024;
/** Spec 9: default part size. */
export const DEFAULT_PART_SIZE = 8 * MiB;
/** S3: at most 10,000 parts per multipart upload. */
export const MAX_PARTS = 10_000;
/** S3: every part but the last must be at least 5 MiB. */
export const MIN_PART_SIZE = 5 * MiB;
/** S3: a part is at most 5 GiB. */
export const MAX_PART_SIZE = 5 * 1024 * MiB;
/** Spec 9: 3 parts in parallel, for uploads and downloads. */
export const PART_CONCURRENCY = 3;
/** Spec 9: part request timeout. */
export const PART_TIMEOUT_MS = 900_000;
/** Spec 9: retries for HTTP 500 and for 401 re-login. */
export const MAX_RETRIES = 3;
/** Spec 9: default throttle (bytes/s) when the server sends no syncSpeed. */
export const DEFAULT_SYNC_SPEED = 104_857_600;
/** Spec 9: hash chunk per read. */
export const HASH_CHUNK = 20 * MiB;
/** Spec 5/9: largest file uploaded or downloaded by the browser. */
export const MAX_FILE_SIZE = 85_899_345_920;
/** S3 ListParts page size (spec 9: part listing page). */
export const LIST_PARTS_PAGE = 1000;
/** SHA-256 of zero bytes; a non-empty file hashing to it means the read failed (spec 5, [102]). */
export const EMPTY_SHA256 = 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855';
