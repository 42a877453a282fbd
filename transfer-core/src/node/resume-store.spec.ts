import { mkdtemp, readFile, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createFileResumeStore } from './resume-store.ts';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'tc-rs-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

const onDisk = async (path: string) => JSON.parse(await readFile(path, 'utf8')) as Record<string, unknown>;

describe('file resume store group commit', () => {
  it('every set is on disk when it resolves, even while other writes are in flight', async () => {
    const path = join(dir, 'state.json');
    const s = createFileResumeStore(path);
    const seen: string[] = [];
    await Promise.all(
      Array.from({ length: 60 }, async (_, i) => {
        await s.set(`upload:${i}`, { i });
        const disk = await onDisk(path);
        expect(disk[`upload:${i}`]).toEqual({ i });
        seen.push(`upload:${i}`);
      }),
    );
    expect(seen).toHaveLength(60);
    expect(Object.keys(await onDisk(path))).toHaveLength(60);
    expect(await readdir(dir)).toEqual(['state.json']);
  });

  it('interleaved sets and deletes end in the last state, in call order', async () => {
    const path = join(dir, 'state.json');
    const s = createFileResumeStore(path);
    const ops: Promise<void>[] = [];
    for (let i = 0; i < 30; i++) {
      ops.push(s.set(`k${i % 5}`, { i }));
      if (i % 3 === 0) ops.push(s.delete(`k${i % 5}`));
    }
    await Promise.all(ops);
    const expected: Record<string, unknown> = {};
    for (let i = 0; i < 30; i++) {
      expected[`k${i % 5}`] = { i };
      if (i % 3 === 0) delete expected[`k${i % 5}`];
    }
    expect(await onDisk(path)).toEqual(expected);
    expect(await createFileResumeStore(path).keys('k')).toEqual(Object.keys(expected));
  });

  it('a failed write rejects its callers and the next change is written', async () => {
    const path = join(dir, 'missing-parent', 'sub');
    const s = createFileResumeStore(join(path, 'state.json'));
    expect(await s.keys('')).toEqual([]);
    // The state file's directory cannot be created while a file sits at its parent's path.
    const { writeFile } = await import('node:fs/promises');
    await writeFile(join(dir, 'missing-parent'), 'x');
    await expect(s.set('a', 1)).rejects.toThrow();
    await rm(join(dir, 'missing-parent'));
    await s.set('b', 2);
    expect(await onDisk(join(path, 'state.json'))).toEqual({ a: 1, b: 2 });
  });
});
