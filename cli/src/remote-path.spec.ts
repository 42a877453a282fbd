import { describe, expect, it } from 'vitest';
import { decodeName } from '@hcs/openapi/client';
import { createApi } from './api.ts';
import { EXIT } from './exit-codes.ts';
import { formatRemote, nameProblem, parseRemote, parseRemotePath, pickDept, pickGroup, RemoteFs, type Instance } from './remote-path.ts';

describe('parseRemotePath', () => {
  it('splits and normalises', () => {
    expect(parseRemotePath('/')).toEqual([]);
    expect(parseRemotePath('')).toEqual([]);
    expect(parseRemotePath('/docs//a/./b/')).toEqual(['docs', 'a', 'b']);
    expect(parseRemotePath('docs/a/../b')).toEqual(['docs', 'b']);
  });
  it('never climbs above the root', () => {
    expect(() => parseRemotePath('/../etc')).toThrow(/above the root/);
    expect(() => parseRemotePath('a/../../b')).toThrow(/above the root/);
  });
  it('applies the spec name rules', () => {
    expect(nameProblem('ok name.txt')).toBeNull();
    expect(nameProblem(' lead')).toMatch(/whitespace/);
    expect(nameProblem('a:b')).toMatch(/contains/);
    expect(() => parseRemotePath('/a/b*c')).toThrow(/invalid remote path/);
  });
});

describe('parseRemote', () => {
  it('a path without dept: is personal, and keeps its meaning', () => {
    expect(parseRemote('/docs/a')).toEqual({ space: { kind: 'personal' }, segments: ['docs', 'a'] });
    expect(parseRemote('')).toEqual({ space: { kind: 'personal' }, segments: [] });
    // A personal name can never hold ':', so "dept:" cannot be a folder of the personal space.
    expect(() => parseRemotePath('dept:Sales/x')).toThrow(/invalid remote path/);
  });
  it('dept:<name or id> names a department space, its root with or without the slash', () => {
    expect(parseRemote('dept:Sales/reports/../q1')).toEqual({ space: { kind: 'dept', ref: 'Sales' }, segments: ['q1'] });
    expect(parseRemote('dept:Sales')).toEqual({ space: { kind: 'dept', ref: 'Sales' }, segments: [] });
    expect(parseRemote('dept:d-42/')).toEqual({ space: { kind: 'dept', ref: 'd-42' }, segments: [] });
    expect(parseRemote('dept:Research & Development/a b')).toEqual({ space: { kind: 'dept', ref: 'Research & Development' }, segments: ['a b'] });
  });
  it('refuses a missing department, climbing above its root and bad names', () => {
    expect(() => parseRemote('dept:/x')).toThrow(expect.objectContaining({ exitCode: EXIT.USAGE, message: expect.stringContaining('name the department') }));
    expect(() => parseRemote('dept:')).toThrow(expect.objectContaining({ exitCode: EXIT.USAGE }));
    expect(() => parseRemote('dept:Sales/../x')).toThrow(/above the root/);
    expect(() => parseRemote('dept:Sales/a*b')).toThrow(/invalid remote path/);
  });
  it('formats back the way it is written', () => {
    expect(formatRemote({ kind: 'dept', ref: 'Sales' }, ['a', 'b'])).toBe('dept:Sales/a/b');
    expect(formatRemote({ kind: 'dept', ref: 'Sales' }, [])).toBe('dept:Sales/');
    expect(formatRemote({ kind: 'personal' }, ['a'])).toBe('/a');
    expect(formatRemote(undefined, [])).toBe('/');
  });
});

describe('group: paths', () => {
  it('group:<name or id> names a group space, formats back, and refuses a missing name', () => {
    expect(parseRemote('group:Apollo/docs/../q1')).toEqual({ space: { kind: 'group', ref: 'Apollo' }, segments: ['q1'] });
    expect(parseRemote('group:grp_1')).toEqual({ space: { kind: 'group', ref: 'grp_1' }, segments: [] });
    expect(formatRemote({ kind: 'group', ref: 'Apollo' }, ['a'])).toBe('group:Apollo/a');
    expect(() => parseRemote('group:/x')).toThrow(expect.objectContaining({ exitCode: EXIT.USAGE, message: expect.stringContaining('name the group') }));
    expect(() => parseRemotePath('group:Apollo/x')).toThrow(/invalid remote path/);
  });
  it('picks a group by id, then by name without case; an unknown one is not found', () => {
    const groups = [
      { groupId: 'g1', groupName: 'Apollo', rootId: 'r1' },
      { groupId: 'g2', groupName: 'g1', rootId: 'r2' },
    ];
    expect(pickGroup('g1', groups).rootId).toBe('r1');
    expect(pickGroup('APOLLO', groups).rootId).toBe('r1');
    expect(() => pickGroup('Gemini', groups)).toThrow(expect.objectContaining({ exitCode: EXIT.REFUSED, code: 'NOT_FOUND' }));
  });
});

