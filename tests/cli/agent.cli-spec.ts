// `drive agent` over real sockets against the real server (SQLite + embedded S3 on a temp data dir): the local
// endpoints answer only the drive's origin, the WebSocket refuses other origins and forged or spent pairing tokens,
// typed paths outside the allowed roots are refused, and uploads and downloads handed over run as resumable CLI
// jobs whose bytes arrive identical, with pause, resume and delete, and across a kill -9 of the agent.
// Transfers are stopped at known points by holding the server's signing of chosen S3 requests (as in
// cli.cli-spec.ts), never by racing the clock.
import { spawn, type ChildProcess } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { get as httpGet } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { createHcsClient, encodeName, encryptPassword, unwrap, type HcsClient } from '@hcs/openapi/client';
import { jobId } from '../../cli/src/jobs/job-state.ts';
import { uploadJobKey } from '../../cli/src/jobs/upload.ts';
import { loadConfig } from '../../mock-server/src/config.ts';
import { buildApp, type BuiltApp } from '../../mock-server/src/app.ts';
import { createUser, setUserEnabled } from '../../mock-server/src/db/users-repo.ts';
import { databaseEnvFor, dropDatabaseOf } from '../helpers/db.ts';
import { TEST_SERVER_ENV } from '../helpers/server.ts';
import { HoldGate } from '../helpers/hold-gate.ts';
import { watchContract, type ContractWatch } from '../helpers/contract.ts';

const DRIVE = fileURLToPath(new URL('../../cli/bin/drive.js', import.meta.url));
const ADMIN_PASSWORD = 'Agent#Passw0rd-for-tests';
const MiB = 1024 * 1024;

interface SignQuery {
  action?: string;
  resourceUri?: string;
}

/** Holds the server's signing of matching S3 requests until released (see cli.cli-spec.ts). */

const gate = new HoldGate<SignQuery>();
/** The server answers pairAgent once this resolves (a test holds a pairing to order it after something else). */
let pairingHeld: Promise<void> = Promise.resolve();
const partNumberOf = (q: SignQuery) => Number(/[?&]partNumber=(\d+)/.exec(q.resourceUri ?? '')?.[1] ?? 0);

let built: BuiltApp;
let contract: ContractWatch | undefined;
let base: string;
let work: string;
let admin: { token: string; client: HcsClient };
let rootId: string;
/** save-instance registrations answered ret 0, by wire file name. */
const registered: string[] = [];
const registeredWaiters: Array<() => void> = [];
/** Resolves once `name` is registered at index `from` or later. */
function registeredFrom(from: number, name: string): Promise<void> {
  const wire = encodeName(name);
  return new Promise((resolve) => {
    const check = () => {
      if (!registered.slice(from).includes(wire)) return false;
      resolve();
      return true;
    };
    if (!check()) registeredWaiters.push(() => void check());
  });
}

/** Resolves once the agent's saved job list (agent/jobs.json, written atomically) shows the job in `state`. */
async function jobRecorded(id: string, state: string): Promise<void> {
  const file = join(work, 'state', 'agent', 'jobs.json');
  // Each look is one small file read; it gives up with the test's timeout.
  for (const until = Date.now() + 120_000; Date.now() < until; ) {
    const list = existsSync(file) ? (JSON.parse(readFileSync(file, 'utf8')) as Array<{ id: string; state: string }>) : [];
    if (list.some((j) => j.id === id && j.state === state)) return;
    await new Promise((r) => setTimeout(r, 20));
  }
  throw new Error(`job ${id} never recorded as ${state}`);
}

interface JobView {
  id: string;
  kind: string;
  name: string;
  state: string;
  files: number;
  done: number;
  failed: number;
  bytes: number;
  bytesDone: number;
  speed: number;
  needsToken?: boolean;
  failures: Array<{ path: string; code: string }>;
}

interface Msg {
  type: string;
  reqId?: string;
  resultCode: number;
  code?: string;
  msg?: string;
  data?: Record<string, unknown> & { job?: JobView; jobs?: JobView[] };
}

interface Agent {
  child: ChildProcess;
  ports: { plugin: number; ws: number; client: number };
  out(): string;
  exit: Promise<number | null>;
}

const sha = (buf: Buffer) => createHash('sha256').update(buf).digest('hex');

function agentEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  return {
    PATH: process.env.PATH,
    HOME: work,
    HCS_SERVER: base,
    HCS_CONFIG: join(work, 'config', 'auth.json'),
    HCS_STATE_DIR: join(work, 'state'),
    HCS_JSON: '1',
    HCS_AGENT_PLUGIN_PORT: '0',
    HCS_AGENT_WS_PORT: '0',
    HCS_AGENT_CLIENT_PORT: '0',
    HCS_AGENT_DOWNLOAD_DIR: join(work, 'downloads'),
    HCS_AGENT_ROOTS: join(work, 'allowed'),
    HCS_AGENT_PICKER: 'none',
    ...extra,
  };
}

/** Starts `drive agent` (or another build of drive) on random ports and waits for its ready line. */
async function startAgent(extra: Record<string, string> = {}, script = DRIVE): Promise<Agent> {
  const child = spawn(process.execPath, [script, 'agent'], { env: agentEnv(extra), stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout!.setEncoding('utf8');
  child.stderr!.setEncoding('utf8').on('data', (d: string) => (out += d));
  const exit = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
  const ports = await new Promise<Agent['ports']>((resolve, reject) => {
    child.stdout!.on('data', (d: string) => {
      out += d;
      for (const line of out.split('\n')) {
        if (!line.startsWith('{')) continue;
        const e = JSON.parse(line) as { event?: string; ports?: Agent['ports'] };
        if (e.event === 'agent-ready') resolve(e.ports!);
      }
    });
    void exit.then((code) => reject(new Error(`drive agent exited (${code}) before it was ready:\n${out}`)));
  });
  return { child, ports, out: () => out, exit };
}

class Client {
  readonly ws: WebSocket;
  readonly messages: Msg[] = [];
  #n = 0;
  #waiters: Array<{ pred: (m: Msg) => boolean; resolve: (m: Msg) => void; reject: (e: Error) => void }> = [];
  readonly opened: Promise<void>;
  readonly closed: Promise<number>;

  constructor(port: number, origin: string | undefined) {
    this.ws = new WebSocket(`ws://127.0.0.1:${port}`, origin === undefined ? {} : { origin });
    this.opened = new Promise((resolve, reject) => {
      this.ws.once('open', () => resolve());
      this.ws.once('unexpected-response', (_req, res) => reject(new Error(`handshake refused: HTTP ${res.statusCode}`)));
      this.ws.once('error', reject);
    });
    this.closed = new Promise((resolve) => this.ws.once('close', (code) => resolve(code)));
    void this.closed.then(() => {
      for (const w of this.#waiters.splice(0)) w.reject(new Error('the agent closed the connection'));
    });
    this.ws.on('message', (raw) => {
      const m = JSON.parse(raw.toString()) as Msg;
      this.messages.push(m);
      for (const w of [...this.#waiters]) {
        if (w.pred(m)) {
          this.#waiters.splice(this.#waiters.indexOf(w), 1);
          w.resolve(m);
        }
      }
    });
  }

  /** Resolves with the first message (already received or coming) that satisfies pred. */
  until(pred: (m: Msg) => boolean, opts: { fresh?: boolean } = {}): Promise<Msg> {
    const seen = opts.fresh ? undefined : this.messages.find(pred);
    if (seen) return Promise.resolve(seen);
    return new Promise((resolve, reject) => this.#waiters.push({ pred, resolve, reject }));
  }

  request(msg: Record<string, unknown>): Promise<Msg> {
    const reqId = `r${++this.#n}`;
    const reply = this.until((m) => m.reqId === reqId);
    this.ws.send(JSON.stringify({ ...msg, reqId }));
    return reply;
  }

  /**
   * The job's first update in one of these states from now on, or its latest known view if already there. The
   * latest view may come from a job list (the login reply carries one): a job that finished while this connection
   * was pairing is reported there, not by a job update, since updates go only to paired connections.
   */
  jobIn(id: string, states: string[]): Promise<JobView> {
    const viewIn = (m: Msg): JobView | undefined =>
      m.type === 'job' && m.data?.id === id ? (m.data as unknown as JobView) : m.data?.jobs?.find((j) => j.id === id);
    const latest = [...this.messages].reverse().map(viewIn).find((v) => v !== undefined);
    if (latest && states.includes(String(latest.state))) return Promise.resolve(latest);
    return this.until((m) => m.type === 'job' && m.data?.id === id && states.includes(String(m.data.state)), { fresh: true }).then((m) => m.data as unknown as JobView);
  }

  close(): void {
    this.ws.close();
  }
}

async function pairingToken(client: HcsClient = admin.client): Promise<string> {
  const res = unwrap(await client.POST('/hcs/controller/API/agent/pairing-token', {}));
  return res.data!.pairingToken;
}

async function paired(agent: Agent): Promise<Client> {
  const c = new Client(agent.ports.ws, base);
  await c.opened;
  const reply = await c.request({ type: 'login', token: await pairingToken() });
  expect(reply, JSON.stringify(reply)).toMatchObject({ type: 'login', resultCode: 0, data: { userName: 'admin' } });
  return c;
}

async function signIn(user: string, password: string): Promise<{ token: string; client: HcsClient }> {
  const anon = createHcsClient({ baseUrl: base });
  const info = unwrap(await anon.GET('/hcs/services/System/platformInfo', {}));
  const res = unwrap(
    await anon.GET('/hcs/services/System/Token', {
      params: { query: { username: user, password: await encryptPassword(info.data!.publicKey, password) } },
      headers: { 'X-HCS-Client': 'cli' },
    }),
  );
  const token = res.data!.token;
  return { token, client: createHcsClient({ baseUrl: base, token: () => token }) };
}

async function mkdirRemote(name: string, parentId = rootId): Promise<string> {
  const res = unwrap(await admin.client.POST('/hcs/controller/Instances', { body: [{ libCode: 'NetDisk', classifierId: 'Folder', instanceName: encodeName(name), parentId }] }));
  return res.data![0]!.instanceId;
}

async function listRemote(parentId: string): Promise<Array<{ instanceId: string; instanceName: string; classifierId: string; fSize: number; fMd5?: string }>> {
  const res = unwrap(await admin.client.GET('/hcs/controller/Page', { params: { query: { parentId, pageSize: 1000 } } }));
  return res.data!.list as never;
}

function listTree(root: string): string[] {
  const out: string[] = [];
  const walk = (d: string, rel: string) => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      const r = rel ? `${rel}/${e.name}` : e.name;
      if (e.isDirectory()) {
        out.push(`${r}/`);
        walk(join(d, e.name), r);
      } else out.push(r);
    }
  };
  walk(root, '');
  return out.sort();
}

let agent: Agent;
const clients: Client[] = [];
const track = (c: Client) => (clients.push(c), c);

describe('drive agent against the real server', () => {
  beforeAll(async () => {
    work = mkdtempSync(join(tmpdir(), 'hcs-agent-'));
    const config = loadConfig({
      HCS_PORT: '0',
      HCS_HOST: '127.0.0.1',
      HCS_DATA_DIR: join(work, 'data'),
      HCS_ADMIN_PASSWORD: ADMIN_PASSWORD,
      HCS_LOG_LEVEL: 'warn',
      ...TEST_SERVER_ENV,
      ...(await databaseEnvFor(join(work, 'data'))),
    });
    built = await buildApp(config, {
      logger: false,
      instrument(app) {
        contract = watchContract(app, 'agent suite server');
        app.addHook('preHandler', async (req) => {
          if (req.operationId === 'signStorageRequest') await gate.pass(req.query as SignQuery);
          if (req.operationId === 'pairAgent') await pairingHeld;
        });
        app.addHook('onSend', async (req, reply, payload) => {
          if (req.operationId === 'saveInstance' && reply.statusCode === 200 && typeof payload === 'string' && (JSON.parse(payload) as { ret: number }).ret === 0) {
            registered.push((req.body as { fName: string }).fName);
            for (const w of registeredWaiters) w();
          }
          return payload;
        });
      },
    });
    await built.listen();
    base = `http://127.0.0.1:${(built.app.server.address() as { port: number }).port}`;
    admin = await signIn('admin', ADMIN_PASSWORD);
    rootId = unwrap(await admin.client.GET('/hcs/controller/Page', { params: { query: { pageSize: 1 } } })).data!.parentId;

    const allowed = join(work, 'allowed');
    mkdirSync(join(allowed, 'tree', 'sub'), { recursive: true });
    mkdirSync(join(allowed, 'tree', 'empty'), { recursive: true });
    writeFileSync(join(allowed, 'tree', 'big.bin'), randomBytes(20 * MiB + 5));
    writeFileSync(join(allowed, 'tree', 'sub', 'small.txt'), randomBytes(3000));
    writeFileSync(join(work, 'outside-secret.txt'), 'not for the drive');
    // A link inside the allowed folder that points outside it: neither typed nor found in a folder may it be read.
    symlinkSync(join(work, 'outside-secret.txt'), join(allowed, 'link-out.txt'));
    symlinkSync(join(work, 'outside-secret.txt'), join(allowed, 'tree', 'sub', 'link-out.txt'));
    agent = await startAgent();
  }, 120_000);

  afterEach(() => {
    gate.release();
    pairingHeld = Promise.resolve();
    for (const c of clients.splice(0)) c.close();
  });

  afterAll(async () => {
    gate.release();
    agent?.child.kill('SIGTERM');
    await agent?.exit;
    await built?.close();
    if (work) {
      await dropDatabaseOf(join(work, 'data'));
      rmSync(work, { recursive: true, force: true });
    }
    contract?.close();
  });

  it('answers the online checks only to the drive origin, on a loopback Host', async () => {
    const get = (port: number, path: string, headers: Record<string, string>) => fetch(`http://127.0.0.1:${port}${path}`, { headers });
    const online = await get(agent.ports.plugin, '/api/isAppOnline', { Origin: base });
    expect(online.status).toBe(200);
    expect(online.headers.get('access-control-allow-origin')).toBe(base);
    expect(await online.json()).toMatchObject({ resultCode: 0, data: { wsPort: agent.ports.ws } });
    const installed = await get(agent.ports.client, '/isAppInstalled', { Origin: base });
    expect(await installed.json()).toMatchObject({ resultCode: 0, data: { installed: true } });
    expect((await (await get(agent.ports.client, '/isAppOnline', { Origin: base })).json()) as object).toMatchObject({ resultCode: 0 });

    const evil = await get(agent.ports.plugin, '/api/isAppOnline', { Origin: 'http://evil.example' });
    expect(evil.status).toBe(403);
    expect(evil.headers.get('access-control-allow-origin')).toBeNull();
    expect((await get(agent.ports.plugin, '/api/isAppOnline', {})).status).toBe(403);
    expect((await get(agent.ports.client, '/isAppInstalled', { Origin: 'null' })).status).toBe(403);
    // DNS rebinding: the page's own origin, but a Host that is not loopback (fetch cannot set Host; node:http can).
    const rebound = await new Promise<number>((resolve, reject) =>
      httpGet({ host: '127.0.0.1', port: agent.ports.plugin, path: '/api/isAppOnline', headers: { Origin: base, Host: `evil.example:${agent.ports.plugin}` } }, (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      }).on('error', reject),
    );
    expect(rebound).toBe(403);

    const preflight = await fetch(`http://127.0.0.1:${agent.ports.plugin}/api/isAppOnline`, {
      method: 'OPTIONS',
      headers: { Origin: base, 'Access-Control-Request-Method': 'GET', 'Access-Control-Request-Private-Network': 'true' },
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get('access-control-allow-private-network')).toBe('true');
  });

  it('refuses WebSocket handshakes from any other origin', async () => {
    for (const origin of ['http://evil.example', base.replace('127.0.0.1', 'localhost'), undefined]) {
      const c = track(new Client(agent.ports.ws, origin));
      await expect(c.opened, String(origin)).rejects.toThrow(/HTTP 403/);
    }
  });

  it('answers heartBeat, and refuses operations before login and forged or spent pairing tokens', async () => {
    const c = track(new Client(agent.ports.ws, base));
    await c.opened;
    expect(await c.request({ type: 'heartBeat' })).toMatchObject({ type: 'heartBeat', resultCode: 0 });
    expect(await c.request({ type: 'jobs' })).toMatchObject({ resultCode: 2, code: 'NOT_PAIRED' });
    expect(await c.request({ type: 'upload', parentId: rootId, paths: [join(work, 'allowed', 'tree')] })).toMatchObject({ resultCode: 2 });
    expect(await c.request({ type: 'nonsense' })).toMatchObject({ resultCode: 1, code: 'BAD_MESSAGE' });

    const real = await pairingToken();
    const [payload, tag] = real.split('.');
    // Another user id under the same tag, a made-up tag, and garbage.
    const forged = Buffer.from(JSON.stringify({ ...JSON.parse(Buffer.from(payload!, 'base64url').toString()), u: 'someone-else' })).toString('base64url');
    expect(await c.request({ type: 'login', token: `${forged}.${tag}` })).toMatchObject({ resultCode: 3, code: 'UNAUTHENTICATED' });
    expect(await c.request({ type: 'login', token: `${payload}.${'A'.repeat(43)}` })).toMatchObject({ resultCode: 3 });
    expect(await c.request({ type: 'jobs' })).toMatchObject({ resultCode: 2 });

    expect(await c.request({ type: 'login', token: real })).toMatchObject({ resultCode: 0, data: { userName: 'admin' } });
    // Spent: a second connection presenting the same token gets nothing.
    const thief = track(new Client(agent.ports.ws, base));
    await thief.opened;
    expect(await thief.request({ type: 'login', token: real })).toMatchObject({ resultCode: 3 });
    expect(await thief.request({ type: 'jobs' })).toMatchObject({ resultCode: 2 });
    // A connection that keeps guessing is closed.
    for (let i = 0; i < 4; i++) await thief.request({ type: 'login', token: `${payload}.${'B'.repeat(43)}` }).catch(() => undefined);
    expect(await thief.closed).toBe(1008);
    expect(await c.request({ type: 'jobs' })).toMatchObject({ resultCode: 0 });
  });

  it('pairs through the server: signed-in users only, each pairing token once, an agent session kept when it lives', async () => {
    const anon = createHcsClient({ baseUrl: base });
    await expect(anon.POST('/hcs/controller/API/agent/pairing-token', {}).then(unwrap)).rejects.toMatchObject({ status: 401, code: 'UNAUTHENTICATED' });
    const pair = (pairingToken: string, token?: string) => createHcsClient({ baseUrl: base, token: () => token }).POST('/hcs/services/API/agent/pair', { body: { pairingToken } }).then(unwrap);
    const t1 = await pairingToken();
    const first = await pair(t1);
    expect(first.data!.token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(first.data!.user.userName).toBe('admin');
    // The same token again, from anywhere: refused (the session it opened has the same id).
    await expect(pair(t1)).rejects.toMatchObject({ status: 401, code: 'UNAUTHENTICATED' });
    await expect(pair(t1, first.data!.token)).rejects.toMatchObject({ status: 401 });
    // A fresh token redeemed with that live session keeps it: nothing new is opened.
    const kept = await pair(await pairingToken(), first.data!.token);
    expect(kept.data!.token).toBe('');
    // The agent's session works for the drive's calls like the CLI's.
    const asAgent = createHcsClient({ baseUrl: base, token: () => first.data!.token });
    expect(unwrap(await asAgent.GET('/hcs/controller/System/Current/User', {})).data!.userName).toBe('admin');
    // Without the CSRF header the pairing call is refused before anything is looked at.
    const raw = await fetch(`${base}/hcs/services/API/agent/pair`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ pairingToken: await pairingToken() }) });
    expect(raw.status).toBe(403);
  });

  it('refuses typed paths outside the allowed roots, through .. or a symbolic link', async () => {
    const c = track(await paired(agent));
    for (const p of [join(work, 'outside-secret.txt'), join(work, 'allowed', '..', 'outside-secret.txt'), join(work, 'allowed', 'link-out.txt'), '/etc/passwd', 'relative/path', join(work, 'allowed', 'missing')]) {
      expect(await c.request({ type: 'upload', parentId: rootId, paths: [p] }), p).toMatchObject({ resultCode: 4, code: 'PATH_REFUSED' });
    }
    // No native picker configured.
    expect(await c.request({ type: 'upload', parentId: rootId, pick: 'files' })).toMatchObject({ resultCode: 5, code: 'PICKER_UNAVAILABLE' });
    expect(registered).toEqual([]);
  });

  it('uploads a typed folder and downloads it back byte-identical, reporting progress and results', async () => {
    const c = track(await paired(agent));
    const target = await mkdirRemote('agent-up');
    const up = await c.request({ type: 'upload', parentId: target, to: '/agent-up', paths: [join(work, 'allowed', 'tree')], libCode: 'NetDisk', instanceType: '3' });
    // The view names what a page that loses the agent needs to carry the upload on itself, never the local path.
    expect(up, JSON.stringify(up)).toMatchObject({
      resultCode: 0,
      data: { job: { kind: 'upload', name: 'tree', state: 'running', parentId: target, conflict: 'newVersion', libCode: 'NetDisk', instanceType: '3' } },
    });
    expect(JSON.stringify(up)).not.toContain(join(work, 'allowed'));
    const job = await c.jobIn(up.data!.job!.id, ['done', 'failed']);
    // The link to a file outside the chosen folder is reported, never read.
    expect(job.failures.map((f) => f.code)).toEqual(['SYMLINK_SKIPPED']);
    expect(job).toMatchObject({ state: 'failed', done: 2, failed: 1, bytes: 20 * MiB + 5 + 3000 });
    expect(c.messages.some((m) => m.type === 'job' && m.data?.id === job.id && m.data.state === 'running' && Number(m.data.bytesDone) > 0)).toBe(true);

    const [tree] = await listRemote(target);
    expect(tree).toMatchObject({ instanceName: 'tree', classifierId: 'Folder' });
    const names = (await listRemote(tree!.instanceId)).map((i) => i.instanceName).sort();
    expect(names).toEqual(['big.bin', 'empty', 'sub']);
    const sub = (await listRemote(tree!.instanceId)).find((i) => i.instanceName === 'sub')!;
    expect((await listRemote(sub.instanceId)).map((i) => i.instanceName)).toEqual(['small.txt']);

    const down = await c.request({ type: 'download', instanceIds: [tree!.instanceId] });
    expect(down).toMatchObject({ resultCode: 0, data: { job: { kind: 'download', name: 'tree', instanceIds: [tree!.instanceId] } } });
    expect(await c.jobIn(down.data!.job!.id, ['done', 'failed'])).toMatchObject({ state: 'done', failed: 0, done: 2 });
    const dl = join(work, 'downloads', 'tree');
    expect(listTree(dl)).toEqual(['big.bin', 'empty/', 'sub/', 'sub/small.txt']);
    for (const f of ['big.bin', 'sub/small.txt']) expect(sha(readFileSync(join(dl, f))), f).toBe(sha(readFileSync(join(work, 'allowed', 'tree', f))));
    // A download id that does not exist is refused up front.
    expect(await c.request({ type: 'download', instanceIds: ['no-such-id'] })).toMatchObject({ resultCode: 8, code: 'NOT_FOUND' });
  });

  it('pauses, resumes and deletes transfers; nothing finished is sent twice', async () => {
    const c = track(await paired(agent));
    const target = await mkdirRemote('agent-pause');
    const file = join(work, 'allowed', 'pause.bin');
    writeFileSync(file, randomBytes(30 * MiB + 1));
    gate.arm((q) => q.action === 'uploadPart' && partNumberOf(q) >= 3);
    const up = await c.request({ type: 'upload', parentId: target, paths: [file] });
    const id = up.data!.job!.id;
    await gate.held();
    const pausing = c.request({ type: 'pause', jobId: id });
    // Requests already in flight finish (as after Ctrl-C): let the held signatures go.
    gate.release();
    expect(await pausing).toMatchObject({ resultCode: 0, data: { job: { state: 'paused' } } });
    expect((await listRemote(target)).length).toBe(0);
    expect(await c.request({ type: 'resume', jobId: id })).toMatchObject({ resultCode: 0, data: { job: { state: 'running' } } });
    expect(await c.jobIn(id, ['done', 'failed'])).toMatchObject({ state: 'done', done: 1, failed: 0 });
    const [stored] = await listRemote(target);
    expect(stored).toMatchObject({ instanceName: 'pause.bin', fSize: 30 * MiB + 1, fMd5: sha(readFileSync(file)) });
    expect(registered.filter((n) => n === encodeName('pause.bin'))).toHaveLength(1);

    // Delete: held mid-way, then gone from the list with its journal.
    const other = join(work, 'allowed', 'delete.bin');
    writeFileSync(other, randomBytes(20 * MiB));
    gate.arm((q) => q.action === 'uploadPart' && partNumberOf(q) >= 2);
    const del = await c.request({ type: 'upload', parentId: target, paths: [other] });
    await gate.held();
    const key = uploadJobKey({ server: base, user: 'admin' }, { sources: [other], to: '/', conflict: 'newVersion', targetId: target, concurrency: 4, restart: false });
    const journal = join(work, 'state', 'jobs', `${jobId('upload', key)}.jsonl`);
    expect(existsSync(journal), 'the job journal while it runs').toBe(true);
    const deleting = c.request({ type: 'delete', jobId: del.data!.job!.id });
    gate.release();
    expect(await deleting).toMatchObject({ resultCode: 0, data: { jobId: del.data!.job!.id } });
    expect(await c.jobIn(del.data!.job!.id, ['deleted'])).toMatchObject({ state: 'deleted' });
    const list = await c.request({ type: 'jobs' });
    expect(list.data!.jobs!.map((j) => j.id)).not.toContain(del.data!.job!.id);
    expect(await c.request({ type: 'resume', jobId: del.data!.job!.id })).toMatchObject({ resultCode: 6 });
    const agentJobs = JSON.parse(readFileSync(join(work, 'state', 'agent', 'jobs.json'), 'utf8')) as Array<{ id: string }>;
    expect(agentJobs.map((j) => j.id)).not.toContain(del.data!.job!.id);
    expect(existsSync(journal), 'the job journal after delete').toBe(false);
  });

  it('goes on with a running transfer after the agent is killed and started again, without the web', async () => {
    const c = track(await paired(agent));
    const target = await mkdirRemote('agent-restart');
    const file = join(work, 'allowed', 'restart.bin');
    writeFileSync(file, randomBytes(30 * MiB + 7));
    gate.arm((q) => q.action === 'uploadPart' && partNumberOf(q) >= 3);
    const up = await c.request({ type: 'upload', parentId: target, paths: [file] });
    const id = up.data!.job!.id;
    await gate.held();
    agent.child.kill('SIGKILL');
    await agent.exit;
    gate.release();
    const before = registered.length;
    const arrived = registeredFrom(before, 'restart.bin');
    agent = await startAgent();
    // Nobody logs in: the agent resumes with the session it kept; the web sees the result when it comes back.
    await arrived;
    // The web comes back while the job finishes: its pairing is answered only once the agent has recorded the job
    // as done, so the job's end falls inside the pairing and is reported by the login reply's list.
    pairingHeld = jobRecorded(id, 'done');
    const again = track(await paired(agent));
    pairingHeld = Promise.resolve();
    const done = await again.jobIn(id, ['done', 'failed']);
    expect(done).toMatchObject({ state: 'done', failed: 0 });
    const [stored] = await listRemote(target);
    expect(stored).toMatchObject({ instanceName: 'restart.bin', fSize: 30 * MiB + 7, fMd5: sha(readFileSync(file)) });
  });

  it('asks the web for a new pairing token (getToken) when its session ends, and the transfer goes on after it', async () => {
    const c = track(await paired(agent));
    const target = await mkdirRemote('agent-token');
    // The agent's session ends on the server (signed out elsewhere, expired, revoked).
    const agentToken = (JSON.parse(readFileSync(join(work, 'config', 'agent-auth.json'), 'utf8')) as { token: string }).token;
    unwrap(await createHcsClient({ baseUrl: base, token: () => agentToken }).GET('/hcs/controller/System/sso/logout', {}));

    const file = join(work, 'allowed', 'token.txt');
    writeFileSync(file, randomBytes(4000));
    const up = await c.request({ type: 'upload', parentId: target, paths: [file] });
    expect(up).toMatchObject({ resultCode: 0 });
    const asked = await c.until((m) => m.type === 'getToken' && m.reqId === undefined);
    expect(asked).toMatchObject({ resultCode: 0, code: 'SESSION_ENDED' });
    // The job waits, still running, marked as needing a token.
    const waiting = await c.until((m) => m.type === 'job' && m.data?.id === up.data!.job!.id && m.data.needsToken === true);
    expect(waiting.data).toMatchObject({ state: 'running', done: 0 });
    expect(await c.request({ type: 'download', instanceIds: [target] })).toMatchObject({ resultCode: 2, code: 'SESSION_ENDED' });

    expect(await c.request({ type: 'getToken', token: await pairingToken() })).toMatchObject({ resultCode: 0, data: { userName: 'admin' } });
    expect(await c.jobIn(up.data!.job!.id, ['done', 'failed'])).toMatchObject({ state: 'done', failed: 0 });
    expect((await listRemote(target)).map((i) => i.instanceName)).toEqual(['token.txt']);
  });

  it('hands out the client tool: getToolName, an install page per platform, and a single file that runs as the agent', async () => {
    const tool = unwrap(await createHcsClient({ baseUrl: base }).GET('/hcs/services/API/getToolName', { params: { query: { lang: 'en_US', type: 'linux' } } }));
    expect(tool.msg).toBe('/hcs/services/API/agent/install?type=linux&lang=en_US');
    const page = await fetch(base + tool.msg);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toMatch(/^text\/html/);
    expect(page.headers.get('content-security-policy')).toContain("script-src 'self'");
    const html = await page.text();
    const built = readFileSync(fileURLToPath(new URL('../../cli/dist/hcs-drive.mjs', import.meta.url)));
    expect(html).toContain(`<code>${sha(built)}</code>`);
    expect(html).toContain('href="/hcs/services/API/agent/hcs-drive.mjs"');
    expect(html).toContain(`node ~/.local/bin/hcs-drive.mjs --server ${base} agent install`);
    expect(html.indexOf('Linux')).toBeLessThan(html.indexOf('macOS'));
    expect(html).not.toMatch(/<script/i);
    const zh = (await (await fetch(`${base}/hcs/services/API/agent/install?type=windows&lang=zh_CN`)).text()).replace(/&quot;/g, '"');
    expect(zh).toContain('客户端工具');
    expect(zh).toContain(`node "$env:LOCALAPPDATA\\hcs-drive\\hcs-drive.mjs" --server ${base} agent`);

    const res = await fetch(`${base}/hcs/services/API/agent/hcs-drive.mjs`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-disposition')).toBe('attachment; filename="hcs-drive.mjs"');
    expect(res.headers.get('content-type')).toBe('application/octet-stream');
    const bytes = Buffer.from(await res.arrayBuffer());
    expect(sha(bytes)).toBe(sha(built));
    expect(res.headers.get('x-checksum-sha256')).toBe(sha(bytes));

    // The downloaded file alone (outside the repository, no node_modules) is a working agent.
    const alone = mkdtempSync(join(tmpdir(), 'hcs-tool-'));
    try {
      writeFileSync(join(alone, 'hcs-drive.mjs'), bytes);
      const tooled = await startAgent({ HCS_STATE_DIR: join(alone, 'state'), HCS_CONFIG: join(alone, 'auth.json') }, join(alone, 'hcs-drive.mjs'));
      try {
        const c = track(await paired(tooled));
        const target = await mkdirRemote('from-the-tool');
        const file = join(work, 'allowed', 'tool.txt');
        writeFileSync(file, randomBytes(5000));
        const up = await c.request({ type: 'upload', parentId: target, paths: [file] });
        expect(await c.jobIn(up.data!.job!.id, ['done', 'failed'])).toMatchObject({ state: 'done' });
        expect((await listRemote(target)).map((i) => [i.instanceName, i.fMd5])).toEqual([['tool.txt', sha(readFileSync(file))]]);
      } finally {
        tooled.child.kill('SIGTERM');
        await tooled.exit;
      }
    } finally {
      rmSync(alone, { recursive: true, force: true });
    }
  });

  it('uploads what the native picker returns, and another user sees none of the jobs', async () => {
    const bin = join(work, 'bin');
    mkdirSync(bin, { recursive: true });
    const picked = join(work, 'picked-anywhere.txt');
    writeFileSync(picked, 'chosen by the user in the picker');
    // A stand-in for zenity: prints the chosen path as zenity does, and records how it was asked.
    writeFileSync(join(bin, 'zenity'), `#!/bin/sh\nprintf '%s\\n' "$@" > "${join(work, 'zenity-args')}"\nprintf '%s\\n' "${picked}"\n`);
    chmodSync(join(bin, 'zenity'), 0o755);
    agent.child.kill('SIGTERM');
    expect(await agent.exit).toBe(0);
    agent = await startAgent({ HCS_AGENT_PICKER: 'auto', DISPLAY: ':99', PATH: `${bin}:${process.env.PATH}` });
    const c = track(await paired(agent));
    const target = await mkdirRemote('agent-picked');
    const up = await c.request({ type: 'upload', parentId: target, pick: 'files' });
    expect(up).toMatchObject({ resultCode: 0, data: { job: { name: 'picked-anywhere.txt' } } });
    expect(await c.jobIn(up.data!.job!.id, ['done', 'failed'])).toMatchObject({ state: 'done' });
    expect(readFileSync(join(work, 'zenity-args'), 'utf8')).toContain('--file-selection');
    expect((await listRemote(target)).map((i) => i.instanceName)).toEqual(['picked-anywhere.txt']);

    // Another user pairing the same agent: none of admin's jobs are listed or controllable, and admin's connection
    // must pair again before it may do anything.
    const nora = await createUser(built.ctx.db, { userName: 'nora', password: 'Nora#pass-1234' });
    const noraClient = await signIn('nora', 'Nora#pass-1234');
    const n = track(new Client(agent.ports.ws, base));
    await n.opened;
    expect(await n.request({ type: 'login', token: await pairingToken(noraClient.client) })).toMatchObject({ resultCode: 0, data: { userName: 'nora', jobs: [] } });
    expect(await n.request({ type: 'pause', jobId: up.data!.job!.id })).toMatchObject({ resultCode: 6 });
    expect(await c.request({ type: 'jobs' })).toMatchObject({ resultCode: 2 });
    // A frozen account cannot pair, even with a token issued before it was frozen.
    const late = await pairingToken(noraClient.client);
    await setUserEnabled(built.ctx.db, nora.id, false);
    expect(await n.request({ type: 'login', token: late })).toMatchObject({ resultCode: 3, code: 'ACCOUNT_FROZEN' });
    const agentAuth = join(work, 'config', 'agent-auth.json');
    expect(statSync(agentAuth).mode & 0o777).toBe(0o600);
    expect(readFileSync(agentAuth, 'utf8')).not.toContain(ADMIN_PASSWORD);
  });
});
