// `drive admin lib config|stats` through the CLI against the real server (SQLite and PostgreSQL): a library's own
// version retention and administrators-only setting shown and changed (and returned to the server default), what a
// library holds, and the refusals: bad limits (usage, exit 2), adminOnly on a built-in library and non-administrators
// (exit 5).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type TestServer } from '../helpers/server.ts';
import { makeUser, type TestUser } from '../helpers/org.ts';
import { cliEnv, driveRunner } from '../helpers/drive-cli.ts';

let srv: TestServer;
let work: string;
let adminToken: string;
let plain: TestUser;
const drive = driveRunner(() => cliEnv(srv, work));

describe('drive admin lib config|stats', () => {
  beforeAll(async () => {
    srv = await startServer({ env: { HCS_VERSION_MAX_COUNT: '9', HCS_VERSION_MAX_DAYS: '60' } });
    work = mkdtempSync(join(tmpdir(), 'hcs-lib-cli2-'));
    adminToken = (await srv.login()).token;
    plain = await makeUser(srv, 'libplain2', null);
    expect((await drive(['admin', 'lib', 'add', 'ARCHIVE', '--name-zh', '档案库', '--name-en', 'Archive'], { token: adminToken })).code).toBe(0);
  }, 60_000);

  afterAll(async () => {
    await srv?.close();
    if (work) rmSync(work, { recursive: true, force: true });
  });

  it('shows a library\'s settings with the server defaults, changes them and returns one to the default', async () => {
    const shown = await drive(['admin', 'lib', 'config', 'ARCHIVE'], { token: adminToken });
    expect(shown.code, shown.stderr).toBe(0);
    expect(shown.json[0]).toEqual({ event: 'lib-config', libCode: 'ARCHIVE', custom: true, versionMaxCount: null, versionMaxDays: null, adminOnly: false, defaults: { versionMaxCount: 9, versionMaxDays: 60 } });
    const set = await drive(['admin', 'lib', 'config', 'ARCHIVE', '--versions', '3', '--version-days', '0', '--admin-only', 'yes'], { token: adminToken });
    expect(set.code, set.stderr).toBe(0);
    expect(set.json[0]).toMatchObject({ versionMaxCount: 3, versionMaxDays: 0, adminOnly: true });
    const row = await srv.sql.get<{ version_max_count: number; version_max_days: number; admin_only: number }>(
      'SELECT version_max_count, version_max_days, admin_only FROM business_libs WHERE lib_code = ?', 'ARCHIVE');
    expect(row).toEqual({ version_max_count: 3, version_max_days: 0, admin_only: 1 });
    const back = await drive(['admin', 'lib', 'config', 'ARCHIVE', '--versions', 'default'], { token: adminToken, json: false });
    expect(back.code, back.stderr).toBe(0);
    expect(back.stdout).toMatch(/versions kept\s+9 \(server default\)/);
    expect(back.stdout).toMatch(/admins only\s+yes/);
  });

  it('lists what each custom library holds', async () => {
    const all = await drive(['admin', 'lib', 'stats'], { token: adminToken });
    expect(all.code, all.stderr).toBe(0);
    expect(all.json).toEqual([expect.objectContaining({ libCode: 'ARCHIVE', files: 0, folders: 0, bytes: 0, classifiers: 0 })]);
    const one = await drive(['admin', 'lib', 'stats', 'NOSUCH'], { token: adminToken });
    expect(one.json[0]).toMatchObject({ event: 'error', code: 'NOT_FOUND' });
  });

  it('refuses bad limits, adminOnly on a built-in library and non-administrators', async () => {
    expect((await drive(['admin', 'lib', 'config', 'ARCHIVE', '--versions', '0'], { token: adminToken })).code).toBe(2);
    expect((await drive(['admin', 'lib', 'config', 'ARCHIVE', '--admin-only', 'maybe'], { token: adminToken })).code).toBe(2);
    const builtIn = await drive(['admin', 'lib', 'config', 'NetDisk', '--admin-only', 'yes'], { token: adminToken });
    expect([builtIn.code, builtIn.json[0]?.code]).toEqual([5, 'FORBIDDEN']);
    for (const args of [['config', 'ARCHIVE'], ['config', 'ARCHIVE', '--versions', '2'], ['stats']]) {
      const denied = await drive(['admin', 'lib', ...args], { token: plain.token });
      expect([denied.code, denied.json[0]?.code]).toEqual([5, 'FORBIDDEN']);
    }
    const row = await srv.sql.get<{ version_max_count: number | null }>('SELECT version_max_count FROM business_libs WHERE lib_code = ?', 'ARCHIVE');
    expect(row?.version_max_count).toBeNull();
  });
});
