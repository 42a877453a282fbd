// Runs commands side by side in a few lanes: each command starts when a lane is free, in the order given, so a short
// suite that ends early hands its lane to the next one instead of leaving it idle until the longest is done.
// Commands of one group (the browser suite's shards: its agent tests use the spec's fixed local ports) run one at a
// time. Each command's output goes to its own log, printed whole when it ends, so outputs never interleave. Used by
// tests/run-together.ts (any commands), tests/run-checks.ts and tests/run-suites.ts (npm test's checks and suites).
import { spawn, type ChildProcess } from 'node:child_process';
import { createWriteStream, mkdtempSync, readFileSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';

/** How many commands run at once: HCS_TEST_LANES, or half the CPUs and at least 2. */
export function lanesFromEnv(): number {
  const fromEnv = Number(process.env.HCS_TEST_LANES);
  return Number.isInteger(fromEnv) && fromEnv >= 1 ? fromEnv : Math.max(2, Math.floor(availableParallelism() / 2));
}

/** A command, and optionally a group: commands of one group never run at the same time (they share something). */
export type Command = string | { command: string; group: string };

/**
 * Runs `commands` at most `lanes` at a time, each when a lane is free and no other command of its group is running
 * (the first such in the order given); resolves to the first failure's exit status, or 0.
 */
export async function runTogether(list: readonly Command[], lanes = list.length): Promise<number> {
  const commands = list.map((c) => (typeof c === 'string' ? c : c.command));
  const groups = list.map((c) => (typeof c === 'string' ? undefined : c.group));
  const dir = mkdtempSync(join(tmpdir(), 'hcs-together-'));
  const started = Date.now();
  const seconds = () => Math.round((Date.now() - started) / 1000);
  const children: ChildProcess[] = [];
  let stopping = false;

  // Stopping the runner stops the commands (their servers and browsers with them) and starts no more.
  const stop = (sig: NodeJS.Signals) => {
    stopping = true;
    for (const c of children)
      if (c.pid !== undefined && c.exitCode === null && c.signalCode === null) {
        try {
          process.kill(-c.pid, sig);
        } catch {
          // already gone
        }
      }
    process.exit(130);
  };
  for (const sig of ['SIGINT', 'SIGTERM'] as const) process.on(sig, stop);

  const run = (command: string, n: number) =>
    new Promise<{ status: number; took: number }>((resolve) => {
      const log = join(dir, `${n}.log`);
      const out = createWriteStream(log);
      const from = Date.now();
      console.log(`[together] ${seconds()} s: started ${command} (output: ${log})`);
      // Its own process group, so that stopping the runner can stop the command's whole tree (the shell, vitest,
      // its servers and browsers); a signal to the runner alone would otherwise leave them running.
      const child = spawn(command, { shell: true, detached: true, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, FORCE_COLOR: '0' } });
      children.push(child);
      child.stdout.pipe(out, { end: false });
      child.stderr.pipe(out, { end: false });
      child.on('close', (code, signal) => {
        out.end(() => {
          const status = code ?? (signal ? 1 : 0);
          const took = Math.round((Date.now() - from) / 1000);
          console.log(`\n[together] ===== ${command}: exit ${status}${signal ? ` (${signal})` : ''} after ${took} s (at ${seconds()} s) =====`);
          process.stdout.write(readFileSync(log));
          resolve({ status, took });
        });
      });
    });

  const results: Array<{ status: number; took: number } | undefined> = [];
  const waiting = commands.map((_, n) => n);
  const busy = new Set<string>();
  let running = 0;
  await new Promise<void>((done) => {
    const fill = () => {
      while (!stopping && running < Math.max(1, lanes)) {
        const at = waiting.findIndex((n) => groups[n] === undefined || !busy.has(groups[n]!));
        if (at === -1) break;
        const [n] = waiting.splice(at, 1) as [number];
        const group = groups[n];
        if (group !== undefined) busy.add(group);
        running++;
        void run(commands[n]!, n).then((r) => {
          results[n] = r;
          running--;
          if (group !== undefined) busy.delete(group);
          fill();
        });
      }
      if (running === 0) done();
    };
    fill();
  });
  for (const sig of ['SIGINT', 'SIGTERM'] as const) process.off(sig, stop);
  const statuses = results.map((r) => r?.status ?? 1);
  console.log(`[together] ${commands.length} commands in ${seconds()} s, ${lanes} at a time:`);
  for (const [i, c] of commands.entries()) console.log(`[together]   ${c} -> exit ${statuses[i]} after ${results[i]?.took ?? '-'} s`);
  const failed = statuses.findIndex((s) => s !== 0);
  return failed === -1 ? 0 : statuses[failed]!;
}
