// Issue #20 part 1: storage connections, buckets, library storage policies, nodes, clusters and sites through the real
// HTTP API, on SQLite and PostgreSQL (tests/pg/suite.ts). Connections are tested against the server's own embedded
// store reached as an external S3 endpoint (always) and against radosgw when HCS_TEST_S3_* name one
// (`eval "$(bash tests/s3/radosgw.sh env)"`). Secrets never come back and are sealed in the database; every call is
// refused to non-administrators.
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { startServer, type TestServer } from '../helpers/server.ts';
import { apiAs, makeUser, type Env, type TestUser } from '../helpers/org.ts';

let srv: TestServer;
let admin: TestUser;
let plain: TestUser;
let embeddedCreds: { accessKeyId: string; secretAccessKey: string };

const C = '/hcs/controller';
const SITE = 'site-a';
const rgw = process.env.HCS_TEST_S3_ENDPOINT
  ? {
    endpoint: process.env.HCS_TEST_S3_ENDPOINT, accessKey: process.env.HCS_TEST_S3_ACCESS_KEY!, secretKey: process.env.HCS_TEST_S3_SECRET_KEY!,
    bucket: process.env.HCS_TEST_S3_BUCKET!, region: process.env.HCS_TEST_S3_REGION ?? 'us-east-1',
  }
  : undefined;

function okData(r: Env): any {
  expect(r.ret, JSON.stringify(r)).toBe(0);
  return r.data;
}

function failure(r: Env): { status: number; code: string } {
  return { status: r.status, code: r.data?.code };
}

beforeAll(async () => {
  // Heartbeats every 50 ms: a node is down after 150 ms of silence, so a row written with an old heartbeat is down.
  srv = await startServer({ env: { HCS_SITE: SITE, HCS_HEARTBEAT_SECONDS: '0.05' } });
  const { token } = await srv.login();
  admin = { id: '', name: 'admin', token, api: apiAs(srv, token) };
  plain = await makeUser(srv, 'storageplain', null);
  embeddedCreds = JSON.parse(readFileSync(join(srv.dataDir, 's3-credentials.json'), 'utf8'));
});
afterAll(async () => {
  expect(srv.violations).toEqual([]);
  await srv.close();
});

