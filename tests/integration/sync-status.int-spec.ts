// Replication status where users see files (issue #20): listing rows and getFolderInfo entries carry the state of
// their copies (a folder rolled up from the files below it), and getFolderInfo's syncStatus is "0" while the copy at
// the answering node's site is pending. One node (HCS_SITE=far) on the embedded store; the far site's storage is a
// second bucket of that store reached through a proxy in this test that can hold requests (copies stay pending
// while held) or answer 500 to all of them (copies fail).
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { readFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { startServer, type TestServer } from '../helpers/server.ts';
import { makeUser, mkdir, signInAdmin, type TestUser } from '../helpers/org.ts';
import { uploadFile, type ApiCall } from '../helpers/upload.ts';
import { until } from '../helpers/eventually.ts';
import { storageProxy } from '../helpers/storage-proxy.ts';


describe('replication status in listings and folder info', () => {
  let srv: TestServer;
  let proxy: ReturnType<typeof storageProxy>;
  let admin: TestUser;
  let alice: TestUser;
  let bob: TestUser;
  let hq: string;
  let far: string;
  const call = (u: TestUser): ApiCall => (path, query, body) => u.api(path, query, body);
  const rowsOf = async (u: TestUser, parentId?: string) => {
    const r = await u.api('/hcs/controller/Page', { ...(parentId ? { parentId } : {}), pageSize: 100 });
    expect(r.ret, JSON.stringify(r)).toBe(0);
    return new Map<string, any>(r.data.list.map((x: any) => [x.instanceName, x]));
  };
  const folderInfo = async (u: TestUser, instanceId: string) => {
    const r = await u.api('/hcs/controller/getFolderInfo', { instanceId });
    expect(r.ret, JSON.stringify(r)).toBe(0);
    return new Map<string, any>(r.data.data.map((x: any) => [x.pathNames, x]));
  };
  const blobOf = async (id: string) => (await srv.sql.get<{ blob_id: string }>('SELECT blob_id FROM instances WHERE id = ?', id))!.blob_id;
  const replicaState = async (blobId: string) =>
    (await srv.sql.get<{ state: string }>('SELECT state FROM blob_replicas WHERE blob_id = ? AND site_id = ?', blobId, far))?.state;

  beforeAll(async () => {
    srv = await startServer({ env: { HCS_REPLICATION_SWEEP_SECONDS: '1', HCS_SITE: 'far' } });
    admin = await signInAdmin(srv);
    alice = await makeUser(srv, 'salice', null);
    bob = await makeUser(srv, 'sbob', null);
    const cred = JSON.parse(readFileSync(join(srv.dataDir, 's3-credentials.json'), 'utf8')) as { accessKeyId: string; secretAccessKey: string };
    const farStore = srv.built.ctx.store().forBucket('hcs-far');
    await farStore.ensureBucket();
    farStore.destroy();
    proxy = storageProxy(`${srv.baseUrl}/s3`);
    const conn = await admin.api('/hcs/controller/cloudConnect/addCloud', undefined, {
      name: 'far', endpoint: await proxy.listen(), bucket: 'hcs-far', accessKey: cred.accessKeyId, secretKey: cred.secretAccessKey,
    });
    expect(conn.ret, JSON.stringify(conn)).toBe(0);
    hq = (await admin.api('/hcs/controller/region/site/addOrUpdate', undefined, { name: 'hq', cloudId: '0' })).data.siteId;
    far = (await admin.api('/hcs/controller/region/site/addOrUpdate', undefined, { name: 'far', cloudId: conn.data.cloudId })).data.siteId;
  }, 60_000);

  afterAll(async () => {
    proxy?.gate.release();
    await proxy?.close();
    // Every answer, the new replication objects included, matched the contract.
    expect(srv?.violations).toEqual([]);
    await srv?.close();
  });

  it('getCloudProvider answers the storage of the node\'s own site, without its credentials', async () => {
    const cred = JSON.parse(readFileSync(join(srv.dataDir, 's3-credentials.json'), 'utf8')) as { secretAccessKey: string };
    const r = await alice.api('/hcs/controller/API/getCloudProvider');
    expect(r.ret, JSON.stringify(r)).toBe(0);
    const conn = (await admin.api('/hcs/controller/cloudConnect/page', { pageNo: 1, pageSize: 50 })).data.list.find((c: any) => c.name === 'far');
    expect(r.data).toEqual({ cloudProvider: 's3', host: conn.endpoint, region: conn.region, bucketName: 'hcs-far', pathStyle: true });
    expect(JSON.stringify(r)).not.toContain(cred.secretAccessKey);
  });

  it('shows nothing where no sync config covers the library', async () => {
    await uploadFile(call(alice), 'before.txt', randomBytes(100));
    const rows = await rowsOf(alice);
    expect(rows.get('before.txt')).toBeDefined();
    expect(rows.get('before.txt').replication).toBeUndefined();
  });

  it('a copy held at the far site shows pending (file and folder, with lag in bytes), syncStatus "0" at that site, then synced', async () => {
    const docs = await mkdir(alice, 'docs');
    const deep = await mkdir(alice, 'deep', docs);
    proxy.gate.arm((r) => r.method === 'PUT');
    const cfg = await admin.api('/hcs/controller/instance/sync/config/addOrUpdate', undefined, { libCode: 'NetDisk', sourceSiteId: hq, targetSiteIds: [far] });
    expect(cfg.ret, JSON.stringify(cfg)).toBe(0);
    // The config's sweep found before.txt, and its copy is held at the far site. A held copy takes a copy slot
    // only: the sweep after the next filing still runs (CI once saw a node whose one job slot the held copy took).
    await proxy.gate.held();
    const inDeep = randomBytes(3000);
    const deepFile = await uploadFile(call(alice), 'a.bin', inDeep, { query: { parentId: deep } });
    await until('a.bin recorded pending', async () => (await replicaState(await blobOf(deepFile))) === 'pending');

    const root = await rowsOf(alice);
    expect(root.get('docs').replication).toMatchObject({ state: 'pending' });
    expect(root.get('docs').replication.lagBytes).toBeGreaterThanOrEqual(3000);
    expect(root.get('docs').replication.lagSeconds).toEqual(expect.any(Number));
    const inside = await rowsOf(alice, deep);
    expect(inside.get('a.bin').replication).toMatchObject({ state: 'pending', lagBytes: 3000 });

    const info = await folderInfo(alice, docs);
    expect(info.get('deep/a.bin')).toMatchObject({ syncStatus: '0', replication: { state: 'pending', lagBytes: 3000 } });
    expect(info.get('deep')).toMatchObject({ syncStatus: '0', replication: { state: 'pending' } });

    proxy.gate.release();
    await until('every copy synced', async () => {
      const rows = await rowsOf(alice);
      return [...rows.values()].every((r) => r.replication?.state === 'synced');
    });
    const docsRow = (await rowsOf(alice)).get('docs');
    expect(docsRow.replication).toEqual({ state: 'synced', lagSeconds: 0, lagBytes: 0 });
    const after = await folderInfo(alice, docs);
    expect(after.get('deep/a.bin')).toMatchObject({ syncStatus: '1', replication: { state: 'synced', lagBytes: 0 } });
    expect(after.get('deep')).toMatchObject({ syncStatus: '1', replication: { state: 'synced' } });
  }, 120_000);

  it('downloads at this site read its synced copy: download information and signed reads name the far site\'s storage', async () => {
    const bytes = randomBytes(5000);
    const id = await uploadFile(call(alice), 'near.bin', bytes);
    await until('near.bin synced', async () => (await replicaState(await blobOf(id))) === 'synced');
    const farEndpoint = (await alice.api('/hcs/controller/API/getCloudProvider')).data.host as string;
    const info = await alice.api('/hcs/controller/API/getDownloadFileInfo', { instanceId: id });
    expect(info.ret, JSON.stringify(info)).toBe(0);
    expect(info.data).toMatchObject({ bucketName: 'hcs-far', host: farEndpoint, resourceUri: expect.stringMatching(/^\/hcs-far\//) });
    const sign = (u: TestUser) => u.api('/hcs/controller/API/S3Cloud/StringToSign', {
      httpVerb: 'GET', bucketName: info.data.bucketName, resourceUri: info.data.resourceUri, action: 'getObject', fId: id,
    });
    const signed = await sign(alice);
    expect(signed.ret, JSON.stringify(signed)).toBe(0);
    expect(signed.data.url.startsWith(farEndpoint)).toBe(true);
    const seen = proxy.state.seen;
    const got = await fetch(signed.data.url, {
      headers: { authorization: signed.data.authorization, 'x-amz-date': signed.data.date, 'x-amz-content-sha256': signed.data.contentSha256 },
    });
    expect(got.status).toBe(200);
    expect(Buffer.from(await got.arrayBuffer()).equals(bytes)).toBe(true);
    // The bytes came from the far site's storage.
    expect(proxy.state.seen).toBeGreaterThan(seen);
    const link = await alice.api('/hcs/controller/API/getS3DownloadUrl', { instanceId: id });
    expect(link.data.url.startsWith(`${farEndpoint}/hcs-far/`)).toBe(true);
    expect(Buffer.from(await (await fetch(link.data.url)).arrayBuffer()).equals(bytes)).toBe(true);
    // Another user may not sign a read of it, at this site either.
    const refused = await sign(bob);
    expect(refused.status).toBeGreaterThanOrEqual(403);
    expect(['FORBIDDEN', 'NOT_FOUND']).toContain(refused.data?.code);
  });

  it('a copy that failed shows failed with its reason on the file and every folder above it, until retried', async () => {
    const docs = (await rowsOf(alice)).get('docs').instanceId as string;
    const deep = (await rowsOf(alice, docs)).get('deep').instanceId as string;
    proxy.state.failing = true;
    const id = await uploadFile(call(alice), 'broken.bin', randomBytes(2048), { query: { parentId: deep } });
    const blobId = await blobOf(id);
    const key = `replication:${blobId}:${far}`;
    // The queue's backoff would wait minutes for the last attempt: once the first has failed (the job waits again),
    // the last is made due now, and it really fails.
    await until('a first attempt failed', async () => (await srv.sql.run(
      "UPDATE jobs SET attempts = max_attempts - 1, run_at = 0 WHERE dedupe_key = ? AND state = 'queued' AND attempts >= 1", key,
    )) > 0);
    await until('broken.bin failed', async () => (await replicaState(blobId)) === 'failed');

    const file = (await rowsOf(alice, deep)).get('broken.bin').replication;
    expect(file).toMatchObject({ state: 'failed', lagBytes: 2048 });
    expect(file.reason).toContain('HTTP 500');
    for (const [parent, name] of [[undefined, 'docs'], [docs, 'deep']] as const) {
      const folder = (await rowsOf(alice, parent)).get(name).replication;
      expect(folder, name).toMatchObject({ state: 'failed', lagBytes: 2048 });
      expect(folder.reason).toContain('HTTP 500');
    }
    // A failed copy is not "still syncing": the download reads the origin.
    expect((await folderInfo(alice, docs)).get('deep/broken.bin')).toMatchObject({ syncStatus: '1', replication: { state: 'failed' } });
    const origin = await alice.api('/hcs/controller/API/getDownloadFileInfo', { instanceId: id });
    expect(origin.data).toMatchObject({ bucketName: srv.built.ctx.store().bucket, host: `${srv.baseUrl}/s3` });

    proxy.state.failing = false;
    const retried = await admin.api('/hcs/controller/instance/sync/retry', undefined, { blobId, siteId: far });
    expect(retried.data?.retried, JSON.stringify(retried)).toBe(1);
    await until('docs synced again', async () => (await rowsOf(alice)).get('docs').replication?.state === 'synced');
  }, 120_000);

  it('another user\'s ids and a group the caller is not in are refused, and show nothing of them', async () => {
    const docs = (await rowsOf(alice)).get('docs').instanceId as string;
    for (const r of [await bob.api('/hcs/controller/getFolderInfo', { instanceId: docs }), await bob.api('/hcs/controller/Page', { parentId: docs })]) {
      expect(r.status).toBeGreaterThanOrEqual(403);
      expect(['FORBIDDEN', 'NOT_FOUND']).toContain(r.data?.code);
      expect(JSON.stringify(r)).not.toContain('replication');
    }
    const group = await alice.api('/hcs/controller/groupFile/newGroup', undefined, { groupName: 'Replicated' });
    expect(group.status, JSON.stringify(group)).toBe(200);
    await uploadFile(call(alice), 'team.bin', randomBytes(500), { query: { parentId: group.data.rootId } });
    const mine = await until('team.bin synced', async () => {
      const r = (await rowsOf(alice, group.data.rootId)).get('team.bin');
      return r?.replication?.state === 'synced' && r;
    });
    expect(mine.replication).toEqual({ state: 'synced', lagSeconds: 0, lagBytes: 0 });
    for (const r of [await bob.api('/hcs/controller/Page', { parentId: group.data.rootId }), await bob.api('/hcs/controller/getFolderInfo', { instanceId: group.data.rootId })]) {
      expect(r.status).toBeGreaterThanOrEqual(403);
      expect(['FORBIDDEN', 'NOT_FOUND']).toContain(r.data?.code);
    }
  }, 120_000);
});
