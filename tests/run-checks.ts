// npm test's checks before the suites, in lanes: lint, the build, and each workspace's type check as a command of
// its own (`npm run typecheck` runs them one after another: 96 s here, the longest part of this stage), at most
// HCS_TEST_LANES at a time (default half the CPUs, at least 2). Every workspace in package.json is checked, so a new
// one needs no entry here.
import { readFileSync } from 'node:fs';
import { lanesFromEnv, runTogether } from './together.ts';

const root = new URL('../', import.meta.url);
const workspaces = (JSON.parse(readFileSync(new URL('package.json', root), 'utf8')) as { workspaces: string[] }).workspaces;
// The longest type checks first (measured: tests 28 s, web 24, mock-server 16, the others 4-12); lint and the build
// fill in after the first two.
const longest = ['tests', 'web', 'mock-server'].filter((w) => workspaces.includes(w));
const checks = [...longest, ...workspaces.filter((w) => !longest.includes(w))].map((w) => `npm run typecheck -w ${w} --if-present`);
// The build is skipped when its outputs are from these very sources (build-stamp.ts): in CI the README's start
// command has just built them.
const commands = [...checks.slice(0, 2), 'node tests/build-stamp.ts check || npm run build', 'npm run lint', ...checks.slice(2)];

process.exit(await runTogether(commands, lanesFromEnv()));
