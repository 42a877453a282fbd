// npm test's suites, in lanes: `node tests/run-suites.ts` (after the build; npm test runs it).
//
// The suites are the unit tests, the integration suites (integration, contract, CLI, crash, two nodes) on SQLite and
// again on PostgreSQL when HCS_TEST_DATABASE_URL is set, and the browser suite on SQLite. Each vitest run is serial
// within itself (one server at a time), and the three long ones are split into shards (vitest --shard, by file), so
// that a lane whose shard ends early takes the next one: on CI's two cores the lanes stay busy to the end, where two
// fixed pairs of suites left one lane idle for minutes while the longer of each pair finished.
//
// HCS_TEST_LANES sets how many run at once (default: half the CPUs, at least 2).
import { lanesFromEnv, runTogether, type Command } from './together.ts';

// The SQLite shards run last, so they are the smallest: with 3 (about 300 s each on CI) one lane sat idle for 163 s
// at the end while the other finished the last of them.
const SHARDS = { e2e: 6, pg: 6, sqlite: 6 };
const shards = (n: number, command: (shard: string) => string) => Array.from({ length: n }, (_, i) => command(`--shard=${i + 1}/${n}`));

// One browser shard at a time: the agent tests speak to the spec's fixed local ports (agent-handover.e2e-spec.ts), and
// a page of another shard could find that agent there.
const e2e = shards(SHARDS.e2e, (s) => `node tests/pg/suite.ts sqlite --project e2e ${s}`).map((command) => ({ command, group: 'browser' }));
const pg = shards(SHARDS.pg, (s) => `node tests/pg/suite.ts postgres --project tests ${s}`);
const sqlite = shards(SHARDS.sqlite, (s) => `node tests/pg/suite.ts sqlite --project tests ${s}`);

// The longest first: the unit tests (one run, threads of its own), then the browser and PostgreSQL shards in turn,
// then the SQLite integration shards.
const commands: Command[] = ['npm run test:unit'];
for (let i = 0; i < Math.max(e2e.length, pg.length); i++) commands.push(...[e2e[i], pg[i]].filter((c) => c !== undefined));
commands.push(...sqlite);

process.exit(await runTogether(commands, lanesFromEnv()));
