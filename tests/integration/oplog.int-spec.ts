// The operation log: every mutating call (including the GETs the spec uses for changes) records who, what,
// which object, from which device and IP, when, and whether it worked; reads record nothing.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { encodeName } from '@hcs/openapi/client';
import { startServer, ADMIN_USER, type TestServer } from '../helpers/server.ts';
import { listOpLogs } from '../../mock-server/src/db/oplog-repo.ts';

let s: TestServer;
let token: string;

beforeAll(async () => {
  s = await startServer();
  token = (await s.login()).token;
});
afterAll(async () => {
  await s?.close();
});

describe('operation log', () => {
  it('records mutations with user, object, device, IP, trace id and result, and no reads', async () => {
    const headers = { 'content-type': 'application/json', 'user-agent': 'oplog-test/1.0', traceId: 'trace-oplog-1' };
    const created = (await (
      await s.call('/hcs/controller/Instances', {
        token,
        method: 'POST',
        headers,
        body: JSON.stringify([{ classifierId: 'Folder', instanceName: encodeName('Reports') }]),
      })
    ).json()) as { data: { instanceId: string }[] };
    const id = created.data[0]!.instanceId;
    const before = (await listOpLogs(s.built.ctx.db)).length;

    expect((await s.call('/hcs/controller/Page', { token, headers })).status).toBe(200);
    expect((await s.call(`/hcs/controller/Instances/${id}`, { token, headers })).status).toBe(200);
    expect((await listOpLogs(s.built.ctx.db)).length, 'reads are not logged').toBe(before);

    const bad = await s.call(`/hcs/controller/Instances/${id}`, {
      token,
      method: 'POST',
      headers: { ...headers, traceId: 'trace-oplog-2' },
      body: JSON.stringify({ instanceName: encodeName('a/b') }),
    });
    expect(bad.status).toBe(422);
    expect((await s.call(`/hcs/controller/delete?ids=${id}`, { token, headers: { ...headers, traceId: 'trace-oplog-3' } })).status).toBe(200);

    const rows = await listOpLogs(s.built.ctx.db);
    const create = rows.find((r) => r.traceId === 'trace-oplog-1' && r.opType === 'createInstances');
    expect(create).toMatchObject({ userName: ADMIN_USER, opSubject: 'files', device: 'oplog-test/1.0', ip: '127.0.0.1', result: 'success' });
    expect(rows.find((r) => r.traceId === 'trace-oplog-2')).toMatchObject({ opType: 'modifyInstance', objectId: id, result: 'failure', detail: '422' });
    // The spec deletes with GET; it is still a change and is logged.
    expect(rows.find((r) => r.traceId === 'trace-oplog-3')).toMatchObject({ opType: 'deleteInstances', objectId: id, result: 'success' });
    for (const r of rows) expect(r.at).toBeGreaterThan(Date.now() - 60_000);
  });

  it('records sign-ins, failed ones included, without the password', async () => {
    const rows = (await listOpLogs(s.built.ctx.db)).filter((r) => r.opType === 'login');
    expect(rows.length).toBeGreaterThan(0);
    expect(rows[0]).toMatchObject({ userName: ADMIN_USER, result: 'success' });
    expect(JSON.stringify(rows)).not.toContain('Passw0rd');
  });

  it('sent only responses that match the contract', () => {
    expect(s.violations).toEqual([]);
  });
});
