// Sign-in past the failure threshold (issue #11, findings 5 and 9) against the real server: a correct password is
// never refused: it signs in at once with a solved CAPTCHA, or after a server-side delay without one. Wrong and
// reused CAPTCHA answers are refused without counting a failure, delayed attempts are bounded per address, a
// password with control characters is a failed sign-in, and administrators (only they) learn that requests come
// through a proxy the server does not trust.
import { describe, it, expect, beforeAll, afterAll, vi } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startServer, encryptForServer, ADMIN_USER, ADMIN_PASSWORD, type TestServer } from '../helpers/server.ts';
import { createUser } from '../../mock-server/src/db/users-repo.ts';
import { captchaAnswerHash } from '../../mock-server/src/auth/captcha.ts';
import { buildProgram } from '../../cli/src/program.ts';

const TOKEN = '/hcs/services/System/Token';
const CAPTCHA = '/hcs/services/System/captcha';
const WARNINGS = '/hcs/controller/System/warnings';

interface Reply {
  status: number;
  headers: Headers;
  json: any;
}

function clientOf(s: TestServer) {
  let publicKey = '';
  const call = async (path: string, init: RequestInit & { ip?: string; token?: string } = {}): Promise<Reply> => {
    const headers = new Headers(init.headers);
    if (init.ip) headers.set('x-forwarded-for', init.ip);
    const res = await s.call(path, { ...init, headers });
    const text = await res.text();
    return { status: res.status, headers: res.headers, json: JSON.parse(text || 'null') };
  };
  /** The sign-in URL with the password encrypted as every client does. */
  const signInUrl = async (user: string, password: string, captcha?: { id: string; answer: string }) => {
    if (!publicKey) publicKey = (await call('/hcs/services/System/platformInfo')).json.data.publicKey;
    const q = new URLSearchParams({ username: user, password: await encryptForServer(publicKey, password) });
    if (captcha) {
      q.set('captchaId', captcha.id);
      q.set('captchaAnswer', captcha.answer);
    }
    return `${TOKEN}?${q}`;
  };
  const login = async (user: string, password: string, o: { ip?: string; captcha?: { id: string; answer: string }; cli?: boolean } = {}) =>
    call(await signInUrl(user, password, o.captcha), { ...(o.ip ? { ip: o.ip } : {}), headers: o.cli ? { 'X-HCS-Client': 'cli' } : {} });
  const captcha = async (ip?: string) => {
    const r = await call(CAPTCHA, ip ? { ip } : {});
    expect(r.status).toBe(200);
    return r.json.data as { captchaId: string; image: string; expiresAt: number };
  };
  return { call, signInUrl, login, captcha };
}

/** The failures the server has counted against a limiter key in the current window. */
async function failures(s: TestServer, key: string): Promise<number> {
  const row = (await s.sql.get('SELECT count FROM rate_limits WHERE key = ?', key)) as { count: number } | undefined;
  return row?.count ?? 0;
}

/** The image is for people; the test gives the challenge an answer it knows, stored the way the server stores one. */
async function knowAnswer(s: TestServer, id: string, answer: string): Promise<void> {
  const changed = await s.sql.run('UPDATE captchas SET answer_hash = ? WHERE id = ?', captchaAnswerHash(s.built.ctx.secret, id, answer), id);
  expect(Number(changed)).toBe(1);
}

