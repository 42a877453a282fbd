// Issue #18 part 1: the administration consoles through the real HTTP API, on SQLite and PostgreSQL
// (tests/pg/suite.ts): configuration entries (typed, validated, taking effect in the calls that read them),
// enumerations, operation logs (filters, keyset pages, CSV and XLSX exports, clearing that is itself logged, the
// retention setting), statistics, the per-account table and version facts; every administrators' call refused to
// an ordinary account and to a department manager.
import { randomBytes } from 'node:crypto';
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import ExcelJS from 'exceljs';
import { encodeName } from '@hcs/openapi/client';
import { encryptForServer, startServer, type TestServer } from '../helpers/server.ts';
import { apiAs, makeDept, makeManager, makeUser, mkdir, type TestUser } from '../helpers/org.ts';
import { uploadFile, type ApiCall } from '../helpers/upload.ts';

let srv: TestServer;
let admin: TestUser;
let alice: TestUser;
let manager: TestUser;

const C = '/hcs/controller';
const call = (u: TestUser): ApiCall => (path, query, body) => u.api(path, query, body);

/** Every administrators' call of the consoles, with a request the contract accepts. */
const ADMIN_CALLS: [string, Record<string, string | number> | undefined, unknown][] = [
  [`${C}/sysConfig/page`, undefined, undefined],
  [`${C}/sysConfig/addConfigs`, undefined, { configKey: 'x.denied', configValue: 'v', configType: 'string' }],
  [`${C}/sysConfig/updateConfigs`, undefined, { configKey: 'upload.syncSpeed', configValue: '5' }],
  [`${C}/sysConfig/delete`, undefined, { configKeys: ['x.denied'] }],
  [`${C}/sysConfig/getByConfigKey`, { configKey: 'upload.syncSpeed' }, undefined],
  [`${C}/access/list`, undefined, undefined],
  [`${C}/access/addOrUpdate`, undefined, { ipValue: '10.0.0.1', targetType: 'all', scope: 'drive' }],
  [`${C}/access/delete`, undefined, { ids: ['nope'] }],
  [`${C}/sysOptLog/page`, undefined, undefined],
  [`${C}/sysOptLog/optType`, undefined, undefined],
  [`${C}/sysOptLog/clearOptLog`, undefined, {}],
  [`${C}/dataStatistics/overview`, undefined, undefined],
  [`${C}/dataStatistics/personal`, undefined, undefined],
  [`${C}/System/patchInfo`, undefined, undefined],
];

async function exportLogs(u: TestUser, query: Record<string, string>): Promise<Response> {
  return srv.call(`${C}/System/downloadOptLog?${new URLSearchParams(query)}`, { token: u.token, headers: { 'X-Requested-With': '' } });
}

beforeAll(async () => {
  srv = await startServer();
  const { token } = await srv.login();
  const me = await apiAs(srv, token)(`${C}/System/Current/User`);
  admin = { id: me.data.userId, name: 'admin', token, api: apiAs(srv, token) };
  await makeDept(srv, 'sales', 'Sales');
  alice = await makeUser(srv, 'alice', 'sales');
  manager = await makeUser(srv, 'mgr', 'sales');
  await makeManager(srv, 'sales', manager.id);
});
afterAll(async () => {
  expect(srv.violations).toEqual([]);
  await srv.close();
});

describe('administrators only', () => {
  it('refuses every console call to an ordinary account and to a department manager (403 FORBIDDEN), and changes nothing', async () => {
    for (const u of [alice, manager]) {
      for (const [path, query, body] of ADMIN_CALLS) {
        const r = await u.api(path, query, body);
        expect([path, u.name, r.status, r.data?.code]).toEqual([path, u.name, 403, 'FORBIDDEN']);
      }
      const res = await exportLogs(u, { format: 'csv' });
      expect(res.status).toBe(403);
      expect(((await res.json()) as any).data.code).toBe('FORBIDDEN');
    }
    expect((await admin.api(`${C}/sysConfig/getByConfigKey`, { configKey: 'x.denied' })).data.code).toBe('NOT_FOUND');
    expect((await admin.api(`${C}/sysConfig/getByConfigKey`, { configKey: 'upload.syncSpeed' })).data.configValue).toBe(String(srv.config.syncSpeed));
  });

  it('answers enumerations, public entries and the white-list standing to any signed-in account', async () => {
    const e = await alice.api(`${C}/Enumerations`);
    expect(e.status).toBe(200);
    expect(e.data.configType.map((i: any) => i.value)).toEqual(['string', 'integer', 'boolean', 'enum', 'json']);
    expect(e.data.ipScope.map((i: any) => i.value)).toEqual(['console', 'drive']);
    expect(e.data.role.map((i: any) => i.value)).toEqual(['administrator', 'manager', 'user']);
    expect(e.data.optType.map((i: any) => i.value)).toContain('login');
    const hcd = await alice.api(`${C}/sysConfig/getByKey/hcd_able`);
    expect(hcd.data).toEqual({ configKey: 'hcd_able', configValue: 'true' });
    // Not marked publicRead: as if it did not exist.
    expect((await alice.api(`${C}/sysConfig/getByKey/upload.syncSpeed`)).data.code).toBe('NOT_FOUND');
    const access = await alice.api(`${C}/System/sso/access`);
    expect(access.data).toEqual({ ip: '127.0.0.1', allowed: true, consoleAllowed: false, enforced: true });
    expect((await admin.api(`${C}/System/sso/access`)).data.consoleAllowed).toBe(true);
  });
});

