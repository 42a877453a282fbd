// Issue #20 part 2: pull sync between two server instances, on SQLite and PostgreSQL (tests/pg/suite.ts). The
// "remote" server plays the old drive; the local one pulls an account's personal and group files from it through
// the /hcs contract, as a job. Proves: the password is refused with REMOTE_LOGIN_FAILED (nothing queued), only
// allowed sources are reached, the tree arrives byte-identical and charged to the puller's quota, a second pull
// duplicates nothing, group files land in the same-named group, another user's state is not readable, and a pull
// cut by a restart of the pulling server (held at a known download with a hold gate) resumes without duplicates.
import { createHash, randomBytes } from 'node:crypto';
import { rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { encryptPassword } from '@hcs/openapi/client';
import { startServer, type TestServer } from '../helpers/server.ts';
import { apiAs, makeUser, mkdir, type TestUser } from '../helpers/org.ts';
import { dropDatabaseOf } from '../helpers/db.ts';
import { uploadFile, type ApiCall } from '../helpers/upload.ts';
import { HoldGate } from '../helpers/hold-gate.ts';

const C = '/hcs/controller';
const sha = (b: Buffer) => createHash('sha256').update(b).digest('hex');
const call = (u: TestUser): ApiCall => (path, query, body) => u.api(path, query, body);
const passwordOf = (name: string) => `${name[0]!.toUpperCase()}${name.slice(1)}#pass-1234`;

let remote: TestServer;
let local: TestServer;
let localEnv: Record<string, string>;
/** Set once the local server was restarted on its own data dir (its close then keeps the dir: removed here). */
let restartedDir: string | undefined;
/** An allowed source that redirects every request to the remote server: the redirect must not be followed. */
let redirector: Server;
let redirectorUrl: string;
/** Holds the remote's download-address calls the test picks (the local server's job makes them). */
const downloads = new HoldGate<string>();

async function wire(srv: TestServer, password: string): Promise<string> {
  const info = await (await srv.call('/hcs/services/System/platformInfo')).json();
  return encryptPassword(info.data.publicKey, password);
}

async function startPull(u: TestUser, body: Record<string, unknown>, op = 'oneDiskSync') {
  return u.api(`${C}/System/${op}`, undefined, { serverUrl: remote.baseUrl, ...body, password: await wire(local, String(body.password)) });
}

/** Polls the pull's state until it leaves 3 (in progress); the job runs on the server's worker. */
async function settled(u: TestUser): Promise<any> {
  const deadline = Date.now() + 60_000;
  for (;;) {
    const s = await u.api(`${C}/System/pullSync/status`);
    expect(s.status, JSON.stringify(s)).toBe(200);
    if (s.data.state !== 3) return s.data;
    if (Date.now() > deadline) throw new Error(`the pull did not end: ${JSON.stringify(s.data)}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** name -> bytes of everything under a folder, paths joined with '/'. */
async function tree(u: TestUser, parentId?: string, prefix = ''): Promise<Map<string, Buffer>> {
  const out = new Map<string, Buffer>();
  const page = await u.api(`${C}/Page`, { pageSize: 1000, ...(parentId ? { parentId } : {}) });
  expect(page.status, JSON.stringify(page)).toBe(200);
  for (const i of page.data.list) {
    const path = `${prefix}${i.instanceName}`;
    if (i.classifierId === 'Folder') {
      for (const [k, v] of await tree(u, i.instanceId, `${path}/`)) out.set(k, v);
    } else {
      const url = await u.api(`${C}/API/getS3DownloadUrl`, { instanceId: i.instanceId });
      out.set(path, Buffer.from(await (await fetch(new URL(url.data.url, local.baseUrl))).arrayBuffer()));
    }
  }
  return out;
}

async function usedBytes(u: TestUser): Promise<number> {
  const r = await local.sql.get<{ used_bytes: number }>('SELECT used_bytes FROM users WHERE id = ?', u.id);
  return Number(r!.used_bytes);
}

// The old account's personal tree and a group file.
const files = {
  'a.txt': randomBytes(100),
  'docs/b.bin': randomBytes(3 * 1024 * 1024 + 17),
  'docs/deep/c.txt': randomBytes(10),
};
const groupFile = randomBytes(200);
let old: TestUser;
let alice: TestUser;
let bob: TestUser;

beforeAll(async () => {
  remote = await startServer({
    instrument: (app) =>
      app.addHook('onRequest', async (req) => {
        if (req.url.startsWith(`${C}/API/getS3DownloadUrl`)) await downloads.pass(req.url);
      }),
  });
  redirector = createServer((req, res) => res.writeHead(302, { location: `${remote.baseUrl}${req.url}` }).end());
  await new Promise<void>((resolve) => redirector.listen(0, '127.0.0.1', resolve));
  redirectorUrl = `http://127.0.0.1:${(redirector.address() as { port: number }).port}`;
  localEnv = { HCS_PULL_SOURCES: `${remote.baseUrl},${redirectorUrl}` };
  local = await startServer({ env: localEnv });
  old = await makeUser(remote, 'olduser', null);
  await uploadFile(call(old), 'a.txt', files['a.txt']);
  const docs = await mkdir(old, 'docs');
  await uploadFile(call(old), 'b.bin', files['docs/b.bin'], { query: { parentId: docs } });
  await uploadFile(call(old), 'c.txt', files['docs/deep/c.txt'], { query: { parentId: await mkdir(old, 'deep', docs) } });
  const team = await old.api(`${C}/groupFile/newGroup`, undefined, { groupName: 'Team' });
  expect(team.status, JSON.stringify(team)).toBe(200);
  await uploadFile(call(old), 'g.txt', groupFile, { query: { parentId: team.data.rootId } });
  alice = await makeUser(local, 'alice', null);
  bob = await makeUser(local, 'bob', null);
}, 120_000);

afterAll(async () => {
  downloads.release();
  await local?.close();
  await remote?.close();
  redirector?.close();
  if (restartedDir) {
    await dropDatabaseOf(restartedDir);
    rmSync(restartedDir, { recursive: true, force: true });
  }
});

describe('pull sync', () => {
  it('refuses a wrong password with REMOTE_LOGIN_FAILED and queues nothing', async () => {
    const r = await startPull(alice, { userName: 'olduser', password: 'not-the-password' });
    expect([r.status, r.data?.code]).toEqual([422, 'REMOTE_LOGIN_FAILED']);
    expect((await alice.api(`${C}/System/getOneSyncState`, { userName: 'alice' })).data).toBe(0);
    expect((await alice.api(`${C}/System/pullSync/status`)).data).toBeNull();
    expect(await local.sql.all("SELECT id FROM jobs WHERE kind = 'pullSync.pull'")).toEqual([]);
  });

  it('reaches only the servers the administrator allowed, and wants an encrypted password', async () => {
    const r = await alice.api(`${C}/System/oneDiskSync`, undefined, { serverUrl: 'http://127.0.0.1:9', userName: 'olduser', password: await wire(local, passwordOf('olduser')) });
    expect([r.status, r.data?.code]).toEqual([403, 'FORBIDDEN']);
    // An allowed server that redirects elsewhere is not followed (the redirect could lead anywhere).
    const moved = await alice.api(`${C}/System/oneDiskSync`, undefined, { serverUrl: redirectorUrl, userName: 'olduser', password: await wire(local, passwordOf('olduser')) });
    expect([moved.status, moved.data?.code]).toEqual([502, 'REMOTE_UNREACHABLE']);
    const plain = await alice.api(`${C}/System/oneDiskSync`, undefined, { serverUrl: remote.baseUrl, userName: 'olduser', password: passwordOf('olduser') });
    expect(plain.status).toBe(400);
  });

  it('pulls the personal tree byte-identical into the puller\'s library, charged to their quota', async () => {
    const before = await usedBytes(alice);
    const r = await startPull(alice, { userName: 'olduser', password: passwordOf('olduser') });
    expect(r.status, JSON.stringify(r)).toBe(200);
    expect(r.data).toMatchObject({ state: 3, syncType: 'personal', remoteUser: 'olduser' });
    const end = await settled(alice);
    expect(end).toMatchObject({ state: 2, files: 3, skipped: 0, failed: 0, error: null });
    expect((await alice.api(`${C}/System/getOneSyncState`, { userName: 'alice' })).data).toBe(2);
    const got = await tree(alice);
    expect([...got.keys()].sort()).toEqual(Object.keys(files).sort());
    for (const [path, bytes] of Object.entries(files)) expect(sha(got.get(path)!), path).toBe(sha(bytes));
    const total = Object.values(files).reduce((s, b) => s + b.length, 0);
    expect(end.bytes).toBe(total);
    expect((await usedBytes(alice)) - before).toBe(total);
    // The sealed remote session goes when the job ends.
    expect(await local.sql.get('SELECT token_enc FROM pull_syncs WHERE id = ?', end.pullId)).toEqual({ token_enc: null });
  });

  it('pulling again skips what is already here (same path and SHA-256): no duplicates', async () => {
    const r = await startPull(alice, { userName: 'olduser', password: passwordOf('olduser') });
    expect(r.status, JSON.stringify(r)).toBe(200);
    expect(await settled(alice)).toMatchObject({ state: 2, files: 0, skipped: 3, failed: 0 });
    expect([...(await tree(alice)).keys()].sort()).toEqual(Object.keys(files).sort());
  });

  it('pulls group files into the group of the same name, and reports a group with no counterpart', async () => {
    // Bob has no group "Team" here: nothing of it comes over, and the pull says why.
    const none = await startPull(bob, { userName: 'olduser', password: passwordOf('olduser') }, 'groupSync');
    expect(none.status, JSON.stringify(none)).toBe(200);
    const noted = await settled(bob);
    expect(noted).toMatchObject({ state: 2, files: 0 });
    expect(noted.error).toMatch(/^NOT_FOUND: no group "Team"/);

    const team = await alice.api(`${C}/groupFile/newGroup`, undefined, { groupName: 'Team' });
    const r = await startPull(alice, { userName: 'olduser', password: passwordOf('olduser'), groupName: 'team' }, 'groupSync');
    expect(r.status, JSON.stringify(r)).toBe(200);
    expect(await settled(alice)).toMatchObject({ state: 2, syncType: 'group', files: 1, failed: 0 });
    const got = await tree(alice, team.data.rootId);
    expect([...got.keys()]).toEqual(['g.txt']);
    expect(sha(got.get('g.txt')!)).toBe(sha(groupFile));
  });

  it('shows a user\'s sync state to that user (and administrators) only', async () => {
    const r = await bob.api(`${C}/System/getOneSyncState`, { userName: 'alice' });
    expect([r.status, r.data?.code]).toEqual([403, 'FORBIDDEN']);
    const carol = await makeUser(local, 'carol', null);
    expect((await carol.api(`${C}/System/getOneSyncState`, { userName: 'carol' })).data).toBe(0);
  });

  it('a pull whose job ended for good (its worker died on the last attempt) is not synchronised, and another may start', async () => {
    const erin = await makeUser(local, 'erin', null);
    // Held at its first download, the job is then made to look as the queue leaves one whose last worker vanished.
    let seen = 0;
    downloads.arm(() => ++seen === 1);
    const r = await startPull(erin, { userName: 'olduser', password: passwordOf('olduser') });
    expect(r.status, JSON.stringify(r)).toBe(200);
    await downloads.held();
    await local.sql.run("UPDATE jobs SET state = 'failed', finished_at = ? WHERE dedupe_key = ?", Date.now(), `pull:${r.data.pullId}`);
    const s = await erin.api(`${C}/System/pullSync/status`);
    expect(s.data).toMatchObject({ pullId: r.data.pullId, state: 1 });
    expect(s.data.error).toMatch(/^INTERNAL: /);
    expect((await erin.api(`${C}/System/getOneSyncState`, { userName: 'erin' })).data).toBe(1);
    expect(await local.sql.get('SELECT token_enc FROM pull_syncs WHERE id = ?', r.data.pullId)).toEqual({ token_enc: null });
    // The held worker finds its pull ended and files nothing more.
    downloads.release();
    const again = await startPull(erin, { userName: 'olduser', password: passwordOf('olduser') });
    expect(again.status, JSON.stringify(again)).toBe(200);
    expect(await settled(erin)).toMatchObject({ pullId: again.data.pullId, state: 2, failed: 0 });
    expect([...(await tree(erin)).keys()].sort()).toEqual(Object.keys(files).sort());
  });

  it('resumes after the pulling server restarts mid-job, without duplicates', async () => {
    const mover = await makeUser(remote, 'mover', null);
    const many: Record<string, Buffer> = {};
    for (const n of ['1.txt', '2.txt', '3.txt', '4.txt']) {
      many[n] = randomBytes(1000);
      await uploadFile(call(mover), n, many[n]!);
    }
    const dave = await makeUser(local, 'dave', null);
    // Hold the third file's download: two are filed when the server stops.
    let seen = 0;
    downloads.arm(() => ++seen === 3);
    const r = await startPull(dave, { userName: 'mover', password: passwordOf('mover') });
    expect(r.status, JSON.stringify(r)).toBe(200);
    await downloads.held();
    const mid = await dave.api(`${C}/System/pullSync/status`);
    expect(mid.data).toMatchObject({ state: 3, files: 2 });
    await local.close({ keepData: true });
    downloads.release();

    restartedDir = local.dataDir;
    local = await startServer({ env: localEnv, dataDir: restartedDir });
    const again = { ...dave, api: apiAs(local, (await local.login('dave', passwordOf('dave'))).token) };
    expect(await settled(again)).toMatchObject({ state: 2, files: 4, failed: 0 });
    const got = await tree(again);
    expect([...got.keys()].sort()).toEqual(Object.keys(many).sort());
    for (const [n, b] of Object.entries(many)) expect(sha(got.get(n)!)).toBe(sha(b));
  });
});
