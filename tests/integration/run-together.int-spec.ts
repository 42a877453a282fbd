// tests/run-together.ts runs the PostgreSQL integration suite beside the browser suite. Stopped (CI's time limit, a
// developer's Ctrl-C sent to it alone), it must stop what it started: suites left running keep their servers, ports
// and browsers, and the next run meets them.
import { afterAll, describe, expect, it } from 'vitest';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../../', import.meta.url));
const work = mkdtempSync(join(tmpdir(), 'hcs-together-test-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

const alive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

/** A suite that records its pid, then a child of its own (as vitest starts servers and browsers), and waits. */
const suite = (name: string) =>
  `node -e "const fs=require('fs');const c=require('child_process').spawn(process.execPath,['-e','setInterval(()=>{},1000)'],{stdio:'ignore'});fs.writeFileSync('${join(work, name)}',process.pid+' '+c.pid);setInterval(()=>{},1000)"`;

describe('tests/run-together.ts', () => {
  for (const signal of ['SIGTERM', 'SIGINT'] as const)
    it(`stopped with ${signal}, it stops the suites it started and their children`, async () => {
      const names = [`${signal}-a`, `${signal}-b`];
      const runner = spawn(process.execPath, ['tests/run-together.ts', ...names.map(suite)], { cwd: root, stdio: 'ignore' });
      await expect.poll(() => names.every((n) => existsSync(join(work, n)) && readFileSync(join(work, n), 'utf8').includes(' ')), { timeout: 60_000 }).toBe(true);
      const pids = names.flatMap((n) => readFileSync(join(work, n), 'utf8').trim().split(' ').map(Number));
      expect(pids.every(alive)).toBe(true);
      runner.kill(signal);
      await once(runner, 'exit');
      await expect.poll(() => pids.filter(alive), { timeout: 30_000 }).toEqual([]);
    });
});
