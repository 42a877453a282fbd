// The streamed zip as unzip sees it, with file data read through the writer's reused buffers into an output
// that holds on to chunks before consuming them (as a socket does), so a buffer refilled too early shows up as
// corrupt content; and an output closed mid-entry fails the writer instead of hanging it.
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { afterAll, describe, expect, it } from 'vitest';
import { ZipWriter, type PositionalReader } from './zip-writer.ts';

/** Serves `data` in reads of at most `max` bytes, like a file split in segments. */
function readerOf(data: Buffer, max = 300_000): PositionalReader & { reads: number } {
  return {
    reads: 0,
    async read(buffer, offset, length, position) {
      this.reads++;
      const n = Math.max(0, Math.min(length, max, data.length - position));
      data.copy(buffer, offset, position, position + n);
      return { bytesRead: n };
    },
  };
}

/** Reads each chunk only when it is consumed, a few ms after write(), like a slow socket. */
function slowSink(): { out: Writable; bytes: () => Buffer } {
  const parts: Buffer[] = [];
  const out = new Writable({
    highWaterMark: 64 * 1024,
    write(chunk: Buffer, _enc, cb) {
      setTimeout(() => {
        parts.push(Buffer.from(chunk));
        cb();
      }, 2);
    },
  });
  return { out, bytes: () => Buffer.concat(parts) };
}

describe('ZipWriter', () => {
  const dir = mkdtempSync(join(tmpdir(), 'hcs-zipw-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('writes entries unzip verifies byte for byte, through reused buffers', async () => {
    const big = randomBytes(5 * 1024 * 1024 + 12345);
    const streamed = randomBytes(70_000);
    const sink = slowSink();
    const finished = new Promise((resolve) => sink.out.on('finish', resolve));
    const zip = new ZipWriter(sink.out);
    await zip.addDirectory('top', Date.now());
    const reader = readerOf(big);
    await zip.addFile('top/big.bin', Date.now(), big.length, reader);
    await zip.addFile('top/empty', Date.now(), 0, readerOf(Buffer.alloc(0)));
    await zip.addFile('top/流.txt', Date.now(), streamed.length, (async function* () {
      yield streamed.subarray(0, 1000);
      yield new Uint8Array(streamed.subarray(1000));
    })());
    await zip.finish();
    await finished;
    expect(reader.reads).toBeGreaterThan(5);
    const file = join(dir, 'a.zip');
    writeFileSync(file, sink.bytes());
    expect(sink.bytes().length).toBe(zip.written);
    execFileSync('unzip', ['-tq', file]);
    expect(execFileSync('unzip', ['-Z1', file]).toString('utf8').trim().split('\n')).toEqual(['top/', 'top/big.bin', 'top/empty', 'top/流.txt']);
    expect(execFileSync('unzip', ['-p', file, 'top/big.bin'], { maxBuffer: 16 << 20 }).equals(big)).toBe(true);
    expect(execFileSync('unzip', ['-p', file, 'top/流.txt']).equals(streamed)).toBe(true);
  });

  it('refuses an entry shorter than its declared size', async () => {
    const zip = new ZipWriter(slowSink().out);
    await expect(zip.addFile('short', Date.now(), 2_000_000, readerOf(randomBytes(1_500_000)))).rejects.toThrow(/1500000 bytes read, 2000000 expected/);
  });

  it('fails instead of hanging when the output closes mid-entry', async () => {
    // An output that never consumes: only its closing can end the wait for a buffer.
    const out = new Writable({ highWaterMark: 1024, write() {} });
    const zip = new ZipWriter(out);
    const pending = zip.addFile('big', Date.now(), 8 << 20, readerOf(randomBytes(8 << 20)));
    setTimeout(() => out.destroy(), 20);
    await expect(pending).rejects.toThrow(/closed/);
  });
});
