// Issue #11, finding 9: HEAD must not run the changes the spec makes with GET, and a caller-supplied library code
// must name a library the caller may use before the server creates anything in it.
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { createHash } from 'node:crypto';
import { encodeName } from '@hcs/openapi/client';
import { startServer, type TestServer } from '../helpers/server.ts';
import { contract } from '../helpers/contract.ts';
import { createUser } from '../../mock-server/src/db/users-repo.ts';

type Json = Record<string, any>;
type Env = { status: number; ret: number; msg: string; data: any };

let srv: TestServer;
let admin: string;
let nora: string;
let noraId: string;

async function api(path: string, init: { as: string; method?: string; body?: unknown; headers?: Record<string, string> }): Promise<Env> {
  const res = await srv.call(path, {
    method: init.method ?? (init.body !== undefined ? 'POST' : 'GET'),
    token: init.as,
    headers: { ...(init.body !== undefined && typeof init.body !== 'string' ? { 'content-type': 'application/json' } : {}), ...init.headers },
    body: init.body === undefined ? undefined : typeof init.body === 'string' ? init.body : JSON.stringify(init.body),
  });
  return { status: res.status, ...((await res.json()) as Omit<Env, 'status'>) };
}

/** Library roots as the database holds them: (library, space) pairs. */
async function roots(): Promise<string[]> {
  const rows = (await srv.sql.all('SELECT lib_code AS lib, space_id AS space FROM instances WHERE parent_id IS NULL')) as { lib: string; space: string }[];
  return rows.map((r) => `${r.lib}:${r.space}`).sort();
}

beforeAll(async () => {
  srv = await startServer();
  admin = (await srv.login()).token;
  noraId = (await createUser(srv.built.ctx.db, { userName: 'nora', password: 'Nora#pass-1234' })).id;
  nora = (await srv.login('nora', 'Nora#pass-1234')).token;
});
afterAll(async () => {
  expect(srv.violations).toEqual([]);
  await srv.close();
});

describe('HEAD on an operation that changes something', () => {
  it('HEAD /hcs/controller/delete answers 405 with Allow: GET and leaves the file in place', async () => {
    const made = await api('/hcs/controller/Instances', { as: admin, body: [{ classifierId: 'Folder', instanceName: encodeName('keep me') }] });
    expect(made.ret, JSON.stringify(made)).toBe(0);
    const id: string = made.data[0].instanceId;

    const head = await srv.call(`/hcs/controller/delete?ids=${id}`, { method: 'HEAD', token: admin, headers: { traceId: 'head-delete' } });
    expect(head.status).toBe(405);
    expect(head.headers.get('allow')).toBe('GET');

    const still = await api(`/hcs/controller/Instances/${id}`, { as: admin });
    expect([still.status, still.data.instanceName]).toEqual([200, 'keep me']);
    const row = (await srv.sql.get('SELECT deleted_at AS d FROM instances WHERE id = ?', id)) as { d: number | null };
    expect(row.d).toBeNull();
    // The refused HEAD never reached the handler, so no operation-log line claims a deletion.
    const logged = (await srv.sql.get("SELECT count(*) AS n FROM op_logs WHERE trace_id = 'head-delete'")) as { n: number };
    expect(logged.n).toBe(0);
  });

  it('refuses HEAD on every GET the contract marks x-hcs-mutating, and still answers HEAD on reads', async () => {
    const mutating: string[] = [];
    for (const [path, item] of Object.entries<Json>(contract.paths)) {
      if (item.get?.['x-hcs-mutating'] === true) mutating.push(path);
    }
    expect(mutating.length).toBeGreaterThan(5);
    for (const path of mutating) {
      const res = await srv.call(`${path}?ids=unknownid`, { method: 'HEAD', token: admin });
      expect.soft(res.status, path).toBe(405);
      expect.soft(res.headers.get('allow'), path).toBe('GET');
    }
    const read = await srv.call('/hcs/controller/Page', { method: 'HEAD', token: admin });
    expect(read.status).toBe(200);
  });
});

