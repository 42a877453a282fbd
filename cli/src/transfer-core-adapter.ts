// The CLI's Transfer on top of @hcs/transfer-core's engine (UploadTask / DownloadTask with the Node adapters),
// so the web app and the CLI share one implementation of the protocol, its retries and its resume rules.
// The engine keeps its resume records in a 0600 JSON file per job; bytes actually sent or fetched are
// counted by wrapping the transport, for the `sent` field of file-done events.
import { readFile } from 'node:fs/promises';
import { dirname, basename } from 'node:path';
import {
  BULK_MAX_FILE_SIZE,
  createDownloadSinkFactory,
  createEngineDeps,
  createFileSource,
  createHcsControlPlane,
  createResumeStore,
  createTransport,
  DownloadTask,
  UploadTask,
  uploadBatch,
  type EngineDeps,
  type FileSource,
  type Transport,
} from '@hcs/transfer-core/node';
import type { Api } from './api.ts';
import type { BatchFile, BatchFileResult, DownloadRequest, DownloadResult, Phase, Transfer, UploadRequest, UploadResult } from './transfer-types.ts';

function smallFileSource(f: BatchFile): FileSource {
  return {
    name: f.name,
    size: f.size,
    identity: `${f.path}:${f.size}`,
    async read(offset, length, signal) {
      const bytes = await readFile(f.path, { signal });
      return bytes.subarray(offset, offset + length);
    },
  };
}

function abortError(): Error {
  return new DOMException('interrupted', 'AbortError');
}

function phaseOf(p: string): Phase {
  return p === 'hashing' ? 'hashing' : p === 'verifying' ? 'verifying' : 'transferring';
}

/** A transport that counts payload bytes sent (PUT bodies) and received (GET bodies). */
function countingTransport(inner: Transport, counter: { sent: number; received: number }): Transport {
  return {
    async request(req) {
      if (req.body && req.method === 'PUT') counter.sent += typeof req.body === 'string' ? Buffer.byteLength(req.body) : req.body instanceof Blob ? req.body.size : req.body.byteLength;
      const res = await inner.request(req);
      if (req.method !== 'GET') return res;
      return {
        status: res.status,
        header: (n) => res.header(n),
        text: () => res.text(),
        async *chunks() {
          for await (const c of res.chunks()) {
            counter.received += c.byteLength;
            yield c;
          }
        },
      };
    },
  };
}

export class CoreTransfer implements Transfer {
  private readonly base: EngineDeps;
  private readonly transport = createTransport();
  constructor(api: Api, resumePath: string) {
    this.base = createEngineDeps({ controlPlane: createHcsControlPlane(api.client), resumeStore: createResumeStore(resumePath) });
  }

  async upload(req: UploadRequest): Promise<UploadResult> {
    req.signal.throwIfAborted();
    const counter = { sent: 0, received: 0 };
    const source = await createFileSource(req.path, req.name);
    const task = new UploadTask(
      { source, target: { parentId: req.parentId, conflict: req.conflict, category: 'NetDisk' } },
      { ...this.base, transport: countingTransport(this.transport, counter) },
    );
    const onAbort = () => task.pause();
    req.signal.addEventListener('abort', onAbort);
    let hashed = false;
    task.events.on('progress', (p) => {
      if (!hashed && p.phase !== 'hashing') hashed = true;
      req.onProgress(p.loaded, p.total, phaseOf(p.phase));
    });
    try {
      await task.run();
    } finally {
      req.signal.removeEventListener('abort', onAbort);
      await source.close();
    }
    if (task.status === 'success' && task.result) {
      req.onHashed?.(task.result.fMd5);
      return { instanceId: task.result.instanceId, instant: task.result.instant, sha256: task.result.fMd5, bytesSent: counter.sent };
    }
    if (task.status === 'pause' || req.signal.aborted) throw abortError();
    throw task.error ?? new Error(`upload ended in status ${task.status}`);
  }

  readonly maxBatchFileSize = BULK_MAX_FILE_SIZE;

  async uploadBatch(files: BatchFile[], conflict: 'newVersion' | 'keepBoth' | 'skip', signal: AbortSignal): Promise<BatchFileResult[]> {
    signal.throwIfAborted();
    // Each file is opened only while it is read (a batch holds hundreds; descriptors stay few). A file that
    // changed size since the scan fails alone with FILE_MISSING, as in a single upload.
    const entries = files.map((f) => ({ parentId: f.parentId, source: smallFileSource(f) }));
    const results = await uploadBatch(entries, { conflict, category: 'NetDisk' }, this.base, signal);
    return results.map((r) => ({ outcome: r.outcome, instanceId: r.instanceId, sha256: r.sha256, bytesSent: r.bytesSent, error: r.error }));
  }

  async download(req: DownloadRequest): Promise<DownloadResult> {
    req.signal.throwIfAborted();
    const counter = { sent: 0, received: 0 };
    const sinks = createDownloadSinkFactory({ dir: dirname(req.dest), pathFor: () => req.dest });
    const task = new DownloadTask({ instanceId: req.instanceId, sinks }, { ...this.base, transport: countingTransport(this.transport, counter) });
    const onAbort = () => task.pause();
    req.signal.addEventListener('abort', onAbort);
    let total = 0;
    task.events.on('progress', (p) => {
      total = p.total;
      req.onProgress(p.loaded, p.total, phaseOf(p.phase));
    });
    try {
      await task.run();
    } finally {
      req.signal.removeEventListener('abort', onAbort);
    }
    if (task.status === 'success') {
      const info = task.info;
      return { sha256: info?.fMd5 ?? '', bytes: info?.fileSize ?? total, bytesFetched: counter.received };
    }
    if (task.status === 'pause' || req.signal.aborted) throw abortError();
    throw task.error ?? new Error(`download of ${basename(req.dest)} ended in status ${task.status}`);
  }
}
