// Out-of-range numbers (issue #11, finding 6): the probe's exact requests, then every numeric parameter and request
// body property of the contract sent just outside its bounds and at the extremes JSON and query strings can carry.
// Each must be refused with 422 VALIDATION_FAILED naming the field, never a 500, and must leave no damage behind.
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { createHash } from 'node:crypto';
import { encodeName } from '@hcs/openapi/client';
import { startServer, type TestServer } from '../helpers/server.ts';
import { contract } from '../helpers/contract.ts';
import { createUser } from '../../mock-server/src/db/users-repo.ts';

type Json = Record<string, any>;
type Env = { status: number; ret: number; msg: string; data: any };

let srv: TestServer;
let token: string;
/** For the administrators' operations: a plain user is refused those before any parameter is read. */
let adminToken: string;

/** A public link's visitor (issue #17): the share-visitor operations read their numbers once the token is good. */
let visitorToken: string;

async function send(method: string, path: string, body?: string, as = token, visitor = false): Promise<Env> {
  const res = await srv.call(path, {
    method,
    ...(visitor ? {} : { token: as }),
    headers: { ...(body !== undefined ? { 'content-type': 'application/json' } : {}), ...(visitor ? { shareToken: visitorToken } : {}) },
    body,
  });
  const text = await res.text();
  let json: Omit<Env, 'status'>;
  try {
    json = JSON.parse(text);
  } catch {
    throw new Error(`${method} ${path} answered ${res.status} with a body that is not JSON: ${text.slice(0, 200)}`);
  }
  return { status: res.status, ...json };
}
const get = (path: string) => send('GET', path);
const post = (path: string, body: unknown) => send('POST', path, typeof body === 'string' ? body : JSON.stringify(body));

function expectRefused(r: Env, field: string, what: string): void {
  expect.soft(r.status, `${what}: ${JSON.stringify(r)}`).toBe(422);
  expect.soft(r.ret, what).not.toBe(0);
  expect.soft(r.data?.code, what).toBe('VALIDATION_FAILED');
  expect.soft(typeof r.data?.traceId, what).toBe('string');
  expect.soft((r.data?.fields ?? []).map((f: { field: string }) => f.field), what).toContain(field);
}

beforeAll(async () => {
  srv = await startServer();
  await createUser(srv.built.ctx.db, { userName: 'numbers', password: 'Numbers#pass-123' });
  token = (await srv.login('numbers', 'Numbers#pass-123')).token;
  adminToken = (await srv.login()).token;
  // An upload link into a folder of the user's, and a visitor signed in to it.
  const dir = await send('POST', '/hcs/controller/Instances', JSON.stringify([{ classifierId: 'Folder', instanceName: encodeName('inbox') }]));
  const link = await send('POST', '/hcs/controller/FileShare', JSON.stringify({ instanceIds: [dir.data[0].instanceId], shareType: 'upload' }));
  expect(link.status, JSON.stringify(link)).toBe(200);
  const visit = await srv.call('/hcs/services/FileShare/loginShare', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ link: link.data.link }) });
  visitorToken = ((await visit.json()) as { data: { token: string } }).data.token;
  expect(typeof visitorToken).toBe('string');
});
afterAll(async () => {
  expect(srv.violations).toEqual([]);
  await srv.close();
});