describe('sign-in throttle with a tiny delay', () => {
  let s: TestServer;
  let c: ReturnType<typeof clientOf>;
  beforeAll(async () => {
    // Delays of 2 ms doubling up to 20 ms: the tests check what is answered, not how long it took.
    s = await startServer({
      env: { HCS_LOGIN_MAX_ATTEMPTS: '3', HCS_LOGIN_DELAY_SECONDS: '0.002', HCS_LOGIN_DELAY_MAX_SECONDS: '0.02', HCS_TRUST_PROXY: '127.0.0.1' },
    });
    c = clientOf(s);
  });
  afterAll(async () => {
    expect(s.violations).toEqual([]);
    await s.close();
  });

  it('past the per-account threshold a wrong password asks for a CAPTCHA, and the right one without it still signs in', async () => {
    await createUser(s.built.ctx.db, { userName: 'tara', password: 'Tara-pass-123' });
    for (let i = 0; i < 2; i++) {
      const r = await c.login('tara', 'Wrong-pass-1', { ip: '10.20.0.1' });
      expect(r.status).toBe(401);
      expect(r.json.data.code).toBe('LOGIN_FAILED');
    }
    const third = await c.login('tara', 'Wrong-pass-1', { ip: '10.20.0.1' });
    expect(third.status).toBe(401);
    expect(third.json).toMatchObject({ ret: 1, msg: 'login.userOrPasswordError', data: { code: 'CAPTCHA_REQUIRED' } });
    // Still wrong past the threshold: held back, then refused as before.
    expect((await c.login('tara', 'Wrong-pass-1', { ip: '10.20.0.2' })).json.data.code).toBe('CAPTCHA_REQUIRED');
    expect(await failures(s, 'login:user:tara')).toBe(4);
    // The owner, without a CAPTCHA (a script, the CLI), is slowed down but signed in.
    const owner = await c.login('tara', 'Tara-pass-123', { ip: '10.20.0.3', cli: true });
    expect(owner.status).toBe(200);
    expect(owner.json.data.user.userName).toBe('tara');
    expect(await failures(s, 'login:user:tara')).toBe(0);
  });

  it('past the per-address threshold (4x) everyone behind that address still signs in with the right password', async () => {
    const ip = '10.21.0.1';
    // 12 failures spread over accounts, so only the address's budget (4 x 3) is used up.
    for (let i = 0; i < 12; i++) expect((await c.login(`spray${i % 6}`, 'Wrong-pass-1', { ip })).status).toBe(401);
    expect((await c.login('spray0', 'Wrong-pass-1', { ip })).json.data.code).toBe('CAPTCHA_REQUIRED');
    const admin = await c.login(ADMIN_USER, ADMIN_PASSWORD, { ip });
    expect(admin.status).toBe(200);
    expect(admin.json.data.user.userName).toBe(ADMIN_USER);
  });

  it('refuses a password with control characters (a trailing NUL) as a failed sign-in, and counts it', async () => {
    await createUser(s.built.ctx.db, { userName: 'nula', password: 'Nula-pass-123' });
    for (const [i, suffix] of ['\u0000', '\t'].entries()) {
      const r = await c.login('nula', `Nula-pass-123${suffix}`, { ip: '10.22.0.1' });
      expect(r.status, JSON.stringify(suffix)).toBe(401);
      expect(r.json).toMatchObject({ msg: 'login.userOrPasswordError', data: { code: 'LOGIN_FAILED' } });
      expect(r.headers.getSetCookie()).toEqual([]);
      expect(await failures(s, 'login:user:nula')).toBe(i + 1);
    }
    expect((await c.login('nula', 'Nula-pass-123', { ip: '10.22.0.1' })).status).toBe(200);
  });

  it('the CLI signs in past the threshold (held back, not refused) and words a wrong password there', async () => {
    await createUser(s.built.ctx.db, { userName: 'clio', password: 'Clio-pass-123' });
    // The CLI connects from the trusted proxy's own address, so its attempts count for 127.0.0.1.
    for (let i = 0; i < 3; i++) await c.login('clio', 'Wrong-pass-1', { ip: '10.24.0.1' });
    const wrong = await driveLogin(s.baseUrl, 'clio', 'Wrong-pass-2');
    expect(wrong.exitCode, wrong.stderr).toBe(3);
    expect(wrong.events[0]).toMatchObject({ event: 'error', code: 'CAPTCHA_REQUIRED' });
    expect(wrong.stderr).toContain('wrong user name or password (after repeated failures, further sign-ins are slowed down');
    const right = await driveLogin(s.baseUrl, 'clio', 'Clio-pass-123');
    expect(right.exitCode, right.stderr).toBe(0);
    expect(right.events[0]).toMatchObject({ event: 'login', userName: 'clio' });
  });

  it('shows no proxy warning when HCS_TRUST_PROXY names the proxy', async () => {
    await c.call('/hcs/services/System/platformInfo', { ip: '10.23.0.1' });
    const admin = await c.login(ADMIN_USER, ADMIN_PASSWORD, { cli: true, ip: '10.23.0.1' });
    const r = await c.call(WARNINGS, { token: admin.json.data.token });
    expect(r.status).toBe(200);
    expect(r.json.data).toEqual([]);
  });
});