describe('pickDept', () => {
  const depts = [
    { id: 'root', name: 'Company', pathNames: ['Company'] },
    { id: 'sales', name: 'Sales', pathNames: ['Company', 'Sales'] },
    { id: 'ops-a', name: 'Ops', pathNames: ['Company', 'Sales', 'Ops'] },
    { id: 'ops-b', name: 'ops', pathNames: ['Company', 'ops'] },
    // A department whose name is another's id: the id wins, the name is still reachable by its path.
    { id: 'x1', name: 'sales', pathNames: ['Company', 'Ops', 'sales'] },
  ];
  it('an id first, then a name without case', () => {
    expect(pickDept('ops-b', depts).id).toBe('ops-b');
    expect(pickDept('sales', depts).id).toBe('sales');
    expect(pickDept('COMPANY', depts).id).toBe('root');
  });
  it('an ambiguous name lists every candidate with its path and id, sorted', () => {
    let err: unknown;
    try {
      pickDept('OPS', depts);
    } catch (e) {
      err = e;
    }
    expect(err).toMatchObject({ exitCode: EXIT.USAGE, code: 'DEPT_AMBIGUOUS' });
    expect((err as Error).message).toContain('Company/ops (id ops-b); Company/Sales/Ops (id ops-a)');
  });
  it('a path of names, from below the root or from the root', () => {
    expect(pickDept('Sales/Ops', depts).id).toBe('ops-a');
    expect(pickDept('company/ops', depts).id).toBe('ops-b');
    expect(pickDept('Ops/sales', depts).id).toBe('x1');
  });
  it('nothing matching is not found', () => {
    expect(() => pickDept('Legal', depts)).toThrow(expect.objectContaining({ exitCode: EXIT.REFUSED, code: 'NOT_FOUND' }));
  });
});

/** An in-memory /hcs server: listInstances (keyword filter, cursor pages of 2) and createInstances. */
function fakeServer() {
  const rows: Instance[] = [];
  let seq = 0;
  const add = (parentId: string, name: string, folder: boolean): Instance => {
    const i = {
      instanceId: `i${++seq}`,
      instanceName: name,
      classifierId: folder ? 'Folder' : 'File',
      parentId,
      libCode: 'NetDisk',
      instanceType: '1',
      fSize: folder ? 0 : 10,
      fType: '',
      fileType: folder ? 'Folder' : 'other',
      userId: 'u1',
      userName: 'alice',
      createTime: 0,
      updateTime: 0,
    } as Instance;
    rows.push(i);
    return i;
  };
  const calls: string[] = [];
  const fetchFn = async (input: Request | string | URL): Promise<Response> => {
    const req = input instanceof Request ? input : new Request(input);
    const url = new URL(req.url);
    calls.push(`${req.method} ${url.pathname}`);
    const env = (data: unknown, status = 200, ret = 0, msg = 'ok') => new Response(JSON.stringify({ ret, msg, data }), { status, headers: { 'content-type': 'application/json' } });
    if (req.headers.get('token') !== 't0k') return env({ code: 'UNAUTHENTICATED' }, 401, 401, 'sign in first');
    if (url.pathname === '/hcs/controller/sysGroup/getNPDept') {
      return env([
        { id: 'sales', name: 'Sales', path: ['root', 'sales'], pathNames: ['Company', 'Sales'], via: 'member' },
        { id: 'ops-a', name: 'Ops', path: ['root', 'sales', 'ops-a'], pathNames: ['Company', 'Sales', 'Ops'], via: 'member' },
        { id: 'ops-b', name: 'Ops', path: ['root', 'ops-b'], pathNames: ['Company', 'Ops'], via: 'grant' },
      ]);
    }
    if (url.pathname === '/hcs/controller/Page') {
      // A department space's listing names its root: 'droot-<deptId>'.
      const dept = url.searchParams.get('instanceType') === '3' ? url.searchParams.get('deptId') : null;
      const parentId = url.searchParams.get('parentId') ?? (dept ? `droot-${dept}` : 'root');
      const kw = url.searchParams.get('keyword')?.toLowerCase();
      const all = rows.filter((r) => r.parentId === parentId && (!kw || r.instanceName.toLowerCase().includes(kw)));
      const start = Number(url.searchParams.get('cursor') ?? 0);
      const list = all.slice(start, start + 2);
      const next = start + 2 < all.length ? String(start + 2) : null;
      return env({ list, parentId, breadcrumbs: [], total: all.length, pageNo: 1, pageSize: 2, nextCursor: next });
    }
    if (url.pathname === '/hcs/controller/Instances' && req.method === 'POST') {
      const body = (await req.json()) as Array<{ instanceName: string; parentId: string }>;
      const name = decodeName(body[0]!.instanceName);
      if (rows.some((r) => r.parentId === body[0]!.parentId && r.instanceName === name)) return env({ code: 'NAME_EXISTS' }, 409, 1, 'exists');
      return env([add(body[0]!.parentId, name, true)]);
    }
    return env({ code: 'NOT_IMPLEMENTED' }, 501, 1, 'no');
  };
  const api = createApi({ server: 'http://fake', token: 't0k', userName: 'alice', authPath: '/dev/null', json: false, stateDir: '/tmp' }, { fetch: fetchFn as typeof fetch });
  return { rows, add, api, calls };
}

