// The visible watermark of a protected link's previews (upHikShield): the visitor's IP address and the time of
// the preview, tiled diagonally across the image, so a screenshot that leaks names who saw it and when. Images go
// through sharp as a stream (the picture is decoded in tiles, never read whole into a buffer here); the overlay is
// one small SVG tile repeated, so its cost does not grow with the picture.
import type { Readable } from 'node:stream';
import sharp from 'sharp';

/** Image types the watermark is drawn on; other previews of a protected link are refused by the link calls. */
export const WATERMARKABLE = new Set(['image/png', 'image/jpeg', 'image/webp', 'image/gif', 'image/tiff', 'image/avif']);

/** Pictures beyond this many pixels are refused by sharp rather than decoded (a decompression bomb). */
const MAX_PIXELS = 100_000_000;

const escapeXml = (s: string): string => s.replace(/[<>&'"]/g, (c) => ({ '<': '&lt;', '>': '&gt;', '&': '&amp;', "'": '&apos;', '"': '&quot;' })[c]!);

/** The watermark's text: `ip · yyyy-mm-dd hh:mm:ss UTC`. */
export function watermarkText(ip: string, at: Date): string {
  return `${ip} · ${at.toISOString().slice(0, 19).replace('T', ' ')} UTC`;
}

function tile(text: string): Buffer {
  const w = 360;
  const h = 200;
  const body = escapeXml(text);
  // Two strokes (dark on light) keep the text readable on both bright and dark pictures.
  return Buffer.from(
    `<svg xmlns="http://www.w3.org/2000/svg" width="${w}" height="${h}">` +
      `<g transform="rotate(-25 ${w / 2} ${h / 2})" font-family="sans-serif" font-size="18" text-anchor="middle">` +
      `<text x="${w / 2}" y="${h / 2}" fill="rgba(255,255,255,0.45)" stroke="rgba(0,0,0,0.35)" stroke-width="1">${body}</text>` +
      `</g></svg>`,
  );
}

/** `image` with the watermark drawn on it, as a stream of the same format. */
export function watermarkImage(image: Readable, text: string): Readable {
  const t = sharp({ limitInputPixels: MAX_PIXELS, failOn: 'error' }).composite([{ input: tile(text), tile: true, gravity: 'northwest' }]);
  image.on('error', (e) => t.destroy(e));
  return image.pipe(t);
}
