// Cross-site replication (issue #20 part 3, tests 7): site A on the embedded store, site B on radosgw (when
// HCS_TEST_S3_* name one: `eval "$(bash tests/s3/radosgw.sh env)"`; otherwise on a second server's embedded store,
// a different endpoint all the same). On PostgreSQL each site has its own server node on one database, node B
// reaching site A's store as its own (HCS_S3_ENDPOINT); on SQLite one node serves both sites (HCS_SITE=siteB).
// Site B's storage is reached through a proxy in this test that can hold requests (hold-gate) and answer 500 to
// every tenth request.
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createHash, randomBytes } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CreateBucketCommand, GetObjectCommand, ListMultipartUploadsCommand, ListObjectsV2Command, S3Client } from '@aws-sdk/client-s3';
import { startServer, type TestServer } from '../helpers/server.ts';
import { apiAs, makeUser, signInAdmin, type TestUser } from '../helpers/org.ts';
import { uploadFile } from '../helpers/upload.ts';
import { ON_POSTGRES, dropDatabaseOf } from '../helpers/db.ts';
import { radosgw, until } from '../helpers/eventually.ts';
import { storageProxy } from '../helpers/storage-proxy.ts';

const MiB = 1024 * 1024;
const sha = (b: Uint8Array) => createHash('sha256').update(b).digest('hex');
const rgw = radosgw;
if (!rgw) console.log('[replication] HCS_TEST_S3_ENDPOINT is not set: site B is a second embedded store, not radosgw');


