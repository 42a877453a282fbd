// Reading an object's content: one file (a FileHandle) or the segments of a completed multipart upload,
// streamed in order as if they were one file. Both are read through the same two calls.
import { open } from 'node:fs/promises';
import { Readable } from 'node:stream';

export interface ContentReadOptions {
  /** Inclusive byte range; defaults to the whole content. */
  start?: number;
  end?: number;
  highWaterMark?: number;
  /** Close the handle when the stream ends, fails or is destroyed (as FileHandle.createReadStream). */
  autoClose?: boolean;
}

export interface ContentHandle {
  createReadStream(opts?: ContentReadOptions): Readable;
  close(): Promise<void>;
}

export class SegmentedContent implements ContentHandle {
  private readonly segments: ReadonlyArray<{ path: string; size: number }>;
  private readonly release: () => void;
  private closed = false;

  constructor(segments: ReadonlyArray<{ path: string; size: number }>, release: () => void) {
    this.segments = segments;
    this.release = release;
  }

  createReadStream(opts: ContentReadOptions = {}): Readable {
    const total = this.segments.reduce((n, s) => n + s.size, 0);
    const start = opts.start ?? 0;
    const end = Math.min(opts.end ?? total - 1, total - 1);
    const highWaterMark = opts.highWaterMark ?? 1 << 20;
    const segments = this.segments;
    async function* read(): AsyncGenerator<Buffer> {
      let base = 0;
      for (const seg of segments) {
        const segStart = base;
        base += seg.size;
        if (seg.size === 0 || base - 1 < start || segStart > end) continue;
        const fh = await open(seg.path, 'r');
        try {
          const from = Math.max(start, segStart) - segStart;
          const to = Math.min(end, base - 1) - segStart;
          let got = 0;
          for await (const chunk of fh.createReadStream({ start: from, end: to, highWaterMark, autoClose: false })) {
            got += (chunk as Buffer).length;
            yield chunk as Buffer;
          }
          if (got !== to - from + 1) throw new Error(`segment ${seg.path} is shorter than its recorded size`);
        } finally {
          await fh.close();
        }
      }
    }
    const stream = Readable.from(read(), { objectMode: false, highWaterMark });
    if (opts.autoClose !== false) stream.once('close', () => void this.close());
    return stream;
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.release();
  }
}