describe('storage connections', () => {
  it('lists the embedded store as connection zero, which cannot be edited or deleted', async () => {
    const page = okData(await admin.api(`${C}/cloudConnect/page`, { pageNo: 1, pageSize: 50 }));
    expect(page.list[0]).toMatchObject({ cloudId: '0', embedded: true, defaultBucket: 'hcs-drive' });
    expect(failure(await admin.api(`${C}/cloudConnect/editCloud/0`, undefined, { name: 'x' }))).toEqual({ status: 409, code: 'CONFLICT' });
    expect(failure(await admin.api(`${C}/cloudConnect/delete`, undefined, { cloudId: '0' }))).toEqual({ status: 409, code: 'CONFLICT' });
    expect(okData(await admin.api(`${C}/cloudConnect/testConnection`, undefined, { cloudId: '0' }))).toEqual({ reachable: true, bucketExists: true, server: 's3' });
  });

  it('adds an S3 endpoint whose secret is sealed in the database and never returned; buckets are listed and created through it', async () => {
    const secret = embeddedCreds.secretAccessKey;
    const raw = await srv.call(`${C}/cloudConnect/addCloud`, {
      method: 'POST', token: admin.token, headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'Loopback S3', endpoint: `${srv.baseUrl}/s3`, bucket: 'hcs-drive', accessKey: embeddedCreds.accessKeyId, secretKey: secret }),
    });
    const text = await raw.text();
    expect(raw.status, text).toBe(200);
    expect(text).not.toContain(secret);
    const conn = JSON.parse(text).data;
    expect(conn).toMatchObject({ name: 'Loopback S3', embedded: false, hasSecret: true, accessKeyHint: embeddedCreds.accessKeyId.slice(-4) });

    const row = await srv.sql.get<{ secret_enc: string; access_key: string }>('SELECT secret_enc, access_key FROM storage_connections WHERE id = ?', conn.cloudId);
    expect(row!.secret_enc).toMatch(/^v1:[0-9a-f]{16}:/);
    expect(row!.secret_enc).not.toContain(secret);
    expect(Buffer.from(row!.secret_enc.split(':')[2]!, 'base64').includes(Buffer.from(secret))).toBe(false);

    const listed = await srv.call(`${C}/cloudConnect/page?pageNo=1&pageSize=50`, { token: admin.token });
    expect(await listed.text()).not.toContain(secret);

    expect(okData(await admin.api(`${C}/cloudConnect/testConnection`, undefined, { cloudId: conn.cloudId }))).toEqual({ reachable: true, bucketExists: true, server: 's3' });
    const bucket = `hcs-new-${randomBytes(3).toString('hex')}`;
    okData(await admin.api(`${C}/bucket/create`, undefined, { cloudId: conn.cloudId, bucketName: bucket }));
    okData(await admin.api(`${C}/bucket/create`, undefined, { cloudId: conn.cloudId, bucketName: bucket }));
    const buckets = okData(await admin.api(`${C}/bucket/list`, { cloudId: conn.cloudId })).list.map((b: any) => b.bucketName);
    expect(buckets).toEqual(expect.arrayContaining(['hcs-drive', bucket]));
    // Connection zero sees the same store.
    expect(okData(await admin.api(`${C}/bucket/list`, { cloudId: '0' })).list.map((b: any) => b.bucketName)).toContain(bucket);

    // A wrong secret: the test says why, and bucket calls answer STORAGE_ERROR.
    okData(await admin.api(`${C}/cloudConnect/editCloud/${conn.cloudId}`, undefined, { secretKey: 'not-the-secret' }));
    const test = okData(await admin.api(`${C}/cloudConnect/testConnection`, undefined, { cloudId: conn.cloudId }));
    expect(test).toMatchObject({ reachable: false, bucketExists: false, detail: 'SignatureDoesNotMatch' });
    expect(failure(await admin.api(`${C}/bucket/list`, { cloudId: conn.cloudId }))).toEqual({ status: 502, code: 'STORAGE_ERROR' });

    // An edit without secretKey keeps the stored one.
    okData(await admin.api(`${C}/cloudConnect/editCloud/${conn.cloudId}`, undefined, { secretKey: secret }));
    okData(await admin.api(`${C}/cloudConnect/editCloud/${conn.cloudId}`, undefined, { name: 'Loopback' }));
    expect(okData(await admin.api(`${C}/cloudConnect/testConnection`, undefined, { cloudId: conn.cloudId })).reachable).toBe(true);

    expect(failure(await admin.api(`${C}/cloudConnect/addCloud`, undefined, {
      name: 'loopback', endpoint: `${srv.baseUrl}/s3`, bucket: 'hcs-drive', accessKey: 'a', secretKey: 'b',
    }))).toEqual({ status: 409, code: 'NAME_EXISTS' });
    expect(failure(await admin.api(`${C}/cloudConnect/testConnection`, undefined, { cloudId: 'nope' }))).toEqual({ status: 404, code: 'NOT_FOUND' });
  });

  it('an unreachable endpoint is reported by the test, not thrown', async () => {
    const conn = okData(await admin.api(`${C}/cloudConnect/addCloud`, undefined, {
      name: 'Nowhere', endpoint: 'http://127.0.0.1:9', bucket: 'b-nowhere', accessKey: 'AKIA', secretKey: 'secret-nowhere',
    }));
    const test = okData(await admin.api(`${C}/cloudConnect/testConnection`, undefined, { cloudId: conn.cloudId }));
    expect(test.reachable).toBe(false);
    expect(test.detail).toBeTruthy();
    okData(await admin.api(`${C}/cloudConnect/delete`, undefined, { cloudId: conn.cloudId }));
    expect(failure(await admin.api(`${C}/cloudConnect/delete`, undefined, { cloudId: conn.cloudId }))).toEqual({ status: 404, code: 'NOT_FOUND' });
  });

  it.skipIf(!rgw)('works against radosgw: test, list and create buckets', async () => {
    const conn = okData(await admin.api(`${C}/cloudConnect/addCloud`, undefined, {
      name: 'radosgw', endpoint: rgw!.endpoint, region: rgw!.region, bucket: rgw!.bucket, accessKey: rgw!.accessKey, secretKey: rgw!.secretKey,
    }));
    const bucket = `hcs-conn-${randomBytes(3).toString('hex')}`;
    okData(await admin.api(`${C}/bucket/create`, undefined, { cloudId: conn.cloudId, bucketName: bucket }));
    expect(okData(await admin.api(`${C}/bucket/list`, { cloudId: conn.cloudId })).list.map((b: any) => b.bucketName)).toContain(bucket);
    const test = okData(await admin.api(`${C}/cloudConnect/testConnection`, undefined, { cloudId: conn.cloudId }));
    expect(test.reachable).toBe(true);
  });

  it('a connection in use by a site or by stored blobs is not deleted', async () => {
    const conn = okData(await admin.api(`${C}/cloudConnect/addCloud`, undefined, {
      name: 'Used', endpoint: `${srv.baseUrl}/s3`, bucket: 'hcs-drive', accessKey: embeddedCreds.accessKeyId, secretKey: embeddedCreds.secretAccessKey, sse: ['AES256'],
    }));
    const site = okData(await admin.api(`${C}/region/site/addOrUpdate`, undefined, { name: 'Used site', cloudId: conn.cloudId }));
    expect(failure(await admin.api(`${C}/cloudConnect/delete`, undefined, { cloudId: conn.cloudId }))).toEqual({ status: 409, code: 'CONFLICT' });
    okData(await admin.api(`${C}/region/site/delete`, undefined, { siteId: site.siteId }));
    // A blob recorded on the connection holds it too.
    await srv.sql.run('INSERT INTO blobs (id, sha256, size, bucket, object_key, created_at, connection_id) VALUES (?, ?, ?, ?, ?, ?, ?)',
      'blob-on-used', 'f'.repeat(64), 1, 'hcs-drive', 'k/used', Date.now(), conn.cloudId);
    expect(failure(await admin.api(`${C}/cloudConnect/delete`, undefined, { cloudId: conn.cloudId }))).toEqual({ status: 409, code: 'CONFLICT' });
    await srv.sql.run('DELETE FROM blobs WHERE id = ?', 'blob-on-used');
    okData(await admin.api(`${C}/cloudConnect/delete`, undefined, { cloudId: conn.cloudId }));
  });
});

