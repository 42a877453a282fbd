// Two server processes on one PostgreSQL database and one S3 (radosgw in CI) behave like one server (issue #12 item
// 4): every request may land on either node, as behind a load balancer. Needs PostgreSQL (HCS_TEST_DATABASE_URL)
// and an external S3 (HCS_TEST_S3_*): the embedded store keeps its objects in one node's data dir, so two nodes can
// only share an external one. Without them the suite is skipped and says why.
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createHash, randomBytes } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createHcsClient, encodeName, type HcsClient } from '@hcs/openapi/client';
import {
  createDownloadSinkFactory,
  createEngineDeps,
  createFileSource,
  createHcsControlPlane,
  createResumeStore,
  DownloadTask,
  UploadTask,
} from '@hcs/transfer-core/node';
import { DeleteBucketCommand, ListMultipartUploadsCommand } from '@aws-sdk/client-s3';
import { ObjectStore } from '../../mock-server/src/storage/object-store.ts';
import { openSqlDatabase, type SqlDatabase } from '../../mock-server/src/db/sql/open.ts';
import { acquireLease, releaseLease } from '../../mock-server/src/db/sql/leases.ts';
import { enqueue, listJobs } from '../../mock-server/src/db/sql/jobs.ts';
import { createUser } from '../../mock-server/src/db/users-repo.ts';
import { JANITOR_JOB, JANITOR_LEASE } from '../../mock-server/src/files/janitor.ts';
import { ADMIN_PASSWORD, ADMIN_USER, encryptForServer } from '../helpers/server.ts';
import { removeDataDir, startServerProcess, type ServerProcess } from '../helpers/server-process.ts';
import { ON_POSTGRES } from '../helpers/db.ts';
import { createTestPgDatabase, type TestPgDatabase } from '../helpers/pg.ts';
import { until } from '../helpers/eventually.ts';

const MiB = 1024 * 1024;
const sha = (b: Uint8Array) => createHash('sha256').update(b).digest('hex');

const skip = !ON_POSTGRES
  ? 'HCS_TEST_DATABASE_URL is not set: two nodes share a PostgreSQL database (bash tests/pg/postgres.sh start && eval "$(bash tests/pg/postgres.sh env)")'
  : !process.env.HCS_TEST_S3_ENDPOINT
    ? 'HCS_TEST_S3_ENDPOINT is not set: the embedded store is per node, two nodes need an external S3 (bash tests/s3/radosgw.sh start && eval "$(bash tests/s3/radosgw.sh env)")'
    : undefined;
if (skip) console.log(`[two-nodes] skipped: ${skip}`);

