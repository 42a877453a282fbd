// Interim transfer engine for the CLI, speaking the /hcs protocol directly (spec section 7, upload and
// download endpoints) until @hcs/transfer-core's engine is ready; ./transfer.ts is the only importer.
// Upload: hash, file-uploadable, then instant transfer (proof of possession) or signed S3 requests
// (single PUT, or multipart with 3 parts in parallel), part records on the server, save-instance.
// Resume: the server's part record gives the session, S3 ListParts says which parts storage holds.
// Download: ranged GETs 3 in parallel into a .part file with a 0600 sidecar of finished parts, then
// SHA-256 verification before the file takes its final name.
import { open, readFile, rename, rm, stat } from 'node:fs/promises';
import { encodeName, HcsError, type components } from '@hcs/openapi/client';
import type { Api } from './api.ts';
import { CliError, EXIT } from './exit-codes.ts';
import { sha256File } from './hash-cache.ts';
import { writeSecretJson } from './auth-file.ts';
import type { DownloadRequest, DownloadResult, Transfer, UploadRequest, UploadResult } from './transfer.ts';

type UploadSession = components['schemas']['UploadSession'];
type StorageAction = 'initMultipart' | 'uploadPart' | 'listParts' | 'completeMultipart' | 'abortMultipart' | 'putObject' | 'getObject' | 'headObject';
type Verb = 'GET' | 'PUT' | 'POST' | 'DELETE' | 'HEAD';

const EMPTY_SHA256 = 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855';
/** Spec 9: 3 parts in parallel per file, 900000 ms per part request, 3 retries. */
const PARTS_IN_PARALLEL = 3;
const PART_TIMEOUT_MS = 900_000;
const RETRIES = 3;

/** A transfer failure with a stable code (the spec's section 8 codes where it names one). */
export class TransferError extends Error {
  readonly code: string;
  readonly retryable: boolean;
  constructor(code: string, message: string, retryable = false) {
    super(message);
    this.name = 'TransferError';
    this.code = code;
    this.retryable = retryable;
  }
}

