// `drive admin lib add|ls` through the CLI against the real server (SQLite and PostgreSQL): a library is created
// with its Chinese and English names and listed with the built-in ones, in JSON and human output; a taken code,
// a bad code and a missing name fail with the documented exit codes, and a non-administrator is refused.
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

describe('drive admin lib', () => {
  beforeAll(async () => {
    srv = await startServer();
    work = mkdtempSync(join(tmpdir(), 'hcs-lib-cli-'));
    adminToken = (await srv.login()).token;
    plain = await makeUser(srv, 'libplain', null);
  }, 60_000);

  afterAll(async () => {
    await srv?.close();
    if (work) rmSync(work, { recursive: true, force: true });
  });

  it('adds a library and lists it with the built-in ones', async () => {
    const made = await drive(['admin', 'lib', 'add', 'HR_DOCS', '--name-zh', '人事档案', '--name-en', 'HR documents', '--sort', '3'], { token: adminToken });
    expect(made.code, made.stderr).toBe(0);
    expect(made.json[0]).toMatchObject({ event: 'lib-add', libCode: 'HR_DOCS', nameZh: '人事档案', nameEn: 'HR documents', sort: 3, home: true, enabled: true, custom: true });
    expect(made.json[0]!.rootId).toEqual(expect.any(String));
    // The server holds it: the home strip lists it.
    const row = await srv.sql.get<{ lib_name: string; custom: number }>('SELECT lib_name, custom FROM business_libs WHERE lib_code = ?', 'HR_DOCS');
    expect(row).toMatchObject({ lib_name: '人事档案', custom: 1 });

    const ls = await drive(['admin', 'lib', 'ls'], { token: adminToken });
    expect(ls.code, ls.stderr).toBe(0);
    const codes = ls.json.map((l) => l.libCode);
    expect(codes).toEqual(expect.arrayContaining(['NetDisk', 'SysConfig', 'HR_DOCS']));
    expect(ls.json.find((l) => l.libCode === 'NetDisk')).toMatchObject({ custom: false });
    const human = await drive(['admin', 'lib', 'ls'], { token: adminToken, json: false });
    expect(human.stdout).toMatch(/HR_DOCS\s+人事档案 \/ HR documents/);
  });

  it('refuses a taken code, a bad code, a missing name and non-administrators', async () => {
    const taken = await drive(['admin', 'lib', 'add', 'hr_docs', '--name-zh', '重复', '--name-en', 'Dup'], { token: adminToken });
    expect(taken.code).toBe(5);
    expect(taken.json[0]).toMatchObject({ event: 'error', code: 'CONFLICT' });
    const bad = await drive(['admin', 'lib', 'add', '1abc', '--name-zh', '坏', '--name-en', 'Bad'], { token: adminToken });
    expect(bad.code).not.toBe(0);
    expect(bad.json[0]).toMatchObject({ event: 'error', code: 'VALIDATION_FAILED' });
    const noName = await drive(['admin', 'lib', 'add', 'NONAME', '--name-zh', '无'], { token: adminToken });
    expect(noName.code).toBe(2);
    const denied = await drive(['admin', 'lib', 'add', 'MINE', '--name-zh', '我的', '--name-en', 'Mine'], { token: plain.token });
    expect(denied.code).toBe(5);
    expect(denied.json[0]).toMatchObject({ event: 'error', code: 'FORBIDDEN' });
    expect((await drive(['admin', 'lib', 'ls'], { token: plain.token })).code).toBe(5);
    const count = await srv.sql.get<{ n: number }>("SELECT count(*) AS n FROM business_libs WHERE lib_code IN ('NONAME', 'MINE')");
    expect(Number(count!.n)).toBe(0);
  });
});
