// Issue #20 part 1 on several nodes: server processes on one PostgreSQL database and one S3 (radosgw in CI) each
// register as a node with their own site (HCS_SITE), and any node lists every one of them up. Storage connection
// secrets are sealed under the master key, so every node must share it (HCS_MASTER_KEY): then a connection added
// through one node works through the other; a node with another key answers CONFLICT with what to fix, never a 500.
// Needs PostgreSQL (HCS_TEST_DATABASE_URL) and an external S3 (HCS_TEST_S3_*); skipped, saying why, without them.
import { randomBytes } from 'node:crypto';
import { copyFileSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DeleteBucketCommand } from '@aws-sdk/client-s3';
import { ObjectStore } from '../../mock-server/src/storage/object-store.ts';
import { removeDataDir, startServerProcess, type ServerProcess } from '../helpers/server-process.ts';
import { ON_POSTGRES } from '../helpers/db.ts';
import { createTestPgDatabase, type TestPgDatabase } from '../helpers/pg.ts';

const skip = !ON_POSTGRES
  ? 'HCS_TEST_DATABASE_URL is not set: nodes share a PostgreSQL database'
  : !process.env.HCS_TEST_S3_ENDPOINT
    ? 'HCS_TEST_S3_ENDPOINT is not set: several nodes need an external S3 (bash tests/s3/radosgw.sh start && eval "$(bash tests/s3/radosgw.sh env)")'
    : undefined;
if (skip) console.log(`[storage-nodes] skipped: ${skip}`);

describe.skipIf(skip !== undefined)('nodes and storage connections on several server processes', () => {
  const work = mkdtempSync(join(tmpdir(), 'hcs-sn-'));
  const masterKey = randomBytes(32).toString('hex');
  let pg: TestPgDatabase;
  let a: ServerProcess;
  let b: ServerProcess;
  let c: ServerProcess;
  const s3 = {
    endpoint: process.env.HCS_TEST_S3_ENDPOINT ?? '',
    accessKeyId: process.env.HCS_TEST_S3_ACCESS_KEY ?? '',
    secretAccessKey: process.env.HCS_TEST_S3_SECRET_KEY ?? '',
    region: process.env.HCS_TEST_S3_REGION ?? 'us-east-1',
    bucket: `hcs-sn-${randomBytes(4).toString('hex')}`,
  };
  const s3Env = { HCS_S3_ENDPOINT: s3.endpoint, HCS_S3_ACCESS_KEY: s3.accessKeyId, HCS_S3_SECRET_KEY: s3.secretAccessKey, HCS_S3_REGION: s3.region, HCS_S3_BUCKET: s3.bucket };

  function nodeDir(name: string, keysFrom?: string): string {
    const made = mkdtempSync(join(work, `${name}-`));
    writeFileSync(join(made, 'test-database-url'), pg.url, { mode: 0o600 });
    if (keysFrom) for (const f of ['server-secret', 'rsa-private.pem']) copyFileSync(join(keysFrom, f), join(made, f));
    return made;
  }

  async function call(node: ServerProcess, token: string, path: string, body?: unknown): Promise<{ status: number; json: any }> {
    const headers = new Headers({ 'X-Requested-With': 'XMLHttpRequest', token });
    if (body !== undefined) headers.set('content-type', 'application/json');
    const res = await node.fetch(node.baseUrl + path, { method: body === undefined ? 'GET' : 'POST', headers, body: body === undefined ? undefined : JSON.stringify(body) });
    return { status: res.status, json: await res.json() };
  }

  beforeAll(async () => {
    pg = await createTestPgDatabase();
    const dirA = nodeDir('a');
    a = await startServerProcess({ dataDir: dirA, env: { ...s3Env, HCS_SITE: 'north', HCS_MASTER_KEY: masterKey } });
    b = await startServerProcess({ dataDir: nodeDir('b', dirA), env: { ...s3Env, HCS_SITE: 'south', HCS_MASTER_KEY: masterKey } });
    // A node someone started with its own generated key file.
    c = await startServerProcess({ dataDir: nodeDir('c', dirA), env: { ...s3Env, HCS_SITE: 'south' } });
  }, 120_000);

  afterAll(async () => {
    await Promise.all([a?.stop(), b?.stop(), c?.stop()]);
    const store = new ObjectStore(s3);
    try {
      const keys: string[] = [];
      for await (const page of store.list('')) keys.push(...page.objects.map((o) => o.key));
      if (keys.length) await store.deleteObjects(keys);
      await store.client.send(new DeleteBucketCommand({ Bucket: store.bucket })).catch(() => undefined);
    } finally {
      store.destroy();
    }
    for (const n of [a, b, c]) if (n) removeDataDir(n.dataDir);
    await pg?.drop();
  });

  it('every node registered with its site, and each lists all of them up', async () => {
    const { token } = await a.login();
    for (const node of [a, b]) {
      const r = await call(node, token, '/hcs/controller/node/list');
      expect(r.status, JSON.stringify(r.json)).toBe(200);
      const list = r.json.data.list as Array<{ site: string; status: string; address: string }>;
      expect(list.filter((n) => n.status === 'up').map((n) => n.site).sort()).toEqual(['north', 'south', 'south']);
      expect(new Set(list.map((n) => n.address)).size).toBe(3);
    }
  });

  it('a connection added on one node works on another with the same master key; a node with another key says so', async () => {
    const { token } = await a.login();
    const added = await call(a, token, '/hcs/controller/cloudConnect/addCloud', {
      name: 'rgw', endpoint: s3.endpoint, region: s3.region, bucket: s3.bucket, accessKey: s3.accessKeyId, secretKey: s3.secretAccessKey,
    });
    expect(added.status, JSON.stringify(added.json)).toBe(200);
    const cloudId = added.json.data.cloudId as string;
    const onB = await call(b, token, '/hcs/controller/cloudConnect/testConnection', { cloudId });
    expect(onB.json.data).toEqual({ reachable: true, bucketExists: true, server: 's3' });
    const onC = await call(c, token, '/hcs/controller/cloudConnect/testConnection', { cloudId });
    expect([onC.status, onC.json.data.code]).toEqual([409, 'CONFLICT']);
    expect(onC.json.msg).toMatch(/HCS_MASTER_KEY/);
    // A site names its default storage; any node sees it.
    const site = await call(b, token, '/hcs/controller/region/site/addOrUpdate', { name: 'south', region: 'eu', cloudId });
    expect(site.status).toBe(200);
    const sites = await call(a, token, '/hcs/controller/region/site/list');
    expect(sites.json.data.list.map((s: any) => [s.name, s.cloudName])).toEqual([['south', 'rgw']]);
  });
});
