import { createHash } from 'node:crypto';
import { mkdir, readdir, writeFile } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { Readable, Writable } from 'node:stream';
import { PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  STREAMING_SIGNED, chunkStringToSign, credentialScope, deriveSigningKey, formatAmzDate, signatureOf, signRequest,
} from '../sigv4.ts';
import { keyHash } from './disk-store.ts';
import { BUCKET, startHarness, type Harness } from './test-harness.ts';

const sha256 = (b: Buffer | string) => createHash('sha256').update(b).digest('hex');
const md5 = (b: Buffer | string) => createHash('md5').update(b).digest('hex');

async function filesUnder(dir: string): Promise<string[]> {
  return (await readdir(dir, { recursive: true, withFileTypes: true })).filter((e) => e.isFile()).map((e) => relative(dir, join(e.parentPath, e.name)));
}

async function text(store: Harness['store'], key: string): Promise<string> {
  const { body } = await store.getObject(key);
  let out = '';
  for await (const chunk of body) out += String(chunk);
  return out;
}

describe('embedded store on disk', () => {
  let h: Harness;
  beforeAll(async () => { h = await startHarness(); });
  afterAll(async () => { await h.close(); });

  it('keeps objects and multipart uploads across a restart', async () => {
    await h.store.putObject('persist/a.txt', Buffer.from('durable'), { contentLength: 7, contentType: 'text/plain' });
    const uploadId = await h.store.createMultipart('persist/mp.bin');
    const e1 = await h.store.uploadPart('persist/mp.bin', uploadId, 1, Buffer.alloc(2048, 1), 2048);
    await h.restart();
    expect(await text(h.store, 'persist/a.txt')).toBe('durable');
    expect(await h.store.headObject('persist/a.txt')).toMatchObject({ contentType: 'text/plain', etag: md5('durable') });
    const e2 = await h.store.uploadPart('persist/mp.bin', uploadId, 2, Buffer.from('end'), 3);
    const parts = [];
    for await (const p of h.store.listParts('persist/mp.bin', uploadId)) parts.push(p.partNumber);
    expect(parts).toEqual([1, 2]);
    await h.store.completeMultipart('persist/mp.bin', uploadId, [{ partNumber: 1, etag: e1 }, { partNumber: 2, etag: e2 }]);
    expect(await h.store.sha256('persist/mp.bin')).toBe(sha256(Buffer.concat([Buffer.alloc(2048, 1), Buffer.from('end')])));
  });

  it('discards what an interrupted process left behind when it starts', async () => {
    await h.store.putObject('crash/kept.txt', Buffer.from('kept'), { contentLength: 4 });
    const h2 = keyHash('crash/lost.txt');
    const objectDir = join(h.root, 'buckets', BUCKET, 'objects', h2.slice(0, 2));
    await mkdir(objectDir, { recursive: true });
    // A crash after the content rename but before the metadata rename, a half-written temp
    // file, and an upload directory whose creation never finished.
    await writeFile(join(objectDir, `${h2}.0123456789abcdef01234567.data`), 'half');
    await writeFile(join(h.root, 'tmp', 'abc.part'), 'partial');
    await mkdir(join(h.root, 'uploads', 'A'.repeat(32)));
    await h.restart();
    expect(await readdir(join(h.root, 'tmp'))).toEqual([]);
    expect(await readdir(objectDir)).not.toContain(`${h2}.0123456789abcdef01234567.data`);
    expect(await readdir(join(h.root, 'uploads'))).not.toContain('A'.repeat(32));
    expect(await h.store.headObject('crash/lost.txt')).toBeNull();
    expect(await text(h.store, 'crash/kept.txt')).toBe('kept');
  });

  it('stores any key under a hashed name inside the root', async () => {
    const keys = ['../../escape', '/leading', 'a/../../b', 'nul\u0001ctl', 'ünï/😀', 'k'.repeat(1024)];
    for (const key of keys) await h.store.putObject(key, Buffer.from(key), { contentLength: Buffer.byteLength(key) });
    for (const key of keys) expect(await text(h.store, key)).toBe(key);
    const files = await filesUnder(join(h.root, 'buckets', BUCKET, 'objects'));
    for (const file of files) expect(file).toMatch(/^[0-9a-f]{2}\/[0-9a-f]{64}\.(json|[0-9a-f]{24}(\.\d{1,5})?\.data)$/);
    expect(await filesUnder(join(h.root, 'buckets'))).toEqual(expect.arrayContaining([`${BUCKET}/bucket.json`]));
    const tooLong = await h.fetch('PUT', 'k'.repeat(1025), { body: 'x' });
    expect(tooLong.status).toBe(400);
    expect(await tooLong.text()).toContain('<Code>KeyTooLongError</Code>');
  });
});

