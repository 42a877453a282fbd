// The node's session cache (issue #12): a signed-in request is answered from the cache, and every change to a session or
// its user's rights reaches the cache at once whatever code or SQL made it (the database's triggers report it), the
// cache never extends a session past its absolute or idle expiry, and on PostgreSQL it serves nothing while its
// listener is down. Runs on SQLite and on PostgreSQL (HCS_TEST_DATABASE_URL); two nodes: session-cache-nodes.int-spec.ts.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import pg from 'pg';
import { createHcsClient, unwrap } from '@hcs/openapi/client';
import { encryptForServer, startServer, type TestServer } from '../helpers/server.ts';
import { databaseEnvFor, ON_POSTGRES } from '../helpers/db.ts';
import { listenerApplicationName } from '../../mock-server/src/db/session-events.ts';
import { createHash } from 'node:crypto';

let s: TestServer;
let admin: string;
let publicKey: string;

type Res = { status: number; body: { ret: number; msg: string; data: any } };

async function post(token: string, path: string, body: unknown): Promise<Res> {
  const res = await s.call(`/hcs/controller/${path}`, { token, method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  return { status: res.status, body: (await res.json()) as Res['body'] };
}

const me = async (token: string): Promise<Res> => {
  const res = await s.call('/hcs/controller/System/Current/User', { token });
  return { status: res.status, body: (await res.json()) as Res['body'] };
};

async function signIn(user: string, password: string): Promise<string> {
  const anon = createHcsClient({ baseUrl: s.baseUrl });
  const res = unwrap(
    await anon.GET('/hcs/services/System/Token', {
      params: { query: { username: user, password: await encryptForServer(publicKey, password) } },
      headers: { 'X-HCS-Client': 'cli' },
    }),
  );
  return res.data!.token;
}

let seq = 0;
async function newUser(): Promise<{ id: string; name: string; password: string; token: string }> {
  const name = `cache${++seq}`;
  const password = `${name}#Pass-word-1`;
  const r = await post(admin, 'Users/setUserInfo', { userName: name, password: await encryptForServer(publicKey, password) });
  expect(r.status, JSON.stringify(r.body)).toBe(200);
  return { id: r.body.data.userId, name, password, token: await signIn(name, password) };
}

/** Signed in and answered twice, so the second answer (and the next) come from the node's cache. */
async function warm(token: string): Promise<void> {
  for (let i = 0; i < 2; i++) expect((await me(token)).status).toBe(200);
}

const sessionId = (token: string) => createHash('sha256').update(token).digest('hex');

/**
 * A change the server is not told about: through a connection of the test's own with the triggers off (PostgreSQL's
 * session_replication_role = replica; on SQLite, a second connection, which has none of the server's TEMP triggers).
 */
async function unreported(text: string, ...args: (string | number)[]): Promise<void> {
  if (ON_POSTGRES) {
    const client = new pg.Client({ connectionString: (await databaseEnvFor(s.dataDir)).HCS_DATABASE_URL });
    await client.connect();
    try {
      await client.query('begin');
      await client.query('set local session_replication_role = replica');
      let n = 0;
      await client.query(text.replace(/\?/g, () => `$${++n}`), args);
      await client.query('commit');
    } finally {
      await client.end();
    }
  } else {
    const db = new DatabaseSync(join(s.dataDir, 'hcs.sqlite'));
    try {
      db.exec('PRAGMA busy_timeout = 5000');
      db.prepare(text).run(...args.map((a) => (typeof a === 'number' ? BigInt(a) : a)));
    } finally {
      db.close();
    }
  }
}

beforeAll(async () => {
  s = await startServer();
  admin = (await s.login()).token;
  const anon = createHcsClient({ baseUrl: s.baseUrl });
  publicKey = unwrap(await anon.GET('/hcs/services/System/platformInfo', {})).data!.publicKey;
  // The cache is on once the node hears events (PostgreSQL: the listener has connected).
  await warm(admin);
});
afterAll(async () => {
  await s?.close();
});

describe('the session cache', () => {
  it('answers a signed-in request without reading the session again, and drops it on the next event about its user', async () => {
    const u = await newUser();
    await warm(u.token);
    // Revoked behind the server's back: the cached answer stands (this is what the triggers exist for)...
    await unreported('update sessions set revoked_at = ? where id = ?', Date.now(), sessionId(u.token));
    expect((await me(u.token)).status).toBe(200);
    // ...until anything about the user is reported, here a new name by plain SQL through the server's own handle.
    await s.sql.run('update users set real_name = ? where id = ?', 'Renamed', u.id);
    expect((await me(u.token)).body.data.code).toBe('UNAUTHENTICATED');
  });

  it('refuses at once what changed through any path: revocation, password change, disabling, deletion, administration taken', async () => {
    // Revoked by SQL through the server's handle.
    const a = await newUser();
    await warm(a.token);
    await s.sql.run('update sessions set revoked_at = ? where id = ?', Date.now(), sessionId(a.token));
    expect((await me(a.token)).body.data.code).toBe('UNAUTHENTICATED');

    // The user changes the password in another session: the others end.
    const b = await newUser();
    const other = await signIn(b.name, b.password);
    await warm(b.token);
    const changed = await post(other, 'Users/userPassword', {
      userId: b.id,
      oldPassword: await encryptForServer(publicKey, b.password),
      newPassword: await encryptForServer(publicKey, 'Brand-new#Pass-2'),
    });
    expect(changed.status, JSON.stringify(changed.body)).toBe(200);
    expect((await me(b.token)).body.data.code).toBe('UNAUTHENTICATED');
    expect((await me(other)).status).toBe(200);

    // Disabled by an administrator.
    const c = await newUser();
    await warm(c.token);
    expect((await post(admin, 'Users/setUserState', { userIds: [c.id], enabled: false })).body.data.done).toEqual([c.id]);
    expect((await me(c.token)).status).toBe(401);

    // Disabled by SQL without touching the sessions: the account's state is part of the cached answer.
    const d = await newUser();
    await warm(d.token);
    await s.sql.run('update users set is_enabled = 0 where id = ?', d.id);
    expect((await me(d.token)).body.data.code).toBe('ACCOUNT_FROZEN');

    // Deleted (into the deleted-users list).
    const e = await newUser();
    await warm(e.token);
    expect((await post(admin, 'Users/delUserInfo', { userIds: [e.id] })).status).toBe(200);
    expect((await me(e.token)).status).toBe(401);

    // Made an administrator, then not: what the session may do follows at once.
    const f = await newUser();
    await s.sql.run('update users set is_admin = 1 where id = ?', f.id);
    await warm(f.token);
    expect((await me(f.token)).body.data.isAdmin).toBe(true);
    await s.sql.run('update users set is_admin = 0 where id = ?', f.id);
    expect((await me(f.token)).body.data.isAdmin).toBe(false);
  });

  it('never serves a session past its absolute expiry or its idle window', async () => {
    const a = await newUser();
    const expiresAt = Date.now() + 1500;
    await s.sql.run('update sessions set expires_at = ? where id = ?', expiresAt, sessionId(a.token));
    await warm(a.token);
    // Waits out a deadline (not a race: once it has passed, the session is over whatever the machine's speed).
    await new Promise((r) => setTimeout(r, expiresAt + 10 - Date.now()));
    expect((await me(a.token)).body.data.code).toBe('UNAUTHENTICATED');

    const b = await newUser();
    await s.sql.run('update sessions set idle_ms = ? where id = ?', 1500, sessionId(b.token));
    await warm(b.token);
    const lastSeen = Number((await s.sql.get<{ t: number }>('select last_seen_at as t from sessions where id = ?', sessionId(b.token)))!.t);
    await new Promise((r) => setTimeout(r, lastSeen + 1510 - Date.now()));
    expect((await me(b.token)).body.data.code).toBe('UNAUTHENTICATED');
  });

  it('keeps the idle bookkeeping: a session used after a quarter of its idle window has its last use written', async () => {
    const a = await newUser();
    const before = Date.now() - 3000;
    // An earlier last use (moving it back is reported: the cache must not keep a later one) in a 4 s window.
    await s.sql.run('update sessions set idle_ms = ?, last_seen_at = ? where id = ?', 4000, before, sessionId(a.token));
    const t0 = Date.now();
    expect((await me(a.token)).status).toBe(200);
    const seen = Number((await s.sql.get<{ t: number }>('select last_seen_at as t from sessions where id = ?', sessionId(a.token)))!.t);
    expect(seen).toBeGreaterThanOrEqual(t0);
  });

  it.skipIf(!ON_POSTGRES)('serves nothing from the cache while the PostgreSQL listener is down, and is right again once it is back', async () => {
    const pgUrl = (await databaseEnvFor(s.dataDir)).HCS_DATABASE_URL!;
    const dbName = decodeURIComponent(new URL(pgUrl).pathname.slice(1));
    const admin_ = new pg.Client({ connectionString: pgUrl });
    await admin_.connect();
    const listeners = async () =>
      (await admin_.query<{ pid: number }>('select pid from pg_stat_activity where datname = $1 and application_name = $2', [dbName, listenerApplicationName()])).rows.map((r) => r.pid);
    const until = async (what: string, probe: () => Promise<boolean>) => {
      const end = Date.now() + 30_000;
      while (!(await probe())) {
        if (Date.now() > end) throw new Error(`never happened: ${what}`);
        await new Promise((r) => setTimeout(r, 20));
      }
    };
    try {
      const u = await newUser();
      await warm(u.token);
      const [pid] = await listeners();
      expect(pid).toBeDefined();
      await admin_.query('select pg_terminate_backend($1)', [pid]);
      await until('the listener backend is gone', async () => !(await listeners()).includes(pid!));
      // Revoked while nobody listens: the NOTIFY goes nowhere. The node dropped its cache when the connection broke.
      await s.sql.run('update sessions set revoked_at = ? where id = ?', Date.now(), sessionId(u.token));
      expect((await me(u.token)).body.data.code).toBe('UNAUTHENTICATED');

      // Back: events are heard again (a new session, cached, then revoked).
      await until('the listener is back', async () => (await listeners()).length === 1);
      const v = await newUser();
      await warm(v.token);
      await s.sql.run('update sessions set revoked_at = ? where id = ?', Date.now(), sessionId(v.token));
      expect((await me(v.token)).body.data.code).toBe('UNAUTHENTICATED');
    } finally {
      await admin_.end();
    }
  });
});