describe('cross-site replication', () => {
  const work = mkdtempSync(join(tmpdir(), 'hcs-repl-'));
  const dirA = join(work, 'a');
  const dirB = join(work, 'b');
  let a: TestServer;
  let b: TestServer;
  let c: TestServer | undefined;
  let proxy: ReturnType<typeof storageProxy>;
  let bStore: { client: S3Client; bucket: string };
  let admin: TestUser;
  let adminB: TestUser['api'];
  let siteA: string;
  let siteB: string;

  async function startA(): Promise<TestServer> {
    return startServer({ dataDir: dirA, env: { HCS_REPLICATION_SWEEP_SECONDS: '1', ...(ON_POSTGRES ? {} : { HCS_SITE: 'siteB' }) } });
  }

  async function startB(): Promise<TestServer> {
    if (!ON_POSTGRES) return a;
    // Node B shares A's database, keys (the master key opens the connections' secrets) and, as connection zero, A's
    // store; its own site's store is a connection.
    for (const f of ['server-secret', 'rsa-private.pem', 'master.key', 'test-database-url']) copyFileSync(join(dirA, f), join(dirB, f));
    const cred = JSON.parse(readFileSync(join(dirA, 's3-credentials.json'), 'utf8')) as { accessKeyId: string; secretAccessKey: string };
    return startServer({
      dataDir: dirB,
      env: {
        HCS_REPLICATION_SWEEP_SECONDS: '1', HCS_SITE: 'siteB',
        HCS_S3_ENDPOINT: `${a.baseUrl}/s3`, HCS_S3_ACCESS_KEY: cred.accessKeyId, HCS_S3_SECRET_KEY: cred.secretAccessKey,
        HCS_S3_BUCKET: a.built.ctx.store().bucket, HCS_S3_REGION: a.built.ctx.store().region,
      },
    });
  }

  async function objectKeyOf(instanceId: string): Promise<{ key: string; blobId: string }> {
    const r = await a.sql.get<{ object_key: string; id: string }>('SELECT b.object_key, b.id FROM instances i JOIN blobs b ON b.id = i.blob_id WHERE i.id = ?', instanceId);
    return { key: r!.object_key, blobId: r!.id };
  }

  async function bytesAtB(key: string): Promise<Buffer> {
    const got = await bStore.client.send(new GetObjectCommand({ Bucket: bStore.bucket, Key: key }));
    return Buffer.from(await got.Body!.transformToByteArray());
  }

  async function replicaState(blobId: string): Promise<string | undefined> {
    return (await a.sql.get<{ state: string }>('SELECT state FROM blob_replicas WHERE blob_id = ? AND site_id = ?', blobId, siteB))?.state;
  }

  beforeAll(async () => {
    for (const d of [dirA, dirB]) mkdirSync(d, { mode: 0o700 });
    a = await startA();
    b = await startB();
    let upstream: { endpoint: string; region: string; accessKeyId: string; secretAccessKey: string; bucket: string };
    if (rgw) {
      upstream = { ...rgw, bucket: `hcs-repl-${randomBytes(4).toString('hex')}` };
    } else {
      c = await startServer();
      const cred = JSON.parse(readFileSync(join(c.dataDir, 's3-credentials.json'), 'utf8')) as { accessKeyId: string; secretAccessKey: string };
      upstream = { endpoint: `${c.baseUrl}/s3`, region: c.built.ctx.store().region, ...cred, bucket: c.built.ctx.store().bucket };
    }
    bStore = {
      client: new S3Client({ endpoint: upstream.endpoint, region: upstream.region, forcePathStyle: true, credentials: { accessKeyId: upstream.accessKeyId, secretAccessKey: upstream.secretAccessKey } }),
      bucket: upstream.bucket,
    };
    if (rgw) await bStore.client.send(new CreateBucketCommand({ Bucket: upstream.bucket }));
    proxy = storageProxy(upstream.endpoint);
    const proxied = await proxy.listen();
    admin = await signInAdmin(a);
    const cloud = await admin.api('/hcs/controller/cloudConnect/addCloud', undefined, {
      name: 'site-b-store', endpoint: proxied, region: upstream.region, bucket: upstream.bucket, accessKey: upstream.accessKeyId, secretKey: upstream.secretAccessKey,
    });
    expect(cloud.ret, JSON.stringify(cloud)).toBe(0);
    const sa = await admin.api('/hcs/controller/region/site/addOrUpdate', undefined, { name: 'siteA', cloudId: '0' });
    const sb = await admin.api('/hcs/controller/region/site/addOrUpdate', undefined, { name: 'siteB', cloudId: cloud.data.cloudId });
    expect([sa.ret, sb.ret]).toEqual([0, 0]);
    siteA = sa.data.siteId;
    siteB = sb.data.siteId;
    adminB = apiAs(b, (await b.login()).token);
  }, 120_000);

  afterAll(async () => {
    await proxy?.close();
    if (b && b !== a) await b.close({ keepData: true });
    await a?.close({ keepData: true });
    await c?.close();
    await dropDatabaseOf(dirA);
    rmSync(work, { recursive: true, force: true });
  });

  it('only administrators manage sync configs; a file\'s status needs access to it', async () => {
    const bob = await makeUser(a, 'bob', null);
    const denied = await bob.api('/hcs/controller/instance/sync/config/list');
    expect([denied.status, denied.data?.code]).toEqual([403, 'FORBIDDEN']);
    const add = await bob.api('/hcs/controller/instance/sync/config/addOrUpdate', undefined, { libCode: 'NetDisk', sourceSiteId: siteA, targetSiteIds: [siteB] });
    expect([add.status, add.data?.code]).toEqual([403, 'FORBIDDEN']);
    const adminsFile = await uploadFile(admin.api, 'private.txt', randomBytes(100));
    const peek = await bob.api('/hcs/controller/instance/sync/instanceStatus', { instanceId: adminsFile });
    expect(peek.status).toBeGreaterThanOrEqual(403);
    expect(['FORBIDDEN', 'NOT_FOUND']).toContain(peek.data?.code);
    const self = await admin.api('/hcs/controller/instance/sync/config/addOrUpdate', undefined, { libCode: 'NetDisk', sourceSiteId: siteA, targetSiteIds: [siteA] });
    expect([self.status, self.data?.code]).toEqual([400, 'BAD_REQUEST']);
    const noSite = await admin.api('/hcs/controller/instance/sync/config/addOrUpdate', undefined, { libCode: 'NetDisk', sourceSiteId: siteA, targetSiteIds: ['nope'] });
    expect([noSite.status, noSite.data?.code]).toEqual([404, 'NOT_FOUND']);
  });

  it('a file uploaded at site A is copied to site B byte for byte, and node B downloads it from B\'s storage', async () => {
    const big = randomBytes(9 * MiB + 123);
    const small = randomBytes(2000);
    const bigId = await uploadFile(admin.api, 'big.bin', big);
    const smallId = await uploadFile(admin.api, 'small.bin', small);
    const cfg = await admin.api('/hcs/controller/instance/sync/config/addOrUpdate', undefined, { libCode: 'NetDisk', sourceSiteId: siteA, targetSiteIds: [siteB] });
    expect(cfg.ret, JSON.stringify(cfg)).toBe(0);
    const listed = await admin.api('/hcs/controller/instance/sync/config/list');
    expect(listed.data.list.map((x: any) => [x.libCode, x.sourceSiteId, x.targetSiteIds])).toEqual([['NetDisk', siteA, [siteB]]]);
    const detail = await admin.api('/hcs/controller/instance/sync/config/detail', { id: cfg.data.id });
    expect(detail.data.folderId).toBeNull();

    for (const [id, bytes] of [[bigId, big], [smallId, small]] as const) {
      const { key, blobId } = await objectKeyOf(id);
      await until(`${id} synced at B`, async () => (await replicaState(blobId)) === 'synced');
      expect(sha(await bytesAtB(key))).toBe(sha(bytes));
    }
    const st = await admin.api('/hcs/controller/instance/sync/instanceStatus', { instanceId: bigId });
    expect(st.data.sites).toEqual([expect.objectContaining({ siteId: siteB, siteName: 'siteB', syncStatus: 'synced', lagBytes: 0, pending: 0, failed: 0 })]);
    const root = (await admin.api('/hcs/controller/Page', {})).data.parentId as string;
    const folder = await admin.api('/hcs/controller/instance/sync/instanceStatus', { instanceId: root });
    expect(folder.data.isFolder).toBe(true);
    expect(folder.data.sites[0]).toMatchObject({ siteId: siteB, syncStatus: 'synced' });
    expect(folder.data.sites[0].synced).toBeGreaterThanOrEqual(2);
    const status = await admin.api('/hcs/controller/instance/sync/status');
    expect(status.data.sites.find((s: any) => s.siteId === siteB)).toMatchObject({ siteName: 'siteB', failed: 0 });

    // Node B (HCS_SITE=siteB) hands out a link to B's storage, and it reads the copy.
    const link = await adminB('/hcs/controller/API/getS3DownloadUrl', { instanceId: bigId });
    expect(link.ret, JSON.stringify(link)).toBe(0);
    const proxied = new URL((await admin.api('/hcs/controller/cloudConnect/page', { pageNo: 1, pageSize: 10 })).data.list.find((x: any) => x.name === 'site-b-store').endpoint);
    expect(new URL(link.data.url).origin).toBe(proxied.origin);
    const got = await fetch(link.data.url);
    expect(got.status).toBe(200);
    expect(sha(new Uint8Array(await got.arrayBuffer()))).toBe(sha(big));
  }, 120_000);

  it('a node stopped in the middle of a copy resumes it after a restart, with no duplicate', async () => {
    if (b !== a) {
      await b.close({ keepData: true });
      b = a; // only node A runs jobs now: it is the one stopped mid-copy
    }
    // Hold the copy's first upload part at B's storage.
    proxy.gate.arm((r) => r.method === 'PUT' && r.url.includes('partNumber='));
    const bytes = randomBytes(9 * MiB);
    const id = await uploadFile(admin.api, 'interrupted.bin', bytes);
    const { key, blobId } = await objectKeyOf(id);
    await proxy.gate.held();
    expect(await replicaState(blobId)).toBe('pending');
    await a.close({ keepData: true });
    proxy.gate.release();
    a = await startA();
    b = await startB();
    admin = await signInAdmin(a);
    await until('the interrupted copy synced', async () => (await replicaState(blobId)) === 'synced');
    expect(sha(await bytesAtB(key))).toBe(sha(bytes));
    const rows = await a.sql.all('SELECT state FROM blob_replicas WHERE blob_id = ?', blobId);
    expect(rows).toHaveLength(1);
    const listed = await bStore.client.send(new ListObjectsV2Command({ Bucket: bStore.bucket, Prefix: key }));
    expect((listed.Contents ?? []).map((o) => o.Key)).toEqual([key]);
    const uploads = await bStore.client.send(new ListMultipartUploadsCommand({ Bucket: bStore.bucket, Prefix: key }));
    expect(uploads.Uploads ?? []).toEqual([]);
  }, 120_000);

  it('with every tenth storage request answering 500, replication still converges', async () => {
    proxy.state.faultEvery = 10;
    const files = [randomBytes(9 * MiB), randomBytes(3000), randomBytes(700_000), randomBytes(50)];
    const ids: string[] = [];
    for (const [i, f] of files.entries()) ids.push(await uploadFile(admin.api, `faulty-${i}.bin`, f));
    for (const [i, id] of ids.entries()) {
      const { key, blobId } = await objectKeyOf(id);
      await until(`faulty-${i} synced`, async () => (await replicaState(blobId)) === 'synced', 90_000);
      expect(sha(await bytesAtB(key))).toBe(sha(files[i]!));
    }
    expect(proxy.state.faults).toBeGreaterThan(0);
    proxy.state.faultEvery = 0;
    const status = await admin.api('/hcs/controller/instance/sync/status');
    expect(status.data.sites.find((s: any) => s.siteId === siteB)).toMatchObject({ pending: 0, failed: 0, lagBytes: 0 });
  }, 180_000);

  it('a purged file\'s copy at site B stays for the delete delay, then goes', async () => {
    const bytes = randomBytes(4000);
    const id = await uploadFile(admin.api, 'purged.bin', bytes);
    const { key, blobId } = await objectKeyOf(id);
    await until('purged.bin synced', async () => (await replicaState(blobId)) === 'synced');
    // Deleted, purged from the bin, then from the administrators' bin: the content itself is gone.
    for (const path of ['/hcs/controller/delete', '/hcs/controller/remove/delete', '/hcs/controller/deleteSecRecycle']) {
      const r = await admin.api(path, { ids: id });
      expect(r.data?.done, `${path} ${JSON.stringify(r)}`).toHaveLength(1);
    }
    expect(await a.sql.get('SELECT id FROM blobs WHERE id = ?', blobId)).toBeUndefined();
    const gone = await a.sql.get<{ gone_at: number | null }>('SELECT gone_at FROM blob_replicas WHERE blob_id = ?', blobId);
    expect(gone?.gone_at).toEqual(expect.any(Number));
    // Within the delay (a day by default) the copy is kept, however many sweeps run.
    await a.sql.run('DELETE FROM jobs WHERE kind = ? AND finished_at IS NOT NULL', 'replication.sweep');
    await until('two more sweeps', async () => Number((await a.sql.get<{ n: number }>('SELECT count(*) AS n FROM jobs WHERE kind = ? AND state = ?', 'replication.sweep', 'done'))?.n) >= 2);
    expect(sha(await bytesAtB(key))).toBe(sha(bytes));
    // The delay has passed (the purge is moved back rather than waited for): the next sweep deletes the copy.
    await a.sql.run('UPDATE blob_replicas SET gone_at = ? WHERE blob_id = ?', Date.now() - 2 * 86400_000, blobId);
    await until('the copy deleted', async () => (await a.sql.get('SELECT blob_id FROM blob_replicas WHERE blob_id = ?', blobId)) === undefined);
    const listed = await bStore.client.send(new ListObjectsV2Command({ Bucket: bStore.bucket, Prefix: key }));
    expect(listed.Contents ?? []).toEqual([]);
  }, 120_000);
});

