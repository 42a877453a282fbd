// A streaming zip writer: entries are stored (no compression), names are UTF-8 (flag bit 11), sizes and CRCs
// follow each entry in a data descriptor, and zip64 records are used wherever a size, an offset or the entry
// count outgrows the classic format. Memory holds a few chunks of data plus ~50 bytes of central directory per
// entry; nothing is buffered per file.
//
// File data read through a positional reader goes through a small ring of reused buffers: a buffer is refilled
// only after the output's write callback said the socket is done with it. A fresh buffer per chunk would leave
// every sent chunk as garbage until the next GC, and with few JS objects allocated in between that is tens of
// MiB per zip (the server's RSS grew ~50 MiB per 1 GiB zip before).
import { crc32 } from 'node:zlib';
import type { Writable } from 'node:stream';

const MAX32 = 0xffffffff;
const MAX16 = 0xffff;
/** Read size: Node needs ~1 MiB reads to stream at disk speed. */
const CHUNK = 1 << 20;
/** Buffers in the ring: one being filled while the others are on their way to the client. */
const SLOTS = 3;
/** Headers and descriptors are small and unpooled; past this much unsent output the writer waits for 'drain'. */
const MAX_BUFFERED = 4 << 20;

/** Random access to an entry's bytes (FileHandle.read's shape). */
export interface PositionalReader {
  read(buffer: Buffer, offset: number, length: number, position: number): Promise<{ bytesRead: number }>;
}

export type EntryData = AsyncIterable<Buffer | Uint8Array> | PositionalReader;

interface CentralEntry {
  name: Buffer;
  crc: number;
  size: number;
  offset: number;
  isDir: boolean;
  dosTime: number;
  dosDate: number;
  zip64: boolean;
}

interface Slot {
  buf: Buffer;
  /** Settles once the output no longer needs `buf`. */
  sent: Promise<void>;
}

function dosDateTime(ms: number): { time: number; date: number } {
  const d = new Date(ms);
  const year = Math.max(1980, d.getFullYear());
  return {
    time: (d.getHours() << 11) | (d.getMinutes() << 5) | Math.floor(d.getSeconds() / 2),
    date: ((year - 1980) << 9) | ((d.getMonth() + 1) << 5) | d.getDate(),
  };
}

function isPositional(data: EntryData): data is PositionalReader {
  return typeof (data as PositionalReader).read === 'function' && !(Symbol.asyncIterator in data);
}

export class ZipWriter {
  private readonly out: Writable;
  private offset = 0;
  private readonly entries: CentralEntry[] = [];
  private readonly slots: Slot[] = [];
  private nextSlot = 0;
  /** Rejecters of everything waiting on the output; all fail at once when it closes. */
  private readonly waiting = new Set<(err: Error) => void>();
  private closedError: Error | undefined;

  constructor(out: Writable) {
    this.out = out;
    // One listener for the writer's lifetime (a listener per wait would pile up on a long zip).
    out.once('close', () => {
      this.closedError = new Error('the zip stream was closed');
      for (const fail of this.waiting) fail(this.closedError);
      this.waiting.clear();
    });
  }

  /** Bytes written so far. */
  get written(): number {
    return this.offset;
  }

  private checkOpen(): void {
    if (this.closedError || this.out.destroyed) throw this.closedError ?? new Error('the zip stream was closed');
  }

