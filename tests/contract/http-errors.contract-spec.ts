// Requests Fastify or Node refuse before any route runs (found by the contract fuzzer): a URL and headers over
// Node's 16 KiB, a path parameter over the router's 1,024 characters, a URL that does not decode, bytes that are
// not HTTP. They too answer the {ret, msg, data: {code, traceId}} envelope, never the framework's own JSON with
// its internal error codes, and never echo the URL (it may carry a ticket or an encrypted password).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connect } from 'node:net';
import { startServer, type TestServer } from '../helpers/server.ts';

let srv: TestServer;
let token: string;

beforeAll(async () => {
  srv = await startServer();
  token = (await srv.login()).token;
});
afterAll(async () => {
  await srv?.close();
});

async function expectEnvelope(res: Response, status: number, code: string): Promise<Record<string, any>> {
  const text = await res.text();
  expect(res.status, text).toBe(status);
  expect(res.headers.get('content-type')).toMatch(/^application\/json/);
  const body = JSON.parse(text);
  expect(body).toMatchObject({ ret: 1, msg: expect.any(String), data: { code, traceId: expect.stringMatching(/^[A-Za-z0-9_-]+$/) } });
  expect(res.headers.get('traceid')).toBe(body.data.traceId);
  expect(text).not.toMatch(/FST_|ERR_|statusCode/);
  return body;
}

/** Writes raw bytes to the server and reads the whole answer (the server closes the connection). */
function rawExchange(bytes: string): Promise<string> {
  const { port } = new URL(srv.baseUrl);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), '127.0.0.1', () => socket.end(bytes));
    let out = '';
    socket.setEncoding('utf8').on('data', (d: string) => (out += d));
    socket.on('close', () => resolve(out));
    socket.on('error', reject);
  });
}

describe('requests refused before routing', () => {
  it('a path parameter longer than the router allows: 414 PAYLOAD_TOO_LARGE', async () => {
    const res = await srv.call(`/hcs/controller/Instances/${'A'.repeat(1100)}`, { token });
    await expectEnvelope(res, 414, 'PAYLOAD_TOO_LARGE');
  });

  it('a URL that does not decode: 400 BAD_REQUEST, without echoing the URL', async () => {
    const res = await srv.call('/hcs/controller/Instances/%ED%BF%BF?password=secret-in-the-query', { token });
    const body = await expectEnvelope(res, 400, 'BAD_REQUEST');
    expect(JSON.stringify(body)).not.toContain('secret-in-the-query');
  });

  it('a URL and headers over 16 KiB: 431 PAYLOAD_TOO_LARGE', async () => {
    const res = await srv.call(`/hcs/services/System/platformInfo?pad=${'A'.repeat(20000)}`);
    await expectEnvelope(res, 431, 'PAYLOAD_TOO_LARGE');
  });

  it('bytes that are not HTTP: 400 BAD_REQUEST', async () => {
    const answer = await rawExchange('NOT HTTP AT ALL\r\n\r\n');
    const [head = '', body = ''] = answer.split('\r\n\r\n');
    expect(head).toMatch(/^HTTP\/1\.1 400 /);
    expect(head).toMatch(/\r\ncontent-type: application\/json/i);
    expect(head).toMatch(/\r\ntraceid: [A-Za-z0-9_-]+/i);
    expect(JSON.parse(body)).toMatchObject({ ret: 1, data: { code: 'BAD_REQUEST', traceId: expect.any(String) } });
  });

  it('leave the server answering', async () => {
    const res = await srv.call('/hcs/controller/System/Current/User', { token });
    expect(res.status).toBe(200);
    expect(((await res.json()) as { ret: number }).ret).toBe(0);
  });
});
