import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Fastify, { type FastifyInstance } from 'fastify';
import { afterEach, describe, expect, it } from 'vitest';
import { startHarness } from './embedded/test-harness.ts';
import { createStorage, type StorageConfig } from './index.ts';
import type { ObjectStore } from './object-store.ts';

const cleanup: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  for (const fn of cleanup.splice(0).reverse()) await fn();
});

async function dataDir(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'hcs-storage-index-'));
  cleanup.push(() => rm(dir, { recursive: true, force: true }));
  return dir;
}

async function serve(config: StorageConfig): Promise<{ app: FastifyInstance; store: ObjectStore; port: number }> {
  const app = Fastify({ logger: false });
  const storage = await createStorage(config, app);
  await app.listen({ port: 0, host: '127.0.0.1' });
  cleanup.push(() => app.close());
  const { port } = app.server.address() as { port: number };
  const store = await storage.connect(`http://127.0.0.1:${port}`);
  cleanup.push(async () => store.destroy());
  return { app, store, port };
}

const s3 = { region: 'us-east-1', bucket: 'hcs-drive' };

describe('createStorage', () => {
  it('serves the embedded store under /s3 with credentials generated once and kept 0600', async () => {
    const dir = await dataDir();
    const first = await serve({ dataDir: dir, s3 });
    await first.store.putObject('a.txt', Buffer.from('kept'), { contentLength: 4 });
    const file = join(dir, 's3-credentials.json');
    expect((await stat(file)).mode & 0o777).toBe(0o600);
    const credentials = JSON.parse(await readFile(file, 'utf8')) as { accessKeyId: string; secretAccessKey: string };
    expect(credentials.accessKeyId).toMatch(/^HCS[A-Z2-7]{17}$/);
    expect(first.store.signRequest({ method: 'GET', key: 'a.txt' }).authorization).toContain(`Credential=${credentials.accessKeyId}/`);
    expect((await stat(join(dir, 'objects', 'buckets', 'hcs-drive'))).isDirectory()).toBe(true);
    await first.app.close();

    const second = await serve({ dataDir: dir, s3 });
    expect(JSON.parse(await readFile(file, 'utf8'))).toEqual(credentials);
    expect((await second.store.headObject('a.txt'))?.size).toBe(4);
  });

  it('uses configured credentials and refuses half of a pair', async () => {
    const dir = await dataDir();
    const { store } = await serve({ dataDir: dir, s3: { ...s3, accessKeyId: 'CONFIGUREDKEY', secretAccessKey: 'configured-secret' } });
    expect(store.signRequest({ method: 'GET', key: 'x' }).authorization).toContain('Credential=CONFIGUREDKEY/');
    await expect(stat(join(dir, 's3-credentials.json'))).rejects.toMatchObject({ code: 'ENOENT' });
    await expect(createStorage({ dataDir: dir, s3: { ...s3, accessKeyId: 'ONLYKEY' } }, Fastify())).rejects.toThrow(/both/);
  });

  it('offers clients the public URL and lets that origin call the store from a browser', async () => {
    const dir = await dataDir();
    const { app, store } = await serve({ dataDir: dir, publicUrl: 'https://drive.example.com', corsOrigins: ['http://localhost:5173'], s3 });
    expect(store.publicEndpoint).toBe('https://drive.example.com/s3');
    for (const origin of ['https://drive.example.com', 'http://localhost:5173']) {
      const res = await app.inject({ method: 'OPTIONS', url: '/s3/hcs-drive/k', headers: { origin, 'access-control-request-method': 'PUT' } });
      expect(res.statusCode).toBe(200);
      expect(res.headers['access-control-allow-origin']).toBe(origin);
    }
    const other = await app.inject({ method: 'OPTIONS', url: '/s3/hcs-drive/k', headers: { origin: 'https://elsewhere.test', 'access-control-request-method': 'PUT' } });
    expect(other.statusCode).toBe(403);
  });

  it('uses an external S3 when an endpoint is configured, and registers nothing itself', async () => {
    const external = await startHarness();
    cleanup.push(() => external.close());
    const dir = await dataDir();
    await expect(createStorage({ dataDir: dir, s3: { ...s3, endpoint: external.endpoint } }, Fastify())).rejects.toThrow(/HCS_S3_ACCESS_KEY/);
    const { app, store } = await serve({ dataDir: dir, s3: { ...s3, endpoint: external.endpoint, ...external.credentials, bucket: 'external-bucket' } });
    expect((await app.inject({ method: 'GET', url: '/s3/' })).statusCode).toBe(404);
    await store.putObject('ext.txt', Buffer.from('external'), { contentLength: 8 });
    expect((await external.fetch('HEAD', 'ext.txt', { bucket: 'external-bucket' })).status).toBe(200);
  });
});