describe('system configuration', () => {
  it('lists the server\'s settings with their environment defaults, typed and bounded', async () => {
    const r = await admin.api(`${C}/sysConfig/page`, { pageSize: 100 });
    expect(r.status).toBe(200);
    const byKey = new Map(r.data.list.map((e: any) => [e.configKey, e]));
    expect(byKey.get('upload.syncSpeed')).toMatchObject({ configType: 'integer', configValue: '104857600', builtin: true, min: 1 });
    expect(byKey.get('quota.defaultGb')).toMatchObject({ configValue: '10', builtin: true });
    expect(byKey.get('language')).toMatchObject({ configType: 'enum', options: ['zh_CN', 'en_US'], publicRead: true });
    // Internal rows of sys_config (node key fingerprints) are not configuration entries.
    expect(byKey.has('nodeKeys')).toBe(false);
    const keys = r.data.list.map((e: any) => e.configKey);
    expect(keys).toEqual([...keys].sort());
    const found = await admin.api(`${C}/sysConfig/page`, { keyword: 'RECYCLE' });
    expect(found.data.list.map((e: any) => e.configKey)).toEqual(['recycle.days', 'recycle.secDays']);
  });

  it('a changed upload throttle is what file-uploadable hands out next; a value outside the type or bounds is refused', async () => {
    expect((await admin.api(`${C}/sysConfig/updateConfigs`, undefined, { configKey: 'upload.syncSpeed', configValue: 'fast' })).data.code).toBe('VALIDATION_FAILED');
    expect((await admin.api(`${C}/sysConfig/updateConfigs`, undefined, { configKey: 'upload.syncSpeed', configValue: '0' })).data.code).toBe('VALIDATION_FAILED');
    expect((await admin.api(`${C}/sysConfig/updateConfigs`, undefined, { configKey: 'language', configValue: 'fr_FR' })).data.code).toBe('VALIDATION_FAILED');
    expect((await admin.api(`${C}/sysConfig/updateConfigs`, undefined, { configKey: 'no.such', configValue: '1' })).data.code).toBe('NOT_FOUND');
    const u = await admin.api(`${C}/sysConfig/updateConfigs`, undefined, { configKey: 'upload.syncSpeed', configValue: '2097152' });
    expect(u.data).toMatchObject({ configKey: 'upload.syncSpeed', configValue: '2097152', builtin: true });
    expect(u.data.updateTime).toBeGreaterThan(0);
    const up = await alice.api('/hcs/controller/API/file-uploadable', { fSize: 10, fName: encodeName('probe.txt'), fMd5: 'a'.repeat(64), category: 'NetDisk' });
    expect(up.data.syncSpeed, JSON.stringify(up)).toBe(2097152);
  });

  it('a changed default quota applies to the next account created; the language setting is what sysConfig/language answers', async () => {
    await admin.api(`${C}/sysConfig/updateConfigs`, undefined, { configKey: 'quota.defaultGb', configValue: '3' });
    const { publicKey } = (await admin.api('/hcs/services/System/platformInfo')).data;
    const r = await admin.api(`${C}/Users/setUserInfo`, undefined, { userName: 'quotaprobe', password: await encryptForServer(publicKey, 'Quota#probe-123'), deptId: 'sales' });
    expect(r.status, JSON.stringify(r)).toBe(200);
    const row = await srv.sql.get<{ quota_bytes: number }>('SELECT quota_bytes FROM users WHERE id = ?', r.data.userId);
    expect(Number(row!.quota_bytes)).toBe(3 * 1024 ** 3);
    await admin.api(`${C}/sysConfig/updateConfigs`, undefined, { configKey: 'quota.defaultGb', configValue: '10' });
    await admin.api(`${C}/sysConfig/updateConfigs`, undefined, { configKey: 'language', configValue: 'en_US' });
    const lang = await srv.call('/hcs/services/sysConfig/language');
    expect(JSON.stringify(await lang.json())).toContain('en_US');
    await admin.api(`${C}/sysConfig/updateConfigs`, undefined, { configKey: 'language', configValue: 'zh_CN' });
  });

  it('custom entries: add (typed), look up, publicly readable when marked, update, delete; builtin ones are not deleted', async () => {
    const add = await admin.api(`${C}/sysConfig/addConfigs`, undefined, { configKey: 'ui.banner', configValue: 'Hello', configType: 'string', description: 'Banner', publicRead: true });
    expect(add.data).toMatchObject({ configKey: 'ui.banner', configValue: 'Hello', builtin: false, publicRead: true });
    expect((await admin.api(`${C}/sysConfig/addConfigs`, undefined, { configKey: 'ui.banner', configValue: 'x', configType: 'string' })).data.code).toBe('NAME_EXISTS');
    expect((await admin.api(`${C}/sysConfig/addConfigs`, undefined, { configKey: 'upload.syncSpeed', configValue: '1', configType: 'integer' })).data.code).toBe('NAME_EXISTS');
    expect((await admin.api(`${C}/sysConfig/addConfigs`, undefined, { configKey: 'ui.count', configValue: '1.5', configType: 'integer' })).data.code).toBe('VALIDATION_FAILED');
    expect((await admin.api(`${C}/sysConfig/addConfigs`, undefined, { configKey: 'ui.mode', configValue: 'a', configType: 'enum' })).data.code).toBe('VALIDATION_FAILED');
    const mode = await admin.api(`${C}/sysConfig/addConfigs`, undefined, { configKey: 'ui.mode', configValue: 'a', configType: 'enum', options: ['a', 'b'] });
    expect(mode.data.options).toEqual(['a', 'b']);
    expect((await admin.api(`${C}/sysConfig/updateConfigs`, undefined, { configKey: 'ui.mode', configValue: 'c' })).data.code).toBe('VALIDATION_FAILED');
    expect((await admin.api(`${C}/sysConfig/addConfigs`, undefined, { configKey: 'ui.json', configValue: '{', configType: 'json' })).data.code).toBe('VALIDATION_FAILED');
    expect((await alice.api(`${C}/sysConfig/getByKey/ui.banner`)).data.configValue).toBe('Hello');
    expect((await alice.api(`${C}/sysConfig/getByKey/ui.mode`)).data.code).toBe('NOT_FOUND');
    await admin.api(`${C}/sysConfig/updateConfigs`, undefined, { configKey: 'ui.banner', configValue: 'Bye', description: 'Banner text' });
    expect((await admin.api(`${C}/sysConfig/getByConfigKey`, { configKey: 'ui.banner' })).data).toMatchObject({ configValue: 'Bye', description: 'Banner text' });
    expect((await alice.api(`${C}/sysConfig/getByKey/ui.banner`)).data.configValue).toBe('Bye');

    expect((await admin.api(`${C}/sysConfig/delete`, undefined, { configKeys: ['ui.banner', 'recycle.days'] })).data.code).toBe('CONFIG_BUILTIN');
    // All or nothing: an unknown key keeps the known one.
    expect((await admin.api(`${C}/sysConfig/delete`, undefined, { configKeys: ['ui.banner', 'no.such'] })).data.code).toBe('NOT_FOUND');
    expect((await admin.api(`${C}/sysConfig/getByConfigKey`, { configKey: 'ui.banner' })).status).toBe(200);
    expect((await admin.api(`${C}/sysConfig/delete`, undefined, { configKeys: ['ui.banner', 'ui.mode'] })).status).toBe(200);
    expect((await admin.api(`${C}/sysConfig/getByConfigKey`, { configKey: 'ui.banner' })).data.code).toBe('NOT_FOUND');
    expect((await alice.api(`${C}/sysConfig/getByKey/ui.banner`)).data.code).toBe('NOT_FOUND');
  });
});