describe.skipIf(skip !== undefined)('two server nodes on one PostgreSQL and one S3', () => {
  const work = mkdtempSync(join(tmpdir(), 'hcs-2n-'));
  let pg: TestPgDatabase;
  let db: SqlDatabase;
  let a: ServerProcess;
  let b: ServerProcess;
  const s3 = {
    endpoint: process.env.HCS_TEST_S3_ENDPOINT ?? '',
    accessKeyId: process.env.HCS_TEST_S3_ACCESS_KEY ?? '',
    secretAccessKey: process.env.HCS_TEST_S3_SECRET_KEY ?? '',
    region: process.env.HCS_TEST_S3_REGION ?? 'us-east-1',
    // A bucket of its own, removed afterwards.
    bucket: `hcs-2n-${randomBytes(4).toString('hex')}`,
  };
  const s3Env = {
    HCS_S3_ENDPOINT: s3.endpoint,
    HCS_S3_ACCESS_KEY: s3.accessKeyId,
    HCS_S3_SECRET_KEY: s3.secretAccessKey,
    HCS_S3_REGION: s3.region,
    HCS_S3_BUCKET: s3.bucket,
  };

  /** A node's data dir pointed at the shared database (helpers/db.ts reads the URL recorded there). */
  function nodeDir(name: string, keysFrom?: string): string {
    const made = mkdtempSync(join(work, `${name}-`));
    writeFileSync(join(made, 'test-database-url'), pg.url, { mode: 0o600 });
    // What must be the same on every node besides the database and S3: the server secret and the password key pair.
    if (keysFrom) for (const f of ['server-secret', 'rsa-private.pem']) copyFileSync(join(keysFrom, f), join(made, f));
    return made;
  }

  /**
   * A client whose every request goes to the other node than the one before, like a round-robin load balancer, each
   * response checked against the contract.
   */
  function roundRobin(token: string): HcsClient {
    const nodes = [a, b];
    let turn = 0;
    const fetchOne = async (input: RequestInfo | URL, init?: RequestInit): Promise<Response> => {
      const req = new Request(input, init);
      const node = nodes[turn++ % nodes.length]!;
      const url = new URL(req.url);
      const target = new URL(url.pathname + url.search, node.baseUrl);
      const body = req.method === 'GET' || req.method === 'HEAD' ? undefined : await req.arrayBuffer();
      return node.fetch(target, { method: req.method, headers: req.headers, body, signal: req.signal });
    };
    return createHcsClient({ baseUrl: a.baseUrl, token: () => token, fetch: fetchOne as typeof fetch });
  }

  const clientOn = (node: ServerProcess, token: string) => createHcsClient({ baseUrl: node.baseUrl, token: () => token, fetch: node.fetch });

  async function call(node: ServerProcess, path: string, init: RequestInit & { token?: string } = {}): Promise<{ status: number; json: any }> {
    const headers = new Headers(init.headers);
    headers.set('X-Requested-With', 'XMLHttpRequest');
    if (init.token) headers.set('token', init.token);
    const res = await node.fetch(node.baseUrl + path, { ...init, headers });
    return { status: res.status, json: await res.json() };
  }

  /** Signs in on `signInAt` with the password encrypted under `keyFrom`'s public key (a client that asked another node). */
  async function signIn(signInAt: ServerProcess, keyFrom: ServerProcess, user: string, password: string): Promise<string> {
    const key = (await call(keyFrom, '/hcs/services/System/platformInfo')).json.data.publicKey as string;
    const wire = encodeURIComponent(await encryptForServer(key, password));
    const r = await call(signInAt, `/hcs/services/System/Token?username=${encodeURIComponent(user)}&password=${wire}`, { headers: { 'X-HCS-Client': 'cli' } });
    expect(r.status, JSON.stringify(r.json)).toBe(200);
    return r.json.data.token as string;
  }

  beforeAll(async () => {
    pg = await createTestPgDatabase();
    const dirA = nodeDir('a');
    a = await startServerProcess({ dataDir: dirA, env: s3Env });
    b = await startServerProcess({ dataDir: nodeDir('b', dirA), env: s3Env });
    // The test's own connection, for what only the database can show (leases, jobs, upload sessions).
    db = await openSqlDatabase({ dataDir: work, databaseUrl: pg.url, poolSize: 2 });
  }, 120_000);

  afterAll(async () => {
    await Promise.all([a?.stop(), b?.stop()]);
    await db?.close();
    const store = new ObjectStore(s3);
    try {
      const keys: string[] = [];
      for await (const page of store.list('')) keys.push(...page.objects.map((o) => o.key));
      if (keys.length) await store.deleteObjects(keys);
      const uploads = await store.client.send(new ListMultipartUploadsCommand({ Bucket: store.bucket }));
      for (const u of uploads.Uploads ?? []) await store.abortMultipart(u.Key!, u.UploadId!);
      await store.client.send(new DeleteBucketCommand({ Bucket: store.bucket }));
    } finally {
      store.destroy();
    }
    await removeDataDir(a?.dataDir ?? work);
    await pg?.drop();
    rmSync(work, { recursive: true, force: true });
  });

  it('an upload through node A downloads through node B, and one that alternates nodes on every request works too', async () => {
    const token = await signIn(a, a, ADMIN_USER, ADMIN_PASSWORD);
    const bytes = randomBytes(9 * MiB + 777); // two parts: a multipart upload
    const src = join(work, 'two-nodes.bin');
    writeFileSync(src, bytes);
    const upload = async (client: HcsClient, name: string) => {
      const source = await createFileSource(src, name);
      try {
        const task = new UploadTask({ source, target: {} }, createEngineDeps({ controlPlane: createHcsControlPlane(client), resumeStore: createResumeStore(join(work, `${name}.up.json`)), retryBaseMs: 20 }));
        await task.run();
        expect(task.status, String(task.error)).toBe('success');
        return task.result!.instanceId;
      } finally {
        await source.close();
      }
    };
    const download = async (client: HcsClient, instanceId: string, name: string) => {
      const out = mkdtempSync(join(work, 'dl-'));
      const task = new DownloadTask(
        { instanceId, sinks: createDownloadSinkFactory({ dir: out }) },
        createEngineDeps({ controlPlane: createHcsControlPlane(client), resumeStore: createResumeStore(join(out, '.state.json')), retryBaseMs: 20 }),
      );
      await task.run();
      expect(task.status, String(task.error)).toBe('success');
      return readFileSync(join(out, name));
    };

    const id = await upload(clientOn(a, token), 'from-a.bin');
    expect(sha(await download(clientOn(b, token), id, 'from-a.bin'))).toBe(sha(bytes));

    const rr = roundRobin(token);
    const id2 = await upload(rr, 'alternating.bin');
    expect(sha(await download(rr, id2, 'alternating.bin'))).toBe(sha(bytes));
  }, 120_000);

  it('a session created on A works on B, and signing out on B ends it on A; a listing cursor from A pages on B', async () => {
    // Signed in on B with a password encrypted under A's public key: both nodes hold the same key pair.
    const token = await signIn(b, a, ADMIN_USER, ADMIN_PASSWORD);
    const onA = await call(a, '/hcs/controller/System/Current/User', { token });
    const onB = await call(b, '/hcs/controller/System/Current/User', { token });
    expect([onA.status, onB.status]).toEqual([200, 200]);
    expect(onB.json.data.userName).toBe(ADMIN_USER);

    const create = (body: unknown) => call(a, '/hcs/controller/Instances', { token, method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    const [folder] = (await create([{ classifierId: 'Folder', instanceName: encodeName('paged') }])).json.data as { instanceId: string }[];
    await create(Array.from({ length: 7 }, (_, i) => ({ classifierId: 'Folder', parentId: folder!.instanceId, instanceName: encodeName(`d${i}`) })));
    const page1 = await call(a, `/hcs/controller/Page?parentId=${folder!.instanceId}&pageSize=4`, { token });
    const page2 = await call(b, `/hcs/controller/Page?parentId=${folder!.instanceId}&pageSize=4&cursor=${encodeURIComponent(page1.json.data.nextCursor)}`, { token });
    expect(page2.status, JSON.stringify(page2.json)).toBe(200);
    expect([...page1.json.data.list, ...page2.json.data.list].map((e: { instanceName: string }) => e.instanceName)).toEqual(['d0', 'd1', 'd2', 'd3', 'd4', 'd5', 'd6']);

    expect((await call(b, '/hcs/controller/System/sso/logout', { token })).status).toBe(200);
    expect((await call(a, '/hcs/controller/System/Current/User', { token })).json.data.code).toBe('UNAUTHENTICATED');
  });

  it('concurrent uploads through A and B into one quota never overshoot it', async () => {
    for (let round = 0; round < 3; round++) {
      const name = `q${round}`;
      const user = await createUser(db.db, { userName: name, password: 'Quota#pass-123', quotaBytes: 10_000 });
      const token = await signIn(a, b, name, 'Quota#pass-123');
      // Ten reservations of 3,000 bytes into 10,000, half through each node, all at once: three fit.
      const asks = Array.from({ length: 10 }, (_, i) => {
        const bytes = randomBytes(3000);
        const q = `fSize=3000&fName=${encodeName(`r${i}.bin`)}&fMd5=${sha(bytes)}`;
        return call(i % 2 ? a : b, `/hcs/controller/API/file-uploadable?${q}`, { token });
      });
      const flags = (await Promise.all(asks)).map((r) => r.json.data.uploadflag as number);
      expect(flags.filter((f) => f === 3).length, `round ${round}: ${flags.join(',')}`).toBe(3);
      expect(flags.filter((f) => f === 2).length).toBe(7);

      // Files filed through bulk-upload on both nodes at once are charged within the quota too: the 9,000 reserved
      // above leave 1,000, so of four 600-byte files one fits.
      const bulk = (node: ServerProcess, i: number) => {
        const bytes = randomBytes(600);
        const manifest = { files: [{ fName: encodeName(`b${i}.bin`), fSize: bytes.length, fMd5: sha(bytes) }] };
        return call(node, '/hcs/controller/API/bulk-upload', {
          token,
          method: 'POST',
          headers: { 'content-type': 'application/octet-stream' },
          body: Buffer.concat([Buffer.from(JSON.stringify(manifest) + '\n'), bytes]) as unknown as BodyInit,
        });
      };
      const outcomes = (await Promise.all([0, 1, 2, 3].map((i) => bulk(i % 2 ? a : b, i)))).map((r) => r.json.data.files[0].outcome as string);
      expect(outcomes.filter((o) => o === 'uploaded').length, `round ${round}: ${outcomes.join(',')}`).toBe(1);
      const space = await db.db.selectFrom('users').select(['used_bytes', 'quota_bytes']).where('id', '=', user.id).executeTakeFirstOrThrow();
      const reserved = await db.db
        .selectFrom('upload_sessions')
        .select((eb) => eb.fn.coalesce(eb.fn.sum<number>('reserved_bytes'), eb.val(0)).as('r'))
        .where('space_id', '=', user.id)
        .where('expires_at', '>', Date.now())
        .executeTakeFirstOrThrow();
      expect(space.used_bytes + Number(reserved.r)).toBeLessThanOrEqual(10_000);
    }
  }, 120_000);

  it('the upload janitor runs on one node at a time: while its lease is held elsewhere no node cleans, then exactly one does', async () => {
    const token = await signIn(a, a, ADMIN_USER, ADMIN_PASSWORD);
    const bytes = randomBytes(100);
    const up = await call(b, `/hcs/controller/API/file-uploadable?fSize=100&fName=${encodeName('expired.bin')}&fMd5=${sha(bytes)}`, { token });
    const fId = up.json.data.fId as string;
    await db.db.updateTable('upload_sessions').set({ expires_at: Date.now() - 1 }).where('id', '=', fId).execute();
    const sessionThere = async () => (await db.db.selectFrom('upload_sessions').select('id').where('id', '=', fId).executeTakeFirst()) !== undefined;

    // This test takes the lease, as a third node in the middle of a pass would (a node may hold it for a moment).
    await until('the test holds the janitor lease', () => acquireLease(db.db, JANITOR_LEASE, 'the-test', 10 * 60_000));
    const pass = async () => {
      await enqueue(db.db, { kind: JANITOR_JOB, dedupeKey: JANITOR_JOB });
      // Done when no janitor job is pending: whichever node's worker claimed it has run it.
      return until('the janitor job ran', async () => {
        const pending = [...(await listJobs(db.db, { kind: JANITOR_JOB, state: 'queued' })), ...(await listJobs(db.db, { kind: JANITOR_JOB, state: 'running' }))];
        if (pending.length > 0) return false;
        return (await listJobs(db.db, { kind: JANITOR_JOB, state: 'done', limit: 1 }))[0];
      });
    };
    const blocked = await pass();
    expect(await sessionThere(), 'no node cleaned while another held the lease').toBe(true);

    expect(await releaseLease(db.db, JANITOR_LEASE, 'the-test')).toBe(true);
    const ran = await pass();
    expect(ran.id).toBeGreaterThan(blocked.id);
    expect(await sessionThere()).toBe(false);
    // Each pass was claimed by exactly one node's worker (host:pid:random), and the queue never held two at once.
    const jobs = await listJobs(db.db, { kind: JANITOR_JOB, limit: 500 });
    for (const j of jobs.filter((x) => x.state === 'done')) expect(j.lockedBy).toMatch(/^.+:\d+:[0-9a-f]{8}$/);
    const pids = new Set(jobs.filter((x) => x.lockedBy).map((x) => x.lockedBy!.split(':')[1]));
    for (const pid of pids) expect([String(a.child.pid), String(b.child.pid)]).toContain(pid);
  }, 120_000);

  it('a node whose server secret and password key differ from the others\' refuses to start, without printing the database password', async () => {
    const dir = nodeDir('c');
    const url = new URL(pg.url);
    url.password = 'Node-c-db-secret-1';
    const started = startServerProcess({ dataDir: dir, env: { ...s3Env, HCS_DATABASE_URL: url.toString() }, timeoutMs: 60_000 });
    const err = await started.then(
      () => undefined,
      (e: Error) => e,
    );
    expect(err?.message).toMatch(/server-secret and rsa-private\.pem .* differ from those of the nodes already using this database/);
    expect(err?.message).not.toContain('Node-c-db-secret-1');
    rmSync(dir, { recursive: true, force: true });
  }, 120_000);
});
