// `dept:<department name or id>/path` remote paths through the built CLI against the real server: ls, mkdir, upload,
// download, cp, mv and rm work in a department's space (the server files them there, not in the personal space, and
// applies the department's rules: a member may not delete), a
// name shared by two departments is refused with both candidates (path of names and id), and a department the caller
// cannot reach is not found.
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
let outsider: TestUser;
const drive = driveRunner(() => cliEnv(srv, work));
const sha = (b: Buffer) => createHash('sha256').update(b).digest('hex');

describe('dept: remote paths', () => {
  beforeAll(async () => {
    srv = await startServer();
    work = mkdtempSync(join(tmpdir(), 'hcs-dept-paths-'));
    await makeDept(srv, 'sales', 'Sales');
    await makeDept(srv, 'ops-a', 'Ops', 'sales');
    await makeDept(srv, 'ops-b', 'Ops');
    await makeDept(srv, 'legal', 'Legal');
    alice = await makeUser(srv, 'alice', 'sales');
    outsider = await makeUser(srv, 'olaf', 'legal');
  }, 60_000);

  afterAll(async () => {
    await srv?.close();
    if (work) rmSync(work, { recursive: true, force: true });
  });

  it('mkdir, upload, ls and download in a department space', async () => {
    const mk = await drive(['mkdir', 'dept:Sales/reports/2024'], { token: alice.token });
    expect(mk.code, mk.stderr).toBe(0);
    expect(mk.json[0]).toMatchObject({ event: 'mkdir', path: 'dept:Sales/reports/2024' });
    expect(await spaceOf(srv, 'reports')).toEqual([{ space_kind: 'dept', space_id: 'sales' }]);

    const src = join(work, 'src');
    mkdirSync(src, { recursive: true });
    const body = randomBytes(50_000);
    writeFileSync(join(src, 'q1.bin'), body);
    const up = await drive(['upload', join(src, 'q1.bin'), '--to', 'dept:Sales/reports/2024'], { token: alice.token });
    expect(up.code, up.stderr).toBe(0);
    expect(up.json.find((e) => e.event === 'file-done')).toMatchObject({ remote: 'dept:Sales/reports/2024/q1.bin' });
    expect(await spaceOf(srv, 'q1.bin')).toEqual([{ space_kind: 'dept', space_id: 'sales' }]);

    // By id too, and the personal space does not have it.
    const ls = await drive(['ls', 'dept:sales/reports/2024'], { token: alice.token });
    expect(ls.code, ls.stderr).toBe(0);
    expect(ls.json).toEqual([expect.objectContaining({ path: 'dept:sales/reports/2024/q1.bin', name: 'q1.bin', type: 'file', size: 50_000 })]);
    const personal = await drive(['ls', '/reports'], { token: alice.token });
    expect(personal.code).toBe(5);
    expect(personal.json[0]).toMatchObject({ event: 'error', code: 'NOT_FOUND' });

    const out = join(work, 'out');
    const down = await drive(['download', 'dept:Sales/reports/2024/q1.bin', '--out', out], { token: alice.token });
    expect(down.code, down.stderr).toBe(0);
    expect(sha(readFileSync(join(out, 'q1.bin')))).toBe(sha(body));
  });

  it('cp and mv between a department space and the personal one, rm in the department space', async () => {
    const cp = await drive(['cp', 'dept:Sales/reports/2024/q1.bin', '/'], { token: alice.token });
    expect(cp.code, cp.stderr).toBe(0);
    expect(cp.json[0]).toMatchObject({ event: 'copy', from: 'dept:Sales/reports/2024/q1.bin', to: '/q1.bin' });
    expect((await spaceOf(srv, 'q1.bin')).map((s) => s.space_kind).sort()).toEqual(['dept', 'user']);

    const mv = await drive(['mv', 'dept:Sales/reports/2024/q1.bin', 'dept:Sales/reports/q1-final.bin'], { token: alice.token });
    expect(mv.code, mv.stderr).toBe(0);
    expect(mv.json[0]).toMatchObject({ event: 'move', from: 'dept:Sales/reports/2024/q1.bin', to: 'dept:Sales/reports/q1-final.bin' });
    const ls = await drive(['ls', 'dept:Sales/reports'], { token: alice.token });
    expect(ls.json.map((e) => e.path).sort()).toEqual(['dept:Sales/reports/2024', 'dept:Sales/reports/q1-final.bin']);

    // Members hold defaultrole there, which has no delete; the department's manager (here the administrator) may.
    const refused = await drive(['rm', 'dept:Sales/reports/2024'], { token: alice.token });
    expect(refused.code).toBe(5);
    expect(refused.json[0]).toMatchObject({ event: 'error', code: 'FORBIDDEN' });
    const admin = await srv.login();
    const rm = await drive(['rm', 'dept:Sales/reports/2024'], { token: admin.token });
    expect(rm.code, rm.stderr).toBe(0);
    expect(rm.json[0]).toMatchObject({ event: 'rm', path: 'dept:Sales/reports/2024' });
    const after = await drive(['ls', 'dept:Sales/reports'], { token: alice.token });
    expect(after.json.map((e) => e.path)).toEqual(['dept:Sales/reports/q1-final.bin']);
  });

  it('an ambiguous department name lists the candidates with their ids; an id picks one', async () => {
    const admin = await srv.login();
    const amb = await drive(['ls', 'dept:ops/'], { token: admin.token });
    expect(amb.code).toBe(2);
    expect(amb.json[0]).toMatchObject({ event: 'error', code: 'DEPT_AMBIGUOUS' });
    expect(amb.stderr).toContain('Company/Sales/Ops (id ops-a)');
    expect(amb.stderr).toContain('Company/Ops (id ops-b)');
    const byId = await drive(['mkdir', 'dept:ops-b/x'], { token: admin.token });
    expect(byId.code, byId.stderr).toBe(0);
    expect(await spaceOf(srv, 'x')).toEqual([{ space_kind: 'dept', space_id: 'ops-b' }]);
  });

  it('a department the caller cannot reach is not found, and a bad dept: path is a usage error', async () => {
    const ls = await drive(['ls', 'dept:Sales/'], { token: outsider.token });
    expect(ls.code).toBe(5);
    expect(ls.json[0]).toMatchObject({ event: 'error', code: 'NOT_FOUND' });
    expect(ls.stderr).toContain('no department "Sales" that you can reach');
    const bad = await drive(['ls', 'dept:/x'], { token: outsider.token });
    expect(bad.code).toBe(2);
    expect(bad.json[0]).toMatchObject({ event: 'error', code: 'USAGE' });
  });
});
