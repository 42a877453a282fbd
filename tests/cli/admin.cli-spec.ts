// `drive admin ...` and `drive access` through the built CLI against the real server: departments, accounts (add with a
// piped or a generated password, list, disable, enable, delete, restore, purge with hand-over, CSV import with a
// per-row report), roles, grants and revokes on department folders, and the explanation of access with its grant
// chain; every command's --json shape; a non-administrator refused with the server's message and exit code 5.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type TestServer } from '../helpers/server.ts';
import { cliEnv, driveRunner } from '../helpers/drive-cli.ts';

let srv: TestServer;
let work: string;
let admin: string;
const drive = driveRunner(() => cliEnv(srv, work));
const GiB = 1024 ** 3;
const BOB_PASSWORD = 'Bob#pass-12345';

async function canSignIn(user: string, password: string): Promise<string> {
  try {
    await srv.login(user, password);
    return 'yes';
  } catch (err) {
    return (err as { code?: string }).code ?? String(err);
  }
}

describe('drive admin and drive access', () => {
  beforeAll(async () => {
    srv = await startServer();
    work = mkdtempSync(join(tmpdir(), 'hcs-admin-cli-'));
    admin = (await srv.login()).token;
  }, 60_000);

  afterAll(async () => {
    await srv?.close();
    if (work) rmSync(work, { recursive: true, force: true });
  });

  it('dept add, list and quota', async () => {
    const sales = await drive(['admin', 'dept', 'add', 'Sales'], { token: admin });
    expect(sales.code, sales.stderr).toBe(0);
    expect(sales.json).toEqual([{ event: 'dept-add', id: expect.any(String), name: 'Sales', parentId: 'root', path: 'Company/Sales', pathNames: ['Company', 'Sales'] }]);
    const east = await drive(['admin', 'dept', 'add', 'East', '--parent', 'Sales'], { token: admin });
    expect(east.json[0]).toMatchObject({ name: 'East', parentId: sales.json[0]!.id, path: 'Company/Sales/East' });
    // A second "East" elsewhere makes the name ambiguous.
    expect((await drive(['admin', 'dept', 'add', 'East'], { token: admin })).code).toBe(0);

    const list = await drive(['admin', 'dept', 'list'], { token: admin });
    expect(list.code).toBe(0);
    expect(list.json.map((d) => d.path)).toEqual(['Company', 'Company/East', 'Company/Sales', 'Company/Sales/East']);
    expect(list.json[0]).toEqual({ id: 'root', name: 'Company', parentId: null, path: 'Company', pathNames: ['Company'], memberCount: expect.any(Number) });
    const human = await drive(['admin', 'dept', 'list'], { token: admin, json: false });
    expect(human.stdout).toMatch(/^Company {2}\(id root, \d+ members?\)\n {2}East {2}\(id .+\n {2}Sales {2}\(id .+\n {4}East {2}\(id /);

    const quota = await drive(['admin', 'dept', 'quota', 'Sales', '10G'], { token: admin });
    expect(quota.code, quota.stderr).toBe(0);
    expect(quota.json).toEqual([{ event: 'dept-quota', id: sales.json[0]!.id, path: 'Company/Sales', quotaBytes: 10 * GiB, usedBytes: 0 }]);
    expect((await srv.sql.get<{ q: number }>('SELECT quota_bytes AS q FROM departments WHERE id = ?', sales.json[0]!.id))?.q).toBe(10 * GiB);
    // Over the parent's remaining quota: the server's refusal, with its code.
    const over = await drive(['admin', 'dept', 'quota', 'Sales/East', '11G'], { token: admin });
    expect(over.code).toBe(5);
    expect(over.json[0]).toMatchObject({ event: 'error', code: 'SPACE_NOT_ENOUGH' });
    const bad = await drive(['admin', 'dept', 'quota', 'Sales', 'lots'], { token: admin });
    expect(bad.code).toBe(2);
  });

  it('an ambiguous department lists its candidates with paths and ids', async () => {
    const r = await drive(['admin', 'user', 'add', 'zed', '--dept', 'east'], { token: admin });
    expect(r.code).toBe(2);
    expect(r.json[0]).toMatchObject({ event: 'error', code: 'DEPT_AMBIGUOUS' });
    expect(r.stderr).toMatch(/Company\/East \(id [\w-]+\); Company\/Sales\/East \(id [\w-]+\)/);
    expect((await srv.sql.all('SELECT id FROM users WHERE user_name = ?', 'zed'))).toEqual([]);
  });

  it('user add with a piped password, and with a generated one shown once', async () => {
    const bob = await drive(['admin', 'user', 'add', 'bob', '--real-name', 'Bob B', '--dept', 'Sales/East', '--quota', '5G', '--expires', '2030-12-31', '--password-stdin'], {
      token: admin,
      stdin: `${BOB_PASSWORD}\nignored second line\n`,
    });
    expect(bob.code, bob.stderr).toBe(0);
    expect(bob.json).toEqual([
      {
        event: 'user-add', userId: expect.any(String), userName: 'bob', realName: 'Bob B', deptId: expect.any(String), dept: 'Company/Sales/East', state: 'active',
        isAdmin: false, quotaBytes: 5 * GiB, usedBytes: 0, expires: '2030-12-31T23:59:59.999Z', mustChangePassword: false, labels: [],
      },
    ]);
    expect(await canSignIn('bob', BOB_PASSWORD)).toBe('yes');

    const carol = await drive(['admin', 'user', 'add', 'carol'], { token: admin, json: false });
    expect(carol.code, carol.stderr).toBe(0);
    const password = /Password \(shown once; to be changed at first sign-in\): (\S+)/.exec(carol.stdout)?.[1];
    expect(password).toMatch(/^.{20}$/);
    expect(carol.stdout).toContain('Created carol in Company');
    expect(carol.stderr).not.toContain(password!);
    const row = await srv.sql.get<{ m: number }>('SELECT must_change_password AS m FROM users WHERE user_name = ?', 'carol');
    expect(Number(row?.m)).toBe(1);
    const dave = await drive(['admin', 'user', 'add', 'dave'], { token: admin });
    expect(dave.json[0]).toMatchObject({ event: 'user-add', userName: 'dave', mustChangePassword: true, password: expect.stringMatching(/^.{20}$/) });
    expect(await canSignIn('dave', dave.json[0]!.password)).toBe('yes');

    const dup = await drive(['admin', 'user', 'add', 'bob', '--password-stdin'], { token: admin, stdin: `${BOB_PASSWORD}\n` });
    expect(dup.code).toBe(5);
    expect(dup.json[0]).toMatchObject({ event: 'error', code: 'NAME_EXISTS' });
    expect((await drive(['admin', 'user', 'add', 'x', '--expires', '2030-02-30'], { token: admin })).code).toBe(2);
    expect((await drive(['admin', 'user', 'add', 'x', '--quota', '10Q'], { token: admin })).code).toBe(2);
  });

  it('user list, whole or by department', async () => {
    const all = await drive(['admin', 'user', 'list'], { token: admin });
    expect(all.code).toBe(0);
    // The seeded administrator is in no department, so not under the root's tree.
    expect(all.json.map((u) => u.userName)).toEqual(['bob', 'carol', 'dave']);
    const sales = await drive(['admin', 'user', 'list', '--dept', 'Sales'], { token: admin });
    expect(sales.json).toEqual([expect.objectContaining({ userName: 'bob', dept: 'Company/Sales/East', state: 'active', quotaBytes: 5 * GiB })]);
    const human = await drive(['admin', 'user', 'list', '--dept', 'Sales'], { token: admin, json: false });
    expect(human.stdout).toMatch(/^bob \(Bob B\)\s+active\s+0\.00B \/ 5\.00GB\s+Company\/Sales\/East\n$/);
  });

  it('a non-administrator is refused with the server message and exit code 5', async () => {
    const bob = (await srv.login('bob', BOB_PASSWORD)).token;
    for (const args of [['admin', 'user', 'list'], ['admin', 'dept', 'add', 'Mine'], ['admin', 'user', 'disable', 'carol']]) {
      const r = await drive(args, { token: bob });
      expect(r.code, args.join(' ')).toBe(5);
      expect(r.json[0], args.join(' ')).toMatchObject({ event: 'error', code: 'FORBIDDEN', exitCode: 5 });
      expect(r.stderr).toMatch(/^drive: .+ \(FORBIDDEN\)/);
    }
    expect((await srv.sql.all('SELECT id FROM departments WHERE name = ?', 'Mine'))).toEqual([]);
  });

  it('disable, enable, delete, restore, and purge handing the files over', async () => {
    const dis = await drive(['admin', 'user', 'disable', 'bob'], { token: admin });
    expect(dis.code, dis.stderr).toBe(0);
    expect(dis.json).toEqual([{ event: 'user-disable', userId: expect.any(String), userName: 'bob' }]);
    expect(await canSignIn('bob', BOB_PASSWORD)).toBe('ACCOUNT_FROZEN');
    expect((await drive(['admin', 'user', 'enable', 'bob'], { token: admin })).json[0]).toMatchObject({ event: 'user-enable', userName: 'bob' });
    expect(await canSignIn('bob', BOB_PASSWORD)).toBe('yes');

    // bob's own file, to be handed over on purge.
    const bobToken = (await srv.login('bob', BOB_PASSWORD)).token;
    writeFileSync(join(work, 'notes.txt'), 'bob was here');
    expect((await drive(['upload', join(work, 'notes.txt')], { token: bobToken })).code).toBe(0);

    const del = await drive(['admin', 'user', 'delete', 'bob'], { token: admin });
    expect(del.json[0]).toMatchObject({ event: 'user-delete', userName: 'bob' });
    expect((await drive(['admin', 'user', 'list'], { token: admin })).json.map((u) => u.userName)).not.toContain('bob');
    expect((await drive(['admin', 'user', 'restore', 'bob'], { token: admin })).json[0]).toMatchObject({ event: 'user-restore', userName: 'bob' });
    expect(await canSignIn('bob', BOB_PASSWORD)).toBe('yes');

    // Purge only takes a deleted account.
    const live = await drive(['admin', 'user', 'purge', 'bob'], { token: admin });
    expect(live.code).toBe(5);
    expect(live.json[0]).toMatchObject({ code: 'NOT_FOUND' });
    await drive(['admin', 'user', 'delete', 'bob'], { token: admin });
    const purge = await drive(['admin', 'user', 'purge', 'bob', '--hand-over', 'carol'], { token: admin });
    expect(purge.code, purge.stderr).toBe(0);
    expect(purge.json).toEqual([{ event: 'user-purge', userId: expect.any(String), userName: 'bob', files: 1, bytes: 12, handedOverTo: 'carol', folderId: expect.any(String) }]);
    expect(await srv.sql.all('SELECT id FROM users WHERE user_name = ?', 'bob')).toEqual([]);
    const carolFiles = await srv.sql.all<{ name: string }>(
      "SELECT i.name FROM instances i JOIN users u ON u.id = i.space_id WHERE u.user_name = 'carol' AND i.name = 'notes.txt'",
    );
    expect(carolFiles).toHaveLength(1);
    expect((await drive(['admin', 'user', 'restore', 'nobody'], { token: admin })).code).toBe(5);
  });

  it('user import reports every row and exits 1 when a row failed', async () => {
    const csv = join(work, 'people.csv');
    writeFileSync(csv, 'userName,password,realName,dept,quota\nerin,Erin#pass-1234,Erin E,Sales,2G\ncarol,Carol#pass-1234,,,\nfrank,Frank#pass-1234,,No/Such,\ngina,Gina#pass-1234,,,\n');
    const r = await drive(['admin', 'user', 'import', csv], { token: admin });
    expect(r.code).toBe(1);
    expect(r.json).toEqual([
      { event: 'import-row', row: 2, userName: 'erin', status: 'created', userId: expect.any(String) },
      { event: 'import-row', row: 3, userName: 'carol', status: 'failed', code: 'NAME_EXISTS', message: expect.any(String) },
      { event: 'import-row', row: 4, userName: 'frank', status: 'failed', code: 'NOT_FOUND', message: expect.any(String) },
      { event: 'import-row', row: 5, userName: 'gina', status: 'created', userId: expect.any(String) },
      { event: 'import', created: 2, failed: 2 },
    ]);
    const human = await drive(['admin', 'user', 'import', csv], { token: admin, json: false });
    expect(human.code).toBe(1);
    expect(human.stdout).toMatch(/^row 2 erin: failed: .+ \(NAME_EXISTS\)\n/);
    expect(human.stdout).toMatch(/\n0 created, 4 failed\n$/);
    const good = join(work, 'good.csv');
    writeFileSync(good, 'userName,password\nhank,Hank#pass-1234\n');
    expect((await drive(['admin', 'user', 'import', good], { token: admin })).code).toBe(0);
    expect((await drive(['admin', 'user', 'import', join(work, 'missing.csv')], { token: admin })).code).toBe(2);
  });

  it('role list', async () => {
    const r = await drive(['admin', 'role', 'list'], { token: admin });
    expect(r.code, r.stderr).toBe(0);
    const byCode = new Map(r.json.map((x) => [x.roleCode, x]));
    expect(byCode.get('reader')).toEqual({ roleId: 'reader', roleCode: 'reader', roleName: expect.any(String), roleNameEn: expect.any(String), kind: 'file', builtin: true, deny: false, authorities: ['view', 'preview'], grantCount: 0 });
    expect(byCode.get('disable')).toMatchObject({ deny: true, authorities: [] });
  });

  it('grant, then drive access shows the chain; revoke takes it away', async () => {
    // Imported accounts must change their password first; ivy's is set by the administrator.
    expect((await drive(['admin', 'user', 'add', 'ivy', '--dept', 'Sales', '--password-stdin'], { token: admin, stdin: 'Ivy#pass-12345\n' })).code).toBe(0);
    const ivy = (await srv.login('ivy', 'Ivy#pass-12345')).token;
    expect((await drive(['mkdir', 'dept:Sales/contracts/2024'], { token: admin })).code).toBe(0);

    // A member of Sales holds defaultrole by default.
    const before = await drive(['access', 'dept:Sales/contracts/2024'], { token: ivy });
    expect(before.code, before.stderr).toBe(0);
    expect(before.json[0]).toMatchObject({ event: 'access', path: 'dept:Sales/contracts/2024', userName: 'ivy', source: 'default', denied: false, chain: [] });

    const g = await drive(['admin', 'grant', 'reader', '--user', 'ivy', '--on', 'dept:Sales/contracts'], { token: admin });
    expect(g.code, g.stderr).toBe(0);
    expect(g.json).toEqual([{ event: 'grant', grantId: expect.any(String), role: 'reader', subjectKind: 'user', subjectId: expect.any(String), subject: 'ivy', on: 'dept:Sales/contracts', instanceId: expect.any(String) }]);
    // The same as ivy sees it herself (before the deny below: then she can no longer list the space root to walk the path).
    expect((await drive(['access', 'dept:Sales/contracts/2024'], { token: ivy })).json[0]).toMatchObject({ source: 'grant', allowed: ['view', 'preview'] });
    // Another user's access is for administrators and managers of the item.
    const nosy = await drive(['access', 'dept:Sales/contracts', '--user', 'admin'], { token: ivy });
    expect(nosy.code).toBe(5);
    expect(nosy.json[0]).toMatchObject({ code: 'FORBIDDEN' });
    const d = await drive(['admin', 'grant', 'disable', '--dept', 'Sales', '--on', 'dept:Sales/'], { token: admin });
    expect(d.code, d.stderr).toBe(0);
    expect(d.json[0]).toMatchObject({ role: 'disable', subjectKind: 'dept', subject: 'Sales', on: 'dept:Sales/' });

    // The administrator asks about ivy (--user after the command names whose access, not who signs in).
    const asked = await drive(['access', 'dept:Sales/contracts/2024', '--user', 'ivy'], { token: admin });
    expect(asked.code, asked.stderr).toBe(0);
    expect(asked.json[0]).toMatchObject({ userName: 'ivy', source: 'grant', denied: false, allowed: ['view', 'preview'] });
    expect(asked.json[0]!.chain).toEqual([
      expect.objectContaining({ instanceName: 'contracts', roleCode: 'reader', subjectKind: 'user', subjectName: 'ivy', deny: false, decisive: true }),
      expect.objectContaining({ roleCode: 'disable', subjectKind: 'dept', subjectName: 'Sales', deny: true, decisive: false }),
    ]);
    const human = await drive(['access', 'dept:Sales/contracts/2024', '--user', 'ivy'], { token: admin, json: false });
    expect(human.stdout).toBe(
      'ivy on dept:Sales/contracts/2024: view, preview\n  decided by: the nearest grant\n  grants, nearest first (* decided):\n  * reader to user ivy on contracts\n    disable (deny) to department Sales on Department File\n',
    );

    const rv = await drive(['admin', 'revoke', 'reader', '--user', 'ivy', '--on', 'dept:Sales/contracts'], { token: admin });
    expect(rv.code, rv.stderr).toBe(0);
    expect(rv.json[0]).toMatchObject({ event: 'revoke', role: 'reader', subject: 'ivy', on: 'dept:Sales/contracts' });
    const denied = await drive(['access', 'dept:Sales/contracts/2024', '--user', 'ivy'], { token: admin });
    expect(denied.json[0]).toMatchObject({ source: 'grant', denied: true, allowed: [] });
    const again = await drive(['admin', 'revoke', 'reader', '--user', 'ivy', '--on', 'dept:Sales/contracts'], { token: admin });
    expect(again.code).toBe(5);
    expect(again.json[0]).toMatchObject({ code: 'NOT_FOUND' });
    expect((await drive(['admin', 'grant', 'reader', '--on', '/'], { token: admin })).code).toBe(2);
    expect((await drive(['admin', 'grant', 'reader', '--user', 'ivy', '--dept', 'Sales', '--on', '/'], { token: admin })).code).toBe(2);
  });
});
