// The S3 suite against each target: the embedded store (always), an S3 named by HCS_TEST_S3_*
// (e.g. `eval "$(bash tests/s3/radosgw.sh env)"`), and MinIO when a Docker engine is reachable.
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { request as httpRequest } from 'node:http';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Fastify, { type FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EmbeddedS3Control, embeddedS3 } from '../../mock-server/src/storage/embedded/index.ts';
import type { ObjectStore } from '../../mock-server/src/storage/object-store.ts';
import { testConnection } from '../../mock-server/src/storage/connections.ts';
import { MiB, defineS3Suite, storeFor, type S3Target } from './s3-suite.ts';

const CORS_ORIGIN = 'http://drive.suite.test';
const MAX_SINGLE_PUT = 8 * MiB;

async function filesUnder(dir: string): Promise<string[]> {
  const out: string[] = [];
  for (const entry of await readdir(dir, { withFileTypes: true, recursive: true })) {
    if (entry.isFile()) out.push(join(entry.parentPath, entry.name));
  }
  return out;
}

async function eventually(check: () => Promise<boolean>, what: string, ms = 5000): Promise<void> {
  const until = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

describe('embedded store', () => {
  let app: FastifyInstance;
  let root: string;
  let target: S3Target;
  let store: ObjectStore;
  const control = new EmbeddedS3Control();
  const abandonedUploadAgeMs = 60 * 60 * 1000;

  beforeAll(async () => {
    root = await mkdtemp(join(tmpdir(), 'hcs-s3-suite-'));
    const credentials = { accessKeyId: 'SUITE' + randomBytes(6).toString('hex').toUpperCase(), secretAccessKey: randomBytes(30).toString('base64') };
    app = Fastify({ logger: false });
    await app.register(embeddedS3, {
      prefix: '/s3', root, region: 'us-east-1', credentials, corsOrigins: [CORS_ORIGIN],
      limits: { maxPartSize: 64 * MiB, maxObjectSize: 1024 * MiB, maxParts: 10000, maxSinglePut: MAX_SINGLE_PUT },
      abandonedUploadAgeMs, control,
    });
    await app.listen({ port: 0, host: '127.0.0.1' });
    const { port } = app.server.address() as { port: number };
    target = { name: 'embedded', endpoint: `http://127.0.0.1:${port}/s3`, region: 'us-east-1', bucket: 'hcs-suite', ...credentials, corsOrigin: CORS_ORIGIN };
    store = storeFor(target);
    await store.ensureBucket();
  });

  afterAll(async () => {
    store?.destroy();
    await app?.close();
    if (root) await rm(root, { recursive: true, force: true });
  });

  defineS3Suite(() => target);

  describe('embedded-only behaviour', () => {
    it('answers EntityTooLarge over the configured limit and leaves nothing on disk', async () => {
      const key = 'limits/too-large.bin';
      const body = Buffer.alloc(MAX_SINGLE_PUT + 1, 7);
      const url = await store.presignPut(key, { expiresIn: 60 });
      const res = await fetch(url, { method: 'PUT', body }).catch((err: Error) => err);
      if (res instanceof Error) throw new Error(`expected an S3 error response, got ${res.message}`);
      expect(res.status).toBe(400);
      expect(await res.text()).toContain('<Code>EntityTooLarge</Code>');
      expect(await store.headObject(key)).toBeNull();
      await eventually(async () => (await filesUnder(join(root, 'tmp'))).length === 0, 'an empty tmp dir');
    });

    it('never shows an object whose upload was cut off mid-body', async () => {
      const key = 'crash/half-written.bin';
      const before = (await filesUnder(join(root, 'buckets'))).length;
      const url = new URL(await store.presignPut(key, { expiresIn: 60 }));
      const req = httpRequest(url, { method: 'PUT', headers: { 'content-length': String(4 * MiB) } });
      req.on('error', () => undefined);
      req.write(Buffer.alloc(MiB, 1));
      await eventually(async () => (await filesUnder(join(root, 'tmp'))).length > 0, 'the upload to reach the server');
      req.destroy();
      await eventually(async () => (await filesUnder(join(root, 'tmp'))).length === 0, 'the partial temp file to be removed');
      expect(await store.headObject(key)).toBeNull();
      expect((await filesUnder(join(root, 'buckets'))).length).toBe(before);
    });

    it('sweeps abandoned multipart uploads', async () => {
      const key = 'sweep/abandoned.bin';
      const uploadId = await store.createMultipart(key);
      await store.uploadPart(key, uploadId, 1, Buffer.from('part one'), 8);
      expect(await control.sweep()).toMatchObject({ abortedUploads: 0 });
      const result = await control.sweep(Date.now() + abandonedUploadAgeMs + 1000);
      expect(result.abortedUploads).toBeGreaterThanOrEqual(1);
      await expect((async () => { for await (const _ of store.listParts(key, uploadId)) void _; })()).rejects.toMatchObject({ code: 'NoSuchUpload' });
      expect(await readdir(join(root, 'uploads'))).toEqual([]);
    });

    it('refuses CORS preflight from an origin it was not configured for', async () => {
      const res = await fetch(`${target.endpoint}/${target.bucket}/x`, {
        method: 'OPTIONS', headers: { origin: 'http://evil.test', 'access-control-request-method': 'PUT' },
      });
      expect(res.status).toBe(403);
      expect(res.headers.get('access-control-allow-origin')).toBeNull();
    });
  });
});

function envTarget(): S3Target | undefined {
  const endpoint = process.env.HCS_TEST_S3_ENDPOINT;
  if (!endpoint) return undefined;
  const accessKeyId = process.env.HCS_TEST_S3_ACCESS_KEY;
  const secretAccessKey = process.env.HCS_TEST_S3_SECRET_KEY;
  if (!accessKeyId || !secretAccessKey) throw new Error('HCS_TEST_S3_ENDPOINT is set: HCS_TEST_S3_ACCESS_KEY and HCS_TEST_S3_SECRET_KEY are required too');
  return {
    name: `env (${endpoint})`, endpoint, accessKeyId, secretAccessKey,
    bucket: process.env.HCS_TEST_S3_BUCKET || 'hcs-s3-suite',
    region: process.env.HCS_TEST_S3_REGION || 'us-east-1',
    flavor: process.env.HCS_TEST_S3_FLAVOR === 'ceph-rgw' ? 'ceph-rgw' : undefined,
  };
}

const fromEnv = envTarget();
if (fromEnv) {
  describe(`S3 from HCS_TEST_S3_ENDPOINT (${fromEnv.endpoint})`, () => {
    beforeAll(async () => {
      const store = storeFor(fromEnv);
      await store.ensureBucket();
      store.destroy();
    });
    defineS3Suite(() => fromEnv);
    it('the connection test finds it reachable with its bucket, and not MinIO (no MinIO health checks answer)', async () => {
      const store = storeFor(fromEnv);
      try {
        expect(await testConnection(store)).toEqual({ reachable: true, bucketExists: true, server: 's3' });
      } finally {
        store.destroy();
      }
    });
  });
} else {
  console.log('[s3-suite] skipping env target: HCS_TEST_S3_ENDPOINT not set');
  describe.skip('S3 from HCS_TEST_S3_ENDPOINT', () => {
    it('needs HCS_TEST_S3_ENDPOINT', () => undefined);
  });
}

/** Resolves to undefined when a Docker engine answers, else to the reason it does not (fast, no long timeouts). */
async function dockerUnavailable(): Promise<string | undefined> {
  const host = process.env.DOCKER_HOST;
  if (host?.startsWith('tcp://')) {
    const url = new URL(host.replace(/^tcp:/, 'http:'));
    return new Promise((resolve) => {
      const socket = connect({ host: url.hostname, port: Number(url.port || 2375), timeout: 1500 });
      socket.once('connect', () => { socket.destroy(); resolve(undefined); });
      socket.once('timeout', () => { socket.destroy(); resolve(`DOCKER_HOST ${host} did not answer`); });
      socket.once('error', (err) => resolve(`DOCKER_HOST ${host}: ${err.message}`));
    });
  }
  const candidates = host?.startsWith('unix://')
    ? [host.slice('unix://'.length)]
    : ['/var/run/docker.sock', ...(process.env.XDG_RUNTIME_DIR ? [join(process.env.XDG_RUNTIME_DIR, 'docker.sock')] : [])];
  const socketPath = candidates.find((p) => existsSync(p));
  if (!socketPath) return `no Docker socket (${candidates.join(', ')}) and DOCKER_HOST not set`;
  return new Promise((resolve) => {
    const req = httpRequest({ socketPath, path: '/_ping', timeout: 1500 }, (res) => {
      res.resume();
      resolve(res.statusCode === 200 ? undefined : `Docker at ${socketPath} answered ${res.statusCode}`);
    });
    req.once('timeout', () => { req.destroy(); resolve(`Docker at ${socketPath} did not answer`); });
    req.once('error', (err) => resolve(`Docker at ${socketPath}: ${err.message}`));
    req.end();
  });
}

const noDocker = await dockerUnavailable();
if (noDocker) {
  console.log(`[s3-suite] skipping MinIO target: ${noDocker}`);
  describe.skip('MinIO (testcontainers)', () => {
    it('needs a Docker engine', () => undefined);
  });
} else {
  describe('MinIO (testcontainers)', () => {
    let container: { stop(): Promise<unknown>; getConnectionUrl(): string } | undefined;
    let target: S3Target;
    beforeAll(async () => {
      const { MinioContainer } = await import('@testcontainers/minio');
      const secret = randomBytes(18).toString('hex');
      container = await new MinioContainer(process.env.HCS_TEST_MINIO_IMAGE || 'minio/minio:RELEASE.2024-12-13T22-19-12Z')
        .withUsername('hcs-suite').withPassword(secret).start();
      target = { name: 'minio', endpoint: container.getConnectionUrl(), region: 'us-east-1', bucket: 'hcs-s3-suite', accessKeyId: 'hcs-suite', secretAccessKey: secret };
      const store = storeFor(target);
      await store.ensureBucket();
      store.destroy();
    }, 300_000);
    afterAll(async () => {
      await container?.stop();
    });
    defineS3Suite(() => target);
    it('the connection test recognises MinIO and reports its liveness and cluster health', async () => {
      const store = storeFor(target);
      try {
        expect(await testConnection(store)).toEqual({ reachable: true, bucketExists: true, server: 'minio', minio: { live: true, clusterHealthy: true } });
      } finally {
        store.destroy();
      }
    });
  });
}