/** `drive login --json` run in this process against a server; its exit code, JSON events and stderr. */
async function driveLogin(server: string, user: string, password: string) {
  const dir = mkdtempSync(join(tmpdir(), 'hcs-cli-login-'));
  const stdout: string[] = [];
  const stderr: string[] = [];
  const sink = (into: string[]) => ({ write: (chunk: unknown) => (into.push(String(chunk)), true) }) as unknown as NodeJS.WritableStream;
  const previous = process.exitCode;
  try {
    await buildProgram({ stdout: sink(stdout), stderr: sink(stderr), env: { HCS_PASSWORD: password } }).parseAsync(
      ['node', 'drive', 'login', '--json', '--server', server, '--user', user, '--config', join(dir, 'auth.json'), '--state-dir', dir],
    );
    const events = stdout.join('').split('\n').filter(Boolean).map((l) => JSON.parse(l) as { event: string; code?: string });
    return { exitCode: process.exitCode, events, stderr: stderr.join('') };
  } finally {
    process.exitCode = previous;
    rmSync(dir, { recursive: true, force: true });
  }
}

describe('sign-in throttle with a one-minute delay', () => {
  // Every held attempt would wait a minute, so an attempt answered within a test's few seconds was not held.
  let s: TestServer;
  let c: ReturnType<typeof clientOf>;
  beforeAll(async () => {
    s = await startServer({
      env: { HCS_LOGIN_MAX_ATTEMPTS: '3', HCS_LOGIN_DELAY_SECONDS: '60', HCS_LOGIN_DELAY_MAX_SECONDS: '60', HCS_TRUST_PROXY: '127.0.0.1' },
    });
    c = clientOf(s);
  });
  afterAll(async () => {
    expect(s.violations).toEqual([]);
    await s.close();
  });

  /** Creates the user and uses up its account budget (the last wrong answer asks for a CAPTCHA). */
  async function exhausted(user: string, password: string, ip: string): Promise<void> {
    await createUser(s.built.ctx.db, { userName: user, password });
    for (let i = 0; i < 3; i++) await c.login(user, 'Wrong-pass-1', { ip });
    expect(await failures(s, `login:user:${user}`)).toBe(3);
  }

  it('hands out challenges as SVG data: URIs that expire within two minutes, and never the answer', async () => {
    const before = Date.now();
    const r = await c.call(CAPTCHA);
    expect(r.status).toBe(200);
    expect(r.headers.get('cache-control')).toMatch(/no-store/);
    const ch = r.json.data as { captchaId: string; image: string; expiresAt: number };
    expect(ch.captchaId).toMatch(/^[A-Za-z0-9_-]{22}$/);
    expect(ch.image.startsWith('data:image/svg+xml;base64,')).toBe(true);
    const svg = Buffer.from(ch.image.slice('data:image/svg+xml;base64,'.length), 'base64').toString('utf8');
    expect(svg).toMatch(/^<svg [^>]*xmlns="http:\/\/www\.w3\.org\/2000\/svg"/);
    expect(svg).not.toMatch(/<script|<text|on[a-z]+=/i);
    expect(ch.expiresAt).toBeGreaterThan(before);
    expect(ch.expiresAt).toBeLessThanOrEqual(Date.now() + 120_000);
    const stored = (await s.sql.get('SELECT answer_hash FROM captchas WHERE id = ?', ch.captchaId)) as { answer_hash: string };
    expect(stored.answer_hash).toMatch(/^[0-9a-f]{64}$/);
    expect(JSON.stringify(r.json)).not.toContain(stored.answer_hash);
    expect((await c.captcha()).captchaId).not.toBe(ch.captchaId);
  });

  it('signs the right password in at once past the threshold when it carries a solved CAPTCHA', { timeout: 20_000 }, async () => {
    await exhausted('cora', 'Cora-pass-123', '10.30.0.1');
    const ch = await c.captcha('10.30.0.2');
    await knowAnswer(s, ch.captchaId, 'k7mw');
    // Case does not matter to a person reading the image.
    const r = await c.login('cora', 'Cora-pass-123', { ip: '10.30.0.2', captcha: { id: ch.captchaId, answer: 'K7MW' } });
    expect(r.status).toBe(200);
    expect(r.json.data.user.userName).toBe('cora');
    expect(await failures(s, 'login:user:cora')).toBe(0);
  });

  it('refuses a wrong, unknown or expired CAPTCHA answer without counting a failure; a wrong answer uses the challenge up', { timeout: 20_000 }, async () => {
    await exhausted('walt', 'Walt-pass-123', '10.31.0.1');
    const ch = await c.captcha();
    await knowAnswer(s, ch.captchaId, 'abcd');
    const wrong = await c.login('walt', 'Walt-pass-123', { ip: '10.31.0.1', captcha: { id: ch.captchaId, answer: 'abce' } });
    expect(wrong.status).toBe(401);
    expect(wrong.json.data.code).toBe('CAPTCHA_INVALID');
    expect(wrong.headers.getSetCookie()).toEqual([]);
    const again = await c.login('walt', 'Walt-pass-123', { ip: '10.31.0.1', captcha: { id: ch.captchaId, answer: 'abcd' } });
    expect(again.json.data.code).toBe('CAPTCHA_INVALID');
    const unknown = await c.login('walt', 'Walt-pass-123', { ip: '10.31.0.1', captcha: { id: 'A'.repeat(22), answer: 'abcd' } });
    expect(unknown.json.data.code).toBe('CAPTCHA_INVALID');
    const old = await c.captcha();
    await knowAnswer(s, old.captchaId, 'abcd');
    await s.sql.run('UPDATE captchas SET expires_at = ? WHERE id = ?', Date.now() - 1, old.captchaId);
    const expired = await c.login('walt', 'Walt-pass-123', { ip: '10.31.0.1', captcha: { id: old.captchaId, answer: 'abcd' } });
    expect(expired.json.data.code).toBe('CAPTCHA_INVALID');
    // None of these got as far as the password, so none counts as a failed sign-in.
    expect(await failures(s, 'login:user:walt')).toBe(3);
    expect(await failures(s, 'login:ip:10.31.0.1')).toBe(3);
  });

  it('takes a CAPTCHA answer once: a solved challenge spent on a wrong password does not open the account', { timeout: 20_000 }, async () => {
    await exhausted('sue', 'Sue-pass-1234', '10.32.0.1');
    const ch = await c.captcha();
    await knowAnswer(s, ch.captchaId, 'q3r8');
    const guess = await c.login('sue', 'Wrong-pass-2', { ip: '10.32.0.1', captcha: { id: ch.captchaId, answer: 'q3r8' } });
    expect(guess.status).toBe(401);
    expect(guess.json.data.code).toBe('CAPTCHA_REQUIRED');
    expect(await failures(s, 'login:user:sue')).toBe(4);
    const reuse = await c.login('sue', 'Sue-pass-1234', { ip: '10.32.0.1', captcha: { id: ch.captchaId, answer: 'q3r8' } });
    expect(reuse.json.data.code).toBe('CAPTCHA_INVALID');
    const fresh = await c.captcha();
    await knowAnswer(s, fresh.captchaId, 'x9y2');
    expect((await c.login('sue', 'Sue-pass-1234', { ip: '10.32.0.1', captcha: { id: fresh.captchaId, answer: 'x9y2' } })).status).toBe(200);
  });

  it('holds attempts without a CAPTCHA, at most 10 per address; refused and abandoned attempts count no failure', { timeout: 30_000 }, async () => {
    await exhausted('hal', 'Hal-pass-1234', '10.33.0.1');
    const ip = '10.33.0.9';
    const url = await c.signInUrl('hal', 'Hal-pass-1234');
    let settled = 0;
    const attempts = Array.from({ length: 11 }, (_, i) => {
      const abort = new AbortController();
      // Settles when the answer's status line arrives, or when the test gives up on an attempt still held.
      const done = s.call(url, { headers: { 'x-forwarded-for': ip }, signal: abort.signal }).finally(() => settled++).then(
        async (res) => ({ i, status: res.status, retryAfter: res.headers.get('retry-after'), code: ((await res.json()) as any).data?.code }),
        () => ({ i, status: 0, retryAfter: null, code: undefined }),
      );
      return { abort, done };
    });
    // Ten are held for a minute; the eleventh is refused at once, whichever of them arrived last.
    const first = await Promise.race(attempts.map((a) => a.done));
    expect(first.status).toBe(429);
    expect(first.code).toBe('RATE_LIMITED');
    expect(Number(first.retryAfter)).toBeGreaterThanOrEqual(1);
    // The held ones are counted as they arrive (so a burst cannot outrun the limit) but have not been answered.
    await vi.waitFor(async () => expect(await failures(s, 'login:user:hal')).toBe(13), { timeout: 10_000, interval: 50 });
    expect(settled).toBe(1);
    for (const [i, a] of attempts.entries()) if (i !== first.i) a.abort.abort();
    const rest = await Promise.all(attempts.filter((_, i) => i !== first.i).map((a) => a.done));
    expect(rest.map((x) => x.status)).toEqual(Array(10).fill(0));
    // The held attempts were counted when they arrived; given up before their password was checked, they are not.
    await vi.waitFor(
      async () => {
        expect(await failures(s, 'login:user:hal')).toBe(3);
        expect(await failures(s, `login:ip:${ip}`)).toBe(0);
      },
      { timeout: 10_000, interval: 50 },
    );
  });
});

