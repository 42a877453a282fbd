// `drive trash` and `drive versions` / `drive rollback` end to end (built CLI, real server): listing the bin with
// original paths, search and sort; restoring by original path or id, into a taken name with --keep-both and
// --replace; purging and emptying (the entries leave the bin and the quota); listing versions with SHA-256 and
// rolling back (the file's bytes compared); each with --json.
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { encodeName } from '@hcs/openapi/client';
import { startServer, type TestServer } from '../helpers/server.ts';
import { apiAs } from '../helpers/org.ts';
import { adminLoginEnv } from '../helpers/drive-cli.ts';
import { uploadFile, type ApiCall } from '../helpers/upload.ts';

const DRIVE = fileURLToPath(new URL('../../cli/bin/drive.js', import.meta.url));
const sha = (s: string) => createHash('sha256').update(s).digest('hex');
let srv: TestServer;
let env: NodeJS.ProcessEnv;
let api: ApiCall;

function drive(...args: string[]): Promise<{ code: number | null; lines: any[]; stderr: string }> {
  const child = spawn(process.execPath, [DRIVE, ...args], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (c: string) => (out += c));
  child.stderr.setEncoding('utf8').on('data', (c: string) => (stderr += c));
  // Only JSON lines are events (a progress line on a terminal-less stdout would not be).
  return new Promise((resolve) =>
    child.on('close', (code) => resolve({ code, stderr, lines: out.split('\n').filter((l) => l.startsWith('{')).map((l) => JSON.parse(l)) })),
  );
}

const folder = async (name: string, parentId?: string) =>
  (await api('/hcs/controller/Instances', undefined, [{ classifierId: 'Folder', instanceName: encodeName(name), ...(parentId ? { parentId } : {}) }])).data[0].instanceId as string;
const names = async (parentId: string) => ((await api('/hcs/controller/Page', { parentId, pageSize: 100 })).data.list as any[]).map((c) => c.instanceName).sort();

beforeAll(async () => {
  srv = await startServer();
  const { token } = await srv.login();
  api = apiAs(srv, token);
  env = await adminLoginEnv(srv, 'hcs-cli-trash-');
}, 60_000);
afterAll(async () => {
  expect(srv.violations).toEqual([]);
  await srv.close();
});

