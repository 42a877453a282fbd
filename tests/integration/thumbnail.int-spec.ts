// Thumbnails of images (issue #22): made by the server with sharp from the stored bytes, once per content and size,
// kept as objects in the store, and served with the headers of stored bytes. Real PNG and JPEG files are made here
// with sharp and uploaded the way clients upload.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { crc32 } from 'node:zlib';
import sharp from 'sharp';
import { startServer, type TestServer } from '../helpers/server.ts';
import { uploadFile } from '../helpers/upload.ts';
import { createUser } from '../../mock-server/src/db/users-repo.ts';
import { failureKey, thumbnailKey } from '../../mock-server/src/files/thumbnails.ts';

let s: TestServer;
let alice: string;
let bob: string;

function apiAs(token: () => string) {
  return async (path: string, query: Record<string, string | number> = {}, body?: unknown) => {
    const qs = new URLSearchParams(Object.entries(query).map(([k, v]): [string, string] => [k, String(v)])).toString();
    const res = await s.call(path + (qs ? '?' + qs : ''), {
      method: body === undefined ? 'GET' : 'POST',
      token: token(),
      headers: body === undefined ? {} : { 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return (await res.json()) as { ret: number; data: any };
  };
}
const upload = (name: string, bytes: Buffer) => uploadFile(apiAs(() => alice), name, bytes);

/** As an <img> asks: no X-Requested-With (the test authenticates with the token instead of the cookie). */
async function thumbnail(token: string, instanceId: string, size?: number, headers: Record<string, string> = {}) {
  const q = new URLSearchParams({ instanceId, ...(size === undefined ? {} : { size: String(size) }) });
  const res = await fetch(`${s.baseUrl}/hcs/controller/API/1.0/thumbnail?${q}`, { headers: { token, ...headers } });
  return { status: res.status, headers: res.headers, body: Buffer.from(await res.arrayBuffer()) };
}

const errorCode = (body: Buffer) => (JSON.parse(body.toString('utf8')) as { data: { code: string } }).data.code;

async function blobOf(instanceId: string): Promise<string> {
  const row = await s.sql.get<{ blob_id: string }>('SELECT blob_id FROM instances WHERE id = ?', instanceId);
  return row!.blob_id;
}

const storedObject = (key: string) => s.built.ctx.store().headObject(key);

const picture = (width: number, height: number) =>
  sharp({ create: { width, height, channels: 3, background: { r: 30, g: 120, b: 200 } } }).composite([
    { input: { create: { width: Math.ceil(width / 2), height: Math.ceil(height / 2), channels: 3, background: { r: 240, g: 200, b: 40 } } }, left: 0, top: 0 },
  ]);

/** A real 1×1 PNG whose header then claims `width`×`height` (CRC fixed): a tiny file that decodes to a huge canvas. */
async function pngClaiming(width: number, height: number): Promise<Buffer> {
  const png = Buffer.from(await sharp({ create: { width: 1, height: 1, channels: 3, background: '#000' } }).png().toBuffer());
  // Signature (8), IHDR length (4), "IHDR" (4), then width and height; the CRC covers type and data (17 bytes).
  png.writeUInt32BE(width, 16);
  png.writeUInt32BE(height, 20);
  png.writeUInt32BE(crc32(png.subarray(12, 29)), 29);
  return png;
}

beforeAll(async () => {
  s = await startServer();
  const db = s.built.ctx.db;
  await createUser(db, { userName: 'alice', password: 'Alice#pass-123' });
  await createUser(db, { userName: 'bob', password: 'Bob#pass-1234' });
  alice = (await s.login('alice', 'Alice#pass-123')).token;
  bob = (await s.login('bob', 'Bob#pass-1234')).token;
});
afterAll(async () => {
  await s?.close();
});

describe('thumbnails', () => {
  it('scales a PNG to fit the size as WebP, with the headers of stored bytes, and stores it under its blob', async () => {
    const id = await upload('holiday.png', await picture(600, 400).png().toBuffer());
    const blobId = await blobOf(id);
    expect(await storedObject(thumbnailKey(blobId, 256))).toBeNull();

    const res = await thumbnail(alice, id, 256);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('image/webp');
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    expect(res.headers.get('content-security-policy')).toMatch(/(^|;)\s*sandbox(\s*;|$)/);
    expect(res.headers.get('etag')).toBe(`"${blobId}-256"`);
    const meta = await sharp(res.body).metadata();
    expect({ format: meta.format, width: meta.width, height: meta.height }).toEqual({ format: 'webp', width: 256, height: 171 });
    expect((await storedObject(thumbnailKey(blobId, 256)))?.size).toBe(res.body.length);
  });

  it('serves the stored thumbnail on the next request instead of making it again', async () => {
    const id = await upload('again.png', await picture(300, 300).png().toBuffer());
    const blobId = await blobOf(id);
    expect((await thumbnail(alice, id, 64)).status).toBe(200);
    // Replace the stored thumbnail with a different picture: a request that generated again would not return it.
    const marker = await sharp({ create: { width: 3, height: 3, channels: 3, background: '#f00' } }).webp().toBuffer();
    await s.built.ctx.store().putObject(thumbnailKey(blobId, 64), marker, { contentLength: marker.length, contentType: 'image/webp' });
    const second = await thumbnail(alice, id, 64);
    expect(second.status).toBe(200);
    expect(second.body.equals(marker)).toBe(true);
  });

  it('makes JPEG thumbnails at the list size and never enlarges a small image', async () => {
    const big = await upload('scan.jpg', await picture(1000, 500).jpeg().toBuffer());
    const bigMeta = await sharp((await thumbnail(alice, big, 64)).body).metadata();
    expect([bigMeta.width, bigMeta.height]).toEqual([64, 32]);
    const small = await upload('icon.jpeg', await picture(40, 30).jpeg().toBuffer());
    const smallRes = await thumbnail(alice, small);
    expect(smallRes.headers.get('etag')).toBe(`"${await blobOf(small)}-256"`);
    const smallMeta = await sharp(smallRes.body).metadata();
    expect([smallMeta.width, smallMeta.height]).toEqual([40, 30]);
  });

  it('answers 304 when the browser already holds this thumbnail', async () => {
    const id = await upload('cached.png', await picture(100, 100).png().toBuffer());
    const first = await thumbnail(alice, id, 64);
    const again = await thumbnail(alice, id, 64, { 'if-none-match': first.headers.get('etag')! });
    expect(again.status).toBe(304);
    expect(again.body.length).toBe(0);
  });

  it("answers NOT_FOUND for another user's file, and makes nothing", async () => {
    const id = await upload('private.png', await picture(200, 100).png().toBuffer());
    const res = await thumbnail(bob, id, 256);
    expect(res.status).toBe(404);
    expect(errorCode(res.body)).toBe('NOT_FOUND');
    expect(await storedObject(thumbnailKey(await blobOf(id), 256))).toBeNull();
  });

  it('answers THUMBNAIL_UNAVAILABLE for a file that is not an image, or does not decode, and remembers the failure', async () => {
    const text = await upload('notes.txt', Buffer.from('not a picture\n'));
    const res = await thumbnail(alice, text, 256);
    expect(res.status).toBe(422);
    expect(errorCode(res.body)).toBe('THUMBNAIL_UNAVAILABLE');

    const broken = await upload('broken.png', Buffer.from('\x89PNG\r\n\x1a\n but then nothing a decoder can read'));
    const first = await thumbnail(alice, broken, 256);
    expect(first.status).toBe(422);
    expect(errorCode(first.body)).toBe('THUMBNAIL_UNAVAILABLE');
    expect(await storedObject(failureKey(await blobOf(broken)))).not.toBeNull();
    expect(errorCode((await thumbnail(alice, broken, 64)).body)).toBe('THUMBNAIL_UNAVAILABLE');
  });

  it('refuses an image whose canvas is over the pixel limit without decoding it', async () => {
    const bomb = await upload('bomb.png', await pngClaiming(20_000, 20_000));
    const res = await thumbnail(alice, bomb, 256);
    expect(res.status).toBe(422);
    expect(errorCode(res.body)).toBe('THUMBNAIL_UNAVAILABLE');
  });

  it('accepts only the offered sizes', async () => {
    const id = await upload('sizes.png', await picture(50, 50).png().toBuffer());
    const res = await thumbnail(alice, id, 4096);
    expect(res.status).toBe(422);
    expect(errorCode(res.body)).toBe('VALIDATION_FAILED');
  });
});
