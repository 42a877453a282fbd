// SHA-256 of a download's .part file in a worker thread, reading back what is written as the engine reports it.
// Hashing 1 GiB costs over a second of CPU and its read-back allocates a buffer per read: on the transfer's
// thread that competed with receiving and writing the parts. The worker reuses one buffer and reads the page
// cache with pread, so the main thread only sends "written up to N" messages.
import { Worker } from 'node:worker_threads';
import type { SinkVerifier } from '../ports/index.ts';

// Plain JavaScript (an eval worker is CommonJS): the package also runs from its TypeScript sources.
const WORKER = `
const { parentPort, workerData } = require('node:worker_threads');
const { openSync, readSync, closeSync } = require('node:fs');
const { createHash } = require('node:crypto');
const fd = openSync(workerData.path, 'r');
const hash = createHash('sha256');
const buf = Buffer.allocUnsafe(1 << 20);
let pos = 0;
let end = 0;
let want = -1;
let failed = false;
function pump() {
  try {
    while (!failed && pos < end) {
      const n = readSync(fd, buf, 0, Math.min(buf.length, end - pos), pos);
      if (n === 0) throw new Error('the file is shorter than the data reported written (at ' + pos + ')');
      hash.update(buf.subarray(0, n));
      pos += n;
    }
  } catch (err) {
    failed = true;
    parentPort.postMessage({ error: String(err && err.message || err) });
  }
  if (!failed && want >= 0 && pos === want) {
    parentPort.postMessage({ digest: hash.digest('hex') });
    want = -1;
    failed = true;
  }
}
parentPort.on('message', (m) => {
  if (m.close) {
    closeSync(fd);
    process.exit(0);
  }
  if (m.end !== undefined) end = Math.max(end, m.end);
  if (m.digest !== undefined) {
    want = m.digest;
    end = Math.max(end, want);
  }
  pump();
});
`;

export function createFileVerifier(path: string): SinkVerifier {
  const worker = new Worker(WORKER, { eval: true, workerData: { path } });
  // Idle between messages; it must never keep the process alive on its own.
  worker.unref();
  let settle: { resolve: (hex: string) => void; reject: (err: Error) => void } | undefined;
  let failure: Error | undefined;
  worker.on('message', (m: { digest?: string; error?: string }) => {
    if (m.digest !== undefined) settle?.resolve(m.digest);
    if (m.error !== undefined) {
      failure = new Error(m.error);
      settle?.reject(failure);
    }
  });
  worker.on('error', (err) => {
    failure = err;
    settle?.reject(err);
  });
  worker.on('exit', () => {
    failure ??= new Error('the verifier thread ended');
    settle?.reject(failure);
  });
  return {
    advance(end) {
      if (!failure) worker.postMessage({ end });
    },
    digest(size) {
      if (failure) return Promise.reject(failure);
      return new Promise<string>((resolve, reject) => {
        settle = { resolve, reject };
        worker.ref();
        worker.postMessage({ digest: size });
      }).finally(() => worker.unref());
    },
    dispose() {
      // The worker closes its descriptor and ends itself (terminate() would leave the descriptor open).
      failure ??= new Error('disposed');
      worker.postMessage({ close: true });
    },
  };
}