describe('operation logs', () => {
  let t0: number;
  beforeAll(async () => {
    t0 = Date.now();
    await mkdir(alice, 'Quarterly report');
    await mkdir(manager, 'Budget plan');
    await uploadFile(call(alice), 'notes.txt', randomBytes(300));
    // A failure is logged too.
    await alice.api(`${C}/sysConfig/updateConfigs`, undefined, { configKey: 'x', configValue: 'y' });
  });

  it('pages newest first with filters by user, type, result, time and object name, by keyset cursor and by page number', async () => {
    const mine = await admin.api(`${C}/sysOptLog/page`, { userName: 'ALICE', since: t0 });
    expect(mine.status).toBe(200);
    expect(mine.data.list.length).toBeGreaterThanOrEqual(3);
    expect(mine.data.list.every((l: any) => l.userName === 'alice')).toBe(true);
    const ids = mine.data.list.map((l: any) => l.id);
    expect(ids).toEqual([...ids].sort((a: number, b: number) => b - a));
    const failures = await admin.api(`${C}/sysOptLog/page`, { userName: 'alice', result: 'failure', since: t0 });
    expect(failures.data.list.map((l: any) => [l.optType, l.result])).toEqual([['updateConfigs', 'failure']]);
    const byName = await admin.api(`${C}/sysOptLog/page`, { keyword: 'budget', since: t0 });
    expect(byName.data.list.map((l: any) => [l.userName, l.optType])).toEqual([['mgr', 'createInstances']]);
    expect(byName.data.total).toBe(1);
    const byType = await admin.api(`${C}/sysOptLog/page`, { optType: 'createInstances', since: t0 });
    expect(byType.data.list.map((l: any) => l.userName).sort()).toEqual(['alice', 'mgr']);
    expect((await admin.api(`${C}/sysOptLog/page`, { optType: 'createInstances', until: t0 })).data.list).toEqual([]);
    // A LIKE wildcard in the search is a literal.
    expect((await admin.api(`${C}/sysOptLog/page`, { keyword: '%', since: t0 })).data.list).toEqual([]);

    const first = await admin.api(`${C}/sysOptLog/page`, { since: t0, pageSize: 2 });
    expect(first.data.nextCursor).toBeDefined();
    const next = await admin.api(`${C}/sysOptLog/page`, { since: t0, pageSize: 2, cursor: first.data.nextCursor });
    const page2 = await admin.api(`${C}/sysOptLog/page`, { since: t0, pageSize: 2, pageNo: 2 });
    expect(next.data.list.map((l: any) => l.id)).toEqual(page2.data.list.map((l: any) => l.id));
    expect(Math.max(...next.data.list.map((l: any) => l.id))).toBeLessThan(Math.min(...first.data.list.map((l: any) => l.id)));
    const types = await admin.api(`${C}/sysOptLog/optType`);
    expect(types.data).toEqual(expect.arrayContaining(['createInstances', 'login', 'updateConfigs']));
  });

  it('exports the filtered rows as CSV (formula-safe) and as an XLSX workbook', async () => {
    await mkdir(alice, '=1+2');
    const csv = await exportLogs(admin, { userName: 'alice', optType: 'createInstances', since: String(t0), format: 'csv' });
    expect(csv.status).toBe(200);
    expect(csv.headers.get('content-type')).toContain('text/csv');
    expect(csv.headers.get('content-disposition')).toMatch(/attachment.*oplog-.*\.csv/);
    const text = (await csv.text()).replace(/^\ufeff/, '');
    const lines = text.trim().split('\r\n');
    expect(lines[0]).toContain('Object name');
    expect(lines).toHaveLength(3);
    expect(lines[1]).toContain(",'=1+2,");
    expect(lines[2]).toContain('Quarterly report');

    const x = await exportLogs(admin, { userName: 'alice', optType: 'createInstances', since: String(t0), format: 'xlsx' });
    expect(x.status).toBe(200);
    const wb = new ExcelJS.Workbook();
    await wb.xlsx.load(Buffer.from(await x.arrayBuffer()) as any);
    const sheet = wb.worksheets[0]!;
    expect(sheet.rowCount).toBe(3);
    expect(String(sheet.getRow(3).getCell(6).value)).toBe('Quarterly report');
    expect(String(sheet.getRow(2).getCell(3).value)).toBe('createInstances');
  });

  it('clearing is for administrators, removes what is older than the given time, and is itself logged', async () => {
    const cut = Date.now();
    const before = await admin.api(`${C}/sysOptLog/page`, { until: cut, pageSize: 1 });
    expect(before.data.total).toBeGreaterThan(0);
    const r = await admin.api(`${C}/sysOptLog/clearOptLog`, undefined, { before: cut });
    expect(r.data.cleared).toBe(before.data.total);
    expect((await admin.api(`${C}/sysOptLog/page`, { until: cut })).data.total).toBe(0);
    const trace = await admin.api(`${C}/sysOptLog/page`, { optType: 'clearOptLog' });
    expect(trace.data.list[0]).toMatchObject({ userName: 'admin', result: 'success', detail: `cleared ${before.data.total}` });
    // alice's refused attempt (earlier test) is logged as a failure, and removes nothing.
    expect((await alice.api(`${C}/sysOptLog/clearOptLog`, undefined, {})).status).toBe(403);
    expect((await admin.api(`${C}/sysOptLog/page`, { optType: 'clearOptLog' })).data.total).toBeGreaterThanOrEqual(1);
  });

  it('the retention setting deletes older rows in the retention pass', async () => {
    await srv.sql.run("INSERT INTO op_logs (at, user_name, op_type, result) VALUES (?, 'old', 'ancient', 'success')", Date.now() - 40 * 86_400_000);
    await srv.built.retention().sweep();
    expect((await admin.api(`${C}/sysOptLog/page`, { optType: 'ancient' })).data.total).toBe(1);
    await admin.api(`${C}/sysConfig/updateConfigs`, undefined, { configKey: 'log.retentionDays', configValue: '30' });
    const report = await srv.built.retention().sweep();
    expect(report.logs).toBe(1);
    expect((await admin.api(`${C}/sysOptLog/page`, { optType: 'ancient' })).data.total).toBe(0);
    await admin.api(`${C}/sysConfig/updateConfigs`, undefined, { configKey: 'log.retentionDays', configValue: '0' });
  });
});

