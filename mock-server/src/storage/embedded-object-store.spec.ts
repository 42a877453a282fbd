// The embedded ObjectStore reads from disk what the HTTP path would return: same bytes, ranges, metadata and
// error codes, for single-file and segmented (multipart) objects.
import { createHash, randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EmbeddedObjectStore } from './embedded-object-store.ts';
import { StorageError, type ByteRange, type ObjectStore } from './object-store.ts';
import { BUCKET, startHarness, type Harness } from './embedded/test-harness.ts';

async function bytes(body: AsyncIterable<unknown>): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const c of body) chunks.push(c as Buffer);
  return Buffer.concat(chunks);
}

async function codeOf(p: Promise<unknown>): Promise<string> {
  try {
    await p;
    return 'resolved';
  } catch (err) {
    expect(err).toBeInstanceOf(StorageError);
    return (err as StorageError).code;
  }
}

describe('EmbeddedObjectStore local reads', () => {
  let h: Harness;
  let local: ObjectStore;
  let multipartBytes: Buffer;
  beforeAll(async () => {
    h = await startHarness();
    local = new EmbeddedObjectStore({ endpoint: h.endpoint, region: 'us-east-1', bucket: BUCKET, ...h.credentials }, h.control);
    await h.store.putObject('plain.txt', Buffer.from('hello, world'), { contentLength: 12, contentType: 'text/plain', metadata: { a: '1' } });
    await h.store.putObject('empty', Buffer.alloc(0), { contentLength: 0 });
    const uploadId = await h.store.createMultipart('mp.bin');
    const parts = [randomBytes(2000), randomBytes(1500)];
    const etags = [];
    for (let i = 0; i < parts.length; i++) etags.push({ partNumber: i + 1, etag: await h.store.uploadPart('mp.bin', uploadId, i + 1, parts[i]!, parts[i]!.length) });
    await h.store.completeMultipart('mp.bin', uploadId, etags);
    multipartBytes = Buffer.concat(parts);
  });
  afterAll(async () => {
    local.destroy();
    await h.close();
  });

  it('returns what the HTTP path returns, ranges included', async () => {
    const ranges: Array<ByteRange | undefined> = [undefined, { start: 0, end: 0 }, { start: 3 }, { suffix: 5 }, { start: 5, end: 99999 }];
    for (const key of ['plain.txt', 'mp.bin']) {
      // Across the boundary of the two segments of mp.bin.
      for (const range of key === 'mp.bin' ? [...ranges, { start: 1990, end: 2010 }] : ranges) {
        const a = await h.store.getObject(key, range);
        const b = await local.getObject(key, range);
        expect({ len: b.contentLength, range: b.contentRange, etag: b.etag, type: b.contentType }).toEqual({
          len: a.contentLength, range: a.contentRange, etag: a.etag, type: a.contentType,
        });
        expect((await bytes(b.body)).equals(await bytes(a.body))).toBe(true);
      }
    }
    expect((await bytes((await local.getObject('empty')).body)).length).toBe(0);
  });

  it('heads and hashes locally', async () => {
    expect(await local.headObject('plain.txt')).toMatchObject({ size: 12, contentType: 'text/plain', metadata: { a: '1' }, etag: (await h.store.headObject('plain.txt'))!.etag });
    expect(await local.headObject('missing')).toBeNull();
    expect(await local.sha256('mp.bin')).toBe(createHash('sha256').update(multipartBytes).digest('hex'));
    expect(await local.sha256('empty')).toBe(createHash('sha256').digest('hex'));
  });

  it('reads positionally into the caller\'s buffer, across segments; a remote store offers no reader', async () => {
    const reader = (await local.openReader('mp.bin'))!;
    try {
      expect(reader.size).toBe(multipartBytes.length);
      for (const [position, length] of [[0, 3500], [1990, 20], [1999, 2], [2000, 1500], [3499, 10], [3500, 10]] as const) {
        const buf = Buffer.alloc(length + 4, 0xee);
        let got = 0;
        // A read stops at a segment's end; the caller reads on until it has what it asked for.
        for (let n = -1; n !== 0 && got < length; got += n) n = (await reader.read(buf, 2 + got, length - got, position + got)).bytesRead;
        expect(buf.subarray(2, 2 + got).equals(multipartBytes.subarray(position, position + length))).toBe(true);
        expect([buf[0], buf[1], buf[2 + got]]).toEqual([0xee, 0xee, 0xee]);
      }
    } finally {
      await reader.close();
    }
    expect(await codeOf(local.openReader('missing'))).toBe('NoSuchKey');
    expect(await h.store.openReader('mp.bin')).toBeNull();
  });

  it('fails with the S3 codes the HTTP path gives', async () => {
    expect(await codeOf(local.getObject('missing'))).toBe(await codeOf(h.store.getObject('missing')));
    expect(await codeOf(local.getObject('plain.txt', { start: 12 }))).toBe('InvalidRange');
    expect(await codeOf(h.store.getObject('plain.txt', { start: 12 }))).toBe('InvalidRange');
    expect(await codeOf(local.sha256('missing'))).toBe('NoSuchKey');
  });
});