describe('embedded store request checks', () => {
  let h: Harness;
  beforeAll(async () => { h = await startHarness(); });
  afterAll(async () => { await h.close(); });

  it('refuses a body that does not match its declared SHA-256 and keeps the previous version', async () => {
    await h.store.putObject('sha/obj', Buffer.from('v1'), { contentLength: 2 });
    const ok = await h.fetch('PUT', 'sha/obj', { body: 'v2', payloadHash: sha256('v2') });
    expect(ok.status).toBe(200);
    const bad = await h.fetch('PUT', 'sha/obj', { body: 'v3', payloadHash: sha256('something else') });
    expect(bad.status).toBe(400);
    expect(await bad.text()).toContain('<Code>XAmzContentSHA256Mismatch</Code>');
    expect(await text(h.store, 'sha/obj')).toBe('v2');
    const badMd5 = await h.fetch('PUT', 'sha/obj', { body: 'v4', headers: { 'content-md5': createHash('md5').update('v5').digest('base64') } });
    expect(badMd5.status).toBe(400);
    expect(await badMd5.text()).toContain('<Code>BadDigest</Code>');
    expect(await text(h.store, 'sha/obj')).toBe('v2');
  });

  it('accepts the AWS SDK streaming a body with a checksum trailer', async () => {
    const client = new S3Client({
      endpoint: h.endpoint, region: 'us-east-1', forcePathStyle: true, credentials: h.credentials,
      requestChecksumCalculation: 'WHEN_SUPPORTED', responseChecksumValidation: 'WHEN_SUPPORTED',
    });
    const sent: string[] = [];
    client.middlewareStack.add((next) => async (args) => {
      const request = args.request as { headers: Record<string, string> };
      sent.push(request.headers['x-amz-content-sha256'] ?? '');
      return next(args);
    }, { step: 'finalizeRequest', priority: 'low' });
    const data = Buffer.alloc(300_000, 'z');
    await client.send(new PutObjectCommand({ Bucket: BUCKET, Key: 'sdk/chunked.bin', Body: Readable.from([data.subarray(0, 100_000), data.subarray(100_000)]), ContentLength: data.length }));
    client.destroy();
    expect(sent[0]).toMatch(/^STREAMING-/);
    expect(await h.store.sha256('sdk/chunked.bin')).toBe(sha256(data));
  });

  it('accepts a signed aws-chunked body and refuses one with a forged chunk signature', async () => {
    const upload = async (forge: boolean) => {
      const amzDate = formatAmzDate(new Date());
      const data = [Buffer.alloc(70_000, 'q'), Buffer.alloc(500, 'r')];
      const decoded = data[0]!.length + data[1]!.length;
      const port = new URL(h.endpoint).port;
      const seed = signRequest({
        method: 'PUT', path: `/s3/${BUCKET}/chunked/signed.bin`, amzDate, payloadHash: STREAMING_SIGNED, region: 'us-east-1', credentials: h.credentials,
        headers: { host: `127.0.0.1:${port}`, 'content-encoding': 'aws-chunked', 'x-amz-decoded-content-length': String(decoded) },
      });
      const key = deriveSigningKey(h.credentials.secretAccessKey, amzDate.slice(0, 8), 'us-east-1');
      const scope = credentialScope(amzDate.slice(0, 8), 'us-east-1');
      let previous = seed.signature;
      const framed: Buffer[] = [];
      for (const chunk of [...data, Buffer.alloc(0)]) {
        let signature = signatureOf(key, chunkStringToSign(amzDate, scope, previous, sha256(chunk)));
        previous = signature;
        if (forge && chunk.length === 500) signature = '0'.repeat(64);
        framed.push(Buffer.from(`${chunk.length.toString(16)};chunk-signature=${signature}\r\n`), chunk, Buffer.from('\r\n'));
      }
      const { host: _host, ...headers } = seed.headers;
      return fetch(`${h.endpoint}/${BUCKET}/chunked/signed.bin`, { method: 'PUT', headers: { ...headers, authorization: seed.authorization }, body: Buffer.concat(framed) });
    };
    const forged = await upload(true);
    expect(forged.status).toBe(403);
    expect(await forged.text()).toContain('<Code>SignatureDoesNotMatch</Code>');
    expect(await h.store.headObject('chunked/signed.bin')).toBeNull();
    expect((await upload(false)).status).toBe(200);
    expect(await h.store.headObject('chunked/signed.bin')).toMatchObject({ size: 70_500, etag: md5(Buffer.concat([Buffer.alloc(70_000, 'q'), Buffer.alloc(500, 'r')])) });
  });

  it('honours conditional headers', async () => {
    const { etag } = await h.store.putObject('cond/obj', Buffer.from('x'), { contentLength: 1 });
    expect((await h.fetch('PUT', 'cond/obj', { body: 'y', headers: { 'if-none-match': '*' } })).status).toBe(412);
    expect((await h.fetch('PUT', 'cond/new', { body: 'y', headers: { 'if-none-match': '*' } })).status).toBe(200);
    expect((await h.fetch('GET', 'cond/obj', { headers: { 'if-none-match': `"${etag}"` } })).status).toBe(304);
    expect((await h.fetch('GET', 'cond/obj', { headers: { 'if-match': '"0000"' } })).status).toBe(412);
    const missing = await h.fetch('HEAD', 'cond/absent');
    expect(missing.status).toBe(404);
    expect(await missing.text()).toBe('');
  });

  it('answers byte ranges of an empty object with 416 and several ranges with the whole object', async () => {
    await h.store.putObject('range/empty', Buffer.alloc(0), { contentLength: 0 });
    const empty = await h.fetch('GET', 'range/empty', { headers: { range: 'bytes=0-' } });
    expect(empty.status).toBe(416);
    expect(empty.headers.get('content-range')).toBe('bytes */0');
    await h.store.putObject('range/ten', Buffer.from('0123456789'), { contentLength: 10 });
    const multi = await h.fetch('GET', 'range/ten', { headers: { range: 'bytes=0-1,4-5' } });
    expect(multi.status).toBe(200);
    expect(await multi.text()).toBe('0123456789');
  });

  it('enforces bucket rules', async () => {
    const again = await h.fetch('PUT', '');
    expect(again.status).toBe(409);
    expect(await again.text()).toContain('<Code>BucketAlreadyOwnedByYou</Code>');
    expect((await h.fetch('PUT', '', { bucket: 'Bad_Name' })).status).toBe(400);
    expect((await h.fetch('PUT', '', { bucket: 'spare-bucket' })).status).toBe(200);
    const notEmpty = await h.fetch('DELETE', '');
    expect(notEmpty.status).toBe(409);
    expect(await notEmpty.text()).toContain('<Code>BucketNotEmpty</Code>');
    expect((await h.fetch('DELETE', '', { bucket: 'spare-bucket' })).status).toBe(204);
    expect((await h.fetch('HEAD', '', { bucket: 'spare-bucket' })).status).toBe(404);
    expect((await h.fetch('GET', 'x', { bucket: 'spare-bucket' })).status).toBe(404);
  });

  it('serves stored bytes sandboxed, and types that can run script as attachment, even when mounted alone', async () => {
    await h.store.putObject('active/page', Buffer.from('<script>1</script>'), { contentLength: 18, contentType: 'Text/HTML; charset=utf-8' });
    await h.store.putObject('active/plain', Buffer.from('text'), { contentLength: 4, contentType: 'text/plain' });
    const presigned = (key: string, type: string) =>
      h.store.presignGet(key, { expiresIn: 60, responseContentDisposition: 'inline; filename="a.svg"', responseContentType: type });
    const answers = {
      'GET stored text/html': await h.fetch('GET', 'active/page'),
      'HEAD stored text/html': await h.fetch('HEAD', 'active/page'),
      'presigned inline image/svg+xml': await fetch(await presigned('active/plain', 'image/svg+xml')),
      'presigned inline application/xhtml+xml': await fetch(await presigned('active/plain', 'application/xhtml+xml')),
    };
    for (const [what, res] of Object.entries(answers)) {
      await res.arrayBuffer();
      expect(res.status, what).toBe(200);
      expect(res.headers.get('content-security-policy'), what).toBe('sandbox');
      expect(res.headers.get('x-content-type-options'), what).toBe('nosniff');
      expect(res.headers.get('content-disposition'), what).toMatch(/^attachment/);
    }
    expect(answers['presigned inline image/svg+xml'].headers.get('content-disposition')).toBe('attachment; filename="a.svg"');
    const plain = await fetch(await presigned('active/plain', 'text/plain'));
    expect(plain.headers.get('content-disposition')).toBe('inline; filename="a.svg"');
    expect(plain.headers.get('content-security-policy')).toBe('sandbox');
    const denied = await fetch(`${h.endpoint}/${BUCKET}/active/page`);
    expect(denied.status).toBe(403);
    expect(denied.headers.get('content-security-policy')).toBe('sandbox');
  });

  it('answers NotImplemented for subresources it does not support', async () => {
    const acl = await h.fetch('GET', '', { query: { acl: '' } });
    expect(acl.status).toBe(501);
    expect(await acl.text()).toContain('<Code>NotImplemented</Code>');
  });

  it('authenticates every request and explains failures without internals', async () => {
    const anonymous = await fetch(`${h.endpoint}/${BUCKET}/sha/obj`);
    expect(anonymous.status).toBe(403);
    const body = await anonymous.text();
    expect(body).toContain('<Code>AccessDenied</Code>');
    expect(body).toContain(`<RequestId>${anonymous.headers.get('x-amz-request-id')}</RequestId>`);
    expect(body).not.toMatch(/\bat .*\.ts:\d+/);
    const skewed = await h.fetch('GET', 'sha/obj', { amzDate: formatAmzDate(new Date(Date.now() - 20 * 60_000)) });
    expect(skewed.status).toBe(403);
    expect(await skewed.text()).toContain('<Code>RequestTimeTooSkewed</Code>');
    const url = new URL(await h.store.presignGet('sha/obj', { expiresIn: 60 }));
    url.searchParams.set('X-Amz-Expires', '604801');
    const tooLong = await fetch(url);
    expect(tooLong.status).toBe(400);
    expect(await tooLong.text()).toContain('<Code>AuthorizationQueryParametersError</Code>');
  });

  it('checks part sizes at completion against the configured minimum', async () => {
    const key = 'mp/min-size';
    const id = await h.store.createMultipart(key);
    const small = await h.store.uploadPart(key, id, 1, Buffer.alloc(1023), 1023);
    const last = await h.store.uploadPart(key, id, 2, Buffer.alloc(10), 10);
    await expect(h.store.completeMultipart(key, id, [{ partNumber: 1, etag: small }, { partNumber: 2, etag: last }])).rejects.toMatchObject({ code: 'EntityTooSmall' });
    const enough = await h.store.uploadPart(key, id, 1, Buffer.alloc(1024), 1024);
    await h.store.completeMultipart(key, id, [{ partNumber: 1, etag: enough }, { partNumber: 2, etag: last }]);
    expect(await h.store.headObject(key)).toMatchObject({ size: 1034 });
    const bad = await h.fetch('PUT', key, { query: { partNumber: '10001', uploadId: 'x'.repeat(32) }, body: 'x' });
    expect(bad.status).toBe(400);
    expect(await bad.text()).toContain('<Code>InvalidArgument</Code>');
  });

  it('lists with V1 markers, URL encoding and in-progress uploads', async () => {
    for (const key of ['v1/a b', 'v1/c', 'v1/d/e']) await h.store.putObject(key, Buffer.from('1'), { contentLength: 1 });
    const page = await (await h.fetch('GET', '', { query: { prefix: 'v1/', delimiter: '/', 'max-keys': '2', 'encoding-type': 'url' } })).text();
    expect(page).toContain('<Key>v1/a%20b</Key>');
    expect(page).toContain('<IsTruncated>true</IsTruncated>');
    expect(page).toContain('<NextMarker>v1/c</NextMarker>');
    const next = await (await h.fetch('GET', '', { query: { prefix: 'v1/', delimiter: '/', marker: 'v1/c' } })).text();
    expect(next).toContain('<CommonPrefixes><Prefix>v1/d/</Prefix></CommonPrefixes>');
    const id = await h.store.createMultipart('v1/in-progress');
    const uploads = await (await h.fetch('GET', '', { query: { uploads: '' } })).text();
    expect(uploads).toContain(`<UploadId>${id}</UploadId>`);
    await h.store.abortMultipart('v1/in-progress', id);
  });
});

describe('embedded store logging', () => {
  it('logs neither secrets nor signatures', async () => {
    const lines: string[] = [];
    const sink = new Writable({ write(chunk, _enc, done) { lines.push(String(chunk)); done(); } });
    const h = await startHarness({}, sink);
    try {
      await h.store.putObject('log/obj', Buffer.from('x'), { contentLength: 1 });
      await fetch(await h.store.presignGet('log/obj', { expiresIn: 60 }));
      await h.fetch('GET', 'log/obj', { secretAccessKey: 'wrong-secret' });
      expect(lines.length).toBeGreaterThan(3);
      const all = lines.join('');
      expect(all).not.toContain(h.credentials.secretAccessKey);
      expect(all).not.toMatch(/Signature=[0-9a-f]{64}/);
      expect(all).toContain('X-Amz-Signature=[redacted]');
    } finally {
      await h.close();
    }
  });
});
