// Thumbnails of image files (issue #22): made once per stored content (blob) and size with sharp, kept as objects
// in the store beside the content, so a second request, another file with the same bytes, or another server node
// reuses them. Generation is bounded: only image formats, a cap on input bytes and pixels (a small file can
// declare a huge canvas), a processing timeout, and a few at a time per process.
import { loadSharp } from './sharp-lib.ts';
import type { Readable } from 'node:stream';
import { AppError } from '../http/errors.ts';
import { StorageError, type ObjectStore, type StoreLocation } from '../storage/object-store.ts';
import { extensionOf } from './names.ts';

export const THUMBNAIL_SIZES = [64, 256] as const;
export type ThumbnailSize = (typeof THUMBNAIL_SIZES)[number];

export const THUMBNAIL_TYPE = 'image/webp';

/** The extensions thumbnails are made for: what sharp's prebuilt libvips decodes, less SVG (markup, not pixels). */
const IMAGE_EXTENSIONS = new Set(['jpg', 'jpeg', 'jpe', 'png', 'gif', 'webp', 'avif', 'tif', 'tiff']);
/** What the decoded bytes must turn out to be, whatever the name says. */
const IMAGE_FORMATS = new Set(['jpeg', 'png', 'gif', 'webp', 'heif', 'tiff']);

export interface ThumbnailLimits {
  /** Larger stored files are not read (sharp holds its input in memory while decoding). */
  maxInputBytes: number;
  /** Width × height of the decoded image. */
  maxInputPixels: number;
  /** libvips' processing time per thumbnail. */
  timeoutSeconds: number;
  /** Generations running at once in this process; the rest wait their turn. */
  concurrency: number;
}

export const DEFAULT_THUMBNAIL_LIMITS: ThumbnailLimits = {
  maxInputBytes: 64 * 1024 * 1024,
  maxInputPixels: 64_000_000,
  timeoutSeconds: 15,
  concurrency: 2,
};

export function isThumbnailable(name: string): boolean {
  return IMAGE_EXTENSIONS.has(extensionOf(name));
}

/** The object holding a blob's thumbnail of one size. */
export function thumbnailKey(blobId: string, size: ThumbnailSize): string {
  return `thumbnails/${blobId}/${size}.webp`;
}

/** Marks a blob no thumbnail can be made of, so the next request answers at once instead of decoding again. */
export function failureKey(blobId: string): string {
  return `thumbnails/${blobId}/unavailable`;
}

export interface StoredBlob {
  id: string;
  size: number;
  objectKey: string;
  /** Where the blob's bytes are, when not in the server's own bucket (thumbnails are kept there either way). */
  at?: StoreLocation | undefined;
}

export interface Thumbnail {
  body: Readable | Buffer;
  size: number;
}

const unavailable = (why: string) => new AppError('THUMBNAIL_UNAVAILABLE', `no thumbnail for this file: ${why}`);

async function exists(store: ObjectStore, key: string): Promise<boolean> {
  return (await store.headObject(key)) !== null;
}

/** Runs at most `n` tasks at once; the others wait in arrival order. */
function limiter(n: number): <T>(task: () => Promise<T>) => Promise<T> {
  let running = 0;
  const waiting: Array<() => void> = [];
  return async (task) => {
    if (running >= n) await new Promise<void>((resolve) => waiting.push(resolve));
    running++;
    try {
      return await task();
    } finally {
      running--;
      waiting.shift()?.();
    }
  };
}

export class Thumbnails {
  private readonly store: () => ObjectStore;
  private readonly limits: ThumbnailLimits;
  private readonly run: <T>(task: () => Promise<T>) => Promise<T>;
  /** Generations under way by thumbnail key: concurrent requests for the same one share it. */
  private readonly inFlight = new Map<string, Promise<Buffer>>();

  constructor(store: () => ObjectStore, limits: Partial<ThumbnailLimits> = {}) {
    this.store = store;
    this.limits = { ...DEFAULT_THUMBNAIL_LIMITS, ...limits };
    this.run = limiter(this.limits.concurrency);
  }

  /** The stored thumbnail of `blob` at `size`, made and stored first when there is none. */
  async get(name: string, blob: StoredBlob, size: ThumbnailSize): Promise<Thumbnail> {
    if (!isThumbnailable(name)) throw unavailable('not an image type thumbnails are made for');
    if (blob.size > this.limits.maxInputBytes) throw unavailable('the file is larger than the thumbnail input limit');
    const store = this.store();
    const key = thumbnailKey(blob.id, size);
    const head = await store.headObject(key);
    if (head) return { body: (await store.getObject(key)).body, size: head.size };
    if (await exists(store, failureKey(blob.id))) throw unavailable('the image cannot be decoded within the limits');
    let pending = this.inFlight.get(key);
    if (!pending) {
      pending = this.run(() => this.generate(blob, size)).finally(() => this.inFlight.delete(key));
      this.inFlight.set(key, pending);
    }
    const body = await pending;
    return { body, size: body.length };
  }

  private async generate(blob: StoredBlob, size: ThumbnailSize): Promise<Buffer> {
    const store = this.store();
    const key = thumbnailKey(blob.id, size);
    // Another request (or node) may have finished it while this one waited for a turn.
    if (await exists(store, key)) return streamToBuffer((await store.getObject(key)).body);
    let out: Buffer;
    try {
      out = await this.render(store, blob, size);
    } catch (err) {
      // Storage failures are the store's, and may pass; only what the image itself caused is remembered.
      if (err instanceof StorageError || err instanceof AppError) throw err;
      await store.putObject(failureKey(blob.id), Buffer.alloc(0), { contentLength: 0, contentType: 'application/octet-stream' });
      throw unavailable(err instanceof Error ? err.message : String(err));
    }
    await store.putObject(key, out, { contentLength: out.length, contentType: THUMBNAIL_TYPE });
    return out;
  }

  private async render(store: ObjectStore, blob: StoredBlob, size: ThumbnailSize): Promise<Buffer> {
    const { body } = await (blob.at ? await store.at(blob.at) : store).getObject(blob.objectKey);
    const sharp = await loadSharp();
    const image = sharp({ limitInputPixels: this.limits.maxInputPixels, failOn: 'error', animated: false, sequentialRead: true });
    body.on('error', (err) => image.destroy(err));
    body.pipe(image);
    const meta = await image.metadata();
    if (!meta.format || !IMAGE_FORMATS.has(meta.format)) throw new Error(`the content is ${meta.format ?? 'not an image'}`);
    return image
      .rotate() // upright by the EXIF orientation, which the thumbnail does not keep
      .resize({ width: size, height: size, fit: 'inside', withoutEnlargement: true })
      .webp({ quality: 75 })
      .timeout({ seconds: this.limits.timeoutSeconds })
      .toBuffer();
  }
}

async function streamToBuffer(body: Readable): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const c of body) chunks.push(c as Buffer);
  return Buffer.concat(chunks);
}