describe('library storage policies', () => {
  it('every library has one; the admin screen is told what is in force; impossible choices are refused', async () => {
    const before = okData(await admin.api(`${C}/storagePolicy/list`)).list;
    expect(before.find((p: any) => p.libCode === 'NetDisk')).toEqual({
      libCode: 'NetDisk', cloudId: '0', cloudName: 'embedded', bucketName: 'hcs-drive', encryption: 'none', kmsKeyId: '', inForce: 'none',
    });
    const set = okData(await admin.api(`${C}/storagePolicy/set`, undefined, { libCode: 'NetDisk', cloudId: '0', encryption: 'aes256-gcm' }));
    expect(set).toEqual({
      libCode: 'NetDisk', cloudId: '0', cloudName: 'embedded', bucketName: 'hcs-drive', encryption: 'aes256-gcm', kmsKeyId: '', inForce: 'aes256-gcm',
    });
    // The bucket is shared by every library: what is in force is the bucket's state, for each of them.
    const listed = okData(await admin.api(`${C}/storagePolicy/list`)).list;
    expect(listed.find((p: any) => p.libCode === 'NetDisk').encryption).toBe('aes256-gcm');
    expect(listed.find((p: any) => p.libCode !== 'NetDisk')).toMatchObject({ encryption: 'none', inForce: 'aes256-gcm' });

    const conn = okData(await admin.api(`${C}/cloudConnect/addCloud`, undefined, {
      name: 'No SSE', endpoint: `${srv.baseUrl}/s3`, bucket: 'hcs-drive', accessKey: embeddedCreds.accessKeyId, secretKey: embeddedCreds.secretAccessKey,
    }));
    // A connection that offers no SSE mode is not asked for one; a bucket the connection lacks is refused, not pretended
    // (routing itself: storage-routing.int-spec.ts).
    expect(failure(await admin.api(`${C}/storagePolicy/set`, undefined, { libCode: 'NetDisk', cloudId: conn.cloudId, encryption: 'sse-s3' })))
      .toEqual({ status: 422, code: 'VALIDATION_FAILED' });
    expect(failure(await admin.api(`${C}/storagePolicy/set`, undefined, { libCode: 'NetDisk', cloudId: '0', bucketName: 'other-bucket' })))
      .toEqual({ status: 422, code: 'VALIDATION_FAILED' });
    // Connection zero (the embedded store) has no SSE modes: it encrypts itself.
    expect(failure(await admin.api(`${C}/storagePolicy/set`, undefined, { libCode: 'NetDisk', cloudId: '0', encryption: 'sse-kms' })))
      .toEqual({ status: 422, code: 'VALIDATION_FAILED' });
    expect(failure(await admin.api(`${C}/storagePolicy/set`, undefined, { libCode: 'NoSuchLib', cloudId: '0' }))).toEqual({ status: 404, code: 'NOT_FOUND' });
    expect(failure(await admin.api(`${C}/storagePolicy/set`, undefined, { libCode: 'NetDisk', cloudId: 'nope' }))).toEqual({ status: 404, code: 'NOT_FOUND' });
    const off = okData(await admin.api(`${C}/storagePolicy/set`, undefined, { libCode: 'NetDisk', cloudId: '0' }));
    expect(off).toMatchObject({ encryption: 'none', inForce: 'none' });
  });
});

