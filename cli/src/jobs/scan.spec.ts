// The upload scan is where local names meet the server's name rules: a name the server would refuse is reported
// here, as a per-file failure, and never sent.
import { mkdtemp, mkdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { scanSources } from './scan.ts';

const dirs: string[] = [];
afterEach(async () => {
  for (const d of dirs.splice(0)) await rm(d, { recursive: true, force: true });
});

describe('scanSources', () => {
  it('refuses files and folders whose names carry control characters, and uploads the rest', async () => {
    const root = await mkdtemp(join(tmpdir(), 'drive-scan-'));
    dirs.push(root);
    const top = join(root, 'pics');
    await mkdir(join(top, 'bell\u0007folder'), { recursive: true });
    await writeFile(join(top, 'ok.txt'), 'a');
    await writeFile(join(top, 'line\nbreak.txt'), 'b');
    await writeFile(join(top, 'bell\u0007folder', 'inside.txt'), 'c');
    const scan = await scanSources([top]);
    expect(scan.files.map((f) => f.rel.join('/'))).toEqual(['pics/ok.txt']);
    expect(scan.dirs).toEqual([['pics']]);
    expect(scan.problems.map((p) => [p.path.slice(top.length + 1), p.code])).toEqual([
      ['bell\u0007folder', 'NAME_INVALID'],
      ['line\nbreak.txt', 'NAME_INVALID'],
    ]);
    expect(scan.problems.every((p) => /control/.test(p.message))).toBe(true);
  });
});
