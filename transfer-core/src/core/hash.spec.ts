import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { MemorySource, randomBytes } from '../test/memory-source.ts';
import { hashSource, type HashCheckpoint } from './hash.ts';
import { createWasmHasherFactory } from './wasm-hasher.ts';

describe('hashSource', () => {
  it('continues from a checkpoint instead of hashing from zero', async () => {
    const data = randomBytes(1_000_000, 4);
    const src = new MemorySource('a', data);
    const f = createWasmHasherFactory();
    const ctrl = new AbortController();
    let cp: HashCheckpoint | undefined;
    await expect(
      hashSource(src, f, {
        chunkSize: 100_000,
        signal: ctrl.signal,
        onCheckpoint: (c) => {
          cp = c;
          if (c.bytes === 600_000) ctrl.abort();
        },
      }),
    ).rejects.toBeDefined();
    expect(cp?.bytes).toBe(600_000);
    src.reads.length = 0;
    const hex = await hashSource(src, f, { chunkSize: 100_000, checkpoint: cp });
    expect(hex).toBe(createHash('sha256').update(data).digest('hex'));
    expect(src.reads[0]!.offset).toBe(600_000);
  });

  it('ignores a checkpoint of another file version', async () => {
    const data = randomBytes(300_000, 4);
    const src = new MemorySource('a', data, 'a:v2');
    const hex = await hashSource(src, createWasmHasherFactory(), { chunkSize: 100_000, checkpoint: { identity: 'a:v1', bytes: 100_000, state: 'AAAA' } });
    expect(hex).toBe(createHash('sha256').update(data).digest('hex'));
    expect(src.reads[0]!.offset).toBe(0);
  });
});
