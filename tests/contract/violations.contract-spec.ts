// The contract check cannot pass vacuously: a response that breaks the contract is caught after the test it happened
// in (in-process servers), when the server closes, and on the client side for a server in a child process.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHcsClient } from '@hcs/openapi/client';
import { startServer, type TestServer } from '../helpers/server.ts';
import { checkingFetch, ContractWatch, errorCodes, operationFor } from '../helpers/contract.ts';

// getRequestIp answers { ip: string }: a number there is a wrong response shape.
const wrongShape = { getRequestIp: async () => ({ ret: 0, msg: 'success', data: { ip: 5 } }) };

let srv: TestServer;
beforeAll(async () => {
  srv = await startServer({ handlers: wrongShape });
});
afterAll(async () => {
  await srv?.close();
});

describe('contract violations', () => {
  it('are recorded by the server helper and reported once', async () => {
    const res = await srv.call('/hcs/services/System/requestIp');
    expect(res.status).toBe(200);
    await res.arrayBuffer();
    expect(() => srv.contract.assertClean()).toThrow(/getRequestIp 200: .*\/ip must be string/);
    // Reported: the check after this test finds nothing new.
    expect(() => srv.contract.assertClean()).not.toThrow();
  });

  it('left unreported fail the close of the server', async () => {
    const other = await startServer({ handlers: wrongShape });
    await (await other.call('/hcs/services/System/requestIp')).arrayBuffer();
    await expect(other.close()).rejects.toThrow(/broke the contract before the server closed:\n {2}getRequestIp 200/);
  });

  it('are seen on the client side through checkingFetch, as with a server in a child process', async () => {
    const watch = new ContractWatch('client side');
    try {
      const client = createHcsClient({ baseUrl: srv.baseUrl, fetch: checkingFetch(watch) });
      await client.GET('/hcs/services/System/requestIp', {});
      // A correct response adds nothing.
      await client.GET('/hcs/services/System/platformInfo', {});
      expect(watch.violations.map((v) => `${v.operationId} ${v.status}`)).toEqual(['getRequestIp 200']);
      expect(() => watch.assertClean()).toThrow(/client side: 1 response\(s\) broke the contract/);
    } finally {
      watch.close();
      // The server saw the same wrong response.
      expect(() => srv.contract.assertClean()).toThrow(/getRequestIp/);
    }
  });

  it('match requests to operations the way the router does (fixed paths before templates)', () => {
    expect(operationFor('GET', '/hcs/controller/Instances/abc')?.id).toBe('getInstance');
    expect(operationFor('POST', '/hcs/controller/Instances/abc')?.id).toBe('modifyInstance');
    expect(operationFor('POST', '/hcs/controller/Instances')?.id).toBe('createInstances');
    expect(operationFor('GET', '/hcs/controller/groupCapacity/groupCapInfo/d1/NetDisk')?.id).toBe('getGroupCapInfo');
    expect(operationFor('GET', '/hcs/controller/nothing-here')).toBeUndefined();
  });

  it('are judged against the error codes the contract lists', () => {
    const codes = errorCodes();
    for (const c of ['UNAUTHENTICATED', 'NOT_FOUND', 'VALIDATION_FAILED', 'NOT_IMPLEMENTED', 'INTERNAL']) expect(codes).toContain(c);
    expect(codes.every((c) => /^[A-Z][A-Z0-9_]+$/.test(c))).toBe(true);
  });
});
