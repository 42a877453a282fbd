// The server killed with SIGKILL in the middle of uploads: the real server runs as a child process, is killed
// (no shutdown hook runs), restarted on the same data dir and port, and a new engine instance must finish the
// upload with the right bytes while storage never shows a partial or corrupt object.
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { createHash, randomBytes } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { HcsClient } from '@hcs/openapi/client';
import {
  createDownloadSinkFactory,
  createFileSource,
  createEngineDeps,
  createHcsControlPlane,
  createResumeStore,
  createTransport,
  DownloadTask,
  UploadTask,
  type EngineDeps,
  type Transport,
} from '@hcs/transfer-core/node';
import { DeleteBucketCommand, ListMultipartUploadsCommand } from '@aws-sdk/client-s3';
import { ObjectStore } from '../../mock-server/src/storage/object-store.ts';
import { embeddedCredentials, removeDataDir, startServerProcess, type ServerProcess } from '../helpers/server-process.ts';
import { openServerSql } from '../helpers/db.ts';
import { kindOf, recordingTransport } from '../../transfer-core/src/test/recording-transport.ts';

const MiB = 1024 * 1024;
const sha = (b: Uint8Array) => createHash('sha256').update(b).digest('hex');

function engineDeps(client: HcsClient, stateFile: string, extra: Partial<EngineDeps> = {}): EngineDeps {
  return createEngineDeps({ controlPlane: createHcsControlPlane(client), resumeStore: createResumeStore(stateFile), retryBaseMs: 20, ...extra });
}

interface ExternalS3 {
  endpoint: string;
  accessKeyId: string;
  secretAccessKey: string;
  region: string;
  bucket: string;
}

// State of the suite that is running (the suites run one after the other).
let proc: ServerProcess;
let work: string;
let dataDir: string;
let external: ExternalS3 | undefined;

function serverEnv(): Record<string, string> {
  if (!external) return {};
  return {
    HCS_S3_ENDPOINT: external.endpoint,
    HCS_S3_ACCESS_KEY: external.accessKeyId,
    HCS_S3_SECRET_KEY: external.secretAccessKey,
    HCS_S3_REGION: external.region,
    HCS_S3_BUCKET: external.bucket,
  };
}

/** The store seen from outside the server: plain S3 calls (the embedded store with the credentials it keeps on disk). */
function storeOf(p: ServerProcess): ObjectStore {
  if (external) return new ObjectStore(external);
  return new ObjectStore({ endpoint: `${p.baseUrl}/s3`, region: 'us-east-1', bucket: 'hcs-drive', ...embeddedCredentials(p.dataDir) });
}

/** The embedded store's temp files (bodies being received); external storage has none we can see. */
function embeddedTemps(): string[] | undefined {
  return external ? undefined : readdirSync(join(dataDir, 'objects', 'tmp'));
}

/** Whether the embedded store has written any bytes of an incoming body to a temp file yet. */
function tempHoldsBytes(): boolean {
  return (embeddedTemps() ?? []).some((f) => {
    try {
      return statSync(join(dataDir, 'objects', 'tmp', f)).size > 0;
    } catch {
      return false; // renamed or removed between the listing and the stat
    }
  });
}

async function listKeys(store: ObjectStore): Promise<Map<string, number>> {
  const out = new Map<string, number>();
  for await (const page of store.list('')) for (const o of page.objects) out.set(o.key, o.size);
  return out;
}

/**
 * Every object in the bucket is the content of a registered blob with its size and SHA-256: nothing partial,
 * nothing corrupt, nothing half-registered. Reads the server's database from outside (SQLite read-only, which WAL
 * lets run alongside the server, or its PostgreSQL database).
 */
async function expectStoreConsistent(store: ObjectStore): Promise<Map<string, number>> {
  const keys = await listKeys(store);
  const db = await openServerSql(dataDir);
  try {
    for (const [key, size] of keys) {
      const blob = await db.get<{ sha256: string; size: number }>('SELECT sha256, size FROM blobs WHERE object_key = ?', key);
      expect(blob, `object ${key} is in the bucket but no blob refers to it`).toBeDefined();
      expect(size).toBe(blob!.size);
      expect(await store.sha256(key)).toBe(blob!.sha256);
    }
  } finally {
    await db.close();
  }
  return keys;
}

