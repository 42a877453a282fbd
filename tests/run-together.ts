// Runs test suites side by side: `node tests/run-together.ts "<command>" "<command>" ...`.
// npm test runs the unit tests beside the SQLite integration suite, then the PostgreSQL integration suite beside the
// browser suite: each is serial within itself (one server
// at a time) and leaves most of a core idle while it waits on a database, a browser or the network, so together they
// take about as long as the longer one instead of their sum (CI's 30-minute budget on 2 cores). Each suite's output
// goes to its own log, printed whole when the suite ends, so the two never interleave; the exit status is the first
// failure's, or 0.
import { spawn, type ChildProcess } from 'node:child_process';
import { createWriteStream, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const commands = process.argv.slice(2);
if (commands.length === 0) {
  console.error('usage: node tests/run-together.ts "<command>" ["<command>" ...]');
  process.exit(2);
}
const dir = mkdtempSync(join(tmpdir(), 'hcs-together-'));
const started = Date.now();
const seconds = () => Math.round((Date.now() - started) / 1000);

const children: ChildProcess[] = [];
const runs = commands.map(
  (command, n) =>
    new Promise<number>((resolve) => {
      const log = join(dir, `${n}.log`);
      const out = createWriteStream(log);
      console.log(`[together] started: ${command} (output: ${log})`);
      // Its own process group, so that stopping the runner can stop the suite's whole tree (the shell, vitest, its
      // servers and browsers); a signal to the runner alone would otherwise leave them running.
      const child = spawn(command, { shell: true, detached: true, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, FORCE_COLOR: '0' } });
      children.push(child);
      child.stdout.pipe(out, { end: false });
      child.stderr.pipe(out, { end: false });
      child.on('close', (code, signal) => {
        out.end(() => {
          const status = code ?? (signal ? 1 : 0);
          console.log(`\n[together] ===== ${command}: exit ${status}${signal ? ` (${signal})` : ''} after ${seconds()} s =====`);
          process.stdout.write(readFileSync(log));
          resolve(status);
        });
      });
    }),
);

// Stopping the runner stops the suites (their servers and browsers with them).
for (const sig of ['SIGINT', 'SIGTERM'] as const)
  process.on(sig, () => {
    for (const c of children) if (c.pid !== undefined && c.exitCode === null) {
      try {
        process.kill(-c.pid, sig);
      } catch {
        // already gone
      }
    }
    process.exit(130);
  });

const statuses = await Promise.all(runs);
const failed = statuses.findIndex((s) => s !== 0);
console.log(`[together] ${commands.length} suites in ${seconds()} s: ${statuses.map((s, i) => `${commands[i]} -> ${s}`).join('; ')}`);
process.exit(failed === -1 ? 0 : statuses[failed]!);
