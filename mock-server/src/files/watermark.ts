// The visible watermark of a protected link's previews (upHikShield): the visitor's IP address and the time of
// the preview, tiled diagonally across the image, so a screenshot that leaks names who saw it and when. sharp needs
// the picture's size before it can lay the tile (a tile larger than the picture is refused), and it holds a decoded
// picture in memory in any case, so the marked picture is made whole and then streamed; the pixel limit bounds it.
// The overlay is one small SVG tile repeated, so its cost does not grow with the picture.
import { Readable } from 'node:stream';
import { loadSharp } from './sharp-lib.ts';

/** Image types the watermark is drawn on; other previews of a protected link are refused by the link calls. */
export const WATERMARKABLE = new Set(['image/png', 'image/jpeg', 'image/webp', 'image/gif', 'image/tiff', 'image/avif']);

/** Pictures beyond this many pixels are refused by sharp rather than decoded (a decompression bomb). */
const MAX_PIXELS = 100_000_000;

const escapeXml = (s: string): string => s.replace(/[<>&'"]/g, (c) => ({ '<': '&lt;', '>': '&gt;', '&': '&amp;', "'": '&apos;', '"': '&quot;' })[c]!);

/** The watermark's text: `ip · yyyy-mm-dd hh:mm:ss UTC`. */
export function watermarkText(ip: string, at: Date): string {
  return `${ip} · ${at.toISOString().slice(0, 19).replace('T', ' ')} UTC`;
}

function tile(text: string, w: number, h: number): Buffer {
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
  // The source's errors are held from the start: sharp loads on the first read, and an error before then has no
  // other listener.
  let early: Error | undefined;
  const hold = (e: Error) => (early ??= e);
  image.on('error', hold);
  return Readable.from(
    (async function* () {
      const input = (await loadSharp())({ limitInputPixels: MAX_PIXELS, failOn: 'error' });
      image.off('error', hold);
      if (early) throw early;
      image.on('error', (e) => input.destroy(e));
      image.pipe(input);
      const { width = 1, height = 1 } = await input.metadata();
      yield await input.composite([{ input: tile(text, Math.min(360, width), Math.min(200, height)), tile: true, gravity: 'northwest' }]).toBuffer();
    })(),
  );
}
