// Completed multipart objects are stored as their part files (segments), not as a copy: reads, ranges,
// overwrites during a read, deletes and restarts must behave exactly as for a single-file object.
import { createHash, randomBytes } from 'node:crypto';
import { readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { keyHash } from './disk-store.ts';
import { BUCKET, startHarness, type Harness } from './test-harness.ts';

const sha256 = (b: Buffer) => createHash('sha256').update(b).digest('hex');

async function bytes(body: AsyncIterable<unknown>): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const c of body) chunks.push(c as Buffer);
  return Buffer.concat(chunks);
}

async function multipart(h: Harness, key: string, parts: Buffer[]): Promise<Buffer> {
  const uploadId = await h.store.createMultipart(key);
  const etags = [];
  for (let i = 0; i < parts.length; i++) etags.push({ partNumber: i + 1, etag: await h.store.uploadPart(key, uploadId, i + 1, parts[i]!, parts[i]!.length) });
  await h.store.completeMultipart(key, uploadId, etags);
  return Buffer.concat(parts);
}

const objectDir = (h: Harness, key: string) => join(h.root, 'buckets', BUCKET, 'objects', keyHash(key).slice(0, 2));

describe('segmented multipart objects', () => {
  let h: Harness;
  beforeAll(async () => { h = await startHarness(); });
  afterAll(async () => { await h.close(); });

  it('links the parts instead of copying them, and reads them back as one object', async () => {
    const whole = await multipart(h, 'seg/a.bin', [randomBytes(3000), randomBytes(1024), randomBytes(777)]);
    const files = (await readdir(objectDir(h, 'seg/a.bin'))).filter((f) => f.startsWith(keyHash('seg/a.bin')) && f.endsWith('.data'));
    expect(files).toHaveLength(3);
    // Hard links of the part files: the upload directory is gone, the data was not written twice.
    for (const f of files) expect((await stat(join(objectDir(h, 'seg/a.bin'), f))).nlink).toBe(1);
    expect(await readdir(join(h.root, 'uploads'))).toEqual([]);
    expect(sha256(await bytes((await h.store.getObject('seg/a.bin')).body))).toBe(sha256(whole));
    expect(await h.store.sha256('seg/a.bin')).toBe(sha256(whole));
    expect((await h.store.headObject('seg/a.bin'))?.size).toBe(whole.length);
  });

  it('serves ranges inside one segment, across segments and suffix ranges', async () => {
    const whole = await multipart(h, 'seg/r.bin', [randomBytes(2048), randomBytes(2048), randomBytes(100)]);
    for (const [start, end] of [[0, 0], [10, 2047], [2047, 2048], [1000, 4195], [4096, 4195], [0, 4195]] as const) {
      const got = await h.store.getObject('seg/r.bin', { start, end });
      expect(got.contentLength).toBe(end - start + 1);
      expect((await bytes(got.body)).equals(whole.subarray(start, end + 1))).toBe(true);
    }
    const suffix = await h.store.getObject('seg/r.bin', { suffix: 150 });
    expect((await bytes(suffix.body)).equals(whole.subarray(whole.length - 150))).toBe(true);
    const past = await h.fetch('GET', 'seg/r.bin', { headers: { range: 'bytes=5000-' } });
    expect(past.status).toBe(416);
  });

  it('a read in progress finishes with the old content when the object is overwritten or deleted', async () => {
    const old = await multipart(h, 'seg/o.bin', [randomBytes(1 << 20), randomBytes(1 << 20), randomBytes(5)]);
    const res = await h.fetch('GET', 'seg/o.bin');
    expect(res.status).toBe(200);
    const reader = res.body!.getReader();
    const first = await reader.read();
    const fresh = await multipart(h, 'seg/o.bin', [randomBytes(1500), randomBytes(10)]);
    await h.store.deleteObject('seg/o.bin');
    const chunks = [Buffer.from(first.value!)];
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      chunks.push(Buffer.from(value));
    }
    expect(sha256(Buffer.concat(chunks))).toBe(sha256(old));
    expect(fresh.length).toBe(1510);
    expect(await h.store.headObject('seg/o.bin')).toBeNull();
    // Once the reader is done, no file of either version is left.
    await new Promise((r) => setTimeout(r, 50));
    expect((await readdir(objectDir(h, 'seg/o.bin'))).filter((f) => f.startsWith(keyHash('seg/o.bin')))).toEqual([]);
  });

  it('survives a restart, and an overwrite by a single PUT removes the segments', async () => {
    const whole = await multipart(h, 'seg/p.bin', [randomBytes(1500), randomBytes(1500)]);
    await h.restart();
    expect(sha256(await bytes((await h.store.getObject('seg/p.bin')).body))).toBe(sha256(whole));
    await h.store.putObject('seg/p.bin', Buffer.from('small'), { contentLength: 5 });
    const left = (await readdir(objectDir(h, 'seg/p.bin'))).filter((f) => f.startsWith(keyHash('seg/p.bin')) && f.endsWith('.data'));
    expect(left).toHaveLength(1);
    expect((await bytes((await h.store.getObject('seg/p.bin')).body)).toString()).toBe('small');
  });

  it('copies a segmented object into a plain one', async () => {
    const whole = await multipart(h, 'seg/c.bin', [randomBytes(1100), randomBytes(33)]);
    await h.store.copyObject('seg/c.bin', 'seg/c-copy.bin');
    expect(await h.store.sha256('seg/c-copy.bin')).toBe(sha256(whole));
  });

  it('records the SHA-256 it computed from the parts while they arrived, and only when it matches', async () => {
    const whole = await multipart(h, 'seg/h.bin', [randomBytes(1500), randomBytes(1500), randomBytes(9)]);
    await new Promise((r) => setTimeout(r, 20));
    expect(h.control.disk!.head(BUCKET, 'seg/h.bin')?.sha256).toBe(sha256(whole));
    expect(await h.store.sha256('seg/h.bin')).toBe(sha256(whole));

    // Part 1 replaced after it was hashed, and a completion that skips a part: the recorded digest is either
    // absent or right, never the digest of other bytes.
    const key = 'seg/h2.bin';
    const uploadId = await h.store.createMultipart(key);
    const p1 = randomBytes(1200);
    const p2 = randomBytes(1300);
    const p3 = randomBytes(10);
    await h.store.uploadPart(key, uploadId, 1, p1, p1.length);
    const e2 = await h.store.uploadPart(key, uploadId, 2, p2, p2.length);
    await new Promise((r) => setTimeout(r, 20));
    const p1b = randomBytes(1200);
    const e1b = await h.store.uploadPart(key, uploadId, 1, p1b, p1b.length);
    const e3 = await h.store.uploadPart(key, uploadId, 3, p3, p3.length);
    await h.store.completeMultipart(key, uploadId, [{ partNumber: 1, etag: e1b }, { partNumber: 2, etag: e2 }, { partNumber: 3, etag: e3 }]);
    const expected = sha256(Buffer.concat([p1b, p2, p3]));
    const recorded = h.control.disk!.head(BUCKET, key)?.sha256;
    expect(recorded === undefined || recorded === expected).toBe(true);
    expect(await h.store.sha256(key)).toBe(expected);

    const gapId = await h.store.createMultipart('seg/h3.bin');
    const g1 = await h.store.uploadPart('seg/h3.bin', gapId, 1, p1, p1.length);
    const g3 = await h.store.uploadPart('seg/h3.bin', gapId, 3, p3, p3.length);
    await h.store.completeMultipart('seg/h3.bin', gapId, [{ partNumber: 1, etag: g1 }, { partNumber: 3, etag: g3 }]);
    const gapExpected = sha256(Buffer.concat([p1, p3]));
    const gapRecorded = h.control.disk!.head(BUCKET, 'seg/h3.bin')?.sha256;
    expect(gapRecorded === undefined || gapRecorded === gapExpected).toBe(true);
    expect(await h.store.sha256('seg/h3.bin')).toBe(gapExpected);
  });
});
