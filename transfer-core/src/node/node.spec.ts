import { createHash } from 'node:crypto';
import { mkdtemp, readFile, readdir, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runWithClock } from '../test/fake-clock.ts';
import { harness, MiB } from '../test/harness.ts';
import { randomBytes } from '../test/memory-source.ts';
import { createDownloadSinkFactory, createFileSource, createHasherFactory, createResumeStore, DownloadTask, safeFileName, UploadTask } from './index.ts';

const sha = (b: Uint8Array) => createHash('sha256').update(b).digest('hex');
let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'tc-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('node adapters', () => {
  it('file source reads exact ranges and has a path+size+mtime identity', async () => {
    const data = randomBytes(3 * MiB + 7, 5);
    await writeFile(join(dir, 'a.bin'), data);
    const src = await createFileSource(join(dir, 'a.bin'));
    expect(src.size).toBe(data.byteLength);
    expect(src.identity).toMatch(/a\.bin:3145735:\d+$/);
    expect(sha(await src.read(MiB, 2 * MiB))).toBe(sha(data.subarray(MiB, 3 * MiB)));
    expect((await src.read(3 * MiB, MiB)).byteLength).toBe(7);
    await src.close();
  });

  it('node:crypto hasher matches SHA-256 and honours a hash-wasm checkpoint', async () => {
    const f = createHasherFactory();
    const data = randomBytes(100_000, 9);
    const h = await f.create();
    await h.update(data);
    expect(await h.digest()).toBe(sha(data));
    expect(f.checkpoints).toBe(false);
    const { createWasmHasherFactory } = await import('../core/wasm-hasher.ts');
    const w = await createWasmHasherFactory().create();
    await w.update(data.subarray(0, 40_000));
    const state = (await w.save())!;
    const resumed = await f.create(state);
    await resumed.update(data.subarray(40_000));
    expect(await resumed.digest()).toBe(sha(data));
  });

  it('resume store is a 0600 JSON file written atomically', async () => {
    const path = join(dir, 'state', 'transfers.json');
    const s = createResumeStore(path);
    await Promise.all([s.set('upload:a', { n: 1 }), s.set('upload:b', { n: 2 }), s.set('download:c', { n: 3 })]);
    await s.delete('upload:b');
    expect(JSON.parse(await readFile(path, 'utf8'))).toEqual({ 'upload:a': { n: 1 }, 'download:c': { n: 3 } });
    expect((await stat(path)).mode & 0o777).toBe(0o600);
    expect(await readdir(join(dir, 'state'))).toEqual(['transfers.json']);
    const again = createResumeStore(path);
    expect(await again.get('upload:a')).toEqual({ n: 1 });
    expect(await again.keys('download:')).toEqual(['download:c']);
  });

  it('file sink gathers chunks with writev at an offset (empty chunks skipped) and reads them back', async () => {
    const sink = await createDownloadSinkFactory({ dir }).open({ key: 'k', name: 'g.bin', size: 300_010, resume: false });
    const a = randomBytes(100_000, 1);
    const b = randomBytes(200_000, 2);
    await sink.write(0, new Uint8Array(10));
    await sink.writev!(10, [a, new Uint8Array(0), b]);
    const back = await sink.read(10, 300_000);
    expect(sha(back)).toBe(sha(new Uint8Array([...a, ...b])));
    await sink.finalize();
    expect((await stat(join(dir, 'g.bin'))).size).toBe(300_010);
  });

  it('file verifier hashes in a worker as far as the data is reported written, and fails on a short file', async () => {
    const { createFileVerifier } = await import('./file-verifier.ts');
    const data = randomBytes(3 * MiB + 5, 31);
    await writeFile(join(dir, 'v.part'), data);
    const v = createFileVerifier(join(dir, 'v.part'));
    v.advance(1000);
    v.advance(2 * MiB);
    v.advance(500); // never moves backwards
    expect(await v.digest(data.byteLength)).toBe(sha(data));
    v.dispose();

    const short = createFileVerifier(join(dir, 'v.part'));
    await expect(short.digest(data.byteLength + 10)).rejects.toThrow(/shorter/);
    short.dispose();
  });

  it('a file sink hashes in a worker thread only files of VERIFIER_MIN_BYTES and more', async () => {
    const { VERIFIER_MIN_BYTES } = await import('./download-sink.ts');
    const sinks = createDownloadSinkFactory({ dir });
    // Below it the engine hashes on its own thread: a worker's start costs more than hashing such a file.
    const small = await sinks.open({ key: 's', name: 's.bin', size: VERIFIER_MIN_BYTES - 1, resume: false });
    expect(small.readsBeforeFlush).toBe(true);
    expect(small.createVerifier).toBeUndefined();
    await small.abort();
    const big = await sinks.open({ key: 'b', name: 'b.bin', size: VERIFIER_MIN_BYTES, resume: false });
    const verifier = big.createVerifier!();
    expect(await verifier.digest(0)).toBe(sha(new Uint8Array(0)));
    verifier.dispose();
    await big.abort();
    expect(await readdir(dir)).toEqual([]);
  });

  it('safe file names cannot escape the target directory', () => {
    expect(safeFileName('../../etc/passwd')).toBe('.._.._etc_passwd');
    expect(safeFileName('..')).toBe('download');
    expect(safeFileName('a\u0000b')).toBe('a_b');
  });

  it('uploads a file from disk and downloads it back through a .part file', async () => {
    const h = harness({ hasherFactory: createHasherFactory(), resumeStore: createResumeStore(join(dir, 's.json')) });
    h.cp.partSize = 5 * MiB;
    const data = randomBytes(12 * MiB + 1, 21);
    await writeFile(join(dir, 'in.bin'), data);
    const src = await createFileSource(join(dir, 'in.bin'));
    const up = new UploadTask({ source: src, target: { parentId: 'root' } }, h.deps);
    await runWithClock(h.clock, up.run());
    await src.close();
    expect(up.status).toBe('success');
    const out = join(dir, 'out');
    await (await import('node:fs/promises')).mkdir(out);
    const down = new DownloadTask({ instanceId: up.result!.instanceId, sinks: createDownloadSinkFactory({ dir: out }) }, h.deps);
    await runWithClock(h.clock, down.run());
    expect(down.status).toBe('success');
    expect(await readdir(out)).toEqual(['in.bin']);
    expect(sha(await readFile(join(out, 'in.bin')))).toBe(sha(data));
  });

  it('a corrupt download leaves no file behind', async () => {
    const h = harness({ hasherFactory: createHasherFactory() });
    const data = randomBytes(1 * MiB, 2);
    const id = h.cp.seedFile('x.bin', data);
    const key = [...h.s3.objects.keys()][0]!;
    const stored = h.s3.objects.get(key)!;
    stored[5] = stored[5]! ^ 1;
    const down = new DownloadTask({ instanceId: id, sinks: createDownloadSinkFactory({ dir }) }, h.deps);
    await runWithClock(h.clock, down.run());
    expect(down.error?.code).toBe('202');
    expect(await readdir(dir)).toEqual([]);
  });
});