describe('drive trash', () => {
  it('ls shows original paths; restore by path or id, --keep-both and --replace on a taken name; purge; empty', async () => {
    const docs = await folder('docs');
    await uploadFile(api, 'a.txt', Buffer.from('first a'), { query: { parentId: docs } });
    await uploadFile(api, 'big.bin', Buffer.from('b'.repeat(300)), { query: { parentId: docs } });
    expect((await drive('rm', '/docs/a.txt', '/docs/big.bin')).code).toBe(0);

    const ls = await drive('trash', 'ls');
    expect([ls.code, ls.lines.map((l) => [l.path, l.type, l.size]).sort()], ls.stderr).toEqual([0, [['/docs/a.txt', 'file', 7], ['/docs/big.bin', 'file', 300]]]);
    expect((await drive('trash', 'ls', '--sort', 'size')).lines.map((l) => l.path)).toEqual(['/docs/big.bin', '/docs/a.txt']);
    expect((await drive('trash', 'ls', '--sort', 'name', '--asc')).lines.map((l) => l.path)).toEqual(['/docs/a.txt', '/docs/big.bin']);
    expect((await drive('trash', 'ls', '--search', 'BIG')).lines.map((l) => l.path)).toEqual(['/docs/big.bin']);
    expect((await drive('trash', 'ls', '--sort', 'colour')).code).toBe(2);

    // By original path, back where it was.
    const back = await drive('trash', 'restore', '/docs/a.txt');
    expect([back.code, back.lines[0]], back.stderr).toEqual([0, expect.objectContaining({ event: 'restore', from: '/docs/a.txt', to: '/docs/a.txt' })]);

    // Into a taken name: refused with a hint, then keep both, then replace.
    expect((await drive('rm', '/docs/a.txt')).code).toBe(0);
    await uploadFile(api, 'a.txt', Buffer.from('second a'), { query: { parentId: docs } });
    const taken = await drive('trash', 'restore', '/docs/a.txt');
    expect([taken.code, taken.lines[0].code]).toEqual([5, 'NAME_EXISTS']);
    expect(taken.stderr).toContain('--keep-both or --replace');
    const id = (await drive('trash', 'ls', '--search', 'a.txt')).lines[0].id as string;
    // After `--`: an id may start with '-' (base64url), which would otherwise read as an option (1 run in 64 failed).
    const both = await drive('trash', 'restore', '--keep-both', '--', id);
    expect([both.code, both.lines[0]], `${both.stderr}\nids listed: ${id}`).toEqual([0, expect.objectContaining({ from: '/docs/a.txt', to: '/docs/a (1).txt', id })]);
    expect(await names(docs)).toEqual(['a (1).txt', 'a.txt']);
    // Replace: the newest entry of /docs/a.txt ("second a") takes the name back; what held it goes to the bin.
    expect((await drive('rm', '/docs/a.txt')).code).toBe(0);
    await uploadFile(api, 'a.txt', Buffer.from('third a'), { query: { parentId: docs } });
    const replaced = await drive('trash', 'restore', '/docs/a.txt', '--replace');
    expect([replaced.code, replaced.lines[0]], replaced.stderr).toEqual([0, expect.objectContaining({ to: '/docs/a.txt' })]);
    expect(await names(docs)).toEqual(['a (1).txt', 'a.txt']);
    expect((await drive('trash', 'ls', '--search', 'a.txt')).lines.map((l) => [l.path, l.size])).toEqual([['/docs/a.txt', 7]]);
    expect((await drive('trash', 'restore', '/docs/a.txt', '--keep-both', '--replace')).code).toBe(2);

    // Purge: leaves the bin; unknown entries are refused.
    const purge = await drive('trash', 'purge', '/docs/big.bin');
    expect(purge.lines).toEqual([expect.objectContaining({ event: 'purge', path: '/docs/big.bin' })]);
    expect((await drive('trash', 'ls', '--search', 'big')).lines).toEqual([]);
    const nope = await drive('trash', 'purge', '/docs/none.txt');
    expect([nope.code, nope.lines[0].code]).toEqual([5, 'NOT_FOUND']);

    // Empty: everything goes (the replaced a.txt among it).
    const before = (await drive('trash', 'ls')).lines.length;
    expect(before).toBeGreaterThan(0);
    const empty = await drive('trash', 'empty');
    expect(empty.lines[0]).toMatchObject({ event: 'empty', count: before });
    expect((await drive('trash', 'ls')).lines).toEqual([]);
  });
});

describe('drive versions / rollback', () => {
  it('lists versions with SHA-256 and rolls back to one; the file then holds its bytes', async () => {
    for (const c of ['v one', 'v two!', 'v three']) await uploadFile(api, 'notes.txt', Buffer.from(c), { query: { conflict: 'newVersion' } });
    const vs = await drive('versions', '/notes.txt');
    expect(vs.lines.map((l) => [l.version, l.current, l.size, l.sha256, l.author])).toEqual([
      [3, true, 7, sha('v three'), 'admin'],
      [2, false, 6, sha('v two!'), 'admin'],
      [1, false, 5, sha('v one'), 'admin'],
    ]);
    const rb = await drive('rollback', '/notes.txt', '--version', '1');
    expect([rb.code, rb.lines[0]], rb.stderr).toEqual([0, expect.objectContaining({ event: 'rollback', path: '/notes.txt', from: 1, version: 4, sha256: sha('v one') })]);
    const now = await drive('versions', '/notes.txt');
    expect(now.lines.map((l) => [l.version, l.sha256])).toEqual([[4, sha('v one')], [3, sha('v three')], [2, sha('v two!')], [1, sha('v one')]]);
    // The bytes a download gets are version 1's.
    const work = mkdtempSync(join(tmpdir(), 'hcs-cli-rollback-'));
    const got = await drive('download', '/notes.txt', '--out', work);
    expect(got.code, got.stderr).toBe(0);
    expect(readFileSync(join(work, 'notes.txt'), 'utf8')).toBe('v one');
    expect((await drive('rollback', '/notes.txt', '--version', '0')).code).toBe(2);
    const missing = await drive('rollback', '/notes.txt', '--version', '9');
    expect([missing.code, missing.lines[0].code]).toEqual([5, 'NOT_FOUND']);
    expect((await drive('versions', '/nope.txt')).code).toBe(5);
  });
});
