// Per-library storage routing and SSE on external S3 (issue #20 parts 1 and 5) through the real HTTP server and the
// real transfer engine, on SQLite and PostgreSQL (tests/pg/suite.ts). The routed library's store is radosgw when
// HCS_TEST_S3_* name one (`eval "$(bash tests/s3/radosgw.sh env)"`), else a second server's embedded store (another
// endpoint all the same). It is reached through a proxy here that records what each request asked storage for.
//
// radosgw without a configured key refuses every SSE header (400 InvalidRequest, seen with PutObject and
// CreateMultipartUpload, AES256 and aws:kms alike): so with an SSE policy this test checks what the server signs and
// sends (the headers at the proxy), and the routed uploads themselves run without SSE, which radosgw accepts.
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { createHash, randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, request, type IncomingHttpHeaders, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CreateBucketCommand, GetObjectCommand, ListObjectsV2Command, S3Client } from '@aws-sdk/client-s3';
import { createHcsClient, encodeName, type HcsClient } from '@hcs/openapi/client';
import {
  createDownloadSinkFactory, createEngineDeps, createFileSource, createHcsControlPlane, createResumeStore, DownloadTask, UploadTask, type EngineDeps,
  type UploadTarget,
} from '@hcs/transfer-core/node';
import { startServer, type TestServer } from '../helpers/server.ts';
import { makeUser, signInAdmin, type Env, type TestUser } from '../helpers/org.ts';
import { signedStorageRequest, uploadFile, type ApiCall } from '../helpers/upload.ts';
import { radosgw } from '../helpers/eventually.ts';

const MiB = 1024 * 1024;
const C = '/hcs/controller';
const sha = (b: Uint8Array) => createHash('sha256').update(b).digest('hex');
const rgw = radosgw;
if (!rgw) console.log('[storage-routing] HCS_TEST_S3_ENDPOINT is not set: the routed store is a second embedded store, not radosgw');

interface Seen { method: string; url: string; headers: IncomingHttpHeaders; status?: number }

/** A pass-through to an S3 endpoint recording each request's method, URL, headers and answer (Host kept: it is signed). */
function recordingProxy(upstream: string) {
  const seen: Seen[] = [];
  const up = new URL(upstream);
  const server: Server = createServer((req, res) => {
    const entry: Seen = { method: req.method ?? '', url: req.url ?? '', headers: req.headers };
    seen.push(entry);
    const out = request({ host: up.hostname, port: up.port, method: req.method, path: req.url, headers: req.headers }, (r) => {
      entry.status = r.statusCode;
      res.writeHead(r.statusCode ?? 502, r.headers);
      r.pipe(res);
    });
    out.on('error', () => res.destroy());
    req.pipe(out);
  });
  return {
    seen,
    async listen(): Promise<string> {
      await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
      return `http://127.0.0.1:${(server.address() as { port: number }).port}${up.pathname.replace(/\/$/, '')}`;
    },
    close: () => new Promise<void>((r) => { server.closeAllConnections(); server.close(() => r()); }),
  };
}

function okData(r: Env): any {
  expect(r.ret, JSON.stringify(r)).toBe(0);
  return r.data;
}

