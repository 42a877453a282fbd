// Calls every operation of the contract against the real server and checks what comes back:
// the CSRF header is enforced, sessions are required where the contract says so, no call answers 500,
// operations without a handler answer 501 with the envelope, and every response matches its schema (checked after
// each test by the server helper's ContractWatch).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { operations, type OperationId } from '@hcs/openapi/operations';
import { createUser } from '../../mock-server/src/db/users-repo.ts';
import { startServer, type TestServer } from '../helpers/server.ts';
import { contractOps as ops, deref, type ContractOp as Op } from '../helpers/contract.ts';

type Json = Record<string, any>;

/** A syntactically valid but meaningless value for a schema (ids that do not exist, etc.). */
function sample(schema: Json): string {
  const s = deref(schema ?? {});
  if (s.enum) return String(s.enum[0]);
  if (s.type === 'integer' || s.type === 'number') return String(s.minimum ?? 1);
  if (s.pattern === '^[0-9a-f]{64}$') return '0'.repeat(64);
  if (s.pattern?.includes('[0-9]{8}T')) return '20260101T000000Z';
  return 'unknownid';
}

function urlOf(o: Op, withQuery = true): string {
  let url = o.path.replace(/\{([^}]+)\}/g, (_m, name: string) => {
    const p = o.params.find((x) => x.in === 'path' && x.name === name);
    return encodeURIComponent(sample(p?.schema));
  });
  const q = o.params.filter((p) => p.in === 'query' && p.required);
  if (withQuery && q.length) url += '?' + q.map((p) => `${p.name}=${encodeURIComponent(sample(p.schema))}`).join('&');
  return url;
}

/** A minimal body of the operation's request media type, and that type. */
function requestOf(o: Op): { headers: Record<string, string>; body: string | undefined } {
  if (!o.body) return { headers: { 'content-type': 'application/json' }, body: undefined };
  if (o.body.mediaType === 'application/json') {
    return { headers: { 'content-type': 'application/json' }, body: o.body.schema.type === 'array' ? '[]' : '{}' };
  }
  return { headers: { 'content-type': o.body.mediaType }, body: '' };
}

let server: TestServer;
let token = '';

beforeAll(async () => {
  server = await startServer();
  token = (await server.login()).token;
});
afterAll(async () => {
  await server?.close();
});

describe('the contract', () => {
  it('has operations for every area the foundation covers', () => {
    const tags = new Set(ops.map((o) => o.op.tags?.[0]));
    for (const t of ['session', 'libraries', 'capacity', 'files', 'upload', 'download', 'static']) expect(tags).toContain(t);
    expect(ops.length).toBeGreaterThan(100);
  });

  it('refuses every CSRF-guarded call without X-Requested-With (403 CSRF_HEADER_MISSING)', async () => {
    const guarded = ops.filter((o) => o.path.startsWith('/hcs/') && o.csrf);
    expect(guarded.length).toBeGreaterThan(90);
    for (const o of guarded) {
      const req = requestOf(o);
      const res = await fetch(server.baseUrl + urlOf(o), { method: o.method, headers: { ...req.headers, token }, body: req.body });
      expect.soft(res.status, `${o.id}`).toBe(403);
      const body = (await res.json()) as any;
      expect.soft(body.data?.code, `${o.id}`).toBe('CSRF_HEADER_MISSING');
    }
  });

  it('requires a session for every non-public call (401 UNAUTHENTICATED)', async () => {
    const privateOps = ops.filter((o) => !o.public);
    for (const o of privateOps) {
      const res = await server.call(urlOf(o), { method: o.method, ...requestOf(o) });
      expect.soft(res.status, `${o.id}`).toBe(401);
      expect.soft(((await res.json()) as any).data?.code, `${o.id}`).toBe('UNAUTHENTICATED');
    }
  });

  it('answers every call signed in without a 500, with 501 only for operations that have no handler', async () => {
    const statuses = new Map<string, number>();
    // logout would end the session the loop runs on; it is covered by the auth tests.
    for (const o of ops.filter((x) => x.id !== 'logout')) {
      const res = await server.call(urlOf(o), { method: o.method, token, ...requestOf(o) });
      statuses.set(o.id, res.status);
      expect.soft(res.status === 501 || res.status < 500, `${o.id} answered ${res.status}`).toBe(true);
      if (res.status === 501) {
        const body = (await res.json()) as any;
        expect.soft(body.ret, o.id).not.toBe(0);
        expect.soft(body.data.code, o.id).toBe('NOT_IMPLEMENTED');
        expect.soft(body.msg, o.id).toContain(o.id);
      } else {
        await res.arrayBuffer();
      }
    }
    // The operations this release implements must not answer 501.
    for (const id of ['getCurrentUser', 'getPlatformInfo', 'login', 'getTranslations', 'getSkin']) {
      expect.soft(statuses.get(id), id).not.toBe(501);
    }
  });

  it('marks every operation with what a caller needs (x-hcs-access), the same in the bundle and the generated table', () => {
    const unmarked = ops.filter((o) => o.op['x-hcs-access'] === undefined).map((o) => o.id);
    expect(unmarked).toEqual([]);
    for (const o of ops) {
      const mark = o.op['x-hcs-access'];
      const generated = operations[o.id as OperationId]?.access;
      const needs =
        typeof mark === 'string'
          ? mark
          : [mark].flat().map((n: Json) =>
              n.manages !== undefined ? { manages: n.manages, ids: n.ids, each: n.each === true } : { permission: n.permission, ids: n.ids, each: n.each === true },
            );
      expect.soft(generated, o.id).toEqual(needs);
      expect.soft(mark === 'public' || mark === 'share-visitor', `${o.id}: public exactly when security is []`).toBe(o.public);
    }
    expect(ops.filter((o) => o.op['x-hcs-access'] === 'admin').length).toBeGreaterThan(5);
  });

  it("refuses every administrators' operation to a signed-in user who is not one (403 FORBIDDEN), before the request is read", async () => {
    const password = 'Plain#User-pass-1';
    await createUser(server.built.ctx.db, { userName: 'plain-user', password });
    const plain = (await server.login('plain-user', password)).token;
    const adminOps = ops.filter((o) => o.op['x-hcs-access'] === 'admin');
    for (const o of adminOps) {
      // No query and an empty body: refused for who is asking, not for what is asked.
      const res = await server.call(urlOf(o, false), { method: o.method, token: plain, ...requestOf(o) });
      expect.soft(res.status, o.id).toBe(403);
      expect.soft(((await res.json()) as any).data?.code, o.id).toBe('FORBIDDEN');
      // An administrator gets past the gate: whatever the answer, it is not the gate's refusal.
      const asAdmin = await server.call(urlOf(o), { method: o.method, token, ...requestOf(o) });
      // A file an administrator asked for (the operation log export) is not an envelope: it got past the gate.
      const body = (asAdmin.headers.get('content-type') ?? '').includes('json') ? ((await asAdmin.json()) as any) : { msg: '' };
      expect.soft(asAdmin.status === 403 && /for administrators/.test(body.msg), `${o.id} refused an administrator`).toBe(false);
    }
  });

  it('rejects a request that breaks the contract with 422 and the field names', async () => {
    const res = await server.call('/hcs/services/System/Token?username=a', {});
    expect(res.status).toBe(422);
    const body = (await res.json()) as any;
    expect(body.data.code).toBe('VALIDATION_FAILED');
    expect(JSON.stringify(body.data.fields)).toContain('password');
  });
});