describe("the probe's requests", () => {
  it('initPartInfo with partSize 2^53 is refused and the session stays readable and releasable', async () => {
    const bytes = Buffer.from('numeric bounds probe');
    const fMd5 = createHash('sha256').update(bytes).digest('hex');
    const u = await get(`/hcs/controller/API/file-uploadable?fSize=${bytes.length}&fName=${encodeName('probe.bin')}&fMd5=${fMd5}`);
    expect(u.ret, JSON.stringify(u)).toBe(0);
    const fId: string = u.data.fId;
    const before = await get(`/hcs/controller/API/getPartInfo?fId=${fId}`);
    expect(before.status).toBe(200);

    expectRefused(await post('/hcs/controller/API/initPartInfo', { fId, uploadId: 'probe', partSize: 9007199254740992 }), 'partSize', 'partSize 2^53');
    // Numbers JSON.parse rounds or overflows: 2^53 + 1 becomes 2^53, 1e400 becomes Infinity.
    expectRefused(await post('/hcs/controller/API/initPartInfo', `{"fId":"${fId}","uploadId":"probe","partSize":9007199254740993}`), 'partSize', 'partSize 2^53+1');
    expectRefused(await post('/hcs/controller/API/initPartInfo', `{"fId":"${fId}","uploadId":"probe","partSize":1e400}`), 'partSize', 'partSize 1e400');
    expectRefused(await post('/hcs/controller/API/initPartInfo', { fId, uploadId: 'probe', partSize: 5 * 1024 ** 3 + 1 }), 'partSize', 'partSize 5 GiB + 1');
    expectRefused(await post('/hcs/controller/API/initPartInfo', { fId, uploadId: 'probe', partSize: -1 }), 'partSize', 'negative partSize');
    expectRefused(await post('/hcs/controller/API/initPartInfo', { fId, uploadId: 'probe', partCount: 9007199254740992 }), 'partCount', 'partCount 2^53');
    expectRefused(await post('/hcs/controller/API/initPartInfo', { fId, uploadId: 'probe', partCount: 10001 }), 'partCount', 'partCount 10001');
    expectRefused(await post('/hcs/controller/API/setPartInfo', { fId, parts: [{ partNumber: 1, etag: 'e', size: 9007199254740992 }] }), 'parts.0.size', 'part size 2^53');

    const after = await get(`/hcs/controller/API/getPartInfo?fId=${fId}`);
    expect(after.status, JSON.stringify(after)).toBe(200);
    expect(after.data).toEqual(before.data);
    // The refused calls left the reservation releasable at once rather than stuck for the session's 24 hours.
    const destroyed = await post('/hcs/controller/API/destroyPartInfo', { fId });
    expect(destroyed.status, JSON.stringify(destroyed)).toBe(200);
    expect((await get(`/hcs/controller/API/getPartInfo?fId=${fId}`)).data).toBeNull();
  });

  it('Page with pageNo 99999999999999999999999, Infinity or out-of-range sizes is refused', async () => {
    for (const [q, field] of [
      ['pageNo=99999999999999999999999', 'pageNo'],
      ['pageNo=Infinity', 'pageNo'],
      ['pageNo=-Infinity', 'pageNo'],
      ['pageNo=1e400', 'pageNo'],
      ['pageNo=0', 'pageNo'],
      ['pageNo=-1', 'pageNo'],
      ['pageNo=1000001', 'pageNo'],
      ['pageSize=0', 'pageSize'],
      ['pageSize=-20', 'pageSize'],
      ['pageSize=1001', 'pageSize'],
      ['pageSize=Infinity', 'pageSize'],
    ]) {
      expectRefused(await get(`/hcs/controller/Page?${q}`), field!, q!);
    }
    // The largest page still answers (empty), so the bound refuses nothing a client can use.
    const last = await get('/hcs/controller/Page?pageNo=1000000&pageSize=1000');
    expect([last.status, last.data.list]).toEqual([200, []]);
  });

  it('negative and oversized byte counts are refused where files are registered and sized', async () => {
    const zero = '0'.repeat(64);
    const name = encodeName('x.bin');
    expectRefused(await get(`/hcs/controller/API/file-uploadable?fSize=-1&fName=${name}&fMd5=${zero}`), 'fSize', 'uploadable -1');
    expectRefused(await get(`/hcs/controller/API/file-uploadable?fSize=9007199254740992&fName=${name}&fMd5=${zero}`), 'fSize', 'uploadable 2^53');
    const save = { fId: 'none', fMd5: zero, objectKey: 'k', fName: name };
    expectRefused(await post('/hcs/controller/API/save-instance', { ...save, fSize: -1 }), 'fSize', 'save -1');
    expectRefused(await post('/hcs/controller/API/save-instance', { ...save, fSize: 85899345921 }), 'fSize', 'save 80 GB + 1');
    expectRefused(await post('/hcs/controller/userCapacity/judgeUserSize', { fSize: 9007199254740992 }), 'fSize', 'judge 2^53');
  });
});