describe('library codes supplied by the caller', () => {
  it('a non-administrator cannot list, create in or upload to SysConfig, and no root appears there', async () => {
    const before = await roots();
    const page = await api('/hcs/controller/Page?libCode=SysConfig', { as: nora });
    expect([page.status, page.data.code]).toEqual([403, 'FORBIDDEN']);
    const mk = await api('/hcs/controller/Instances', { as: nora, body: [{ classifierId: 'Folder', instanceName: encodeName('x'), libCode: 'SysConfig' }] });
    expect([mk.status, mk.data.code]).toEqual([403, 'FORBIDDEN']);
    const tree = await api('/hcs/controller/getTreeFolder', { as: nora, body: { libCode: 'SysConfig' } });
    expect([tree.status, tree.data.code]).toEqual([403, 'FORBIDDEN']);
    const lazy = await api('/hcs/controller/tree/folderData?libCode=SysConfig', { as: nora });
    expect([lazy.status, lazy.data.code]).toEqual([403, 'FORBIDDEN']);
    const bytes = Buffer.from('sysconfig upload');
    const fMd5 = createHash('sha256').update(bytes).digest('hex');
    const up = await api(`/hcs/controller/API/file-uploadable?fSize=${bytes.length}&fName=${encodeName('a.txt')}&fMd5=${fMd5}&category=SysConfig`, { as: nora });
    expect([up.status, up.data.code]).toEqual([403, 'FORBIDDEN']);
    expect(await roots()).toEqual(before);
    expect((await roots()).filter((r) => r.startsWith('SysConfig:'))).toEqual([]);
  });

  it('an unknown library code is NOT_FOUND everywhere, for administrators too, and creates no root', async () => {
    const before = await roots();
    for (const as of [nora, admin]) {
      for (const code of ['NoSuchLib', 'netdisk', 'NetDisk ', 'x'.repeat(64)]) {
        const page = await api(`/hcs/controller/Page?libCode=${encodeURIComponent(code)}`, { as });
        expect.soft([page.status, page.data.code], code).toEqual([404, 'NOT_FOUND']);
        const mk = await api('/hcs/controller/Instances', { as, body: [{ classifierId: 'Folder', instanceName: encodeName('x'), libCode: code }] });
        expect.soft([mk.status, mk.data.code], code).toEqual([404, 'NOT_FOUND']);
        const tree = await api('/hcs/controller/getTreeFolder', { as, body: { libCode: code } });
        expect.soft([tree.status, tree.data.code], code).toEqual([404, 'NOT_FOUND']);
        const lazy = await api(`/hcs/controller/tree/folderData?libCode=${encodeURIComponent(code)}`, { as });
        expect.soft([lazy.status, lazy.data.code], code).toEqual([404, 'NOT_FOUND']);
      }
      const bytes = Buffer.from('unknown library upload');
      const fMd5 = createHash('sha256').update(bytes).digest('hex');
      const up = await api(`/hcs/controller/API/file-uploadable?fSize=${bytes.length}&fName=${encodeName('b.txt')}&fMd5=${fMd5}&category=Bogus1`, { as });
      expect([up.status, up.data.code]).toEqual([404, 'NOT_FOUND']);
      const manifest = { category: 'Bogus', files: [{ fName: encodeName('c.txt'), fSize: bytes.length, fMd5 }] };
      const bulk = await api('/hcs/controller/API/bulk-upload', {
        as, body: Buffer.concat([Buffer.from(JSON.stringify(manifest) + '\n'), bytes]).toString('latin1'), headers: { 'content-type': 'application/octet-stream' },
      });
      expect(bulk.data.files?.[0] ?? bulk.data).toMatchObject({ outcome: 'failed', code: 'NOT_FOUND' });
    }
    expect(await roots()).toEqual(before);
  });

  it('the libraries the caller may use still work: NetDisk for everyone, SysConfig for administrators', async () => {
    const page = await api('/hcs/controller/Page?libCode=NetDisk', { as: nora });
    expect([page.status, page.ret]).toEqual([200, 0]);
    const sys = await api('/hcs/controller/Page?libCode=SysConfig', { as: admin });
    expect([sys.status, sys.ret]).toEqual([200, 0]);
    expect(await roots()).toContain(`NetDisk:${noraId}`);
  });
});
