import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { DownloadSink } from '../ports/index.ts';
import { createNodeHasherFactory } from '../node/hasher.ts';
import { OrderedHasher } from './ordered-hash.ts';
import { partRange, type PartPlan } from './part-size.ts';

const sha = (b: Uint8Array) => createHash('sha256').update(b).digest('hex');

function memorySink(size: number): DownloadSink & { bytes: Uint8Array; reads: number } {
  const bytes = new Uint8Array(size);
  const sink = {
    bytes,
    reads: 0,
    readsBeforeFlush: true,
    async write(offset: number, data: Uint8Array) {
      bytes.set(data, offset);
    },
    async flush() {},
    async read(offset: number, length: number) {
      sink.reads++;
      return bytes.slice(offset, offset + length);
    },
    async finalize() {},
    async abort() {},
  };
  return sink;
}

function data(size: number): Uint8Array {
  const out = new Uint8Array(size);
  for (let i = 0; i < size; i++) out[i] = (i * 7919 + (i >> 9)) & 0xff;
  return out;
}

async function writePart(h: OrderedHasher, sink: DownloadSink, plan: PartPlan, src: Uint8Array, n: number, chunk = 1000): Promise<void> {
  const { start, size } = partRange(plan, n);
  for (let off = 0; off < size; off += chunk) {
    const piece = src.subarray(start + off, start + Math.min(size, off + chunk));
    await sink.write(start + off, piece);
    await h.written(n, start + off, piece);
  }
}

const plan: PartPlan = { partSize: 10_000, partCount: 4, lastPartSize: 3_333 };
const SIZE = 33_333;

describe('OrderedHasher', () => {
  it('gives the file digest when parts finish out of order, reading back only what was ahead', async () => {
    const src = data(SIZE);
    const sink = memorySink(SIZE);
    const h = new OrderedHasher(await createNodeHasherFactory().create(), sink, plan, SIZE);
    await writePart(h, sink, plan, src, 3);
    await writePart(h, sink, plan, src, 4);
    await writePart(h, sink, plan, src, 1);
    await writePart(h, sink, plan, src, 2);
    expect(await h.digest()).toBe(sha(src));
    expect(sink.reads).toBeGreaterThan(0);
  });

  it('interleaved chunks of parallel parts hash in order', async () => {
    const src = data(SIZE);
    const sink = memorySink(SIZE);
    const h = new OrderedHasher(await createNodeHasherFactory().create(), sink, plan, SIZE);
    await Promise.all([1, 2, 3, 4].map((n) => writePart(h, sink, plan, src, n, 777)));
    expect(await h.digest()).toBe(sha(src));
  });

  it('counts parts already on the sink from an earlier run', async () => {
    const src = data(SIZE);
    const sink = memorySink(SIZE);
    sink.bytes.set(src.subarray(0, 20_000));
    const h = new OrderedHasher(await createNodeHasherFactory().create(), sink, plan, SIZE);
    h.complete(1);
    h.complete(2);
    await writePart(h, sink, plan, src, 4);
    await writePart(h, sink, plan, src, 3);
    expect(await h.digest()).toBe(sha(src));
  });

  it('hashes the bytes written, so corrupt data gives a different digest', async () => {
    const src = data(SIZE);
    const bad = src.slice();
    bad[15_000] = (bad[15_000] ?? 0) ^ 1;
    const sink = memorySink(SIZE);
    const h = new OrderedHasher(await createNodeHasherFactory().create(), sink, plan, SIZE);
    for (const n of [2, 1, 4, 3]) await writePart(h, sink, plan, bad, n);
    const digest = await h.digest();
    expect(digest).toBe(sha(bad));
    expect(digest).not.toBe(sha(src));
  });

  it('gives up (undefined) when a part is rewritten after part of it was hashed', async () => {
    const src = data(SIZE);
    const sink = memorySink(SIZE);
    const h = new OrderedHasher(await createNodeHasherFactory().create(), sink, plan, SIZE);
    await writePart(h, sink, plan, src, 1);
    h.restart(1);
    await writePart(h, sink, plan, src, 1);
    for (const n of [2, 3, 4]) await writePart(h, sink, plan, src, n);
    expect(await h.digest()).toBeUndefined();
  });

  it('a restart of a part not yet reached is harmless', async () => {
    const src = data(SIZE);
    const sink = memorySink(SIZE);
    const h = new OrderedHasher(await createNodeHasherFactory().create(), sink, plan, SIZE);
    await writePart(h, sink, plan, src, 3);
    h.restart(3);
    for (const n of [3, 1, 2, 4]) await writePart(h, sink, plan, src, n);
    expect(await h.digest()).toBe(sha(src));
  });

  it('an incomplete file gives undefined, not a digest of part of it', async () => {
    const src = data(SIZE);
    const sink = memorySink(SIZE);
    const h = new OrderedHasher(await createNodeHasherFactory().create(), sink, plan, SIZE);
    for (const n of [1, 2, 4]) await writePart(h, sink, plan, src, n);
    expect(await h.digest()).toBeUndefined();
  });

  it('with a sink verifier, reports only the contiguous written extent and takes the verifier\'s digest', async () => {
    const src = data(SIZE);
    const sink = memorySink(SIZE);
    const ends: number[] = [];
    const verifier = {
      advance: (end: number) => void ends.push(end),
      digest: async (size: number) => sha(sink.bytes.subarray(0, size)),
      dispose: () => {},
    };
    const h = new OrderedHasher(await createNodeHasherFactory().create(), sink, plan, SIZE, verifier);
    await writePart(h, sink, plan, src, 2);
    expect(ends).toEqual([]);
    await writePart(h, sink, plan, src, 1, 4000);
    expect(ends).toEqual([4000, 8000, 20_000]);
    await writePart(h, sink, plan, src, 4);
    await writePart(h, sink, plan, src, 3, 10_000);
    expect(ends.at(-1)).toBe(SIZE);
    expect(await h.digest()).toBe(sha(src));
    expect(sink.reads).toBe(0);

    const again = new OrderedHasher(await createNodeHasherFactory().create(), sink, plan, SIZE, verifier);
    await writePart(again, sink, plan, src, 1);
    again.restart(1);
    expect(await again.digest()).toBeUndefined();
  });
});