describe('RemoteFs', () => {
  it('resolves a path by walking names from the root, across keyword pages', async () => {
    const s = fakeServer();
    const docs = s.add('root', 'docs', true);
    // "a" is matched exactly although the keyword filter also returns "aa", "ba" and "a.txt" first.
    s.add(docs.instanceId, 'aa', true);
    s.add(docs.instanceId, 'ba', false);
    s.add(docs.instanceId, 'a.txt', false);
    const a = s.add(docs.instanceId, 'a', true);
    const fs = new RemoteFs(s.api);
    const r = await fs.resolve('/docs/a');
    expect(r.id).toBe(a.instanceId);
    expect(r.segments).toEqual(['docs', 'a']);
    expect((await fs.resolve('/')).instance).toBeNull();
  });

  it('names the missing segment, and a file is not a folder', async () => {
    const s = fakeServer();
    const docs = s.add('root', 'docs', true);
    s.add(docs.instanceId, 'f.txt', false);
    const fs = new RemoteFs(s.api);
    await expect(fs.resolve('/docs/nope/x')).rejects.toMatchObject({ code: 'NOT_FOUND', message: expect.stringContaining('/docs/nope') });
    await expect(fs.resolve('/docs/f.txt/x')).rejects.toMatchObject({ code: 'NOT_FOUND' });
  });

  it('ensureFolder creates only the missing parents (mkdir -p) and is idempotent', async () => {
    const s = fakeServer();
    s.add('root', 'docs', true);
    const fs = new RemoteFs(s.api);
    const id = await fs.ensureFolder(['docs', 'x', 'y']);
    const y = s.rows.find((r) => r.instanceId === id)!;
    expect(y.instanceName).toBe('y');
    expect(s.rows.filter((r) => r.classifierId === 'Folder').map((r) => r.instanceName).sort()).toEqual(['docs', 'x', 'y']);
    expect(await fs.ensureFolder(['docs', 'x', 'y'])).toBe(id);
    expect(s.rows).toHaveLength(3);
  });

  it('dept: paths walk from the department space root, asking for the reachable departments once', async () => {
    const s = fakeServer();
    const reports = s.add('droot-sales', 'reports', true);
    s.add('root', 'reports', true);
    const fs = new RemoteFs(s.api);
    const r = await fs.resolve('dept:Sales/reports');
    expect(r).toMatchObject({ id: reports.instanceId, segments: ['reports'], space: { kind: 'dept', ref: 'Sales' } });
    expect(await fs.resolve('dept:sales/')).toMatchObject({ id: 'droot-sales', instance: null });
    const made = await fs.ensurePath(parseRemote('dept:ops-b/new/deep'));
    expect(s.rows.find((x) => x.instanceId === made)?.parentId).toBe(s.rows.find((x) => x.instanceName === 'new')?.instanceId);
    expect(s.rows.find((x) => x.instanceName === 'new')?.parentId).toBe('droot-ops-b');
    expect(s.calls.filter((c) => c.endsWith('/getNPDept'))).toHaveLength(1);
    await expect(fs.resolve('dept:Ops/x')).rejects.toMatchObject({ code: 'DEPT_AMBIGUOUS', message: expect.stringContaining('Company/Ops (id ops-b); Company/Sales/Ops (id ops-a)') });
    await expect(fs.resolve('dept:Legal/x')).rejects.toMatchObject({ code: 'NOT_FOUND', exitCode: EXIT.REFUSED });
    await expect(fs.resolve('dept:Sales/nope')).rejects.toMatchObject({ code: 'NOT_FOUND', message: expect.stringContaining('dept:Sales/nope') });
  });

  it('refuses a control character or a reserved name before any call', async () => {
    expect(nameProblem('a\u0007b')).toMatch(/control/);
    expect(nameProblem('..')).toMatch(/reserved/);
    expect(nameProblem('.')).toMatch(/reserved/);
    const s = fakeServer();
    const fs = new RemoteFs(s.api);
    await expect(fs.resolve('/docs/line\nbreak.txt')).rejects.toMatchObject({ exitCode: EXIT.USAGE, message: expect.stringContaining('control') });
    await expect(fs.resolve('/docs/tab\there')).rejects.toMatchObject({ exitCode: EXIT.USAGE });
    expect(s.calls).toEqual([]);
  });

  it('maps a rejected session to the auth exit code', async () => {
    const noTok = createApi({ server: 'http://fake', token: 'wrong', userName: undefined, authPath: '/dev/null', json: false, stateDir: '/tmp' }, {
      fetch: (async () => new Response(JSON.stringify({ ret: 401, msg: 'sign in first', data: { code: 'UNAUTHENTICATED' } }), { status: 401 })) as unknown as typeof fetch,
    });
    await expect(new RemoteFs(noTok).resolve('/x')).rejects.toMatchObject({ exitCode: 3 });
  });
});
