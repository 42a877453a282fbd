// `drive group ...` and `group:<group name or id>/path` remote paths through the built CLI against the real server
// (SQLite and PostgreSQL): create with a capacity, list, add by user (the global --user clash) and by department
// with a role, remove, handover and accept, dissolve; ls, mkdir, upload, download, cp, mv and rm in a group's space
// (filed in the group's space, charged to the group, the member's group role applied).
import { createHash, randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type TestServer } from '../helpers/server.ts';
import { makeDept, makeUser, type TestUser } from '../helpers/org.ts';
import { cliEnv, driveRunner, spaceOf } from '../helpers/drive-cli.ts';

let srv: TestServer;
let work: string;
let alice: TestUser;
let bob: TestUser;
let carol: TestUser;
let dan: TestUser;
let outsider: TestUser;
const drive = driveRunner(() => cliEnv(srv, work));
const sha = (b: Buffer) => createHash('sha256').update(b).digest('hex');

describe('drive group and group: remote paths', () => {
  let groupId: string;
  beforeAll(async () => {
    srv = await startServer();
    work = mkdtempSync(join(tmpdir(), 'hcs-group-cli-'));
    await makeDept(srv, 'ops', 'Ops');
    await makeDept(srv, 'ops-night', 'Night', 'ops');
    alice = await makeUser(srv, 'alice', null);
    bob = await makeUser(srv, 'bob', null);
    carol = await makeUser(srv, 'carol', 'ops');
    dan = await makeUser(srv, 'dan', 'ops-night');
    outsider = await makeUser(srv, 'olaf', null);
  }, 60_000);

  afterAll(async () => {
    await srv?.close();
    if (work) rmSync(work, { recursive: true, force: true });
  });

  it('create, list and add by user and by department with a role', async () => {
    const bad = await drive(['group', 'create', 'Apollo', '--capacity', 'lots'], { token: alice.token });
    expect(bad.code).toBe(2);
    const made = await drive(['group', 'create', 'Apollo', '--capacity', '10M'], { token: alice.token });
    expect(made.code, made.stderr).toBe(0);
    expect(made.json[0]).toMatchObject({ event: 'group-create', name: 'Apollo', capacity: 10 * 1024 * 1024, role: 'group_administrator', path: 'group:Apollo/' });
    groupId = made.json[0]!.groupId;

    // --user names the member to add, not the account to sign in as (the global flag of the same name).
    const add = await drive(['group', 'add', 'apollo', '--user', 'bob'], { token: alice.token });
    expect(add.code, add.stderr).toBe(0);
    expect(add.json[0]).toMatchObject({ event: 'group-add', user: 'bob', userId: bob.id, role: 'groupdefaultrole', added: 1 });
    const byDept = await drive(['group', 'add', groupId, '--dept', 'Ops', '--role', 'file_leader'], { token: alice.token });
    expect(byDept.code, byDept.stderr).toBe(0);
    expect(byDept.json[0]).toMatchObject({ event: 'group-add', deptId: 'ops', role: 'file_leader', added: 2 }); // carol and dan (Night)
    const badRole = await drive(['group', 'add', 'Apollo', '--user', 'olaf', '--role', 'king'], { token: alice.token });
    expect(badRole.code).toBe(2);
    expect((await drive(['group', 'add', 'Apollo'], { token: alice.token })).code).toBe(2);
    // An ordinary member may not add anyone.
    const refused = await drive(['group', 'add', 'Apollo', '--user', 'olaf'], { token: bob.token });
    expect(refused.code).toBe(5);
    expect(refused.json[0]).toMatchObject({ event: 'error', code: 'FORBIDDEN' });

    const list = await drive(['group', 'list'], { token: bob.token });
    expect(list.code, list.stderr).toBe(0);
    expect(list.json).toEqual([expect.objectContaining({ groupId, name: 'Apollo', role: 'groupdefaultrole', members: 4 })]);
    const human = await drive(['group', 'list'], { token: outsider.token, json: false });
    expect(human.stdout).toContain('You belong to no group.');
  });

  it('files in group: paths land in the group space, charged to the group, with the group roles applied', async () => {
    const mk = await drive(['mkdir', 'group:Apollo/docs/2024'], { token: bob.token });
    expect(mk.code, mk.stderr).toBe(0);
    expect(mk.json[0]).toMatchObject({ event: 'mkdir', path: 'group:Apollo/docs/2024' });
    expect(await spaceOf(srv, 'docs')).toEqual([{ space_kind: 'group', space_id: groupId }]);

    const src = join(work, 'src');
    mkdirSync(src, { recursive: true });
    const body = randomBytes(40_000);
    writeFileSync(join(src, 'plan.bin'), body);
    const up = await drive(['upload', join(src, 'plan.bin'), '--to', 'group:Apollo/docs/2024'], { token: bob.token });
    expect(up.code, up.stderr).toBe(0);
    expect(up.json.find((e) => e.event === 'file-done')).toMatchObject({ remote: 'group:Apollo/docs/2024/plan.bin' });
    expect(await spaceOf(srv, 'plan.bin')).toEqual([{ space_kind: 'group', space_id: groupId }]);
    const used = await srv.sql.get<{ used_bytes: number }>('SELECT used_bytes FROM groups WHERE id = ?', groupId);
    expect(Number(used!.used_bytes)).toBe(40_000);

    // By id too.
    const ls = await drive(['ls', `group:${groupId}/docs/2024`], { token: carol.token });
    expect(ls.code, ls.stderr).toBe(0);
    expect(ls.json).toEqual([expect.objectContaining({ path: `group:${groupId}/docs/2024/plan.bin`, name: 'plan.bin', size: 40_000 })]);
    const out = join(work, 'out');
    const down = await drive(['download', 'group:Apollo/docs/2024/plan.bin', '--out', out], { token: carol.token });
    expect(down.code, down.stderr).toBe(0);
    expect(sha(readFileSync(join(out, 'plan.bin')))).toBe(sha(body));

    const cp = await drive(['cp', 'group:Apollo/docs/2024/plan.bin', '/'], { token: bob.token });
    expect(cp.code, cp.stderr).toBe(0);
    expect((await spaceOf(srv, 'plan.bin')).map((s) => s.space_kind).sort()).toEqual(['group', 'user']);
    const mv = await drive(['mv', 'group:Apollo/docs/2024/plan.bin', 'group:Apollo/docs/plan-final.bin'], { token: bob.token });
    expect(mv.code, mv.stderr).toBe(0);
    expect(mv.json[0]).toMatchObject({ event: 'move', to: 'group:Apollo/docs/plan-final.bin' });

    // groupdefaultrole has no delete; file_leader has.
    const noDelete = await drive(['rm', 'group:Apollo/docs/plan-final.bin'], { token: bob.token });
    expect(noDelete.code).toBe(5);
    expect(noDelete.json[0]).toMatchObject({ event: 'error', code: 'FORBIDDEN' });
    const rm = await drive(['rm', 'group:Apollo/docs/plan-final.bin'], { token: carol.token });
    expect(rm.code, rm.stderr).toBe(0);

    const stranger = await drive(['ls', 'group:Apollo/'], { token: outsider.token });
    expect(stranger.code).toBe(5);
    expect(stranger.json[0]).toMatchObject({ event: 'error', code: 'NOT_FOUND' });
    expect(stranger.stderr).toContain('no group "Apollo" that you belong to');
    expect((await drive(['ls', 'group:/x'], { token: bob.token })).code).toBe(2);
  });

  it('remove, handover and accept, then dissolve cuts every member off', async () => {
    const rm = await drive(['group', 'remove', 'Apollo', '--user', 'dan'], { token: alice.token });
    expect(rm.code, rm.stderr).toBe(0);
    expect(rm.json[0]).toMatchObject({ event: 'group-remove', user: 'dan', userId: dan.id });
    expect((await drive(['group', 'list'], { token: dan.token })).json).toEqual([]);

    const nothing = await drive(['group', 'accept', 'Apollo'], { token: bob.token });
    expect(nothing.code).toBe(5);
    const offer = await drive(['group', 'handover', 'Apollo', '--to', 'bob'], { token: alice.token });
    expect(offer.code, offer.stderr).toBe(0);
    expect(offer.json[0]).toMatchObject({ event: 'group-handover', to: 'bob', status: 'pending' });
    // Only bob may take it.
    expect((await drive(['group', 'accept', 'Apollo'], { token: carol.token })).code).toBe(5);
    const accept = await drive(['group', 'accept', 'Apollo'], { token: bob.token });
    expect(accept.code, accept.stderr).toBe(0);
    expect(accept.json[0]).toMatchObject({ event: 'group-accept', from: 'alice', status: 'accepted' });
    expect((await drive(['group', 'list'], { token: bob.token })).json[0]).toMatchObject({ role: 'group_administrator', owner: 'bob' });

    expect((await drive(['group', 'dissolve', 'Apollo'], { token: alice.token })).code).toBe(5); // a leader now
    const gone = await drive(['group', 'dissolve', 'Apollo'], { token: bob.token });
    expect(gone.code, gone.stderr).toBe(0);
    expect(gone.json[0]).toMatchObject({ event: 'group-dissolve', groupId, recycled: 1 });
    for (const u of [alice, bob, carol]) {
      const ls = await drive(['ls', `group:${groupId}/docs`], { token: u.token });
      expect(ls.code).toBe(5);
      expect(ls.json[0]).toMatchObject({ event: 'error', code: 'NOT_FOUND' });
    }
  });
});
