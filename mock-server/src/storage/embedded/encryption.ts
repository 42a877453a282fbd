// Encryption at rest of the embedded store. An object of an encrypted bucket gets its own random 256-bit data key,
// kept in its metadata wrapped (sealed) by the master key, so rotating the master key rewrites metadata, never
// content. Content is AES-256-GCM in independent chunks of CHUNK plaintext bytes, each followed by its 16-byte tag:
// a ranged read decrypts only the chunks it touches, and every chunk is authenticated on its own. The IV of a chunk
// is the object's random 4-byte nonce, the content file's index and the chunk's index, so no IV repeats under a key
// and a chunk moved to another place or file fails its tag.
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { open, type FileHandle } from 'node:fs/promises';
import { Readable } from 'node:stream';
import { open as unseal, seal, type Keyring } from '../master-key.ts';
import type { ContentHandle, ContentReadOptions } from './content.ts';

export const CHUNK = 64 * 1024;
const TAG = 16;
const DATA_KEY_AAD = 'hcs-embedded-object-data-key';

export interface ObjectEncryption {
  alg: 'aes-256-gcm-chunked';
  chunk: number;
  /** Hex, 4 bytes. */
  nonce: string;
  /** The data key sealed by the master key (master-key.ts `seal`, which names the master key's id). */
  wrappedKey: string;
}

export function newObjectEncryption(ring: Keyring): { enc: ObjectEncryption; key: Buffer } {
  const key = randomBytes(32);
  return { key, enc: { alg: 'aes-256-gcm-chunked', chunk: CHUNK, nonce: randomBytes(4).toString('hex'), wrappedKey: seal(ring, key, DATA_KEY_AAD) } };
}

export function dataKeyOf(ring: Keyring, enc: ObjectEncryption): Buffer {
  return unseal(ring, enc.wrappedKey, DATA_KEY_AAD);
}

/** The same data key sealed under the keyring's current master key. */
export function rewrap(ring: Keyring, enc: ObjectEncryption): ObjectEncryption {
  return { ...enc, wrappedKey: seal(ring, dataKeyOf(ring, enc), DATA_KEY_AAD) };
}

function iv(nonce: Buffer, file: number, chunk: number): Buffer {
  const out = Buffer.alloc(12);
  nonce.copy(out, 0);
  out.writeUInt32BE(file, 4);
  out.writeUInt32BE(chunk, 8);
  return out;
}

/** Bytes on disk of `size` plaintext bytes. */
export function encryptedSize(size: number, chunk = CHUNK): number {
  return size + Math.ceil(size / chunk) * TAG;
}

/** Writes `src` encrypted to `dst` (created, fsynced) as content file number `file` of the object. */
export async function encryptFile(src: string, dst: string, key: Buffer, enc: ObjectEncryption, file: number): Promise<void> {
  const input = await open(src, 'r');
  let output: FileHandle | undefined;
  try {
    output = await open(dst, 'wx', 0o600);
    const nonce = Buffer.from(enc.nonce, 'hex');
    const buf = Buffer.allocUnsafe(enc.chunk);
    let pos = 0;
    for (let index = 0; ; index++) {
      let got = 0;
      while (got < enc.chunk) {
        const { bytesRead } = await input.read(buf, got, enc.chunk - got, pos + got);
        if (bytesRead === 0) break;
        got += bytesRead;
      }
      if (got === 0) break;
      pos += got;
      const cipher = createCipheriv('aes-256-gcm', key, iv(nonce, file, index));
      const ct = Buffer.concat([cipher.update(buf.subarray(0, got)), cipher.final(), cipher.getAuthTag()]);
      await output.write(ct);
      if (got < enc.chunk) break;
    }
    await output.sync();
  } finally {
    await output?.close();
    await input.close();
  }
}

/** Reads the plaintext of encrypted content files (sizes are plaintext sizes), decrypting only the chunks read. */
export class EncryptedContent implements ContentHandle {
  private readonly files: ReadonlyArray<{ path: string; size: number }>;
  private readonly key: Buffer;
  private readonly enc: ObjectEncryption;
  private readonly nonce: Buffer;
  private readonly release: () => void;
  /** The IV's file number of files[0]: 0 for a single content file, 1 for the first segment (encryptFile's `file`). */
  private readonly firstIndex: number;
  private closed = false;
  private current: { index: number; fh: FileHandle } | undefined;
  /** The last chunk decrypted, so sequential small reads decrypt each chunk once. */
  private cached: { file: number; chunk: number; plain: Buffer } | undefined;