describe('nodes, clusters and sites', () => {
  it('this server registered itself with its site and version; a silent node is down; clusters and sites group them', async () => {
    const nodes = okData(await admin.api(`${C}/node/list`)).list;
    const me = nodes.find((n: any) => n.status === 'up' && n.site === SITE);
    expect(me, JSON.stringify(nodes)).toBeDefined();
    expect(me.version).toMatch(/^\d+\.\d+\.\d+/);
    expect(me.address).toMatch(/:\d+$/);
    expect(me.clusterId).toBeNull();

    // A node that stopped beating an hour ago.
    const past = Date.now() - 3_600_000;
    await srv.sql.run('INSERT INTO nodes (id, name, address, site, version, started_at, heartbeat_at) VALUES (?, ?, ?, ?, ?, ?, ?)',
      'gone-node', 'gone-node', 'gone:8080', SITE, '0.0.1', past, past);
    const listed = okData(await admin.api(`${C}/node/list`)).list;
    expect(listed.find((n: any) => n.nodeId === 'gone-node').status).toBe('down');
    expect(listed.find((n: any) => n.nodeId === me.nodeId).status).toBe('up');

    const cluster = okData(await admin.api(`${C}/region/cluster/addOrUpdate`, undefined, { name: 'Cluster A' }));
    expect(failure(await admin.api(`${C}/region/cluster/addOrUpdate`, undefined, { name: 'cluster a' }))).toEqual({ status: 409, code: 'NAME_EXISTS' });
    okData(await admin.api(`${C}/node/addOrUpdate`, undefined, { nodeId: me.nodeId, clusterId: cluster.clusterId, name: 'node one' }));
    const unmatched = okData(await admin.api(`${C}/node/listUnMatch`)).list.map((n: any) => n.nodeId);
    expect(unmatched).toContain('gone-node');
    expect(unmatched).not.toContain(me.nodeId);
    expect(failure(await admin.api(`${C}/node/addOrUpdate`, undefined, { nodeId: me.nodeId, clusterId: 'nope' }))).toEqual({ status: 404, code: 'NOT_FOUND' });

    const site = okData(await admin.api(`${C}/region/site/addOrUpdate`, undefined, { name: SITE, region: 'north', cloudId: '0' }));
    expect(site).toMatchObject({ name: SITE, region: 'north', cloudId: '0', cloudName: 'embedded', clusters: [] });
    expect(failure(await admin.api(`${C}/region/site/addOrUpdate`, undefined, { name: 'Elsewhere', cloudId: 'nope' }))).toEqual({ status: 404, code: 'NOT_FOUND' });
    okData(await admin.api(`${C}/region/site/joinCluster`, undefined, { siteId: site.siteId, clusterId: cluster.clusterId }));
    const config = okData(await admin.api(`${C}/region/site/config`, { siteId: site.siteId }));
    expect(config.clusters).toHaveLength(1);
    expect(config.clusters[0]).toMatchObject({ clusterId: cluster.clusterId, siteId: site.siteId });
    expect(config.clusters[0].nodes.map((n: any) => [n.nodeId, n.name, n.status])).toEqual([[me.nodeId, 'node one', 'up']]);
    expect(okData(await admin.api(`${C}/region/cluster/list`)).list.find((c: any) => c.clusterId === cluster.clusterId).siteId).toBe(site.siteId);
    expect(okData(await admin.api(`${C}/region/site/list`)).list.map((s: any) => s.name)).toContain(SITE);

    okData(await admin.api(`${C}/region/site/removeRegionFromSite`, undefined, { siteId: site.siteId, clusterId: cluster.clusterId }));
    expect(failure(await admin.api(`${C}/region/site/removeRegionFromSite`, undefined, { siteId: site.siteId, clusterId: cluster.clusterId })))
      .toEqual({ status: 404, code: 'NOT_FOUND' });
    expect(okData(await admin.api(`${C}/region/cluster/config`, { clusterId: cluster.clusterId })).siteId).toBeNull();

    // A live node is not forgotten (it would come back); a down one is.
    expect(failure(await admin.api(`${C}/node/delete`, undefined, { nodeId: me.nodeId }))).toEqual({ status: 409, code: 'CONFLICT' });
    okData(await admin.api(`${C}/node/delete`, undefined, { nodeId: 'gone-node' }));
    expect(okData(await admin.api(`${C}/node/list`)).list.map((n: any) => n.nodeId)).not.toContain('gone-node');

    okData(await admin.api(`${C}/region/cluster/delete`, undefined, { clusterId: cluster.clusterId }));
    expect(okData(await admin.api(`${C}/node/listUnMatch`)).list.map((n: any) => n.nodeId)).toContain(me.nodeId);
    okData(await admin.api(`${C}/region/site/delete`, undefined, { siteId: site.siteId }));
    expect(failure(await admin.api(`${C}/region/site/config`, { siteId: site.siteId }))).toEqual({ status: 404, code: 'NOT_FOUND' });
  });
});