describe('storage routing per library', () => {
  const work = mkdtempSync(join(tmpdir(), 'hcs-route-'));
  let srv: TestServer;
  let other: TestServer | undefined;
  let proxy: ReturnType<typeof recordingProxy>;
  /** The routed store's endpoint as the connection names it (the proxy's). */
  let proxied: string;
  let routed: { client: S3Client; bucket: string };
  let upstreamCreds: { accessKeyId: string; secretAccessKey: string };
  const rgwCreds = () => upstreamCreds;
  let admin: TestUser;
  let plain: TestUser;
  let cloudId: string;
  let client: HcsClient;
  let n = 0;

  const call = (u: TestUser): ApiCall => (path, query, body) => u.api(path, query, body);
  const deps = (): EngineDeps => createEngineDeps({
    controlPlane: createHcsControlPlane(client), resumeStore: createResumeStore(join(work, `state-${++n}.json`)), retryBaseMs: 20, progressIntervalMs: 0,
  });

  /** Uploads `bytes` as `name` with the transfer engine (the CLI's and the web app's), answering the instanceId. */
  async function engineUpload(name: string, bytes: Buffer, target: UploadTarget = {}): Promise<string> {
    const dir = join(work, `up-${++n}`);
    mkdirSync(dir);
    writeFileSync(join(dir, name), bytes);
    const source = await createFileSource(join(dir, name));
    try {
      const task = new UploadTask({ source, target }, deps());
      await task.run();
      expect(task.status, String(task.error)).toBe('success');
      return task.result!.instanceId;
    } finally {
      await source.close();
    }
  }

  async function engineDownload(instanceId: string): Promise<Buffer> {
    const out = join(work, `down-${++n}`);
    mkdirSync(out);
    const task = new DownloadTask({ instanceId, sinks: createDownloadSinkFactory({ dir: out }) }, deps());
    await task.run();
    expect(task.status, String(task.error)).toBe('success');
    const [file] = readdirSync(out);
    return readFileSync(join(out, file!));
  }

  async function blobOf(instanceId: string): Promise<{ connection_id: string; bucket: string; object_key: string }> {
    const r = await srv.sql.get<{ connection_id: string; bucket: string; object_key: string }>(
      'SELECT b.connection_id, b.bucket, b.object_key FROM instances i JOIN blobs b ON b.id = i.blob_id WHERE i.id = ?', instanceId,
    );
    return r!;
  }

  async function routedKeys(): Promise<string[]> {
    const out = await routed.client.send(new ListObjectsV2Command({ Bucket: routed.bucket }));
    return (out.Contents ?? []).map((o) => o.Key!);
  }

  async function routedBytes(key: string): Promise<Buffer> {
    const got = await routed.client.send(new GetObjectCommand({ Bucket: routed.bucket, Key: key }));
    return Buffer.from(await got.Body!.transformToByteArray());
  }

  const inEmbedded = async (key: string) => (await srv.built.ctx.store().headObject(key)) !== null;
  const setPolicy = (body: Record<string, unknown>, as: TestUser = admin) => as.api(`${C}/storagePolicy/set`, undefined, body);

  /** The bytes a signed-in download link of the file serves (a Range when given). */
  async function viaLink(instanceId: string, range?: string): Promise<{ url: string; status: number; bytes: Buffer }> {
    const link = okData(await admin.api(`${C}/API/getS3DownloadUrl`, { instanceId }));
    const res = await fetch(link.url, range ? { headers: { range } } : {});
    return { url: link.url, status: res.status, bytes: Buffer.from(await res.arrayBuffer()) };
  }

  beforeAll(async () => {
    srv = await startServer();
    let upstream: { endpoint: string; region: string; accessKeyId: string; secretAccessKey: string };
    if (rgw) {
      upstream = rgw;
    } else {
      other = await startServer();
      const cred = JSON.parse(readFileSync(join(other.dataDir, 's3-credentials.json'), 'utf8')) as { accessKeyId: string; secretAccessKey: string };
      upstream = { endpoint: `${other.baseUrl}/s3`, region: other.built.ctx.store().region, ...cred };
    }
    upstreamCreds = { accessKeyId: upstream.accessKeyId, secretAccessKey: upstream.secretAccessKey };
    routed = {
      client: new S3Client({ endpoint: upstream.endpoint, region: upstream.region, forcePathStyle: true, credentials: { accessKeyId: upstream.accessKeyId, secretAccessKey: upstream.secretAccessKey } }),
      bucket: `hcs-route-${randomBytes(4).toString('hex')}`,
    };
    await routed.client.send(new CreateBucketCommand({ Bucket: routed.bucket }));
    proxy = recordingProxy(upstream.endpoint);
    proxied = await proxy.listen();
    admin = await signInAdmin(srv);
    plain = await makeUser(srv, 'routeplain', null);
    cloudId = okData(await admin.api(`${C}/cloudConnect/addCloud`, undefined, {
      name: 'routed-store', endpoint: proxied, region: upstream.region, bucket: routed.bucket, accessKey: upstream.accessKeyId,
      secretKey: upstream.secretAccessKey, sse: ['AES256', 'aws:kms'],
    })).cloudId;
    client = createHcsClient({ baseUrl: srv.baseUrl, token: () => admin.token });
    // A second library, left on the embedded store.
    okData(await admin.api(`${C}/BusinessLibs/add`, undefined, { libCode: 'LOCALLIB', libName: '本地库', libNameEn: 'Local' }));
  }, 120_000);

  afterAll(async () => {
    await proxy?.close();
    expect(srv.violations).toEqual([]);
    await srv?.close();
    await other?.close();
    rmSync(work, { recursive: true, force: true });
  });

  it('only administrators set a policy; an unknown connection or a bucket it lacks is refused with a stable code', async () => {
    const denied = await setPolicy({ libCode: 'NetDisk', cloudId }, plain);
    expect([denied.status, denied.data?.code]).toEqual([403, 'FORBIDDEN']);
    const unknown = await setPolicy({ libCode: 'NetDisk', cloudId: 'no-such-connection' });
    expect([unknown.status, unknown.data?.code]).toEqual([404, 'NOT_FOUND']);
    const noBucket = await setPolicy({ libCode: 'NetDisk', cloudId, bucketName: 'hcs-no-such-bucket-here' });
    expect([noBucket.status, noBucket.data?.code, noBucket.data?.fields?.[0]?.field]).toEqual([422, 'VALIDATION_FAILED', 'bucketName']);
    const unknownLib = await setPolicy({ libCode: 'NOSUCHLIB', cloudId });
    expect([unknownLib.status, unknownLib.data?.code]).toEqual([404, 'NOT_FOUND']);
    // Nothing was changed by the refusals.
    const list = okData(await admin.api(`${C}/storagePolicy/list`)).list;
    expect(list.find((p: any) => p.libCode === 'NetDisk')).toMatchObject({ cloudId: '0', bucketName: 'hcs-drive', encryption: 'none' });
  });

  let routedSmall: { id: string; bytes: Buffer };
  let routedBig: { id: string; bytes: Buffer };

  it('a library routed to the external store: the engine\'s uploads land in its bucket, not the embedded store, and read back byte for byte', async () => {
    const set = okData(await setPolicy({ libCode: 'NetDisk', cloudId }));
    expect(set).toMatchObject({ libCode: 'NetDisk', cloudId, cloudName: 'routed-store', bucketName: routed.bucket, encryption: 'none', inForce: 'none' });

    const small = randomBytes(3000);
    const big = randomBytes(9 * MiB + 321); // two parts: a multipart upload
    routedSmall = { id: await engineUpload('small.bin', small), bytes: small };
    routedBig = { id: await engineUpload('big.bin', big), bytes: big };
    const keys = await routedKeys();
    for (const f of [routedSmall, routedBig]) {
      const blob = await blobOf(f.id);
      expect(blob).toMatchObject({ connection_id: cloudId, bucket: routed.bucket });
      expect(keys).toContain(blob.object_key);
      expect(sha(await routedBytes(blob.object_key))).toBe(sha(f.bytes));
      expect(await inEmbedded(blob.object_key)).toBe(false);
      // Read back through the engine (ranged parts signed for the blob's place) and through a download link.
      expect(sha(await engineDownload(f.id))).toBe(sha(f.bytes));
      const whole = await viaLink(f.id);
      expect([whole.status, sha(whole.bytes)]).toEqual([200, sha(f.bytes)]);
      const part = await viaLink(f.id, 'bytes=1000-2999');
      expect(part.status).toBe(206);
      expect(part.bytes.equals(f.bytes.subarray(1000, 3000))).toBe(true);
    }
    // The link goes to the routed store's endpoint, and the download info names its bucket.
    expect(new URL((await viaLink(routedSmall.id)).url).origin).toBe(new URL(proxied).origin);
    const info = okData(await admin.api(`${C}/API/getDownloadFileInfo`, { instanceId: routedSmall.id }));
    expect(info).toMatchObject({ bucketName: routed.bucket, host: proxied });
    // A signed ranged GET the way clients read content, and the preview stream the server reads itself.
    const signed = await signedStorageRequest(call(admin), {
      action: 'getObject', verb: 'GET', fId: routedBig.id, key: (await blobOf(routedBig.id)).object_key, bucket: routed.bucket, range: 'bytes=8388600-8388700',
    });
    expect(signed.status).toBe(206);
    expect(Buffer.from(await signed.arrayBuffer()).equals(big.subarray(8388600, 8388701))).toBe(true);
    const zip = await admin.api(`${C}/API/getZipDownloadUrl`, { ids: routedSmall.id });
    const zipped = Buffer.from(await (await fetch(new URL(okData(zip).url, srv.baseUrl))).arrayBuffer());
    expect(zipped.includes(small)).toBe(true);
    // A folder's download listing (what a client walks to fetch a whole folder) names each file's own place.
    const root = okData(await admin.api(`${C}/Page`, {})).parentId as string;
    const walked = okData(await admin.api(`${C}/getFolderInfo`, { instanceId: root })).data as Array<{ instanceId: string; fileInfo: any }>;
    expect(walked.find((x) => x.instanceId === routedBig.id)?.fileInfo).toMatchObject({ bucketName: routed.bucket, host: proxied });
    // Without SSE asked for, nothing at rest is claimed.
    const u = okData(await admin.api(`${C}/API/file-uploadable`, { fSize: 10, fName: encodeName('probe.bin'), fMd5: sha(randomBytes(10)) }));
    expect([u.bucketName, u.storeEncryption, u.host]).toEqual([routed.bucket, 0, proxied]);
    okData(await admin.api(`${C}/API/destroyPartInfo`, undefined, { fId: u.fId }));
  }, 120_000);

  it('the server\'s own writes of a routed library go there too: a bulk upload lands in its bucket, and reads back', async () => {
    const files = [randomBytes(1500), randomBytes(70_000)];
    const manifest = { files: files.map((b, i) => ({ fName: encodeName(`bulk-${i}.bin`), fSize: b.length, fMd5: sha(b) })) };
    const res = await srv.call(`${C}/API/bulk-upload`, {
      method: 'POST', token: admin.token, headers: { 'content-type': 'application/octet-stream' },
      // A Buffer is a valid fetch body in Node; the DOM typing only lists web types.
      body: Buffer.concat([Buffer.from(JSON.stringify(manifest) + '\n'), ...files]) as unknown as RequestInit['body'],
    });
    const out = (await res.json()) as { ret: number; data: { files: Array<{ outcome: string; instanceId: string }> } };
    expect(out.data.files.map((f) => f.outcome), JSON.stringify(out)).toEqual(['uploaded', 'uploaded']);
    const keys = await routedKeys();
    for (const [i, f] of out.data.files.entries()) {
      const blob = await blobOf(f.instanceId);
      expect(blob).toMatchObject({ connection_id: cloudId, bucket: routed.bucket });
      expect(keys).toContain(blob.object_key);
      expect(await inEmbedded(blob.object_key)).toBe(false);
      expect(sha((await viaLink(f.instanceId)).bytes)).toBe(sha(files[i]!));
    }
  });

  it('another library stays on the embedded store; content already stored elsewhere is reused where it is', async () => {
    const bytes = randomBytes(2048);
    const id = await uploadFile(call(admin), 'local.bin', bytes, { query: { category: 'LOCALLIB' } });
    const blob = await blobOf(id);
    expect(blob).toMatchObject({ connection_id: '0', bucket: 'hcs-drive' });
    expect(await inEmbedded(blob.object_key)).toBe(true);
    expect(await routedKeys()).not.toContain(blob.object_key);
    expect(sha((await viaLink(id)).bytes)).toBe(sha(bytes));
    // The same content as a routed file, uploaded into the embedded library: an instant transfer whose proof of
    // possession is checked against the bytes where they are stored; stored once, and read from there.
    const again = await engineUpload('again.bin', routedSmall.bytes, { category: 'LOCALLIB' });
    expect(await blobOf(again)).toEqual(await blobOf(routedSmall.id));
    expect(sha((await viaLink(again)).bytes)).toBe(sha(routedSmall.bytes));
  });

  it('a changed policy leaves stored blobs where they are, readable there; a purge deletes them there', async () => {
    okData(await setPolicy({ libCode: 'NetDisk', cloudId: '0' }));
    const fresh = randomBytes(4096);
    const freshId = await engineUpload('fresh.bin', fresh);
    const freshBlob = await blobOf(freshId);
    expect(freshBlob.connection_id).toBe('0');
    expect(await inEmbedded(freshBlob.object_key)).toBe(true);
    // The old ones are still on the routed store and read from it.
    const old = await blobOf(routedBig.id);
    expect(old.connection_id).toBe(cloudId);
    expect(sha(await engineDownload(routedBig.id))).toBe(sha(routedBig.bytes));
    const part = await viaLink(routedBig.id, 'bytes=0-99');
    expect([part.status, part.bytes.equals(routedBig.bytes.subarray(0, 100))]).toEqual([206, true]);
    // Deleted for good: the object goes from the routed bucket (the embedded store never had it).
    okData(await admin.api(`${C}/delete`, { ids: routedBig.id }));
    expect(okData(await admin.api(`${C}/remove/delete`, { ids: routedBig.id })).done).toEqual([routedBig.id]);
    expect(okData(await admin.api(`${C}/deleteSecRecycle`, { ids: routedBig.id })).done).toEqual([routedBig.id]);
    expect(await routedKeys()).not.toContain(old.object_key);
  }, 120_000);

  it('a connection an unfinished upload is headed for cannot be deleted', async () => {
    const second = okData(await admin.api(`${C}/cloudConnect/addCloud`, undefined, {
      name: 'second-route', endpoint: proxied, region: 'us-east-1', bucket: routed.bucket, accessKey: rgwCreds().accessKeyId, secretKey: rgwCreds().secretAccessKey,
    }));
    okData(await setPolicy({ libCode: 'NetDisk', cloudId: second.cloudId }));
    const bytes = randomBytes(64);
    const u = okData(await admin.api(`${C}/API/file-uploadable`, { fSize: bytes.length, fName: encodeName('pending.bin'), fMd5: sha(bytes) }));
    okData(await setPolicy({ libCode: 'NetDisk', cloudId: '0' }));
    // The session still names the connection: its bytes (and a signed write still in flight) would be stranded.
    const refused = await admin.api(`${C}/cloudConnect/delete`, undefined, { cloudId: second.cloudId });
    expect([refused.status, refused.data?.code]).toEqual([409, 'CONFLICT']);
    okData(await admin.api(`${C}/API/destroyPartInfo`, undefined, { fId: u.fId }));
  });

  it('SSE on the external store: refused where not offered; the signed writes carry the headers, server writes send them', async () => {
    // Connection zero encrypts itself (aes256-gcm), it is never asked for SSE; a connection must offer the mode.
    const zero = await setPolicy({ libCode: 'NetDisk', cloudId: '0', encryption: 'sse-s3' });
    expect([zero.status, zero.data?.code]).toEqual([422, 'VALIDATION_FAILED']);
    const bare = okData(await admin.api(`${C}/cloudConnect/addCloud`, undefined, {
      name: 'no-sse', endpoint: proxied, region: 'us-east-1', bucket: routed.bucket, accessKey: 'x', secretKey: 'y',
    }));
    const notOffered = await setPolicy({ libCode: 'NetDisk', cloudId: bare.cloudId, encryption: 'sse-kms' });
    expect([notOffered.status, notOffered.data?.code]).toEqual([422, 'VALIDATION_FAILED']);
    const keyWithout = await setPolicy({ libCode: 'NetDisk', cloudId, encryption: 'sse-s3', kmsKeyId: 'k1' });
    expect([keyWithout.status, keyWithout.data?.code]).toEqual([422, 'VALIDATION_FAILED']);

    expect(okData(await setPolicy({ libCode: 'NetDisk', cloudId, encryption: 'sse-s3' }))).toMatchObject({ encryption: 'sse-s3', inForce: 'sse-s3' });
    const small = randomBytes(100);
    const u = okData(await admin.api(`${C}/API/file-uploadable`, { fSize: small.length, fName: encodeName('sse.bin'), fMd5: sha(small) }));
    expect([u.bucketName, u.storeEncryption]).toEqual([routed.bucket, 1]);
    const sign = (action: string, verb: string, query = '') => admin.api(`${C}/API/S3Cloud/StringToSign`, {
      httpVerb: verb, bucketName: u.bucketName, resourceUri: `/${u.bucketName}/${u.objectKey}${query}`, action, fId: u.fId,
    });
    const put = okData(await sign('putObject', 'PUT'));
    expect(put.headers).toEqual({ 'x-amz-server-side-encryption': 'AES256' });
    const sent = await fetch(put.url, {
      method: 'PUT', body: small,
      headers: { authorization: put.authorization, 'x-amz-date': put.date, 'x-amz-content-sha256': put.contentSha256, ...put.headers },
    });
    const atStorage = proxy.seen.filter((s) => s.method === 'PUT' && s.url.includes(u.objectKey));
    expect(atStorage.map((s) => s.headers['x-amz-server-side-encryption'])).toEqual(['AES256']);
    // radosgw without a key refuses SSE (see the file comment); an S3 that has one stores the object.
    expect(sent.status).toBe(rgw ? 400 : 200);
    okData(await admin.api(`${C}/API/destroyPartInfo`, undefined, { fId: u.fId }));

    okData(await setPolicy({ libCode: 'NetDisk', cloudId, encryption: 'sse-kms', kmsKeyId: 'arn:aws:kms:us-east-1:1:key/k-1' }));
    const big = randomBytes(9 * MiB);
    const m = okData(await admin.api(`${C}/API/file-uploadable`, { fSize: big.length, fName: encodeName('kms.bin'), fMd5: sha(big) }));
    const init = okData(await admin.api(`${C}/API/S3Cloud/StringToSign`, {
      httpVerb: 'POST', bucketName: m.bucketName, resourceUri: `/${m.bucketName}/${m.objectKey}?uploads=`, action: 'initMultipart', fId: m.fId,
    }));
    expect(init.headers).toEqual({ 'x-amz-server-side-encryption': 'aws:kms', 'x-amz-server-side-encryption-aws-kms-key-id': 'arn:aws:kms:us-east-1:1:key/k-1' });
    okData(await admin.api(`${C}/API/destroyPartInfo`, undefined, { fId: m.fId }));

    // The server's own writes (a new office document) ask for it too.
    const before = proxy.seen.length;
    await admin.api(`${C}/officeFile`, undefined, { instanceName: encodeName('sse-doc'), kind: 'docx' });
    const serverPut = proxy.seen.slice(before).find((s) => s.method === 'PUT');
    expect(serverPut?.headers['x-amz-server-side-encryption']).toBe('aws:kms');
    expect(serverPut?.headers['x-amz-server-side-encryption-aws-kms-key-id']).toBe('arn:aws:kms:us-east-1:1:key/k-1');

    const listed = okData(await admin.api(`${C}/storagePolicy/list`)).list;
    expect(listed.find((p: any) => p.libCode === 'NetDisk')).toMatchObject({ encryption: 'sse-kms', inForce: 'sse-kms', kmsKeyId: 'arn:aws:kms:us-east-1:1:key/k-1' });
    expect(listed.find((p: any) => p.libCode === 'LOCALLIB')).toMatchObject({ cloudId: '0', encryption: 'none', inForce: 'none' });
    okData(await setPolicy({ libCode: 'NetDisk', cloudId: '0' }));
  }, 120_000);

});
