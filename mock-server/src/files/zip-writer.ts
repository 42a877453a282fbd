// A streaming zip writer: entries are stored (no compression), names are UTF-8 (flag bit 11), sizes and CRCs
// follow each entry in a data descriptor, and zip64 records are used wherever a size, an offset or the entry
// count outgrows the classic format. Memory holds one chunk of data plus ~50 bytes of central directory per
// entry; nothing is buffered per file.
import { crc32 } from 'node:zlib';
import type { Readable, Writable } from 'node:stream';
import { once } from 'node:events';

const MAX32 = 0xffffffff;
const MAX16 = 0xffff;

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

function dosDateTime(ms: number): { time: number; date: number } {
  const d = new Date(ms);
  const year = Math.max(1980, d.getFullYear());
  return {
    time: (d.getHours() << 11) | (d.getMinutes() << 5) | Math.floor(d.getSeconds() / 2),
    date: ((year - 1980) << 9) | ((d.getMonth() + 1) << 5) | d.getDate(),
  };
}

export class ZipWriter {
  private readonly out: Writable;
  private offset = 0;
  private readonly entries: CentralEntry[] = [];

  constructor(out: Writable) {
    this.out = out;
  }

  /** Bytes written so far. */
  get written(): number {
    return this.offset;
  }

  private async write(buf: Buffer): Promise<void> {
    if (this.out.destroyed) throw new Error('the zip stream was closed');
    this.offset += buf.length;
    if (!this.out.write(buf)) await Promise.race([once(this.out, 'drain'), once(this.out, 'close')]);
  }

  /** A folder entry (kept so empty folders survive); `path` without the trailing slash. */
  async addDirectory(path: string, mtime: number): Promise<void> {
    await this.addEntry(path + '/', mtime, true, 0, undefined);
  }

  /** A file whose declared size is known (it decides zip64 up front); the data is streamed through. */
  async addFile(path: string, mtime: number, size: number, data: AsyncIterable<Buffer | Uint8Array> | Readable): Promise<void> {
    await this.addEntry(path, mtime, false, size, data);
  }

  private async addEntry(path: string, mtime: number, isDir: boolean, size: number, data: AsyncIterable<Buffer | Uint8Array> | undefined): Promise<void> {
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
    if (data) {
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