// ---- generated: every numeric input of the contract, just outside its bounds ----

function deref(node: Json): Json {
  let cur = node;
  while (cur && typeof cur.$ref === 'string') {
    cur = cur.$ref.replace(/^#\//, '').split('/').reduce((acc: Json, p: string) => acc?.[p.replace(/~1/g, '/').replace(/~0/g, '~')], contract);
  }
  return cur ?? {};
}

const isNumeric = (s: Json) => [s.type].flat().some((t) => t === 'integer' || t === 'number');

interface Bounds {
  min?: number;
  max?: number;
  integer: boolean;
}
function boundsOf(s: Json): Bounds {
  const integer = [s.type].flat().includes('integer');
  const nums = Array.isArray(s.enum) ? s.enum.filter((v: unknown) => typeof v === 'number') : [];
  if (nums.length) return { min: Math.min(...nums), max: Math.max(...nums), integer };
  return { min: s.minimum ?? (s.exclusiveMinimum !== undefined ? s.exclusiveMinimum + 1 : undefined), max: s.maximum ?? (s.exclusiveMaximum !== undefined ? s.exclusiveMaximum - 1 : undefined), integer };
}

/** Values a query string can carry for a numeric parameter that must all be refused. */
function badQueryValues(b: Bounds): string[] {
  const out = ['99999999999999999999999', '-99999999999999999999999', 'Infinity', '-Infinity', 'NaN', '1e400', '9007199254740993'];
  if (b.max !== undefined) out.push(String(b.max + 1));
  if (b.min !== undefined) out.push(String(b.min - 1));
  if (b.integer) out.push('1.5');
  return out;
}

/** Raw JSON number texts for a numeric body property that must all be refused. */
function badJsonValues(b: Bounds): string[] {
  const out = ['1e400', '-1e400', '9007199254740993', '-9007199254740993'];
  if (b.max !== undefined) out.push(String(b.max + 1));
  if (b.min !== undefined) out.push(String(b.min - 1));
  if (b.integer) out.push('1.5');
  return out;
}

/** A valid-looking value for a required parameter that is not under test. */
function sample(schema: Json): string {
  const s = deref(schema);
  if (s.enum) return String(s.enum[0]);
  if (isNumeric(s)) return String(s.minimum ?? 1);
  if (s.pattern === '^[0-9a-f]{64}$') return '0'.repeat(64);
  if (s.pattern?.includes('[0-9]{8}T')) return '20260101T000000Z';
  return 'unknownid';
}

interface Leaf {
  /** Field path as the 422 envelope names it (a.0.b). */
  field: string;
  bounds: Bounds;
  /** The body with the placeholder where the number goes. */
  build: (raw: string) => string;
}
const HOLE = '"__number__"';

/** Numeric leaves of a request body schema, each with a minimal body that reaches it. */
function leavesOf(schema: Json, path: string[] = [], wrap: (inner: unknown) => unknown = (x) => x, depth = 0): Leaf[] {
  const s = deref(schema);
  if (depth > 6) return [];
  if (isNumeric(s)) {
    const body = JSON.stringify(wrap('__number__'));
    return [{ field: path.join('.'), bounds: boundsOf(s), build: (raw) => body.replace(HOLE, raw) }];
  }
  const out: Leaf[] = [];
  for (const part of [...(s.allOf ?? [])]) out.push(...leavesOf(part, path, wrap, depth + 1));
  if (s.items) out.push(...leavesOf(s.items, [...path, '0'], (inner) => wrap([inner]), depth + 1));
  for (const [k, v] of Object.entries<Json>(s.properties ?? {})) {
    out.push(...leavesOf(v, [...path, k], (inner) => wrap({ [k]: inner }), depth + 1));
  }
  return out;
}

interface Op {
  id: string;
  method: string;
  path: string;
  params: Json[];
  body?: Json;
  admin: boolean;
  visitor: boolean;
}
const ops: Op[] = [];
for (const [path, item] of Object.entries<Json>(contract.paths)) {
  for (const method of ['get', 'post', 'put', 'delete', 'patch']) {
    const op = item[method];
    if (!op) continue;
    const params = [...(item.parameters ?? []), ...(op.parameters ?? [])].map(deref);
    const body = op.requestBody ? deref(op.requestBody).content?.['application/json']?.schema : undefined;
    ops.push({ id: op.operationId, method: method.toUpperCase(), path, params, body, admin: op['x-hcs-access'] === 'admin', visitor: op['x-hcs-access'] === 'share-visitor' });
  }
}

function urlOf(o: Op, override?: { name: string; value: string }): string {
  const url = o.path.replace(/\{([^}]+)\}/g, (_m, name: string) => {
    if (override?.name === name) return encodeURIComponent(override.value);
    return encodeURIComponent(sample(o.params.find((p) => p.in === 'path' && p.name === name)?.schema ?? {}));
  });
  const q = o.params.filter((p) => p.in === 'query' && p.required && p.name !== override?.name).map((p) => `${p.name}=${encodeURIComponent(sample(p.schema))}`);
  if (override && o.params.some((p) => p.in === 'query' && p.name === override.name)) q.push(`${override.name}=${encodeURIComponent(override.value)}`);
  return q.length ? `${url}?${q.join('&')}` : url;
}

