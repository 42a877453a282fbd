// `drive admin config | ip | logs` through the built CLI against the real server (SQLite and PostgreSQL): get and set
// an entry (refused values exit 5 with the server's code), allow, list and deny white-list entries (the self-lockout
// guard reaches the CLI as IP_SELF_LOCKOUT), logs as JSON lines filtered by user, type and time, and CSV/XLSX
// exports written to a file; an ordinary account is refused every one of them.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import ExcelJS from 'exceljs';
import { startServer, type TestServer } from '../helpers/server.ts';
import { makeUser, mkdir, type TestUser } from '../helpers/org.ts';
import { cliEnv, driveRunner } from '../helpers/drive-cli.ts';

let srv: TestServer;
let work: string;
let adminToken: string;
let alice: TestUser;
const drive = driveRunner(() => cliEnv(srv, work));

describe('drive admin config, ip and logs', () => {
  let t0: number;
  beforeAll(async () => {
    srv = await startServer();
    work = mkdtempSync(join(tmpdir(), 'hcs-admin-console-cli-'));
    adminToken = (await srv.login()).token;
    t0 = Date.now();
    alice = await makeUser(srv, 'alice', null);
    await mkdir(alice, 'Roadmap');
  }, 60_000);

  afterAll(async () => {
    await srv?.close();
    if (work) rmSync(work, { recursive: true, force: true });
  });

  it('config get and set, with the server refusing a value outside the bounds', async () => {
    const got = await drive(['admin', 'config', 'get', 'recycle.days'], { token: adminToken });
    expect(got.code, got.stderr).toBe(0);
    expect(got.json[0]).toMatchObject({ configKey: 'recycle.days', configValue: '30', configType: 'integer', builtin: true });
    const set = await drive(['admin', 'config', 'set', 'recycle.days', '14'], { token: adminToken });
    expect(set.code, set.stderr).toBe(0);
    expect(set.json[0]).toMatchObject({ event: 'config-set', configKey: 'recycle.days', configValue: '14' });
    expect((await drive(['admin', 'config', 'get', 'recycle.days'], { token: adminToken })).json[0]!.configValue).toBe('14');
    const bad = await drive(['admin', 'config', 'set', 'recycle.days', '0'], { token: adminToken });
    expect(bad.code).toBe(5);
    expect(bad.json[0]).toMatchObject({ event: 'error', code: 'VALIDATION_FAILED' });
    const human = await drive(['admin', 'config', 'get', 'recycle.days'], { token: adminToken, json: false });
    expect(human.stdout).toMatch(/^recycle\.days\s+14\s+\(integer, built-in\)/);
  });

  it('ip allow, ls and deny; the self-lockout guard answers through the CLI', async () => {
    const allow = await drive(['admin', 'ip', 'allow', '10.0.0.0/8', '--target', 'role:user', '--remark', 'office'], { token: adminToken });
    expect(allow.code, allow.stderr).toBe(0);
    expect(allow.json[0]).toMatchObject({ event: 'ip-allow', ipValue: '10.0.0.0/8', kind: 'cidr', targetType: 'role', targetId: 'user', scope: 'drive', remark: 'office' });
    const v6 = await drive(['admin', 'ip', 'allow', 'fd00::1-fd00::ff', '--target', 'role:user'], { token: adminToken });
    expect(v6.json[0]).toMatchObject({ kind: 'range' });
    const ls = await drive(['admin', 'ip', 'ls'], { token: adminToken });
    expect(ls.json.map((r) => r.ipValue)).toEqual(['10.0.0.0/8', 'fd00::1-fd00::ff']);
    // The CLI talks to the server from 127.0.0.1: a list for everyone without it would shut the administrator out.
    const lockout = await drive(['admin', 'ip', 'allow', '192.168.0.0/16', '--target', 'all'], { token: adminToken });
    expect(lockout.code).toBe(5);
    expect(lockout.json[0]).toMatchObject({ event: 'error', code: 'IP_SELF_LOCKOUT' });
    expect((await drive(['admin', 'ip', 'allow', 'not-an-ip'], { token: adminToken })).json[0]).toMatchObject({ code: 'VALIDATION_FAILED' });
    expect((await drive(['admin', 'ip', 'allow', '10.0.0.1', '--target', 'boss'], { token: adminToken })).code).toBe(2);
    // alice (role user) now calls from 127.0.0.1, outside 10/8 and fd00::: refused on her open session.
    const aliceLs = await drive(['ls'], { token: alice.token });
    expect(aliceLs.json.at(-1)).toMatchObject({ event: 'error', code: 'IP_FORBIDDEN' });
    const deny = await drive(['admin', 'ip', 'deny', '10.0.0.0/8', v6.json[0]!.id], { token: adminToken });
    expect(deny.code, deny.stderr).toBe(0);
    expect(deny.json[0]!.ids).toHaveLength(2);
    expect((await drive(['admin', 'ip', 'ls'], { token: adminToken })).json).toEqual([]);
    expect((await drive(['ls'], { token: alice.token })).code).toBe(0);
    expect((await drive(['admin', 'ip', 'deny', '1.2.3.4'], { token: adminToken })).code).toBe(2);
  });

  it('logs as JSON lines, filtered, and exported as CSV and XLSX to a file', async () => {
    const rows = await drive(['admin', 'logs', '--user', 'alice', '--type', 'createInstances', '--since', String(t0)], { token: adminToken });
    expect(rows.code, rows.stderr).toBe(0);
    expect(rows.json.map((r) => [r.userName, r.optType, r.optObjName])).toEqual([['alice', 'createInstances', 'Roadmap']]);
    expect((await drive(['admin', 'logs', '--user', 'alice', '--until', '2000-01-01'], { token: adminToken })).json).toEqual([]);

    const csvFile = join(work, 'logs.csv');
    const csv = await drive(['admin', 'logs', '--user', 'alice', '--type', 'createInstances', '--format', 'csv', '--out', csvFile], { token: adminToken });
    expect(csv.code, csv.stderr).toBe(0);
    const lines = readFileSync(csvFile, 'utf8').replace(/^\ufeff/, '').trim().split('\r\n');
    expect(lines).toHaveLength(2);
    expect(lines[1]).toContain('Roadmap');

    const xlsxFile = join(work, 'logs.xlsx');
    const x = await drive(['admin', 'logs', '--user', 'alice', '--format', 'xlsx', '--out', xlsxFile], { token: adminToken });
    expect(x.code, x.stderr).toBe(0);
    const wb = new ExcelJS.Workbook();
    await wb.xlsx.readFile(xlsxFile);
    const names = wb.worksheets[0]!.getColumn(6).values.slice(2).map(String);
    expect(names).toContain('Roadmap');
    expect((await drive(['admin', 'logs', '--format', 'xlsx'], { token: adminToken })).code).toBe(2);
    expect((await drive(['admin', 'logs', '--since', 'yesterday-ish'], { token: adminToken })).code).toBe(2);
  });

  it('an ordinary account is refused every console command (exit 5, FORBIDDEN)', async () => {
    for (const args of [
      ['admin', 'config', 'get', 'recycle.days'],
      ['admin', 'config', 'set', 'recycle.days', '3'],
      ['admin', 'ip', 'ls'],
      ['admin', 'ip', 'allow', '10.0.0.1'],
      ['admin', 'logs'],
      ['admin', 'logs', '--format', 'csv', '--out', join(work, 'nope.csv')],
    ]) {
      const r = await drive(args, { token: alice.token });
      expect([args.join(' '), r.code, r.json.at(-1)?.code]).toEqual([args.join(' '), 5, 'FORBIDDEN']);
    }
  });
});
