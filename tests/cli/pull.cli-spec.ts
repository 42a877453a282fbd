// `drive pull --from <server URL> --user <name> [--group <group>]` through the built CLI against two real servers
// (SQLite and PostgreSQL): the password piped to standard input, the command waits for the server's job and reports
// what it imported (--json), a wrong password exits 3 with REMOTE_LOGIN_FAILED, and --group pulls into the group of
// the same name.
import { createHash, randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type TestServer } from '../helpers/server.ts';
import { makeUser, type TestUser } from '../helpers/org.ts';
import { uploadFile, type ApiCall } from '../helpers/upload.ts';
import { cliEnv, driveRunner } from '../helpers/drive-cli.ts';

let remote: TestServer;
let local: TestServer;
let work: string;
let alice: TestUser;
const drive = driveRunner(() => cliEnv(local, work));
const sha = (b: Buffer) => createHash('sha256').update(b).digest('hex');
const call = (u: TestUser): ApiCall => (path, query, body) => u.api(path, query, body);
const OLD_PASSWORD = 'Olduser#pass-1234';
const personal = randomBytes(5000);
const grouped = randomBytes(300);

describe('drive pull', () => {
  beforeAll(async () => {
    remote = await startServer();
    local = await startServer({ env: { HCS_PULL_SOURCES: remote.baseUrl } });
    work = mkdtempSync(join(tmpdir(), 'hcs-pull-cli-'));
    const old = await makeUser(remote, 'olduser', null);
    await uploadFile(call(old), 'report.pdf', personal);
    const team = await old.api('/hcs/controller/groupFile/newGroup', undefined, { groupName: 'Ops' });
    await uploadFile(call(old), 'rota.txt', grouped, { query: { parentId: team.data.rootId } });
    alice = await makeUser(local, 'alice', null);
  }, 60_000);

  afterAll(async () => {
    await local?.close();
    await remote?.close();
    if (work) rmSync(work, { recursive: true, force: true });
  });

  it('refuses a wrong password with exit code 3 and REMOTE_LOGIN_FAILED', async () => {
    const r = await drive(['pull', '--from', remote.baseUrl, '--user', 'olduser'], { token: alice.token, stdin: 'wrong-password\n' });
    expect(r.code, r.stderr).toBe(3);
    expect(r.json.at(-1)).toMatchObject({ event: 'error', code: 'REMOTE_LOGIN_FAILED' });
  });

  it('pulls the personal files and reports the job when it ends', async () => {
    const r = await drive(['pull', '--from', remote.baseUrl, '--user', 'olduser'], { token: alice.token, stdin: `${OLD_PASSWORD}\n` });
    expect(r.code, r.stderr).toBe(0);
    expect(r.json.at(-1)).toMatchObject({ event: 'pull', state: 2, syncType: 'personal', remoteUser: 'olduser', files: 1, bytes: personal.length, failed: 0 });
    const list = await alice.api('/hcs/controller/Page');
    const file = list.data.list.find((i: { instanceName: string }) => i.instanceName === 'report.pdf');
    expect(file?.fMd5).toBe(sha(personal));
  });

  it('--group pulls into the group of the same name', async () => {
    const ops = await alice.api('/hcs/controller/groupFile/newGroup', undefined, { groupName: 'Ops' });
    const r = await drive(['pull', '--from', remote.baseUrl, '--user', 'olduser', '--group', 'Ops'], { token: alice.token, stdin: OLD_PASSWORD });
    expect(r.code, r.stderr).toBe(0);
    expect(r.json.at(-1)).toMatchObject({ event: 'pull', state: 2, syncType: 'group', groupName: 'Ops', files: 1 });
    const list = await alice.api('/hcs/controller/Page', { parentId: ops.data.rootId });
    expect(list.data.list.map((i: { instanceName: string; fMd5: string }) => [i.instanceName, i.fMd5])).toEqual([['rota.txt', sha(grouped)]]);
  });

  it('without --from is a usage error and sends nothing', async () => {
    const r = await drive(['pull', '--user', 'olduser'], { token: alice.token, stdin: OLD_PASSWORD });
    expect(r.code).toBe(2);
  });
});
