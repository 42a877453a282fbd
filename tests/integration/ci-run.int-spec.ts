// The CI entry point (.ci/run) is only ever run whole by CI, where a mistake in it shows up as a missing suite
// rather than a failure. Here the real script runs in a copy of the tree whose helpers (fresh-machine check,
// radosgw, PostgreSQL, .ci/drive, apt-get) are stubs that record what they were asked and what they saw: the
// integration suites' PostgreSQL pass must get its database, and both servers must be stopped afterwards.
import { afterAll, describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { chmodSync, copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../../', import.meta.url));
const work = mkdtempSync(join(tmpdir(), 'hcs-ci-run-'));
const log = join(work, 'calls.log');

/** A stub that appends its name, arguments and the test variables it sees to the log, and prints `out`. */
function stub(path: string, name: string, out = ''): void {
  mkdirSync(join(path, '..'), { recursive: true });
  writeFileSync(
    path,
    `#!/usr/bin/env bash\necho "${name} $* db=\${HCS_TEST_DATABASE_URL:-} s3=\${HCS_TEST_S3_ENDPOINT:-}" >> "${log}"\n${out}`,
  );
  chmodSync(path, 0o755);
}

const env = (lines: string[]) => `if [ "$1" = env ]; then printf '%s\\n' ${lines.map((l) => `'${l}'`).join(' ')}; fi\n`;

afterAll(() => rmSync(work, { recursive: true, force: true }));

describe('.ci/run', () => {
  it('is valid bash', () => {
    const r = spawnSync('bash', ['-n', join(root, '.ci/run')], { encoding: 'utf8' });
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
  });

  it('runs the README test command with a PostgreSQL and a radosgw started for it, and stops both after', () => {
    const tree = join(work, 'repo');
    mkdirSync(join(tree, '.ci'), { recursive: true });
    copyFileSync(join(root, '.ci/run'), join(tree, '.ci/run'));
    stub(join(tree, '.ci/fresh-machine.sh'), 'fresh-machine');
    stub(join(tree, '.ci/drive'), 'drive');
    stub(join(tree, 'tests/s3/radosgw.sh'), 'radosgw', env(['export HCS_TEST_S3_ENDPOINT=http://127.0.0.1:1', 'export HCS_TEST_S3_ACCESS_KEY=k', 'export HCS_TEST_S3_SECRET_KEY=s', 'export HCS_TEST_S3_BUCKET=b', 'export HCS_TEST_S3_REGION=r']));
    stub(join(tree, 'tests/pg/postgres.sh'), 'postgres', env(['export HCS_TEST_DATABASE_URL=postgres://postgres@127.0.0.1:2/hcs']));
    // Packages the machine may lack are "installed" by a stub; radosgw is found on PATH.
    const bin = join(work, 'bin');
    stub(join(bin, 'apt-get'), 'apt-get');
    stub(join(bin, 'radosgw'), 'radosgw-binary');
    const childEnv: Record<string, string> = { PATH: `${bin}:${process.env.PATH}`, HOME: work };
    // From inside the copy: a line that runs before the script's own cd must meet the stubs, never the real helpers.
    const r = spawnSync('bash', [join(tree, '.ci/run')], { cwd: tree, encoding: 'utf8', env: childEnv });
    expect(r.status, r.stderr).toBe(0);
    const calls = readFileSync(log, 'utf8').trim().split('\n').filter((l) => !l.startsWith('apt-get'));
    expect(calls).toEqual([
      'fresh-machine  db= s3=',
      'radosgw start db= s3=',
      'radosgw env db= s3=',
      'postgres start db= s3=http://127.0.0.1:1',
      'postgres env db= s3=http://127.0.0.1:1',
      'drive test db=postgres://postgres@127.0.0.1:2/hcs s3=http://127.0.0.1:1',
      'radosgw stop db=postgres://postgres@127.0.0.1:2/hcs s3=http://127.0.0.1:1',
      'postgres stop db=postgres://postgres@127.0.0.1:2/hcs s3=http://127.0.0.1:1',
    ]);
  });

  it('the test command it runs includes the PostgreSQL pass of the integration suites', () => {
    const drive = readFileSync(join(root, '.ci/drive'), 'utf8');
    expect(drive).toMatch(/test\)[\s\S]*?exec npm test/);
    const scripts = (JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { scripts: Record<string, string> }).scripts;
    // The suites run in lanes (tests/run-suites.ts): the unit tests, the browser suite, and the integration suites on
    // SQLite and on PostgreSQL, each long one in shards.
    expect(scripts.test).toMatch(/&& node tests\/run-suites\.ts$/);
    const suites = readFileSync(join(root, 'tests/run-suites.ts'), 'utf8');
    expect(suites).toContain("'npm run test:unit'");
    expect(suites).toContain('node tests/pg/suite.ts postgres --project tests ${s}');
    expect(suites).toContain('node tests/pg/suite.ts sqlite --project tests ${s}');
    expect(suites).toContain('node tests/pg/suite.ts sqlite --project e2e ${s}');
    expect(scripts['test:int:pg']).toBe('node tests/pg/suite.ts postgres --project tests');
  });
});