describe('untrusted proxy warning', () => {
  let s: TestServer;
  let c: ReturnType<typeof clientOf>;
  beforeAll(async () => {
    s = await startServer();
    c = clientOf(s);
  });
  afterAll(async () => {
    expect(s.violations).toEqual([]);
    await s.close();
  });

  it('logs once and shows administrators, and only them, that requests come through a proxy HCS_TRUST_PROXY does not name', async () => {
    const warn = vi.spyOn(s.built.ctx.log, 'warn');
    await createUser(s.built.ctx.db, { userName: 'ursula', password: 'Ursula-pass-1' });
    const admin = (await c.login(ADMIN_USER, ADMIN_PASSWORD, { cli: true })).json.data.token as string;
    const user = (await c.login('ursula', 'Ursula-pass-1', { cli: true })).json.data.token as string;
    expect((await c.call(WARNINGS, { token: admin })).json.data).toEqual([]);

    const proxied: Record<string, string>[] = [{ 'x-forwarded-for': '203.0.113.7' }, { forwarded: 'for=203.0.113.8' }, { 'x-real-ip': '203.0.113.9' }];
    for (const headers of proxied) {
      expect((await c.call('/hcs/services/System/platformInfo', { headers })).status).toBe(200);
    }
    const r = await c.call(WARNINGS, { token: admin });
    expect(r.status).toBe(200);
    expect(r.json.data).toEqual([{ code: 'UNTRUSTED_PROXY', since: expect.any(Number), peerIp: '127.0.0.1' }]);
    const logged = warn.mock.calls.filter((args) => args.some((a) => typeof a === 'string' && a.includes('HCS_TRUST_PROXY')));
    expect(logged).toHaveLength(1);

    const denied = await c.call(WARNINGS, { token: user });
    expect(denied.status).toBe(403);
    expect(denied.json.data.code).toBe('FORBIDDEN');
    expect((await c.call(WARNINGS)).status).toBe(401);
    warn.mockRestore();
  });
});