/** Removes the suite's own bucket from external storage (objects, unfinished multipart uploads, the bucket). */
async function dropBucket(store: ObjectStore): Promise<void> {
  try {
    const keys = [...(await listKeys(store)).keys()];
    if (keys.length) await store.deleteObjects(keys);
    const uploads = await store.client.send(new ListMultipartUploadsCommand({ Bucket: store.bucket }));
    for (const u of uploads.Uploads ?? []) await store.abortMultipart(u.Key!, u.UploadId!);
    await store.client.send(new DeleteBucketCommand({ Bucket: store.bucket }));
  } finally {
    store.destroy();
  }
}

function writeTmp(name: string, bytes: Uint8Array): string {
  const dir = mkdtempSync(join(work, 'src-'));
  const p = join(dir, name);
  writeFileSync(p, bytes);
  return p;
}

async function upload(path: string, client: HcsClient, state: string, transport?: Transport): Promise<UploadTask> {
  const source = await createFileSource(path);
  try {
    const task = new UploadTask({ source, target: {} }, engineDeps(client, state, transport ? { transport } : {}));
    await task.run();
    return task;
  } finally {
    await source.close();
  }
}

async function downloadBytes(client: HcsClient, instanceId: string, name: string): Promise<Buffer> {
  const out = mkdtempSync(join(work, 'dl-'));
  const task = new DownloadTask({ instanceId, sinks: createDownloadSinkFactory({ dir: out }) }, engineDeps(client, join(out, '.state.json')));
  await task.run();
  expect(task.status, String(task.error)).toBe('success');
  return readFileSync(join(out, name));
}

async function restart(): Promise<HcsClient> {
  proc = await startServerProcess({ dataDir, port: proc.port, env: serverEnv() });
  return (await proc.login()).client;
}

