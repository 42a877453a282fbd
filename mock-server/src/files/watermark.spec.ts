// The watermark of protected link previews: drawn over the whole picture (not one corner), in the picture's own
// format and size, and naming the visitor: two visitors' previews of one picture differ. Text that looks like
// markup is drawn, not interpreted.
import { Readable } from 'node:stream';
import { buffer } from 'node:stream/consumers';
import { describe, it, expect } from 'vitest';
import sharp from 'sharp';
import { watermarkImage, watermarkText } from './watermark.ts';

const W = 800;
const H = 600;
const white = () => sharp({ create: { width: W, height: H, channels: 3, background: '#ffffff' } }).png().toBuffer();

/** Pixels that are not white, per quarter of the picture. */
async function marked(png: Buffer): Promise<number[]> {
  const { data, info } = await sharp(png).removeAlpha().raw().toBuffer({ resolveWithObject: true });
  const q = [0, 0, 0, 0];
  for (let y = 0; y < info.height; y++) {
    for (let x = 0; x < info.width; x++) {
      const i = (y * info.width + x) * 3;
      if (data[i]! < 250 || data[i + 1]! < 250 || data[i + 2]! < 250) q[(y < info.height / 2 ? 0 : 2) + (x < info.width / 2 ? 0 : 1)]!++;
    }
  }
  return q;
}

describe('watermarkImage', () => {
  it('draws across every quarter of the picture and keeps its format and size', async () => {
    const out = await buffer(watermarkImage(Readable.from(await white()), watermarkText('203.0.113.7', new Date(Date.UTC(2026, 0, 2, 3, 4, 5)))));
    const meta = await sharp(out).metadata();
    expect([meta.format, meta.width, meta.height]).toEqual(['png', W, H]);
    for (const n of await marked(out)) expect(n).toBeGreaterThan(100);
  });

  it('marks a picture smaller than the tile, and a JPEG stays a JPEG', async () => {
    const small = await sharp({ create: { width: 120, height: 80, channels: 3, background: '#ffffff' } }).jpeg().toBuffer();
    const out = await buffer(watermarkImage(Readable.from(small), watermarkText('203.0.113.7', new Date())));
    const meta = await sharp(out).metadata();
    expect([meta.format, meta.width, meta.height]).toEqual(['jpeg', 120, 80]);
  });

  it('names the visitor: two addresses give two different pictures', async () => {
    const src = await white();
    const at = new Date();
    const a = await buffer(watermarkImage(Readable.from(src), watermarkText('203.0.113.7', at)));
    const b = await buffer(watermarkImage(Readable.from(src), watermarkText('198.51.100.9', at)));
    expect(a.equals(b)).toBe(false);
  });

  it('draws markup-like text instead of interpreting it, and fails on a broken picture', async () => {
    const out = await buffer(watermarkImage(Readable.from(await white()), '</text><image href="file:///etc/passwd"/>'));
    expect((await sharp(out).metadata()).width).toBe(W);
    await expect(buffer(watermarkImage(Readable.from(Buffer.from('not a picture')), 'x'))).rejects.toThrow();
  });

  it('formats the text as address and UTC time', () => {
    expect(watermarkText('::1', new Date(Date.UTC(2026, 10, 24, 6, 7, 8)))).toBe('::1 · 2026-11-24 06:07:08 UTC');
  });
});
