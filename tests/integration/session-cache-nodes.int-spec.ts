// Two server processes on one PostgreSQL database, each with its session cache (issue #12): what changes a session or
// its user's rights through one node is refused at once on the other, which had the session cached; and a node whose
// listening connection is gone serves nothing from its cache. Needs PostgreSQL (HCS_TEST_DATABASE_URL); each node
// keeps its own embedded store, which nothing here uses. two-nodes.int-spec.ts covers the rest of running two nodes.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { copyFileSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { encodeName } from '@hcs/openapi/client';
import { ADMIN_PASSWORD, ADMIN_USER, encryptForServer } from '../helpers/server.ts';
import { removeDataDir, startServerProcess, type ServerProcess } from '../helpers/server-process.ts';
import { ON_POSTGRES } from '../helpers/db.ts';
import { createTestPgDatabase, type TestPgDatabase } from '../helpers/pg.ts';
import { listenerApplicationName } from '../../mock-server/src/db/session-events.ts';

const skip = ON_POSTGRES ? undefined : 'HCS_TEST_DATABASE_URL is not set: the nodes share a PostgreSQL database (bash tests/pg/postgres.sh start && eval "$(bash tests/pg/postgres.sh env)")';
if (skip) console.log(`[session-cache-nodes] skipped: ${skip}`);

type Res = { status: number; json: any };

