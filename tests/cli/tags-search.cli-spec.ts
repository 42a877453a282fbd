// `drive fav`, `drive tag` and `drive search` end to end (built CLI, real server): favourites by path, labels put on
// and taken off by name (created on first use), listing what carries a label, and search by text with --type,
// --label and --in, each with --json.
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { encodeName } from '@hcs/openapi/client';
import { startServer, type TestServer } from '../helpers/server.ts';
import { apiAs } from '../helpers/org.ts';
import { adminLoginEnv } from '../helpers/drive-cli.ts';
import { uploadFile, type ApiCall } from '../helpers/upload.ts';

const DRIVE = fileURLToPath(new URL('../../cli/bin/drive.js', import.meta.url));
let srv: TestServer;
let env: NodeJS.ProcessEnv;

function drive(...args: string[]): Promise<{ code: number | null; lines: any[]; stderr: string }> {
  const child = spawn(process.execPath, [DRIVE, ...args], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (c: string) => (out += c));
  child.stderr.setEncoding('utf8').on('data', (c: string) => (stderr += c));
  return new Promise((resolve) =>
    child.on('close', (code) => resolve({ code, stderr, lines: out.split('\n').filter(Boolean).map((l) => JSON.parse(l)) })),
  );
}

beforeAll(async () => {
  srv = await startServer();
  const { token } = await srv.login();
  const api: ApiCall = apiAs(srv, token);
  const docs = (await api('/hcs/controller/Instances', undefined, [{ classifierId: 'Folder', instanceName: encodeName('文档') }])).data[0].instanceId;
  await uploadFile(api, '季度报告.docx', Buffer.from('r'), { query: { parentId: docs } });
  await uploadFile(api, '季度预算.xlsx', Buffer.from('b'), { query: { parentId: docs } });
  await uploadFile(api, '季度报告备份.docx', Buffer.from('c'));
  env = await adminLoginEnv(srv, 'hcs-cli-tags-');
}, 60_000);
afterAll(async () => {
  expect(srv.violations).toEqual([]);
  await srv.close();
});

describe('drive fav / tag / search', () => {
  it('fav add, ls, rm', async () => {
    const add = await drive('fav', 'add', '/文档/季度报告.docx', '/文档');
    expect([add.code, add.lines.map((l) => l.path)], add.stderr).toEqual([0, ['/文档/季度报告.docx', '/文档']]);
    const ls = await drive('fav', 'ls');
    expect(ls.lines.map((l) => [l.path, l.space, l.type]).sort()).toEqual([['/文档', 'personal', 'folder'], ['/文档/季度报告.docx', 'personal', 'file']]);
    const rm = await drive('fav', 'rm', '/文档');
    expect(rm.lines[0]).toMatchObject({ event: 'unfav', removed: 1 });
    expect((await drive('fav', 'ls')).lines.map((l) => l.path)).toEqual(['/文档/季度报告.docx']);
    const missing = await drive('fav', 'add', '/nope');
    expect([missing.code, missing.lines[0].code]).toEqual([5, 'NOT_FOUND']);
  });

  it('tag add (creating the label), ls, rm; search by text, --type, --label, --in', async () => {
    const add = await drive('tag', 'add', '/文档/季度报告.docx', '重要');
    expect([add.code, add.lines[0]], add.stderr).toEqual([0, { event: 'tag', path: '/文档/季度报告.docx', label: '重要', labels: ['重要'] }]);
    expect((await drive('tag', 'add', '/季度报告备份.docx', '重要')).code).toBe(0);
    expect((await drive('tag', 'add', '/文档/季度报告.docx', 'Q3')).lines[0].labels.sort()).toEqual(['Q3', '重要']);
    expect((await drive('tag', 'ls', '/文档/季度报告.docx')).lines.map((l) => l.label).sort()).toEqual(['Q3', '重要']);
    expect((await drive('tag', 'ls', '/')).lines.map((l) => [l.label, l.items]).sort()).toEqual([['Q3', 1], ['重要', 2]]);
    expect((await drive('tag', 'ls', '/', '重要')).lines.map((l) => l.path).sort()).toEqual(['/季度报告备份.docx', '/文档/季度报告.docx']);
    expect((await drive('tag', 'ls', '/文档', '重要')).lines.map((l) => l.path)).toEqual(['/文档/季度报告.docx']);
    const rm = await drive('tag', 'rm', '/文档/季度报告.docx', 'q3');
    expect(rm.lines[0]).toMatchObject({ event: 'untag', label: 'Q3', labels: ['重要'] });

    const all = await drive('search', '季度');
    expect(all.lines.map((l) => l.path).sort()).toEqual(['/季度报告备份.docx', '/文档/季度报告.docx', '/文档/季度预算.xlsx']);
    expect((await drive('search', '季度', '--type', 'excel')).lines.map((l) => l.name)).toEqual(['季度预算.xlsx']);
    expect((await drive('search', '报告', '--type', '2', '--in', '/文档')).lines.map((l) => l.name)).toEqual(['季度报告.docx']);
    expect((await drive('search', '报告', '--label', '重要')).lines.map((l) => l.name).sort()).toEqual(['季度报告.docx', '季度报告备份.docx']);
    const badType = await drive('search', 'x', '--type', 'spreadsheet');
    expect(badType.code).toBe(2);
    const noLabel = await drive('search', 'x', '--label', 'none');
    expect([noLabel.code, noLabel.lines[0].code]).toEqual([5, 'NOT_FOUND']);
  });
});