describe('every numeric input of the contract', () => {
  const numericParams = ops.flatMap((o) => o.params.filter((p) => (p.in === 'query' || p.in === 'path') && isNumeric(deref(p.schema ?? {}))).map((p) => ({ o, p })));
  const bodyLeaves = ops.flatMap((o) => (o.body ? leavesOf(o.body).map((leaf) => ({ o, leaf })) : []));

  it('declares a minimum and a maximum (or an enum) for each', () => {
    expect(numericParams.length).toBeGreaterThan(10);
    expect(bodyLeaves.length).toBeGreaterThan(10);
    const unbounded = [
      ...numericParams.filter(({ p }) => { const b = boundsOf(deref(p.schema)); return b.min === undefined || b.max === undefined; }).map(({ o, p }) => `${o.id} ${p.name}`),
      ...bodyLeaves.filter(({ leaf }) => leaf.bounds.min === undefined || leaf.bounds.max === undefined).map(({ o, leaf }) => `${o.id} body ${leaf.field}`),
    ];
    expect(unbounded).toEqual([]);
  });

  it('refuses each parameter just outside its bounds and at the extremes with 422 naming it (signed in)', async () => {
    for (const { o, p } of numericParams) {
      for (const value of badQueryValues(boundsOf(deref(p.schema)))) {
        const r = await send(o.method, urlOf(o, { name: p.name, value }), o.body ? (o.body.type === 'array' ? '[]' : '{}') : undefined, o.admin ? adminToken : token, o.visitor);
        expect.soft(r.status, `${o.id} ${p.name}=${value}`).toBeLessThan(500);
        expectRefused(r, p.name, `${o.id} ${p.name}=${value}`);
      }
    }
  });

  it('refuses each body property just outside its bounds and at the extremes with 422 naming it (signed in)', async () => {
    for (const { o, leaf } of bodyLeaves) {
      for (const raw of badJsonValues(leaf.bounds)) {
        const r = await send(o.method, urlOf(o), leaf.build(raw), o.admin ? adminToken : token, o.visitor);
        expect.soft(r.status, `${o.id} ${leaf.field}=${raw}`).toBeLessThan(500);
        expectRefused(r, leaf.field, `${o.id} ${leaf.field}=${raw}`);
      }
    }
  });
});
