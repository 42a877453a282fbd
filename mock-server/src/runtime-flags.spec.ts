// The server process restarts itself once with its V8 heap flags (same pid), keeps flags the operator gave,
// and can be told not to. Run in child processes: importing the module here would replace the test worker.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

const dir = mkdtempSync(join(tmpdir(), 'hcs-flags-'));
const script = join(dir, 'probe.mjs');
writeFileSync(script, `
await import(${JSON.stringify(new URL('./runtime-flags.ts', import.meta.url).href)});
console.log(JSON.stringify({ pid: process.pid, execArgv: process.execArgv, argv: process.argv.slice(2), mmap: process.env.MALLOC_MMAP_THRESHOLD_ ?? null }));
`);

async function probe(nodeArgs: string[], env: Record<string, string> = {}): Promise<{ spawnedPid: number; pid: number; execArgv: string[]; argv: string[]; mmap: string | null }> {
  const { HCS_NODE_TUNED: _t, HCS_NODE_TUNING: _o, NODE_OPTIONS: _n, MALLOC_MMAP_THRESHOLD_: _m, ...base } = process.env;
  const child = spawn(process.execPath, [...nodeArgs, script, 'a', 'b c'], { env: { ...base, ...env }, stdio: ['ignore', 'pipe', 'inherit'] });
  let out = '';
  child.stdout.on('data', (d: Buffer) => (out += d.toString()));
  const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
  expect(code).toBe(0);
  return { spawnedPid: child.pid!, ...JSON.parse(out) };
}

describe('runtime flags', () => {
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('restarts in place with the heap flags, arguments unchanged', async () => {
    const r = await probe([]);
    expect(r.pid).toBe(r.spawnedPid);
    expect(r.execArgv).toEqual(['--max-semi-space-size=16', '--heap-growing-percent=50', '--no-allocation-site-pretenuring']);
    expect(r.argv).toEqual(['a', 'b c']);
    expect(r.mmap).toBe('262144');
  });

  it('keeps what the operator chose, on the command line or in NODE_OPTIONS', async () => {
    expect((await probe(['--max-semi-space-size=32'])).execArgv.sort()).toEqual(['--heap-growing-percent=50', '--max-semi-space-size=32', '--no-allocation-site-pretenuring']);
    expect((await probe([], { NODE_OPTIONS: '--max-semi-space-size=8' })).execArgv).toEqual(['--heap-growing-percent=50', '--no-allocation-site-pretenuring']);
    // A switch either way, in either spelling.
    expect((await probe(['--allocation-site-pretenuring'])).execArgv.sort()).toEqual(['--allocation-site-pretenuring', '--heap-growing-percent=50', '--max-semi-space-size=16']);
    expect((await probe(['--no_allocation_site_pretenuring', '--heap_growing_percent=80'])).execArgv.sort()).toEqual(['--heap_growing_percent=80', '--max-semi-space-size=16', '--no_allocation_site_pretenuring']);
    expect((await probe([], { MALLOC_MMAP_THRESHOLD_: '65536' })).mmap).toBe('65536');
  });

  it('can be switched off', async () => {
    const off = await probe([], { HCS_NODE_TUNING: 'off' });
    expect([off.execArgv, off.mmap]).toEqual([[], null]);
  });
});