  constructor(files: ReadonlyArray<{ path: string; size: number }>, key: Buffer, enc: ObjectEncryption, firstIndex: number, release: () => void) {
    this.files = files;
    this.firstIndex = firstIndex;
    this.key = key;
    this.enc = enc;
    this.nonce = Buffer.from(enc.nonce, 'hex');
    this.release = release;
  }

  private async handle(index: number): Promise<FileHandle> {
    if (this.current?.index === index) return this.current.fh;
    const previous = this.current;
    this.current = undefined;
    await previous?.fh.close();
    this.current = { index, fh: await open(this.files[index]!.path, 'r') };
    return this.current.fh;
  }

  private async chunk(file: number, chunk: number): Promise<Buffer> {
    if (this.cached?.file === file && this.cached.chunk === chunk) return this.cached.plain;
    const size = this.files[file]!.size;
    const plainLen = Math.min(this.enc.chunk, size - chunk * this.enc.chunk);
    const raw = Buffer.allocUnsafe(plainLen + TAG);
    const fh = await this.handle(file);
    let got = 0;
    const at = chunk * (this.enc.chunk + TAG);
    while (got < raw.length) {
      const { bytesRead } = await fh.read(raw, got, raw.length - got, at + got);
      if (bytesRead === 0) throw new Error(`encrypted content ${this.files[file]!.path} is shorter than its recorded size`);
      got += bytesRead;
    }
    const decipher = createDecipheriv('aes-256-gcm', this.key, iv(this.nonce, this.firstIndex + file, chunk));
    decipher.setAuthTag(raw.subarray(plainLen));
    const plain = Buffer.concat([decipher.update(raw.subarray(0, plainLen)), decipher.final()]);
    this.cached = { file, chunk, plain };
    return plain;
  }

  async read(buffer: Buffer, offset: number, length: number, position: number): Promise<{ bytesRead: number }> {
    if (this.closed) throw new Error('the content handle is closed');
    let base = 0;
    for (let file = 0; file < this.files.length; file++) {
      const size = this.files[file]!.size;
      if (position >= base + size) {
        base += size;
        continue;
      }
      const inFile = position - base;
      const index = Math.floor(inFile / this.enc.chunk);
      const plain = await this.chunk(file, index);
      const from = inFile - index * this.enc.chunk;
      const n = Math.min(length, plain.length - from);
      if (n <= 0) return { bytesRead: 0 };
      plain.copy(buffer, offset, from, from + n);
      return { bytesRead: n };
    }
    return { bytesRead: 0 };
  }

  createReadStream(opts: ContentReadOptions = {}): Readable {
    const total = this.files.reduce((n, f) => n + f.size, 0);
    const start = opts.start ?? 0;
    const end = Math.min(opts.end ?? total - 1, total - 1);
    const chunkSize = this.enc.chunk;
    const read = (buf: Buffer, length: number, position: number) => this.read(buf, 0, length, position);
    async function* chunks(): AsyncGenerator<Buffer> {
      const buf = Buffer.allocUnsafe(chunkSize);
      for (let pos = start; pos <= end;) {
        const { bytesRead } = await read(buf, Math.min(buf.length, end - pos + 1), pos);
        if (bytesRead === 0) throw new Error('encrypted content ended before its recorded size');
        // A copy: the next read reuses buf while the consumer may still hold this chunk.
        yield Buffer.from(buf.subarray(0, bytesRead));
        pos += bytesRead;
      }
    }
    const stream = Readable.from(chunks(), { objectMode: false, highWaterMark: opts.highWaterMark ?? 1 << 20 });
    if (opts.autoClose !== false) stream.once('close', () => void this.close());
    return stream;
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    const current = this.current;
    this.current = undefined;
    this.cached = undefined;
    try {
      await current?.fh.close();
    } finally {
      this.release();
    }
  }
}
