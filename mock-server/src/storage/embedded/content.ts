// Reading an object's content: one file (a FileHandle) or the segments of a completed multipart upload,
// streamed in order as if they were one file. Both are read through the same three calls: a stream, or
// positional reads into a caller's buffer (which lets a reader reuse one buffer instead of allocating a new
// one per chunk, the churn that otherwise piles up dead buffers until the next GC).
import { open, type FileHandle } from 'node:fs/promises';
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
  /** Reads up to `length` bytes at content offset `position` into `buffer` at `offset` (FileHandle.read's shape). */
  read(buffer: Buffer, offset: number, length: number, position: number): Promise<{ bytesRead: number }>;
  close(): Promise<void>;
}

export class SegmentedContent implements ContentHandle {
  private readonly segments: ReadonlyArray<{ path: string; size: number }>;
  private readonly release: () => void;
  private closed = false;
  /** The segment positional reads are in, kept open while reads stay in it. */
  private current: { index: number; fh: FileHandle } | undefined;

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

  async read(buffer: Buffer, offset: number, length: number, position: number): Promise<{ bytesRead: number }> {
    if (this.closed) throw new Error('the content handle is closed');
    let base = 0;
    for (let index = 0; index < this.segments.length; index++) {
      const seg = this.segments[index]!;
      if (position >= base + seg.size) {
        base += seg.size;
        continue;
      }
      const want = Math.min(length, base + seg.size - position);
      if (want <= 0) return { bytesRead: 0 };
      if (this.current?.index !== index) {
        const previous = this.current;
        this.current = undefined;
        await previous?.fh.close();
        this.current = { index, fh: await open(seg.path, 'r') };
      }
      const { bytesRead } = await this.current.fh.read(buffer, offset, want, position - base);
      if (bytesRead === 0) throw new Error(`segment ${seg.path} is shorter than its recorded size`);
      return { bytesRead };
    }
    return { bytesRead: 0 };
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    const current = this.current;
    this.current = undefined;
    try {
      await current?.fh.close();
    } finally {
      this.release();
    }
  }
}