describe.skipIf(skip !== undefined)('session cache on two nodes', () => {
  const work = mkdtempSync(join(tmpdir(), 'hcs-2n-cache-'));
  let db: TestPgDatabase;
  let sql: pg.Client;
  let a: ServerProcess;
  let b: ServerProcess;
  let admin: string;
  let publicKey: string;

  function nodeDir(name: string, keysFrom?: string): string {
    const made = mkdtempSync(join(work, `${name}-`));
    writeFileSync(join(made, 'test-database-url'), db.url, { mode: 0o600 });
    if (keysFrom) for (const f of ['server-secret', 'rsa-private.pem']) copyFileSync(join(keysFrom, f), join(made, f));
    return made;
  }

  async function call(node: ServerProcess, path: string, init: RequestInit & { token?: string } = {}): Promise<Res> {
    const headers = new Headers(init.headers);
    headers.set('X-Requested-With', 'XMLHttpRequest');
    if (init.token) headers.set('token', init.token);
    if (init.body) headers.set('content-type', 'application/json');
    const res = await node.fetch(node.baseUrl + path, { ...init, headers });
    return { status: res.status, json: await res.json() };
  }
  const post = (node: ServerProcess, token: string, path: string, body: unknown) => call(node, `/hcs/controller/${path}`, { token, method: 'POST', body: JSON.stringify(body) });
  const me = (node: ServerProcess, token: string) => call(node, '/hcs/controller/System/Current/User', { token });

  async function signIn(node: ServerProcess, user: string, password: string): Promise<string> {
    const wire = encodeURIComponent(await encryptForServer(publicKey, password));
    const r = await call(node, `/hcs/services/System/Token?username=${encodeURIComponent(user)}&password=${wire}`, { headers: { 'X-HCS-Client': 'cli' } });
    expect(r.status, JSON.stringify(r.json)).toBe(200);
    return r.json.data.token as string;
  }

  let seq = 0;
  async function newUser(): Promise<{ id: string; name: string; password: string }> {
    const name = `nodes${++seq}`;
    const password = `${name}#Pass-word-1`;
    const r = await post(a, admin, 'Users/setUserInfo', { userName: name, password: await encryptForServer(publicKey, password) });
    expect(r.status, JSON.stringify(r.json)).toBe(200);
    return { id: r.json.data.userId, name, password };
  }

  /** Answered twice on the node, so it holds the session in its cache. */
  async function warm(node: ServerProcess, token: string): Promise<void> {
    for (let i = 0; i < 2; i++) expect((await me(node, token)).status).toBe(200);
  }

  const listenerOf = async (node: ServerProcess) =>
    (await sql.query<{ pid: number }>('select pid from pg_stat_activity where datname = $1 and application_name = $2', [db.name, listenerApplicationName(node.child.pid)])).rows.map((r) => r.pid);

  async function until(what: string, probe: () => Promise<boolean>): Promise<void> {
    const end = Date.now() + 30_000;
    while (!(await probe())) {
      if (Date.now() > end) throw new Error(`never happened: ${what}`);
      await new Promise((r) => setTimeout(r, 20));
    }
  }

  beforeAll(async () => {
    db = await createTestPgDatabase();
    const dirA = nodeDir('a');
    a = await startServerProcess({ dataDir: dirA });
    b = await startServerProcess({ dataDir: nodeDir('b', dirA) });
    sql = new pg.Client({ connectionString: db.url });
    await sql.connect();
    publicKey = (await call(a, '/hcs/services/System/platformInfo')).json.data.publicKey;
    admin = await signIn(a, ADMIN_USER, ADMIN_PASSWORD);
    // Both nodes listen before anything is cached (until then a node simply reads the database every time).
    await until('both nodes listen', async () => (await listenerOf(a)).length === 1 && (await listenerOf(b)).length === 1);
  }, 120_000);

  afterAll(async () => {
    await Promise.all([a?.stop(), b?.stop()]);
    await sql?.end();
    await removeDataDir(a?.dataDir ?? work);
    await db?.drop();
    rmSync(work, { recursive: true, force: true });
  });

  it('a password changed on A ends the user\'s other sessions on B at once', async () => {
    const u = await newUser();
    const onB = await signIn(b, u.name, u.password);
    const onA = await signIn(a, u.name, u.password);
    await warm(b, onB);
    const changed = await post(a, onA, 'Users/userPassword', {
      userId: u.id,
      oldPassword: await encryptForServer(publicKey, u.password),
      newPassword: await encryptForServer(publicKey, 'Changed#Pass-word-2'),
    });
    expect(changed.status, JSON.stringify(changed.json)).toBe(200);
    expect((await me(b, onB)).json.data.code).toBe('UNAUTHENTICATED');
    expect((await me(b, onA)).status).toBe(200);
  });

  it('a user disabled on A is refused at once on B; administration taken on A is gone at once on B', async () => {
    const u = await newUser();
    const token = await signIn(b, u.name, u.password);
    await warm(b, token);
    expect((await post(a, admin, 'Users/setUserState', { userIds: [u.id], enabled: false })).json.data.done).toEqual([u.id]);
    expect((await me(b, token)).status).toBe(401);

    const v = await newUser();
    expect((await post(a, admin, 'Users/setUserInfo', { userId: v.id, isAdmin: true })).status).toBe(200);
    const vt = await signIn(b, v.name, v.password);
    await warm(b, vt);
    expect((await me(b, vt)).json.data.isAdmin).toBe(true);
    expect((await post(a, admin, 'Users/setUserInfo', { userId: v.id, isAdmin: false })).status).toBe(200);
    expect((await me(b, vt)).json.data.isAdmin).toBe(false);
  });

  it('signing out on A ends the session on B at once, many times over', async () => {
    const u = await newUser();
    for (let i = 0; i < 10; i++) {
      const token = await signIn(a, u.name, u.password);
      await warm(b, token);
      expect((await call(a, '/hcs/controller/System/sso/logout', { token })).status).toBe(200);
      expect((await me(b, token)).json.data.code, `round ${i}`).toBe('UNAUTHENTICATED');
    }
  }, 120_000);

  it("a user's first favourite, made on A, shows at once in B's listing, though B cached the session without marks", async () => {
    // users.has_marks (migration 027) rides on the cached session: B listed the folder while the user had no mark
    // (no look-up of marks at all), and the first one changes the users row, which every node hears of.
    const u = await newUser();
    const token = await signIn(a, u.name, u.password);
    const made = await post(a, token, 'Instances', [{ classifierId: 'Folder', instanceName: encodeName('first') }, { classifierId: 'Folder', instanceName: encodeName('second') }]);
    expect(made.status, JSON.stringify(made.json)).toBe(200);
    const [first] = made.json.data.map((r: any) => r.instanceId);
    const listed = async () => {
      const r = await call(b, '/hcs/controller/Page', { token });
      expect(r.status, JSON.stringify(r.json)).toBe(200);
      return r.json.data.list.map((row: any) => [row.instanceName, row.isFavourite]);
    };
    await warm(b, token);
    expect(await listed()).toEqual([['first', false], ['second', false]]);
    for (let i = 0; i < 2; i++) {
      expect((await post(a, token, `collectionFile`, { ids: first })).json.data.done).toHaveLength(1);
      expect(await listed(), `round ${i}`).toEqual([['first', true], ['second', false]]);
      expect((await call(a, `/hcs/controller/delCollectionFile?ids=${first}`, { token })).json.data.removed).toBe(1);
      expect(await listed(), `round ${i}`).toEqual([['first', false], ['second', false]]);
    }
  });

  it("while B's listening connection is down B serves nothing from its cache; once back it hears changes again", async () => {
    const u = await newUser();
    const token = await signIn(a, u.name, u.password);
    await warm(b, token);
    const [pid] = await listenerOf(b);
    expect(pid).toBeDefined();
    await sql.query('select pg_terminate_backend($1)', [pid]);
    await until("B's listener backend is gone", async () => !(await listenerOf(b)).includes(pid!));
    // Signed out on A while B cannot hear it: B dropped its cache when its connection broke.
    expect((await call(a, '/hcs/controller/System/sso/logout', { token })).status).toBe(200);
    expect((await me(b, token)).json.data.code).toBe('UNAUTHENTICATED');

    await until("B's listener is back", async () => (await listenerOf(b)).length === 1);
    const again = await signIn(a, u.name, u.password);
    await warm(b, again);
    expect((await post(a, admin, 'Users/setUserState', { userIds: [u.id], enabled: false })).json.data.done).toEqual([u.id]);
    expect((await me(b, again)).status).toBe(401);
  });
});
