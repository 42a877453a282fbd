// Issue #17 part 2: guessing a link's extraction code. 10,000 wrong codes from one address, and 10,000 from as many
// forwarded addresses (behind a trusted proxy), never open the link: after 3 failures every attempt needs a CAPTCHA,
// after 10 on the link (20 from an address) attempts are refused outright with RATE_LIMITED, the right code included,
// and the lockout is in the database, so a restarted server still holds it.
import { randomBytes } from 'node:crypto';
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { startServer, type TestServer } from '../helpers/server.ts';
import { apiAs, makeUser, mkdir, type TestUser } from '../helpers/org.ts';

let srv: TestServer;
let owner: TestUser;
let folder: string;
const ATTEMPTS = 10_000;
const PARALLEL = 16;

beforeAll(async () => {
  srv = await startServer({ env: { HCS_TRUST_PROXY: '127.0.0.1' } });
  owner = await makeUser(srv, 'bfowner', null);
  folder = await mkdir(owner, 'Target');
});
afterAll(async () => {
  expect(srv.violations).toEqual([]);
  await srv.close();
});

async function newLink(code: string): Promise<string> {
  const r = await owner.api('/hcs/controller/FileShare', undefined, { instanceIds: [folder], code });
  expect(r.status).toBe(200);
  return r.data.link;
}

async function attempt(s: TestServer, link: string, code: string, ip: string): Promise<{ status: number; code: string }> {
  const res = await s.call('/hcs/services/FileShare/loginShare', {
    method: 'POST', headers: { 'content-type': 'application/json', 'x-forwarded-for': ip }, body: JSON.stringify({ link, code }),
  });
  const body = (await res.json()) as { data: { code?: string } };
  return { status: res.status, code: res.status === 200 ? 'OPENED' : String(body.data?.code) };
}

/**
 * The bulk of the guesses go through Fastify's inject: the same routes, hooks, handler and database as a socket
 * request, from the proxy's address, without the socket's cost, so 10,000 of them take seconds, not minutes.
 */
async function injected(link: string, code: string, ip: string): Promise<{ status: number; code: string }> {
  const res = await srv.built.app.inject({
    method: 'POST', url: '/hcs/services/FileShare/loginShare', remoteAddress: '127.0.0.1',
    headers: { 'content-type': 'application/json', 'x-forwarded-for': ip, 'x-requested-with': 'XMLHttpRequest' }, payload: JSON.stringify({ link, code }),
  });
  return { status: res.statusCode, code: res.statusCode === 200 ? 'OPENED' : String((res.json() as { data: { code?: string } }).data?.code) };
}

/** Sends `n` wrong codes (never `right`) with a few in flight at once; tallies the answers by code. */
async function guess(link: string, right: string, ipOf: (i: number) => string): Promise<Map<string, number>> {
  const tally = new Map<string, number>();
  let next = 0;
  const worker = async () => {
    for (let i = next++; i < ATTEMPTS; i = next++) {
      let code = randomBytes(4).toString('hex').slice(0, 6);
      if (code === right) code = 'zzzzzz';
      const r = await injected(link, code, ipOf(i));
      tally.set(r.code, (tally.get(r.code) ?? 0) + 1);
    }
  };
  await Promise.all(Array.from({ length: PARALLEL }, worker));
  return tally;
}

describe('extraction code brute force', () => {
  it('from one address: never opened, the CAPTCHA then the lockout engage, and the lockout refuses the right code and survives a restart', async () => {
    const link = await newLink('r1ght6');
    const tally = await guess(link, 'r1ght6', () => '192.0.2.10');
    expect(tally.get('OPENED')).toBeUndefined();
    expect([...tally.values()].reduce((a, b) => a + b, 0)).toBe(ATTEMPTS);
    // The few before the lockout: at most the budget (plus those already in flight when it engaged).
    expect(tally.get('RATE_LIMITED')).toBeGreaterThan(ATTEMPTS - 20 - PARALLEL);
    expect([...tally.keys()].sort()).toEqual(expect.arrayContaining(['RATE_LIMITED', 'SHARE_CODE_WRONG']));
    expect(tally.get('SHARE_CODE_WRONG')).toBeLessThanOrEqual(3 + PARALLEL);
    expect(await attempt(srv, link, 'r1ght6', '192.0.2.10')).toEqual({ status: 429, code: 'RATE_LIMITED' });
    // Another node on the same database (here: the server restarted on its data) holds the same lockout.
    const dataDir = srv.dataDir;
    await srv.close({ keepData: true });
    srv = await startServer({ dataDir, env: { HCS_TRUST_PROXY: '127.0.0.1' } });
    const { token } = await srv.login('bfowner', 'Bfowner#pass-1234');
    owner = { ...owner, token, api: apiAs(srv, token) };
    expect(await attempt(srv, link, 'r1ght6', '192.0.2.10')).toEqual({ status: 429, code: 'RATE_LIMITED' });
  });

  it('from 10,000 forwarded addresses: never opened, and the link\'s own lockout engages', async () => {
    const link = await newLink('s3cret');
    const tally = await guess(link, 's3cret', (i) => `10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}`);
    expect(tally.get('OPENED')).toBeUndefined();
    expect(tally.get('RATE_LIMITED')).toBeGreaterThan(ATTEMPTS - 10 - PARALLEL);
    expect(await attempt(srv, link, 's3cret', '10.200.0.1')).toEqual({ status: 429, code: 'RATE_LIMITED' });
    const retry = await srv.call('/hcs/services/FileShare/loginShare', {
      method: 'POST', headers: { 'content-type': 'application/json', 'x-forwarded-for': '10.200.0.2' }, body: JSON.stringify({ link, code: 's3cret' }),
    });
    expect(Number(retry.headers.get('retry-after'))).toBeGreaterThan(0);
  });
});