/** RFC 3986 encoding of an object key as S3 canonicalises it (slashes kept). */
export function encodeKey(key: string): string {
  return key
    .split('/')
    .map((s) => encodeURIComponent(s).replace(/[!'()*]/g, (c) => '%' + c.charCodeAt(0).toString(16).toUpperCase()))
    .join('/');
}

function xmlValues(xml: string, tag: string): string[] {
  const re = new RegExp(`<${tag}>([\\s\\S]*?)</${tag}>`, 'g');
  const out: string[] = [];
  for (let m = re.exec(xml); m; m = re.exec(xml)) out.push(unescapeXml(m[1]!));
  return out;
}

function unescapeXml(s: string): string {
  return s.replace(/&quot;/g, '"').replace(/&apos;/g, "'").replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&amp;/g, '&');
}

function escapeXml(s: string): string {
  return s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}

export function parseListParts(xml: string): { parts: Array<{ partNumber: number; etag: string; size: number }>; truncated: boolean; next: number } {
  const parts: Array<{ partNumber: number; etag: string; size: number }> = [];
  for (const block of xmlValues(xml, 'Part')) {
    const n = Number(xmlValues(block, 'PartNumber')[0]);
    const etag = xmlValues(block, 'ETag')[0] ?? '';
    const size = Number(xmlValues(block, 'Size')[0]);
    if (Number.isInteger(n) && etag) parts.push({ partNumber: n, etag, size });
  }
  return {
    parts,
    truncated: xmlValues(xml, 'IsTruncated')[0] === 'true',
    next: Number(xmlValues(xml, 'NextPartNumberMarker')[0] ?? 0),
  };
}

function isRetryable(err: unknown): boolean {
  if (err instanceof TransferError) return err.retryable;
  if (err instanceof HcsError) return err.status >= 500 && err.status !== 501;
  if (err instanceof CliError) return err.exitCode === EXIT.UNREACHABLE;
  if (err instanceof Error && (err.name === 'AbortError' || err.name === 'TimeoutError')) return false;
  return err instanceof TypeError; // fetch: network failure
}

async function withRetry<T>(signal: AbortSignal, fn: () => Promise<T>): Promise<T> {
  for (let attempt = 0; ; attempt++) {
    signal.throwIfAborted();
    try {
      return await fn();
    } catch (err) {
      if (signal.aborted || attempt >= RETRIES || !isRetryable(err)) throw err;
      await new Promise((r) => setTimeout(r, 500 * 2 ** attempt));
    }
  }
}

/** Runs tasks with at most `limit` in flight; the first failure stops new tasks and rejects. */
async function parallel<T>(items: readonly T[], limit: number, fn: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  let failed: unknown;
  const worker = async () => {
    while (failed === undefined && next < items.length) {
      const item = items[next++]!;
      try {
        await fn(item);
      } catch (err) {
        failed ??= err;
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  if (failed !== undefined) throw failed;
}

export class DirectTransfer implements Transfer {
  private readonly api: Api;
  constructor(api: Api) {
    this.api = api;
  }

  /** Asks the server to sign one storage request, then sends it. Non-2xx answers throw TransferError. */
  private async storage(
    opts: { verb: Verb; bucket: string; resourceUri: string; action: StorageAction; fId: string; fMd5?: string },
    init: { body?: Uint8Array | string; headers?: Record<string, string>; signal: AbortSignal },
  ): Promise<Response> {
    const signed = await this.api.call((c) =>
      c.GET('/hcs/controller/API/S3Cloud/StringToSign', {
        params: {
          query: { httpVerb: opts.verb, bucketName: opts.bucket, resourceUri: opts.resourceUri, action: opts.action, fId: opts.fId, ...(opts.fMd5 ? { fMd5: opts.fMd5 } : {}) },
        },
        signal: init.signal,
      }),
    );
    const s = signed.data;
    if (!s) throw new TransferError('[201]', 'failed to obtain authentication information');
    const res = await fetch(s.url, {
      method: opts.verb,
      headers: { ...init.headers, Authorization: s.authorization, 'x-amz-date': s.date, 'x-amz-content-sha256': s.contentSha256 },
      body: init.body as BodyInit | undefined,
      signal: AbortSignal.any([init.signal, AbortSignal.timeout(PART_TIMEOUT_MS)]),
    });
    if (!res.ok && res.status !== 206) {
      const text = await res.text().catch(() => '');
      const code = xmlValues(text, 'Code')[0] ?? `HTTP_${res.status}`;
      throw new TransferError(code === 'NoSuchUpload' ? 'NoSuchUpload' : '[303]', `storage ${opts.action} failed: ${res.status} ${code}`, res.status >= 500);
    }
    return res;
  }

  async upload(req: UploadRequest): Promise<UploadResult> {
    const { signal } = req;
    let sha = req.sha256;
    if (!sha) {
      req.onProgress(0, req.size, 'hashing');
      sha = await sha256File(req.path, { signal, onProgress: (b) => req.onProgress(b, req.size, 'hashing') });
    }
    if (req.size > 0 && sha === EMPTY_SHA256) throw new TransferError('[102]', 'hash calculation failed');
    req.onHashed?.(sha);
    const fName = encodeName(req.name);

    const session = await this.findSession(req, sha, fName);
    if (session) return this.finishMultipart(req, sha, fName, session, 0);

    const upl = (
      await withRetry(signal, () =>
        this.api.call((c) =>
          c.GET('/hcs/controller/API/file-uploadable', {
            params: { query: { fSize: req.size, fName, fMd5: sha, parentId: req.parentId, conflict: req.conflict, category: 'NetDisk' } },
            signal,
          }),
        ),
      )
    ).data;
    if (!upl) throw new TransferError('[201]', 'file-uploadable returned nothing');
    if (upl.uploadflag === 2) throw new TransferError('[002]', 'space not enough');
    if (upl.uploadflag === 4) throw new TransferError('UPLOAD_REFUSED', 'the server refused the upload');
    if (upl.uploadflag === 1) {
      if (!upl.fId || !upl.proof) throw new TransferError('[201]', 'instant transfer without a proof challenge');
      const { offset, length, proofId } = upl.proof;
      const proof = await sha256File(req.path, { offset, length, signal });
      const saved = await this.api.call((c) =>
        c.POST('/hcs/controller/API/second-transfer', {
          body: { fId: upl.fId!, proofId, proof, instanceName: fName, parentId: req.parentId, sourceType: 'HIK_cli' },
          signal,
        }),
      );
      if (!saved.data) throw new TransferError('UPLOAD_FAILED', 'upload failed');
      req.onProgress(req.size, req.size, 'transferring');
      return { instanceId: saved.data.instanceId, instant: true, sha256: sha, bytesSent: 0 };
    }
    if (!upl.fId || !upl.objectKey || !upl.bucketName) throw new TransferError('[201]', 'file-uploadable returned no upload target');
    req.onSession?.(upl.fId);
    const partSize = upl.partSize && upl.partSize > 0 ? upl.partSize : 8 * 1024 * 1024;
    const base = { fId: upl.fId, objectKey: upl.objectKey, bucketName: upl.bucketName, partSize };
    if (req.size <= partSize) {
      const body = req.size === 0 ? new Uint8Array(0) : await readRange(req.path, 0, req.size);
      await withRetry(signal, () =>
        this.storage(
          { verb: 'PUT', bucket: base.bucketName, resourceUri: `/${base.bucketName}/${encodeKey(base.objectKey)}`, action: 'putObject', fId: base.fId, fMd5: sha },
          { body, signal },
        ),
      );
      req.onProgress(req.size, req.size, 'transferring');
      const id = await this.save(req, sha, fName, base, 1);
      return { instanceId: id, instant: false, sha256: sha, bytesSent: req.size };
    }
    const res = await withRetry(signal, () =>
      this.storage({ verb: 'POST', bucket: base.bucketName, resourceUri: `/${base.bucketName}/${encodeKey(base.objectKey)}?uploads`, action: 'initMultipart', fId: base.fId }, { signal }),
    );
    const uploadId = xmlValues(await res.text(), 'UploadId')[0];
    if (!uploadId) throw new TransferError('[301]', 'failed to initialize sharding');
    const partCount = Math.ceil(req.size / partSize);
    await this.api.call((c) =>
      c.POST('/hcs/controller/API/initPartInfo', { body: { fId: base.fId, uploadId, objectKey: base.objectKey, partSize, partCount }, signal }),
    );
    const fresh: UploadSession = {
      ...base,
      fSize: req.size,
      fMd5: sha,
      fName: req.name,
      parentId: req.parentId,
      partCount,
      uploadId,
      parts: [],
      createTime: Date.now(),
    };
    return this.finishMultipart(req, sha, fName, fresh, 0);
  }

  /** An unfinished server session for this exact content and destination, by remembered id or by hash. */
  private async findSession(req: UploadRequest, sha: string, fName: string): Promise<UploadSession | null> {
    const matches = (s: UploadSession | null | undefined): s is UploadSession =>
      !!s && s.fMd5 === sha && s.fSize === req.size && s.parentId === req.parentId && !!s.uploadId;
    const lookups: Array<{ fId: string } | { fMd5: string; parentId: string; fName: string }> = [];
    if (req.resumeFId) lookups.push({ fId: req.resumeFId });
    lookups.push({ fMd5: sha, parentId: req.parentId, fName });
    for (const query of lookups) {
      try {
        const res = await this.api.call((c) => c.GET('/hcs/controller/API/getPartInfo', { params: { query }, signal: req.signal }));
        if (matches(res.data)) return res.data;
      } catch (err) {
        // A session that ended or expired is simply not resumable; anything else is a real failure.
        if (err instanceof CliError && (err.code === 'NOT_FOUND' || err.code === 'UPLOAD_SESSION_MISSING')) continue;
        throw err;
      }
    }
    return null;
  }

  private async finishMultipart(req: UploadRequest, sha: string, fName: string, s: UploadSession, depth: number): Promise<UploadResult> {
    const { signal } = req;
    const uploadId = s.uploadId!;
    const key = `/${s.bucketName}/${encodeKey(s.objectKey)}`;
    const partSize = s.partSize;
    const partCount = Math.ceil(req.size / partSize);
    const sizeOf = (n: number) => (n < partCount ? partSize : req.size - partSize * (partCount - 1));
    req.onSession?.(s.fId);

    // Storage is authoritative: a part counts as done only when ListParts shows it with the right size.
    const done = new Map<number, string>();
    try {
      let marker = 0;
      for (;;) {
        const res = await withRetry(signal, () =>
          this.storage(
            { verb: 'GET', bucket: s.bucketName, resourceUri: `${key}?part-number-marker=${marker}&uploadId=${encodeURIComponent(uploadId)}`, action: 'listParts', fId: s.fId },
            { signal },
          ),
        );
        const page = parseListParts(await res.text());
        for (const p of page.parts) if (p.partNumber <= partCount && p.size === sizeOf(p.partNumber)) done.set(p.partNumber, p.etag);
        if (!page.truncated || page.next <= marker) break;
        marker = page.next;
      }
    } catch (err) {
      if (err instanceof TransferError && err.code === 'NoSuchUpload') {
        // Completed by an earlier run that died before save-instance; otherwise start over once.
        try {
          const id = await this.save(req, sha, fName, s, partCount);
          return { instanceId: id, instant: false, sha256: sha, bytesSent: 0 };
        } catch (saveErr) {
          if (depth > 0 || signal.aborted) throw saveErr;
          await this.api.call((c) => c.POST('/hcs/controller/API/destroyPartInfo', { body: { fId: s.fId, abort: true }, signal })).catch(() => undefined);
          return this.upload({ ...req, sha256: sha, resumeFId: undefined });
        }
      }
      throw err;
    }

    const missing = Array.from({ length: partCount }, (_, i) => i + 1).filter((n) => !done.has(n));
    let confirmed = 0;
    for (const n of done.keys()) confirmed += sizeOf(n);
    req.onProgress(confirmed, req.size, 'transferring');
    let sent = 0;
    await parallel(missing, PARTS_IN_PARALLEL, async (n) => {
      const size = sizeOf(n);
      const body = await readRange(req.path, (n - 1) * partSize, size);
      const res = await withRetry(signal, () =>
        this.storage(
          { verb: 'PUT', bucket: s.bucketName, resourceUri: `${key}?partNumber=${n}&uploadId=${encodeURIComponent(uploadId)}`, action: 'uploadPart', fId: s.fId },
          { body, signal },
        ),
      );
      const etag = res.headers.get('etag');
      if (!etag) throw new TransferError('[303]', `storage returned no ETag for part ${n}`);
      done.set(n, etag);
      await withRetry(signal, () =>
        this.api.call((c) => c.POST('/hcs/controller/API/setPartInfo', { body: { fId: s.fId, parts: [{ partNumber: n, etag, size }] }, signal })),
      );
      confirmed += size;
      sent += size;
      req.onProgress(confirmed, req.size, 'transferring');
    });

    const xml =
      '<CompleteMultipartUpload>' +
      [...done.entries()]
        .sort((a, b) => a[0] - b[0])
        .map(([n, etag]) => `<Part><PartNumber>${n}</PartNumber><ETag>${escapeXml(etag)}</ETag></Part>`)
        .join('') +
      '</CompleteMultipartUpload>';
    const completed = await withRetry(signal, () =>
      this.storage(
        { verb: 'POST', bucket: s.bucketName, resourceUri: `${key}?uploadId=${encodeURIComponent(uploadId)}`, action: 'completeMultipart', fId: s.fId },
        { body: xml, headers: { 'content-type': 'application/xml' }, signal },
      ),
    );
    // S3 may answer 200 with an <Error> body when completion fails late.
    const text = await completed.text();
    if (/<Error>/.test(text)) throw new TransferError('[203]', `failed to complete the upload: ${xmlValues(text, 'Code')[0] ?? 'unknown'}`);
    const id = await this.save(req, sha, fName, s, partCount);
    return { instanceId: id, instant: false, sha256: sha, bytesSent: sent };
  }

  private async save(
    req: UploadRequest,
    sha: string,
    fName: string,
    s: { fId: string; objectKey: string; bucketName: string; partSize: number },
    partNum: number,
  ): Promise<string> {
    const dot = req.name.lastIndexOf('.');
    const fType = dot > 0 ? req.name.slice(dot + 1).toLowerCase().slice(0, 32) : '';
    try {
      const res = await withRetry(req.signal, () =>
        this.api.call((c) =>
          c.POST('/hcs/controller/API/save-instance', {
            body: {
              fId: s.fId,
              fMd5: sha,
              fSize: req.size,
              objectKey: s.objectKey,
              bucketName: s.bucketName,
              fName,
              fType,
              parentId: req.parentId,
              partSize: s.partSize,
              partNum,
              lastPartSize: req.size - s.partSize * Math.max(0, partNum - 1),
              classifierId: 'File',
              sourceType: 'HIK_cli',
            },
            signal: req.signal,
          }),
        ),
      );
      if (!res.data) throw new TransferError('[202]', 'file verification failed');
      return res.data.instanceId;
    } catch (err) {
      if (err instanceof CliError && err.code === 'HASH_MISMATCH') throw new TransferError('HASH_MISMATCH', 'the stored content does not match the hash; it is recomputed on the next run');
      throw err;
    }
  }

  async download(req: DownloadRequest): Promise<DownloadResult> {
    const { signal } = req;
    const info = (
      await withRetry(signal, () =>
        this.api.call((c) => c.GET('/hcs/controller/API/getDownloadFileInfo', { params: { query: { instanceId: req.instanceId } }, signal })),
      )
    ).data;
    if (!info) throw new TransferError('FILE_INFO_MISSING', 'get file information failed');
    const size = info.fileSize;
    const partSize = info.partSize > 0 ? info.partSize : 8 * 1024 * 1024;
    const partCount = size === 0 ? 0 : Math.ceil(size / partSize);
    const partial = `${req.dest}.hcs-part`;
    const metaPath = `${req.dest}.hcs-part.json`;
    interface Meta {
      instanceId: string;
      fMd5: string;
      size: number;
      partSize: number;
      done: number[];
    }
    let meta: Meta = { instanceId: req.instanceId, fMd5: info.fMd5, size, partSize, done: [] };
    try {
      const prev = JSON.parse(await readFile(metaPath, 'utf8')) as Meta;
      const st = await stat(partial);
      // Reuse earlier bytes only for the same content with the same part layout.
      if (prev.instanceId === meta.instanceId && prev.fMd5 === meta.fMd5 && prev.size === size && prev.partSize === partSize && st.size <= size) {
        meta = { ...meta, done: prev.done.filter((n) => Number.isInteger(n) && n >= 1 && n <= partCount) };
      }
    } catch {
      // No usable partial state: start from zero.
    }
    const fh = await open(partial, meta.done.length > 0 ? 'r+' : 'w', 0o600);
    const doneSet = new Set(meta.done);
    const sizeOf = (n: number) => (n < partCount ? partSize : size - partSize * (partCount - 1));
    let loaded = 0;
    for (const n of doneSet) loaded += sizeOf(n);
    let fetched = 0;
    let metaChain: Promise<void> = Promise.resolve();
    const saveMeta = () => {
      const snapshot = { ...meta, done: [...doneSet] };
      metaChain = metaChain.then(() => writeSecretJson(metaPath, snapshot));
      return metaChain;
    };
    try {
      req.onProgress(loaded, size, 'transferring');
      const missing = Array.from({ length: partCount }, (_, i) => i + 1).filter((n) => !doneSet.has(n));
      await parallel(missing, PARTS_IN_PARALLEL, async (n) => {
        const start = (n - 1) * partSize;
        const len = sizeOf(n);
        await withRetry(signal, async () => {
          const res = await this.storage(
            { verb: 'GET', bucket: info.bucketName, resourceUri: info.resourceUri, action: 'getObject', fId: req.instanceId },
            { headers: { Range: `bytes=${start}-${start + len - 1}` }, signal },
          );
          if (!res.body) throw new TransferError('DOWNLOAD_FAILED', 'storage returned no body', true);
          let off = start;
          for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
            if (off + chunk.byteLength > start + len) throw new TransferError('DOWNLOAD_FAILED', `part ${n} is longer than requested`);
            await fh.write(chunk, 0, chunk.byteLength, off);
            off += chunk.byteLength;
          }
          if (off !== start + len) throw new TransferError('DOWNLOAD_FAILED', `part ${n} ended early`, true);
        });
        doneSet.add(n);
        loaded += len;
        fetched += len;
        req.onProgress(loaded, size, 'transferring');
        await saveMeta();
      });
      await fh.truncate(size);
      await fh.sync();
    } finally {
      await fh.close();
      await metaChain.catch(() => undefined);
    }
    const sha = await sha256File(partial, { signal, onProgress: (b) => req.onProgress(b, size, 'verifying') });
    if (sha !== info.fMd5) {
      await rm(partial, { force: true });
      await rm(metaPath, { force: true });
      throw new TransferError('HASH_MISMATCH', `downloaded content does not match its SHA-256 (got ${sha.slice(0, 12)}…, expected ${info.fMd5.slice(0, 12)}…)`);
    }
    await rename(partial, req.dest);
    await rm(metaPath, { force: true });
    return { sha256: sha, bytes: size, bytesFetched: fetched };
  }
}

async function readRange(path: string, offset: number, length: number): Promise<Uint8Array> {
  const fh = await open(path, 'r');
  try {
    const buf = Buffer.allocUnsafe(length);
    let got = 0;
    while (got < length) {
      const { bytesRead } = await fh.read(buf, got, length - got, offset + got);
      if (bytesRead === 0) throw new TransferError('FILE_CHANGED', 'the file became shorter while uploading');
      got += bytesRead;
    }
    return buf;
  } finally {
    await fh.close();
  }
}