function crashSuite(label: string, s3: ExternalS3 | undefined) {
  describe(label, () => {
    beforeAll(async () => {
      external = s3;
      work = mkdtempSync(join(tmpdir(), 'hcs-crash-'));
      dataDir = join(work, 'data');
      proc = await startServerProcess({ dataDir, env: serverEnv() });
    });
    afterAll(async () => {
      await proc?.stop();
      await removeDataDir(dataDir);
      await removeDataDir(work);
      if (s3) await dropBucket(new ObjectStore(s3));
    });

    it('mid multipart upload: after a restart a new engine resumes, sends only what storage lacks, and the file is whole', async () => {
      const bytes = randomBytes(4 * 8 * MiB + 4321); // 5 parts
      const path = writeTmp('crash.bin', bytes);
      const state = join(work, 'multipart-state.json');
      const { client } = await proc.login();

      const okParts: number[] = [];
      let killed: Promise<void> | undefined;
      const t1 = recordingTransport((r) => {
        if (r.kind !== 'uploadPart' || r.status !== 200) return;
        okParts.push(r.partNumber!);
        if (okParts.length === 2) killed ??= proc.kill9();
      });
      const first = await upload(path, client, state, t1);
      await killed;
      expect(proc.child.signalCode).toBe('SIGKILL');
      expect(first.status).toBe('error');

      const client2 = await restart();
      const session = await createHcsControlPlane(client2).getPartInfo({ fMd5: sha(bytes), fName: 'crash.bin' });
      expect(session?.uploadId, 'the upload session survives the crash').toBeTruthy();
      const store = storeOf(proc);
      try {
        // Nothing partial is visible: the object does not exist until the multipart upload completes.
        expect(await store.headObject(session!.objectKey)).toBeNull();
        expect((await expectStoreConsistent(store)).has(session!.objectKey)).toBe(false);
        expect(embeddedTemps() ?? []).toEqual([]);
        const stored: number[] = [];
        for await (const p of store.listParts(session!.objectKey, session!.uploadId!)) stored.push(p.partNumber);
        expect(stored).toEqual(expect.arrayContaining(okParts));

        // A new engine instance (new process after the crash) with the same state file, as the CLI would be.
        const t2 = recordingTransport();
        const second = await upload(path, client2, state, t2);
        expect(second.status, String(second.error)).toBe('success');
        const resent = t2.sent.filter((r) => r.kind === 'uploadPart').map((r) => r.partNumber!).sort();
        expect(resent).toEqual([1, 2, 3, 4, 5].filter((p) => !stored.includes(p)));
        expect(t2.sent.filter((r) => r.kind === 'initMultipart')).toEqual([]);

        expect((await downloadBytes(client2, second.result!.instanceId, 'crash.bin')).equals(bytes)).toBe(true);
        const keys = await expectStoreConsistent(store);
        expect(keys.get(session!.objectKey)).toBe(bytes.length);
      } finally {
        store.destroy();
      }
    });

    // With external storage the server is not in the data path of a PUT (the client sends it to S3 directly), so
    // killing the server cannot cut one: the case exists for the embedded store only.
    it.skipIf(!!s3)('mid single PUT: the next start shows no half object, listing works, and the upload then completes', async () => {
      const bytes = randomBytes(4 * MiB + 17); // under the 8 MiB part size: one PUT
      const path = writeTmp('single.bin', bytes);
      const state = join(work, 'single-state.json');
      const { client } = await proc.login();

      // Sends half the PUT body by hand, kills the server while it is receiving, then fails like fetch does.
      const inner = createTransport();
      let cut = false;
      const halfPut: Transport = {
        async request(req) {
          if (cut || kindOf(req) !== 'putObject') return inner.request(req);
          cut = true;
          const body = req.body as Uint8Array;
          await new Promise<void>((resolve, reject) => {
            const u = new URL(req.url);
            const r = httpRequest({ host: u.hostname, port: u.port, path: u.pathname + u.search, method: 'PUT', headers: { ...req.headers, 'content-length': String(body.byteLength) } });
            r.on('error', () => resolve());
            r.on('response', (res) => {
              res.resume();
              reject(new Error(`the server answered a half-sent PUT with ${res.statusCode}`));
            });
            r.write(body.subarray(0, body.byteLength >> 1), () => {
              // Kill once the server has written some of the first half into its temp file (seen on disk), not
              // after a guessed delay that a loaded machine may not honour.
              void (async () => {
                for (let i = 0; i < 3000 && !tempHoldsBytes(); i++) await new Promise((w) => setTimeout(w, 10));
                await proc.kill9();
              })();
            });
          });
          throw new TypeError('fetch failed');
        },
      };
      const first = await upload(path, client, state, halfPut);
      expect(cut).toBe(true);
      expect(proc.child.signalCode).toBe('SIGKILL');
      expect(first.status).toBe('error');
      // The half body really reached the server: the kill left it as a temp file of the embedded store.
      expect(embeddedTemps()!.length).toBeGreaterThan(0);

      const client2 = await restart();
      const store = storeOf(proc);
      try {
        const session = await createHcsControlPlane(client2).getPartInfo({ fMd5: sha(bytes), fName: 'single.bin' });
        expect(session).toBeTruthy();
        expect(await store.headObject(session!.objectKey)).toBeNull();
        expect((await expectStoreConsistent(store)).has(session!.objectKey)).toBe(false);
        expect(embeddedTemps() ?? []).toEqual([]);

        const second = await upload(path, client2, state);
        expect(second.status, String(second.error)).toBe('success');
        expect((await downloadBytes(client2, second.result!.instanceId, 'single.bin')).equals(bytes)).toBe(true);
        expect((await expectStoreConsistent(store)).get(session!.objectKey)).toBe(bytes.length);
      } finally {
        store.destroy();
      }
    });
  });
}

crashSuite('server killed with SIGKILL (embedded store)', undefined);

const endpoint = process.env.HCS_TEST_S3_ENDPOINT;
if (endpoint) {
  crashSuite(`server killed with SIGKILL (external S3 ${process.env.HCS_TEST_S3_FLAVOR ?? ''} at ${endpoint})`, {
    endpoint,
    accessKeyId: process.env.HCS_TEST_S3_ACCESS_KEY ?? '',
    secretAccessKey: process.env.HCS_TEST_S3_SECRET_KEY ?? '',
    region: process.env.HCS_TEST_S3_REGION ?? 'us-east-1',
    // A bucket of its own, so the consistency check sees only this server's objects.
    bucket: `hcs-crash-${randomBytes(4).toString('hex')}`,
  });
} else {
  describe('server killed with SIGKILL (external S3)', () => {
    it.skip('skipped: set HCS_TEST_S3_ENDPOINT (+ _ACCESS_KEY, _SECRET_KEY, _REGION), e.g. eval "$(bash tests/s3/radosgw.sh env)"', () => {});
  });
}
