// npm test's checks before the suites, in lanes: lint, the build, and each workspace's type check as a command of
// its own (`npm run typecheck` runs them one after another: 96 s here, the longest part of this stage), at most
// HCS_TEST_LANES at a time (default half the CPUs, at least 2). Every workspace in package.json is checked, so a new
// one needs no entry here.
import { availableParallelism } from 'node:os';
import { readFileSync } from 'node:fs';
import { runTogether } from './together.ts';

const root = new URL('../', import.meta.url);
const workspaces = (JSON.parse(readFileSync(new URL('package.json', root), 'utf8')) as { workspaces: string[] }).workspaces;
// The longest first (measured: tests 28 s, web 24, mock-server 16 ...); lint and the build fill in between.
const commands = [
  ...workspaces.map((w) => `npm run typecheck -w ${w} --if-present`),
  'npm run build',
  'npm run lint',
];
const order = ['tests', 'web', 'build', 'lint', 'mock-server'];
const rank = (c: string) => {
  const i = order.findIndex((o) => c.includes(` ${o}`) || c.endsWith(` ${o}`));
  return i === -1 ? order.length : i;
};
commands.sort((a, b) => rank(a) - rank(b));

const fromEnv = Number(process.env.HCS_TEST_LANES);
const lanes = Number.isInteger(fromEnv) && fromEnv >= 1 ? fromEnv : Math.max(2, Math.floor(availableParallelism() / 2));
process.exit(await runTogether(commands, lanes));