  /** A promise that also fails when the output closes first. */
  private guarded(start: (resolve: () => void, reject: (err: Error) => void) => void): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      if (this.closedError) return reject(this.closedError);
      const fail = (err: Error) => reject(err);
      this.waiting.add(fail);
      start(
        () => {
          this.waiting.delete(fail);
          resolve();
        },
        (err) => {
          this.waiting.delete(fail);
          reject(err);
        },
      );
    });
  }

  /** Writes a small unpooled buffer, waiting for 'drain' only when much output is queued. */
  private async write(buf: Buffer): Promise<void> {
    this.checkOpen();
    this.offset += buf.length;
    this.out.write(buf);
    if (this.out.writableLength > MAX_BUFFERED) await this.guarded((resolve) => this.out.once('drain', resolve));
  }

  /** Writes a ring buffer's bytes; the promise settles when the output is done with them. */
  private send(chunk: Buffer): Promise<void> {
    this.checkOpen();
    this.offset += chunk.length;
    const sent = this.guarded((resolve, reject) => this.out.write(chunk, (err) => (err ? reject(err) : resolve())));
    // Awaited before the buffer is reused; until then a failure must not count as unhandled.
    sent.catch(() => undefined);
    return sent;
  }

  private slot(): Slot {
    const i = this.nextSlot++ % SLOTS;
    let slot = this.slots[i];
    if (!slot) {
      slot = { buf: Buffer.allocUnsafeSlow(CHUNK), sent: Promise.resolve() };
      this.slots[i] = slot;
    }
    return slot;
  }

  /** A folder entry (kept so empty folders survive); `path` without the trailing slash. */
  async addDirectory(path: string, mtime: number): Promise<void> {
    await this.addEntry(path + '/', mtime, true, 0, undefined);
  }

  /** A file whose declared size is known (it decides zip64 up front); the data is streamed through. */
  async addFile(path: string, mtime: number, size: number, data: EntryData): Promise<void> {
    await this.addEntry(path, mtime, false, size, data);
  }

  private async addEntry(path: string, mtime: number, isDir: boolean, size: number, data: EntryData | undefined): Promise<void> {
    const name = Buffer.from(path, 'utf8');
    if (name.length > MAX16) throw new Error('entry name too long for zip');
    const { time, date } = dosDateTime(mtime);
    const offset = this.offset;
    const zip64 = size >= MAX32 || offset >= MAX32;
    const flags = 0x0800 | (isDir ? 0 : 0x0008);
    // Local header: with a data descriptor CRC and sizes are 0 here; a zip64 entry says so with its extra field.
    const extra = zip64 ? Buffer.alloc(20) : Buffer.alloc(0);
    if (zip64) {
      extra.writeUInt16LE(0x0001, 0);
      extra.writeUInt16LE(16, 2);
    }
    const h = Buffer.alloc(30);
    h.writeUInt32LE(0x04034b50, 0);
    h.writeUInt16LE(zip64 ? 45 : 20, 4);
    h.writeUInt16LE(flags, 6);
    h.writeUInt16LE(0, 8); // stored
    h.writeUInt16LE(time, 10);
    h.writeUInt16LE(date, 12);
    h.writeUInt32LE(0, 14);
    h.writeUInt32LE(zip64 ? MAX32 : 0, 18);
    h.writeUInt32LE(zip64 ? MAX32 : 0, 22);
    h.writeUInt16LE(name.length, 26);
    h.writeUInt16LE(extra.length, 28);
    await this.write(Buffer.concat([h, name, extra]));
    let crc = 0;
    let actual = 0;
    if (data && isPositional(data)) {
      while (actual < size) {
        const slot = this.slot();
        await slot.sent;
        const want = Math.min(CHUNK, size - actual);
        let got = 0;
        while (got < want) {
          const { bytesRead } = await data.read(slot.buf, got, want - got, actual + got);
          if (bytesRead === 0) throw new Error(`entry ${path}: ${actual + got} bytes read, ${size} expected`);
          got += bytesRead;
        }
        const chunk = slot.buf.subarray(0, want);
        crc = crc32(chunk, crc);
        actual += want;
        slot.sent = this.send(chunk);
      }
    } else if (data) {
      for await (const chunk of data) {
        const buf = Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
        crc = crc32(buf, crc);
        actual += buf.length;
        await this.write(buf);
      }
    }
    if (actual !== size) throw new Error(`entry ${path}: ${actual} bytes read, ${size} expected`);
    if (!isDir) {
      const dd = Buffer.alloc(zip64 ? 24 : 16);
      dd.writeUInt32LE(0x08074b50, 0);
      dd.writeUInt32LE(crc >>> 0, 4);
      if (zip64) {
        dd.writeBigUInt64LE(BigInt(size), 8);
        dd.writeBigUInt64LE(BigInt(size), 16);
      } else {
        dd.writeUInt32LE(size, 8);
        dd.writeUInt32LE(size, 12);
      }
      await this.write(dd);
    }
    this.entries.push({ name, crc: crc >>> 0, size, offset, isDir, dosTime: time, dosDate: date, zip64 });
  }

  /** Writes the central directory and the end records, then ends the output. */
  async finish(): Promise<void> {
    const cdStart = this.offset;
    for (const e of this.entries) {
      const needSize = e.size >= MAX32;
      const needOffset = e.offset >= MAX32;
      const extraLen = (needSize ? 16 : 0) + (needOffset ? 8 : 0);
      const extra = Buffer.alloc(extraLen ? 4 + extraLen : 0);
      if (extraLen) {
        extra.writeUInt16LE(0x0001, 0);
        extra.writeUInt16LE(extraLen, 2);
        let p = 4;
        if (needSize) {
          extra.writeBigUInt64LE(BigInt(e.size), p);
          extra.writeBigUInt64LE(BigInt(e.size), p + 8);
          p += 16;
        }
        if (needOffset) extra.writeBigUInt64LE(BigInt(e.offset), p);
      }
      const c = Buffer.alloc(46);
      c.writeUInt32LE(0x02014b50, 0);
      c.writeUInt16LE((3 << 8) | 45, 4); // made by: Unix, spec 4.5
      c.writeUInt16LE(e.zip64 || extraLen ? 45 : 20, 6);
      c.writeUInt16LE(0x0800 | (e.isDir ? 0 : 0x0008), 8);
      c.writeUInt16LE(0, 10);
      c.writeUInt16LE(e.dosTime, 12);
      c.writeUInt16LE(e.dosDate, 14);
      c.writeUInt32LE(e.crc, 16);
      c.writeUInt32LE(needSize ? MAX32 : e.size, 20);
      c.writeUInt32LE(needSize ? MAX32 : e.size, 24);
      c.writeUInt16LE(e.name.length, 28);
      c.writeUInt16LE(extra.length, 30);
      c.writeUInt16LE(0, 32);
      c.writeUInt16LE(0, 34);
      c.writeUInt16LE(0, 36);
      c.writeUInt32LE((e.isDir ? 0o40755 : 0o100644) * 0x10000 + (e.isDir ? 0x10 : 0), 38);
      c.writeUInt32LE(needOffset ? MAX32 : e.offset, 42);
      await this.write(Buffer.concat([c, e.name, extra]));
    }
    const cdSize = this.offset - cdStart;
    const count = this.entries.length;
    if (count >= MAX16 || cdStart >= MAX32 || cdSize >= MAX32 || this.entries.some((e) => e.zip64)) {
      const z = Buffer.alloc(56);
      const eocd64At = this.offset;
      z.writeUInt32LE(0x06064b50, 0);
      z.writeBigUInt64LE(44n, 4);
      z.writeUInt16LE((3 << 8) | 45, 12);
      z.writeUInt16LE(45, 14);
      z.writeUInt32LE(0, 16);
      z.writeUInt32LE(0, 20);
      z.writeBigUInt64LE(BigInt(count), 24);
      z.writeBigUInt64LE(BigInt(count), 32);
      z.writeBigUInt64LE(BigInt(cdSize), 40);
      z.writeBigUInt64LE(BigInt(cdStart), 48);
      const loc = Buffer.alloc(20);
      loc.writeUInt32LE(0x07064b50, 0);
      loc.writeUInt32LE(0, 4);
      loc.writeBigUInt64LE(BigInt(eocd64At), 8);
      loc.writeUInt32LE(1, 16);
      await this.write(Buffer.concat([z, loc]));
    }
    const end = Buffer.alloc(22);
    end.writeUInt32LE(0x06054b50, 0);
    end.writeUInt16LE(Math.min(count, MAX16), 8);
    end.writeUInt16LE(Math.min(count, MAX16), 10);
    end.writeUInt32LE(Math.min(cdSize, MAX32), 12);
    end.writeUInt32LE(Math.min(cdStart, MAX32), 16);
    await this.write(end);
    this.out.end();
  }
}
