import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Journal, readJournal } from './journal.ts';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'journal-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('Journal', () => {
  it('writes concurrent appends whole and in call order, each on disk when it resolves', async () => {
    const path = join(dir, 'j.jsonl');
    const j = new Journal<{ n: number }>(path);
    await j.open();
    const seen: number[] = [];
    await Promise.all(
      Array.from({ length: 200 }, async (_, n) => {
        await j.append({ n });
        const lines = (await readFile(path, 'utf8')).split('\n').filter(Boolean).map((l) => (JSON.parse(l) as { n: number }).n);
        expect(lines).toContain(n);
        seen.push(n);
      }),
    );
    await j.close();
    expect(seen).toHaveLength(200);
    expect((await readJournal<{ n: number }>(path)).map((r) => r.n)).toEqual(Array.from({ length: 200 }, (_, n) => n));
  });

  it('an append to a closed journal rejects without blocking later ones', async () => {
    const path = join(dir, 'k.jsonl');
    const j = new Journal<{ n: number }>(path);
    await expect(j.append({ n: 1 })).rejects.toThrow(/not open/);
    await j.open();
    await j.append({ n: 2 });
    await j.close();
    expect(await readJournal(path)).toEqual([{ n: 2 }]);
  });
});
