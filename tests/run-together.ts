// Runs commands side by side: `node tests/run-together.ts [--lanes N] "<command>" "<command>" ...`.
// Without --lanes all start at once; with it, at most N run at a time, each starting when a lane is free, in the order
// given. Each command's output is printed whole when it ends; the exit status is the first failure's, or 0. Stopping
// the runner (SIGINT, SIGTERM) stops every command it started, with its children. npm test uses it through
// tests/run-suites.ts.
import { runTogether } from './together.ts';

const args = process.argv.slice(2);
let lanes: number | undefined;
if (args[0] === '--lanes') {
  lanes = Number(args[1]);
  args.splice(0, 2);
  if (!Number.isInteger(lanes) || lanes < 1) {
    console.error('--lanes takes a whole number of at least 1');
    process.exit(2);
  }
}
if (args.length === 0) {
  console.error('usage: node tests/run-together.ts [--lanes N] "<command>" ["<command>" ...]');
  process.exit(2);
}
process.exit(await runTogether(args, lanes));