describe('administrators only', () => {
  it('refuses every storage, node, cluster and site call to a plain account', async () => {
    const calls: Array<[string, Record<string, string>?, unknown?]> = [
      [`${C}/cloudConnect/page`],
      [`${C}/cloudConnect/addCloud`, undefined, { name: 'x', endpoint: 'http://127.0.0.1:9', bucket: 'bbb', accessKey: 'a', secretKey: 'b' }],
      [`${C}/cloudConnect/editCloud/0`, undefined, { name: 'x' }],
      [`${C}/cloudConnect/delete`, undefined, { cloudId: '0' }],
      [`${C}/cloudConnect/testConnection`, undefined, { cloudId: '0' }],
      [`${C}/bucket/list`, { cloudId: '0' }],
      [`${C}/bucket/create`, undefined, { cloudId: '0', bucketName: 'bbb' }],
      [`${C}/storagePolicy/list`],
      [`${C}/storagePolicy/set`, undefined, { libCode: 'NetDisk', cloudId: '0' }],
      [`${C}/node/list`],
      [`${C}/node/listUnMatch`],
      [`${C}/node/addOrUpdate`, undefined, { nodeId: 'n' }],
      [`${C}/node/delete`, undefined, { nodeId: 'n' }],
      [`${C}/region/cluster/list`],
      [`${C}/region/cluster/addOrUpdate`, undefined, { name: 'c' }],
      [`${C}/region/cluster/delete`, undefined, { clusterId: 'c' }],
      [`${C}/region/cluster/config`, { clusterId: 'c' }],
      [`${C}/region/site/list`],
      [`${C}/region/site/addOrUpdate`, undefined, { name: 's', cloudId: '0' }],
      [`${C}/region/site/delete`, undefined, { siteId: 's' }],
      [`${C}/region/site/config`, { siteId: 's' }],
      [`${C}/region/site/joinCluster`, undefined, { siteId: 's', clusterId: 'c' }],
      [`${C}/region/site/removeRegionFromSite`, undefined, { siteId: 's', clusterId: 'c' }],
    ];
    for (const [path, query, body] of calls) {
      expect(failure(await plain.api(path, query, body)), path).toEqual({ status: 403, code: 'FORBIDDEN' });
    }
    expect(okData(await admin.api(`${C}/region/cluster/list`)).list.map((c: any) => c.name)).not.toContain('c');
  });
});