describe('a file filed under a sync config', () => {
  let srv: TestServer;
  afterAll(async () => srv?.close());

  it('is queued for its target sites at once, not at the next sweep', async () => {
    // Sweeps an hour apart: only the upload itself can start this copy within the test.
    srv = await startServer({ env: { HCS_REPLICATION_SWEEP_SECONDS: '3600' } });
    const admin = await signInAdmin(srv);
    const cred = JSON.parse(readFileSync(join(srv.dataDir, 's3-credentials.json'), 'utf8')) as { accessKeyId: string; secretAccessKey: string };
    const far = srv.built.ctx.store().forBucket('hcs-far');
    await far.ensureBucket();
    far.destroy();
    const conn = await admin.api('/hcs/controller/cloudConnect/addCloud', undefined, {
      name: 'far', endpoint: `${srv.baseUrl}/s3`, bucket: 'hcs-far', accessKey: cred.accessKeyId, secretKey: cred.secretAccessKey,
    });
    const hq = await admin.api('/hcs/controller/region/site/addOrUpdate', undefined, { name: 'hq', cloudId: '0' });
    const farSite = await admin.api('/hcs/controller/region/site/addOrUpdate', undefined, { name: 'far', cloudId: conn.data.cloudId });
    const cfg = await admin.api('/hcs/controller/instance/sync/config/addOrUpdate', undefined, { libCode: 'NetDisk', sourceSiteId: hq.data.siteId, targetSiteIds: [farSite.data.siteId] });
    expect(cfg.ret, JSON.stringify(cfg)).toBe(0);
    // The sweeps queued so far (start, the new config) have run and found nothing.
    await until('no sweep waiting', async () => (await srv.sql.get('SELECT id FROM jobs WHERE kind = ? AND finished_at IS NULL', 'replication.sweep')) === undefined);
    const id = await uploadFile(admin.api, 'fresh.bin', randomBytes(3000));
    const blob = await srv.sql.get<{ blob_id: string }>('SELECT blob_id FROM instances WHERE id = ?', id);
    await until('fresh.bin synced at far', async () =>
      (await srv.sql.get<{ state: string }>('SELECT state FROM blob_replicas WHERE blob_id = ?', blob!.blob_id))?.state === 'synced', 20_000);
  }, 60_000);
});
