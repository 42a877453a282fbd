// The chunked AES-256-GCM content of the embedded store: positional reads and streams give the plaintext back at any
// offset (chunk edges, file edges of a segmented object), a flipped byte or a chunk moved to another file fails
// authentication instead of returning altered bytes, and re-wrapping changes only the wrapped key.
import { randomBytes } from 'node:crypto';
import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Keyring } from '../master-key.ts';
import { CHUNK, EncryptedContent, dataKeyOf, encryptFile, encryptedSize, newObjectEncryption, rewrap } from './encryption.ts';

let dir: string;
const ring = Keyring.of(randomBytes(32));

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'hcs-enc-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function readAll(content: EncryptedContent, start?: number, end?: number): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const c of content.createReadStream({ start, end, autoClose: false })) chunks.push(c as Buffer);
  return Buffer.concat(chunks);
}

async function sealed(parts: Buffer[]): Promise<{ files: Array<{ path: string; size: number }>; key: Buffer; enc: ReturnType<typeof newObjectEncryption>['enc'] }> {
  const { enc, key } = newObjectEncryption(ring);
  const files: Array<{ path: string; size: number }> = [];
  for (const [i, p] of parts.entries()) {
    const plain = join(dir, `${randomBytes(4).toString('hex')}.plain`);
    const out = join(dir, `${randomBytes(4).toString('hex')}.data`);
    await writeFile(plain, p);
    await encryptFile(plain, out, key, enc, i + 1);
    files.push({ path: out, size: p.length });
  }
  return { files, key, enc };
}

describe('encrypted content', () => {
  it('reads back the plaintext at any offset, across chunks and files', async () => {
    const parts = [randomBytes(2 * CHUNK + 17), randomBytes(CHUNK), randomBytes(5)];
    const whole = Buffer.concat(parts);
    const { files, key, enc } = await sealed(parts);
    for (const [i, f] of files.entries()) {
      expect((await stat(f.path)).size).toBe(encryptedSize(parts[i]!.length));
      expect((await readFile(f.path)).includes(parts[i]!.subarray(0, 64))).toBe(false);
    }
    const content = new EncryptedContent(files, key, enc, 1, () => {});
    expect((await readAll(content)).equals(whole)).toBe(true);
    for (const [a, b] of [[0, 0], [CHUNK - 1, CHUNK], [2 * CHUNK + 10, 2 * CHUNK + 20], [whole.length - 6, whole.length - 1], [CHUNK + 3, 3 * CHUNK + 19]] as const) {
      expect((await readAll(content, a, b)).equals(whole.subarray(a, b + 1)), `${a}-${b}`).toBe(true);
    }
    const buf = Buffer.alloc(100);
    const { bytesRead } = await content.read(buf, 0, 100, CHUNK - 50);
    expect(bytesRead).toBe(50);
    expect(buf.subarray(0, 50).equals(whole.subarray(CHUNK - 50, CHUNK))).toBe(true);
    await content.close();
  });

  it('refuses altered ciphertext and chunks moved between files', async () => {
    const parts = [randomBytes(CHUNK + 100), randomBytes(CHUNK + 100)];
    const { files, key, enc } = await sealed(parts);
    const bytes = await readFile(files[0]!.path);
    bytes[10] = bytes[10]! ^ 1;
    await writeFile(files[0]!.path, bytes);
    await expect(readAll(new EncryptedContent(files, key, enc, 1, () => {}), 0, 20)).rejects.toThrow();
    // The second file's chunk 0 read as the first file's: its IV names another file, so its tag fails.
    const swapped = [files[1]!, files[0]!];
    await expect(readAll(new EncryptedContent(swapped, key, enc, 1, () => {}), 0, 20)).rejects.toThrow();
  });

  it('re-wrapping under a new master key keeps the data key and drops nothing', async () => {
    const { enc, key } = newObjectEncryption(ring);
    const next = Keyring.of(randomBytes(32), ring.current.key);
    const moved = rewrap(next, enc);
    expect(moved.wrappedKey).not.toBe(enc.wrappedKey);
    expect(next.sealsUnderCurrent(moved.wrappedKey)).toBe(true);
    expect(dataKeyOf(Keyring.of(next.current.key), moved).equals(key)).toBe(true);
    expect(() => dataKeyOf(Keyring.of(randomBytes(32)), moved)).toThrow(/no master key/);
  });
});