describe('statistics and version', () => {
  it('counts storage by space, department and type, uploads per day, active users and top folders', async () => {
    const folder = await mkdir(alice, 'Stats');
    await uploadFile(call(alice), 'big.bin', randomBytes(5000), { query: { parentId: folder } });
    const r = await admin.api(`${C}/dataStatistics/overview`, { days: 7 });
    expect(r.status).toBe(200);
    const d = r.data;
    expect(d.bySpace.find((b: any) => b.key === 'user').bytes).toBeGreaterThanOrEqual(5300);
    expect(d.byDept.find((b: any) => b.key === 'sales')).toMatchObject({ label: 'Sales' });
    expect(d.byDept.find((b: any) => b.key === 'sales').bytes).toBeGreaterThanOrEqual(5300);
    expect(d.byType.length).toBeGreaterThan(0);
    expect(d.daily).toHaveLength(7);
    const today = d.daily[6];
    expect(today.day).toBe(new Date().toISOString().slice(0, 10));
    expect(today.uploads).toBeGreaterThanOrEqual(1);
    expect(today.activeUsers).toBeGreaterThanOrEqual(2);
    expect(d.activeUsers).toBeGreaterThanOrEqual(2);
    expect(d.topFolders[0]).toMatchObject({ key: folder, label: 'Stats', bytes: 5000, count: 1 });
    expect(d.totals.users).toBeGreaterThanOrEqual(3);
  });

  it('the personal table lists accounts largest first, searchable', async () => {
    const r = await admin.api(`${C}/dataStatistics/personal`, { keyword: 'ALI' });
    expect(r.data.total).toBe(1);
    expect(r.data.list[0]).toMatchObject({ userName: 'alice', deptName: 'Sales' });
    expect(r.data.list[0].usedBytes).toBeGreaterThanOrEqual(5300);
    expect(r.data.list[0].files).toBe(2);
    expect(r.data.list[0].lastActive).toBeGreaterThan(0);
  });

  it('patch info names the version, the database and every migration as applied', async () => {
    const r = await admin.api(`${C}/System/patchInfo`);
    expect(r.data.version).toMatch(/^\d+\.\d+\.\d+/);
    expect(r.data.node).toBe(process.version);
    expect(['sqlite', 'postgres']).toContain(r.data.database);
    expect(r.data.migrations.find((m: any) => m.name === '013_admin')).toMatchObject({ applied: true });
    expect(r.data.migrations.every((m: any) => m.applied)).toBe(true);
  });
});
