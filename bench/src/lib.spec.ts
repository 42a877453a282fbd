// The benchmark's own building blocks must be right, or its ratios mean nothing.
import { describe, expect, it } from 'vitest';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createHash } from 'node:crypto';
import { writeRandomFile, MiB, mbps } from './lib.ts';
import { startRawServer } from './raw-server.ts';

describe('bench building blocks', () => {
  it('writes random files of the exact size whose 1 MiB blocks differ (nothing a store could deduplicate)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'bench-spec-'));
    try {
      const file = join(dir, 'r.bin');
      await writeRandomFile(file, 3 * MiB + 5);
      expect(statSync(file).size).toBe(3 * MiB + 5);
      const buf = readFileSync(file);
      const blocks = [0, 1, 2].map((i) => createHash('sha256').update(buf.subarray(i * MiB, (i + 1) * MiB)).digest('hex'));
      expect(new Set(blocks).size).toBe(3);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('the raw baseline server stores and returns the same bytes', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'bench-raw-'));
    const raw = await startRawServer(dir);
    try {
      const body = Buffer.from('baseline bytes '.repeat(1000));
      expect((await fetch(`${raw.url}/x.bin`, { method: 'PUT', body })).status).toBe(200);
      const back = Buffer.from(await (await fetch(`${raw.url}/x.bin`)).arrayBuffer());
      expect(back.equals(body)).toBe(true);
      // Names cannot escape the folder.
      expect((await fetch(`${raw.url}/..%2Fescape`, { method: 'PUT', body })).status).toBe(200);
      expect(statSync(join(dir, '.._escape')).size).toBe(body.length);
    } finally {
      await raw.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('computes MiB/s', () => {
    expect(mbps(100 * MiB, 2000)).toBe(50);
  });
});
