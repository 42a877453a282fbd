// `drive admin user ...` for a department manager (issue #14): the account is found by name inside the subtree they
// manage (the calls a manager may make, per managed department), so disable, enable, delete and restore work there;
// an account outside it is refused with FORBIDDEN and exit code 5, and nothing changes. An administrator still finds
// anyone.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type TestServer } from '../helpers/server.ts';
import { driveRunner } from '../helpers/drive-cli.ts';

let srv: TestServer;
let work: string;
let admin: string;
const drive = driveRunner(() => ({
  PATH: process.env.PATH,
  HOME: work,
  HCS_SERVER: srv.baseUrl,
  HCS_CONFIG: join(work, 'config', 'auth.json'),
  HCS_STATE_DIR: join(work, 'state'),
}));
const PASSWORD = 'Lead#pass-12345';

const enabled = async (name: string) => (await srv.sql.get<{ e: number }>('SELECT is_enabled AS e FROM users WHERE user_name = ?', name))?.e;

describe('drive admin user for a department manager', () => {
  beforeAll(async () => {
    srv = await startServer();
    work = mkdtempSync(join(tmpdir(), 'hcs-admin-mgr-cli-'));
    admin = (await srv.login()).token;
    for (const args of [['dept', 'add', 'Sales'], ['dept', 'add', 'East', '--parent', 'Sales'], ['dept', 'add', 'Ops'], ['user', 'add', 'rep', '--dept', 'Sales/East'], ['user', 'add', 'opsie', '--dept', 'Ops']]) {
      const r = await drive(['admin', ...args], { token: admin });
      expect(r.code, r.stderr).toBe(0);
    }
    const lead = await drive(['admin', 'user', 'add', 'lead', '--dept', 'Sales', '--password-stdin'], { token: admin, stdin: `${PASSWORD}\n` });
    expect(lead.code, lead.stderr).toBe(0);
    const sales = await srv.sql.get<{ id: string }>('SELECT id FROM departments WHERE name = ?', 'Sales');
    const r = await srv.call('/hcs/controller/sysGroup/setGroupInfo', {
      token: admin, method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ id: sales!.id, managerIds: [lead.json[0]!.userId] }),
    });
    expect(r.status).toBe(200);
  }, 60_000);

  afterAll(async () => {
    await srv?.close();
    if (work) rmSync(work, { recursive: true, force: true });
  });

  it('disables and enables an account of the managed subtree by name', async () => {
    const lead = (await srv.login('lead', PASSWORD)).token;
    const off = await drive(['admin', 'user', 'disable', 'rep'], { token: lead });
    expect(off.code, off.stderr).toBe(0);
    expect(off.json[0]).toMatchObject({ event: 'user-disable', userName: 'rep' });
    expect(await enabled('rep')).toBe(0);
    const on = await drive(['admin', 'user', 'enable', 'REP'], { token: lead });
    expect(on.code, on.stderr).toBe(0);
    expect(await enabled('rep')).toBe(1);

    const del = await drive(['admin', 'user', 'delete', 'rep'], { token: lead });
    expect(del.code, del.stderr).toBe(0);
    const back = await drive(['admin', 'user', 'restore', 'rep'], { token: lead });
    expect(back.code, back.stderr).toBe(0);
    expect(back.json[0]).toMatchObject({ event: 'user-restore', userName: 'rep' });
    expect((await srv.sql.get<{ d: number | null }>('SELECT deleted_at AS d FROM users WHERE user_name = ?', 'rep'))?.d).toBeNull();
  });

  it('is refused outside the managed subtree, and an administrator still finds anyone', async () => {
    const lead = (await srv.login('lead', PASSWORD)).token;
    const r = await drive(['admin', 'user', 'disable', 'opsie'], { token: lead });
    expect(r.code).toBe(5);
    expect(r.json[0]).toMatchObject({ event: 'error', code: 'FORBIDDEN', exitCode: 5 });
    expect(r.stderr).toMatch(/^drive: .+ \(FORBIDDEN\)/);
    expect(await enabled('opsie')).toBe(1);

    const byAdmin = await drive(['admin', 'user', 'disable', 'opsie'], { token: admin });
    expect(byAdmin.code, byAdmin.stderr).toBe(0);
    expect(await enabled('opsie')).toBe(0);
  });
});
