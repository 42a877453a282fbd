// The data dir is private to the server's user (issue #11, finding 8): it holds password hashes, the server secret,
// storage credentials and every stored file. Whatever modes an operator's pre-created directory or an older
// version left behind, the server starts with the dir at 0700 and its files at 0600, and says what it changed.
import { describe, it, expect, afterEach } from 'vitest';
import { chmodSync, existsSync, mkdtempSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { removeDataDir, startServerProcess, type ServerProcess } from '../helpers/server-process.ts';
import { ON_POSTGRES } from '../helpers/db.ts';

let proc: ServerProcess | undefined;
let dataDir: string | undefined;
afterEach(async () => {
  await proc?.stop();
  proc = undefined;
  if (dataDir) await removeDataDir(dataDir);
  dataDir = undefined;
});

const mode = (p: string) => statSync(p).mode & 0o777;
const octal = (m: number) => m.toString(8).padStart(4, '0');

/**
 * What the data dir holds once a server has run in it (the -wal/-shm files exist while the database is open; on
 * PostgreSQL there is no database file).
 */
const SQLITE_FILES = ON_POSTGRES ? [] : ['hcs.sqlite', 'hcs.sqlite-wal', 'hcs.sqlite-shm'];
const FILES = [...SQLITE_FILES, 'server-secret', 'rsa-private.pem', 's3-credentials.json', 'admin-password.txt'];

function modesOf(dir: string): Record<string, string> {
  const out: Record<string, string> = { '.': octal(mode(dir)), objects: octal(mode(join(dir, 'objects'))) };
  for (const f of FILES) if (existsSync(join(dir, f))) out[f] = octal(mode(join(dir, f)));
  return out;
}

function expectPrivate(dir: string) {
  const modes = modesOf(dir);
  expect(Object.keys(modes), 'the database is open in WAL mode').toEqual(expect.arrayContaining([...SQLITE_FILES, 'server-secret', 'rsa-private.pem']));
  const expected = Object.fromEntries(Object.keys(modes).map((k) => [k, k === '.' || k === 'objects' ? '0700' : '0600']));
  expect(modes).toEqual(expected);
}

describe('data dir permissions', () => {
  it('a pre-created 0755 data dir ends 0700, with every file the server creates in it 0600', async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'hcs-perm-'));
    chmodSync(dataDir, 0o755);
    // No HCS_ADMIN_PASSWORD: the generated one is written to admin-password.txt, which must be private too.
    proc = await startServerProcess({ dataDir, env: { HCS_ADMIN_PASSWORD: '' } });
    expectPrivate(dataDir);
    expect(proc.output()).toMatch(/tightened/);
  });

  it('files an older version left world-readable (0644, objects/ 0755) are tightened at start, and the log names them', async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'hcs-perm-'));
    proc = await startServerProcess({ dataDir });
    // A crash leaves the -wal and -shm files behind, as an older version running at 0644 would have.
    await proc.kill9();
    chmodSync(dataDir, 0o755);
    chmodSync(join(dataDir, 'objects'), 0o755);
    for (const f of FILES) if (existsSync(join(dataDir, f))) chmodSync(join(dataDir, f), 0o644);
    expect(modesOf(dataDir)).toMatchObject({ '.': '0755', objects: '0755', 'server-secret': '0644', ...Object.fromEntries(SQLITE_FILES.map((f) => [f, '0644'])) });

    proc = await startServerProcess({ dataDir });
    expectPrivate(dataDir);
    const line = proc.output().split('\n').find((l) => l.includes('tightened'));
    expect(line, proc.output()).toBeDefined();
    for (const name of [...SQLITE_FILES, 'server-secret', 'objects']) expect(line).toContain(join(dataDir, name));
    expect(line).toContain(dataDir);
  });
});
