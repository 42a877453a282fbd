// tests/run-together.ts (and tests/run-suites.ts, npm test's suites, through the same tests/together.ts) runs suites side
// by side in lanes. With --lanes N a command starts only when a lane is free. Stopped (CI's time limit, a developer's
// Ctrl-C sent to it alone), it must stop what it started and start nothing more: suites left running keep their
// servers, ports and browsers, and the next run meets them.
import { afterAll, describe, expect, it } from 'vitest';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { runTogether } from '../together.ts';

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

  it('with --lanes 1, the next command starts only when the one before it has ended, and the first failure is the exit status', async () => {
    const dir = join(work, 'lanes');
    const first = `node -e "const fs=require('fs');fs.mkdirSync('${dir}',{recursive:true});fs.writeFileSync('${join(dir, 'a-started')}','');const t=setInterval(()=>{if(fs.existsSync('${join(dir, 'a-release')}')){fs.writeFileSync('${join(dir, 'a-done')}','');clearInterval(t)}},50)"`;
    const second = `node -e "const fs=require('fs');fs.writeFileSync('${join(dir, 'b-started')}',fs.existsSync('${join(dir, 'a-done')}')?'after a':'beside a');process.exit(3)"`;
    const third = `node -e "require('fs').writeFileSync('${join(dir, 'c-started')}','');process.exit(4)"`;
    const runner = spawn(process.execPath, ['tests/run-together.ts', '--lanes', '1', first, second, third], { cwd: root, stdio: 'ignore' });
    await expect.poll(() => existsSync(join(dir, 'a-started')), { timeout: 60_000 }).toBe(true);
    writeFileSync(join(dir, 'a-release'), '');
    const [code] = (await once(runner, 'exit')) as [number];
    expect(readFileSync(join(dir, 'b-started'), 'utf8')).toBe('after a');
    expect(existsSync(join(dir, 'c-started'))).toBe(true);
    expect(code).toBe(3);
  });

  it('stopped while commands wait for a lane, it starts none of them', async () => {
    const dir = join(work, 'queued');
    const running = `node -e "const fs=require('fs');fs.mkdirSync('${dir}',{recursive:true});fs.writeFileSync('${join(dir, 'running')}',String(process.pid));setInterval(()=>{},1000)"`;
    const queued = `node -e "require('fs').writeFileSync('${join(dir, 'queued-started')}','')"`;
    const runner = spawn(process.execPath, ['tests/run-together.ts', '--lanes', '1', running, queued], { cwd: root, stdio: 'ignore' });
    await expect.poll(() => existsSync(join(dir, 'running')) && readFileSync(join(dir, 'running'), 'utf8') !== '', { timeout: 60_000 }).toBe(true);
    const pid = Number(readFileSync(join(dir, 'running'), 'utf8'));
    runner.kill('SIGTERM');
    await once(runner, 'exit');
    await expect.poll(() => alive(pid), { timeout: 30_000 }).toBe(false);
    // The runner has exited: nothing of it is left to start the queued command.
    expect(existsSync(join(dir, 'queued-started'))).toBe(false);
  });

  it('never runs two commands of one group at once, and gives the lane to a command of another group meanwhile', async () => {
    const dir = join(work, 'groups');
    mkdirSync(dir, { recursive: true });
    // a1 runs until released; a2 (its group) must wait for it, while b (no group) takes the second lane at once.
    const a1 = `node -e "const fs=require('fs');fs.writeFileSync('${join(dir, 'a1-started')}','');const t=setInterval(()=>{if(fs.existsSync('${join(dir, 'a1-release')}')){fs.writeFileSync('${join(dir, 'a1-done')}','');clearInterval(t)}},50)"`;
    const a2 = `node -e "const fs=require('fs');fs.writeFileSync('${join(dir, 'a2-started')}',fs.existsSync('${join(dir, 'a1-done')}')?'after a1':'beside a1')"`;
    const b = `node -e "require('fs').writeFileSync('${join(dir, 'b-started')}','')"`;
    const ran = runTogether([{ command: a1, group: 'g' }, { command: a2, group: 'g' }, b], 2);
    await expect.poll(() => existsSync(join(dir, 'a1-started')) && existsSync(join(dir, 'b-started')), { timeout: 60_000 }).toBe(true);
    writeFileSync(join(dir, 'a1-release'), '');
    expect(await ran).toBe(0);
    expect(readFileSync(join(dir, 'a2-started'), 'utf8')).toBe('after a1');
  });
});
