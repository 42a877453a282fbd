// `drive share user` and `drive share with-me` (issue #17 part 1) through the built CLI against the real server:
// sharing a folder with a user (the global --user clash), a department and a group with a share role, the role given
// with or without its groupShare_ prefix, usage errors (exit 2), the server's refusals (exit 5), and the recipient's
// list of what is shared with them, in JSON and in words.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type TestServer } from '../helpers/server.ts';
import { makeDept, makeUser, mkdir, type TestUser } from '../helpers/org.ts';
import { cliEnv, driveRunner } from '../helpers/drive-cli.ts';

let srv: TestServer;
let work: string;
let alice: TestUser;
let bob: TestUser;
let carol: TestUser;
let olaf: TestUser;
const drive = driveRunner(() => cliEnv(srv, work));

describe('drive share user and with-me', () => {
  let reports: string;
  beforeAll(async () => {
    srv = await startServer();
    work = mkdtempSync(join(tmpdir(), 'hcs-share-cli-'));
    await makeDept(srv, 'ops', 'Ops');
    await makeDept(srv, 'ops-night', 'Night', 'ops');
    alice = await makeUser(srv, 'alice', null);
    bob = await makeUser(srv, 'bob', null);
    carol = await makeUser(srv, 'carol', 'ops-night');
    olaf = await makeUser(srv, 'olaf', null);
    reports = await mkdir(alice, 'reports');
    await mkdir(alice, 'plans');
    await mkdir(alice, 'circle');
  }, 60_000);

  afterAll(async () => {
    await srv?.close();
    if (work) rmSync(work, { recursive: true, force: true });
  });

  it('shares with a user, a department and a group; the recipients list it', async () => {
    // --user names the recipient, not the account to sign in as (the global flag of the same name).
    const toBob = await drive(['share', 'user', '/reports', '--user', 'bob', '--role', 'reader'], { token: alice.token });
    expect(toBob.code, toBob.stderr).toBe(0);
    expect(toBob.json[0]).toMatchObject({ event: 'shared', path: '/reports', instanceId: reports, recipient: { kind: 'user', id: bob.id }, role: 'groupShare_reader' });

    const toDept = await drive(['share', 'user', '/plans', '--dept', 'Ops', '--role', 'groupShare_downloader'], { token: alice.token });
    expect(toDept.code, toDept.stderr).toBe(0);
    expect(toDept.json[0]).toMatchObject({ event: 'shared', recipient: { kind: 'dept', id: 'ops' }, role: 'groupShare_downloader' });

    const g = await alice.api('/hcs/controller/groupFile/newGroup', undefined, { groupName: 'Circle' });
    expect((await alice.api('/hcs/controller/groupFile/addUserForLarge', undefined, { groupId: g.data.groupId, userIds: [olaf.id] })).data.added).toBe(1);
    const toGroup = await drive(['share', 'user', '/circle', '--group', 'circle', '--role', 'edit'], { token: alice.token });
    expect(toGroup.code, toGroup.stderr).toBe(0);
    expect(toGroup.json[0]).toMatchObject({ recipient: { kind: 'group', id: g.data.groupId }, role: 'groupShare_edit' });

    const bobs = await drive(['share', 'with-me'], { token: bob.token });
    expect(bobs.code, bobs.stderr).toBe(0);
    expect(bobs.json).toEqual([expect.objectContaining({ fileSharingId: toBob.json[0]!.fileSharingId, name: 'reports', type: 'folder', owner: 'alice', role: 'groupShare_reader' })]);
    const carols = await drive(['share', 'with-me'], { token: carol.token }); // Night is under Ops
    expect(carols.json.map((s) => s.name)).toEqual(['plans']);
    const olafs = await drive(['share', 'with-me', '--keyword', 'CIRC'], { token: olaf.token });
    expect(olafs.json.map((s) => s.name)).toEqual(['circle']);
    const words = await drive(['share', 'with-me'], { token: bob.token, json: false });
    expect(words.stdout).toMatch(/reports\/\s+groupShare_reader\s+from alice/);
    const none = await drive(['share', 'with-me'], { token: alice.token, json: false });
    expect(none.stdout).toContain('Nothing is shared with you.');
  });

  it('usage errors exit 2; the server\'s refusals exit 5 with their code', async () => {
    expect((await drive(['share', 'user', '/reports', '--user', 'bob', '--role', 'king'], { token: alice.token })).code).toBe(2);
    expect((await drive(['share', 'user', '/reports', '--role', 'reader'], { token: alice.token })).code).toBe(2);
    expect((await drive(['share', 'user', '/reports', '--user', 'bob', '--dept', 'Ops', '--role', 'reader'], { token: alice.token })).code).toBe(2);
    // Bob, a reader, may not reshare; nor may anyone share what they cannot see.
    const reshare = await drive(['share', 'user', '/reports', '--user', 'olaf', '--role', 'reader'], { token: bob.token });
    expect(reshare.code).not.toBe(0);
    const self = await drive(['share', 'user', '/reports', '--user', 'alice', '--role', 'reader'], { token: alice.token });
    expect(self.code).toBe(5);
    expect(self.json[0]).toMatchObject({ event: 'error', code: 'VALIDATION_FAILED' });
    const wider = await drive(['share', 'user', '/reports', '--user', 'nobody-here', '--role', 'reader'], { token: alice.token });
    expect(wider.code).toBe(5);
  });
});
