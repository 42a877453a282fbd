// The `drive` CLI end to end against the real server (SQLite + embedded S3 on a temp data dir): sign in,
// upload a tree of a few hundred small files plus multi-part files, interrupt it with SIGINT and with
// SIGKILL, re-run the same command until it completes, prove no finished file was sent or registered
// again, then download everything back (interrupted once too) and compare every byte.
import { spawn, type ChildProcess } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decodeName } from '@hcs/openapi/client';
import { loadConfig } from '../../mock-server/src/config.ts';
import { buildApp, type BuiltApp } from '../../mock-server/src/app.ts';
import { getInstanceRow } from '../../mock-server/src/db/instances-repo.ts';
import { databaseEnvFor, dropDatabaseOf } from '../helpers/db.ts';
import { TEST_SERVER_ENV } from '../helpers/server.ts';
import { HoldGate } from '../helpers/hold-gate.ts';
import { watchContract, type ContractWatch } from '../helpers/contract.ts';

const DRIVE = fileURLToPath(new URL('../../cli/bin/drive.js', import.meta.url));
const ADMIN_PASSWORD = 'Cli#Passw0rd-for-tests';
const MiB = 1024 * 1024;

interface Event {
  event: string;
  path?: string;
  bytes?: number;
  loaded?: number;
  phase?: string;
  outcome?: string;
  sent?: number;
  code?: string;
  failed?: number;
  interrupted?: boolean;
}

interface Run {
  child: ChildProcess;
  events: Event[];
  stderr: string;
  exit: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** Resolves when an event satisfies the predicate (or rejects when the process ends first). */
  until(pred: (e: Event, all: Event[]) => boolean): Promise<void>;
}

let built: BuiltApp;
/** Every /hcs response the CLI gets is checked against the contract; a violation fails the test it happened in. */
let contract: ContractWatch | undefined;
let base: string;
let work: string;
let env: NodeJS.ProcessEnv;
/** Registrations (save-instance / second-transfer answered ret 0) by decoded file name, in order. */
const registered: string[] = [];

function drive(args: string[], extraEnv: Record<string, string> = {}, stdin?: string): Run {
  const child = spawn(process.execPath, [DRIVE, ...args], { env: { ...env, ...extraEnv }, stdio: [stdin === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'] });
  if (stdin !== undefined) child.stdin!.end(stdin);
  const events: Event[] = [];
  let stderr = '';
  let buf = '';
  const waiters: Array<{ pred: (e: Event, all: Event[]) => boolean; resolve: () => void; reject: (e: Error) => void }> = [];
  child.stdout!.setEncoding('utf8').on('data', (chunk: string) => {
    buf += chunk;
    let nl;
    while ((nl = buf.indexOf('\n')) >= 0) {
      const line = buf.slice(0, nl);
      buf = buf.slice(nl + 1);
      if (!line) continue;
      const e = JSON.parse(line) as Event;
      events.push(e);
      for (const w of [...waiters]) if (w.pred(e, events)) {
        waiters.splice(waiters.indexOf(w), 1);
        w.resolve();
      }
    }
  });
  child.stderr!.setEncoding('utf8').on('data', (c: string) => (stderr += c));
  const exit = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.on('close', (code, signal) => {
      for (const w of waiters) w.reject(new Error(`drive exited (${code ?? signal}) before the awaited event; stderr: ${stderr}`));
      resolve({ code, signal });
    }),
  );
  return {
    child,
    events,
    get stderr() {
      return stderr;
    },
    exit,
    until: (pred) => new Promise<void>((resolve, reject) => waiters.push({ pred, resolve, reject })),
  };
}

function sha(path: string): string {
  return createHash('sha256').update(readFileSync(path)).digest('hex');
}

function listTree(root: string): { files: string[]; dirs: string[] } {
  const files: string[] = [];
  const dirs: string[] = [];
  const walk = (d: string) => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      const p = join(d, e.name);
      if (e.isDirectory()) {
        dirs.push(relative(root, p));
        walk(p);
      } else files.push(relative(root, p));
    }
  };
  walk(root);
  return { files: files.sort(), dirs: dirs.sort() };
}

const doneNames = (events: Event[]) => events.filter((e) => e.event === 'file-done').map((e) => e.path!.split('/').pop()!);

interface SignQuery {
  action?: string;
  resourceUri?: string;
  fId?: string;
}

/**
 * Holds the server's signing of chosen S3 requests until the test releases it. Every S3 request the CLI makes is
 * signed by the server first (on the embedded store and on external S3 alike), so a held signature stops that
 * transfer at a known point: the test interrupts it there, whatever the speed of the machine, instead of
 * racing a progress event against a transfer that may already have finished.
 */
const gate = new HoldGate<SignQuery>();

/** Waits until the gate holds a signing request of this run; fails clearly if the run ends first. */
async function heldOrExited(run: Run): Promise<void> {
  let held = false;
  await Promise.race([
    gate.held().then(() => {
      held = true;
    }),
    run.exit.then((x) => {
      if (!held) throw new Error(`drive exited (${x.code ?? x.signal}) before it reached the held request; stderr: ${run.stderr}`);
    }),
  ]);
}
const partNumberOf = (q: SignQuery) => Number(/[?&]partNumber=(\d+)/.exec(q.resourceUri ?? '')?.[1] ?? 0);

// One suite, run with the server on the embedded store and again on an external S3 (radosgw in CI) when
// HCS_TEST_S3_ENDPOINT is set: the CLI must not care where the bytes live.
function cliSuite(label: string, storage: Record<string, string>): void {
describe(label, () => {
  beforeAll(async () => {
    registered.length = 0;
    work = mkdtempSync(join(tmpdir(), 'hcs-cli-'));
    const config = loadConfig({
      HCS_PORT: '0',
      HCS_HOST: '127.0.0.1',
      HCS_DATA_DIR: join(work, 'data'),
      HCS_ADMIN_PASSWORD: ADMIN_PASSWORD,
      HCS_LOG_LEVEL: 'warn',
      ...TEST_SERVER_ENV,
      ...(await databaseEnvFor(join(work, 'data'))),
      ...storage,
    });
    built = await buildApp(config, {
      logger: false,
      instrument(app) {
        contract = watchContract(app, `${label} server`);
        app.addHook('preHandler', async (req) => {
          if (req.operationId === 'signStorageRequest') await gate.pass(req.query as SignQuery);
        });
        app.addHook('onSend', async (req, reply, payload) => {
          if ((req.operationId === 'saveInstance' || req.operationId === 'secondTransfer') && reply.statusCode === 200) {
            const body = req.body as { fName?: string; instanceName?: string };
            if (typeof payload === 'string' && (JSON.parse(payload) as { ret: number }).ret === 0) {
              registered.push(decodeName(body.fName ?? body.instanceName ?? ''));
            }
          }
          // Small files travel in bulk-upload requests: each filed one counts, under the name it got.
          if (req.operationId === 'bulkUpload' && reply.statusCode === 200 && typeof payload === 'string') {
            const files = (JSON.parse(payload) as { data: { files: Array<{ outcome: string; instanceId?: string }> } }).data.files;
            for (const f of files) {
              if (f.outcome !== 'uploaded' && f.outcome !== 'instant') continue;
              const row = await getInstanceRow(built.ctx.db, f.instanceId!);
              registered.push(row!.name);
            }
          }
          return payload;
        });
      },
    });
    await built.listen();
    base = `http://127.0.0.1:${(built.app.server.address() as { port: number }).port}`;
    env = {
      PATH: process.env.PATH,
      HOME: work,
      HCS_SERVER: base,
      HCS_USER: 'admin',
      HCS_CONFIG: join(work, 'config', 'auth.json'),
      HCS_STATE_DIR: join(work, 'state'),
      HCS_JSON: '1',
    };

    // The tree: two multi-part files first in scan order, then 320 small files (unique names) in nested
    // folders, an empty file and an empty folder.
    const tree = join(work, 'src', 'tree');
    mkdirSync(join(tree, 'a-big'), { recursive: true });
    // Big enough that an interrupt lands after at least one finished part: progress may count bytes of the
    // 3 parts in flight, so more than 3 parts' worth proves one is complete.
    writeFileSync(join(tree, 'a-big', 'big1.bin'), randomBytes(96 * MiB + 123));
    writeFileSync(join(tree, 'a-big', 'big2.bin'), randomBytes(20 * MiB + 7));
    for (let d = 0; d < 8; d++) {
      const dir = join(tree, `dir${d}`, d % 2 ? `nested${d}` : '');
      mkdirSync(dir, { recursive: true });
      for (let i = 0; i < 40; i++) writeFileSync(join(dir, `f${d}-${i}.txt`), randomBytes(1 + ((d * 40 + i) * 37) % 4096));
    }
    writeFileSync(join(tree, 'dir0', 'empty-file.txt'), '');
    mkdirSync(join(tree, 'empty-folder'));
  }, 120_000);

  afterAll(async () => {
    gate.release();
    await built?.close();
    if (work) {
      await dropDatabaseOf(join(work, 'data'));
      rmSync(work, { recursive: true, force: true });
    }
    contract?.close();
  });

  it('signs in with HCS_PASSWORD and stores the token 0600', async () => {
    const bad = drive(['login'], { HCS_PASSWORD: 'wrong-password' });
    expect((await bad.exit).code).toBe(3);
    const run = drive(['login'], { HCS_PASSWORD: ADMIN_PASSWORD });
    expect((await run.exit).code).toBe(0);
    expect(run.events[0]).toMatchObject({ event: 'login', userName: 'admin' });
    expect(statSync(env.HCS_CONFIG!).mode & 0o777).toBe(0o600);
    const who = drive(['whoami']);
    expect((await who.exit).code).toBe(0);
    expect(who.events[0]).toMatchObject({ userName: 'admin' });
    expect(readFileSync(env.HCS_CONFIG!, 'utf8')).not.toContain(ADMIN_PASSWORD);
  });

  it('signs in with --password-stdin, and refuses --password with what to use instead', async () => {
    const piped = drive(['login', '--password-stdin'], {}, `${ADMIN_PASSWORD}\n`);
    expect((await piped.exit).code, piped.stderr).toBe(0);
    expect(piped.events[0]).toMatchObject({ event: 'login', userName: 'admin' });
    const wrong = drive(['login', '--password-stdin'], {}, 'not-the-password\n');
    expect((await wrong.exit).code).toBe(3);
    const argv = drive(['login', '--password', ADMIN_PASSWORD]);
    expect((await argv.exit).code).toBe(2);
    expect(argv.stderr).toContain('--password-stdin');
    expect(argv.events[0]).toMatchObject({ event: 'error', code: 'USAGE' });
  });

  it('reports usage and missing paths with their exit codes', async () => {
    expect((await drive(['upload', join(work, 'no-such-dir')]).exit).code).toBe(2);
    expect((await drive(['upload', join(work, 'src'), '--concurrency', '0']).exit).code).toBe(2);
    const ls = drive(['ls', '/no/such/folder']);
    expect((await ls.exit).code).toBe(5);
    expect(ls.events[0]).toMatchObject({ event: 'error', code: 'NOT_FOUND' });
    expect((await drive(['whoami'], { HCS_TOKEN: 'x'.repeat(43) }).exit).code).toBe(3);
    expect((await drive(['whoami'], { HCS_SERVER: 'http://127.0.0.1:9' }).exit).code).toBe(3); // no token for that server
    expect((await drive(['whoami'], { HCS_SERVER: 'http://127.0.0.1:9', HCS_TOKEN: 'x'.repeat(43) }).exit).code).toBe(4);
  });

  it('uploads a tree resumably across SIGINT and SIGKILL, never re-sending a finished file', async () => {
    const src = join(work, 'src', 'tree');
    const args = ['upload', src, '--to', '/bulk', '--concurrency', '3'];
    const total = listTree(src).files.length;

    // Run 1: Ctrl-C while big1.bin (96 MiB, 13 parts of 8 MiB) is past its fourth part. The signature of part 5
    // onwards is held, so run 1 cannot finish big1.bin before the interrupt, on any machine.
    gate.arm((q) => q.action === 'uploadPart' && partNumberOf(q) >= 5);
    const r1 = drive(args);
    await heldOrExited(r1);
    r1.child.kill('SIGINT');
    // Ctrl-C lets requests already in flight finish: let the held ones go.
    gate.release();
    const x1 = await r1.exit;
    expect(x1.code, r1.stderr).toBe(130);
    expect(r1.events.at(-1)).toMatchObject({ event: 'summary', interrupted: true });
    const done1 = doneNames(r1.events);
    expect(done1).not.toContain('big1.bin');

    // Run 2: the same command resumes big1.bin from its confirmed parts; kill -9 it while part 9 onwards is held.
    gate.arm((q) => q.action === 'uploadPart' && partNumberOf(q) >= 9);
    const r2 = drive(args);
    await heldOrExited(r2);
    r2.child.kill('SIGKILL');
    await r2.exit;
    gate.release();
    const done2 = doneNames(r2.events);
    expect(done2.filter((n) => done1.includes(n))).toEqual([]);
    expect(done2).not.toContain('big1.bin');
    expect(r2.events[0]).toMatchObject({ event: 'start', alreadyDone: done1.length });

    // Run 3: completes; nothing finished before is reported or registered again.
    const before3 = registered.length;
    const r3 = drive(args);
    const x3 = await r3.exit;
    expect(x3.code, r3.stderr).toBe(0);
    const done3 = doneNames(r3.events);
    const earlier = new Set([...done1, ...done2]);
    expect(done3.filter((n) => earlier.has(n))).toEqual([]);
    expect(registered.slice(before3).filter((n) => earlier.has(n))).toEqual([]);
    // Run 3 finishes exactly what the journal did not already hold. (A file run 2 journaled just before its
    // kill -9 may be missing from run 2's captured events, so count through run 3's start event.)
    expect(r3.events[0]).toMatchObject({ event: 'start' });
    expect((r3.events[0] as { alreadyDone?: number }).alreadyDone! + done3.length, 'journaled + finished in run 3').toBe(total);
    expect(r3.events.at(-1)).toMatchObject({ event: 'summary', failed: 0, files: total, done: total });
    // The interrupted multi-part file continued from the parts confirmed in runs 1 and 2 (at least 4 of 13).
    const big1 = r3.events.find((e) => e.event === 'file-done' && e.path!.endsWith('big1.bin'));
    expect(big1, 'big1.bin finished in run 3').toBeDefined();
    expect(big1!.sent!).toBeLessThanOrEqual(big1!.bytes! - 4 * 8 * MiB);
    // Each file registered exactly once on the server over all three runs.
    const counts = new Map<string, number>();
    for (const n of registered) counts.set(n, (counts.get(n) ?? 0) + 1);
    expect([...counts.entries()].filter(([, c]) => c > 1)).toEqual([]);
    expect(counts.size, 'files registered on the server').toBe(total);

    // A fourth run has nothing to do.
    const r4 = drive(args);
    expect((await r4.exit).code).toBe(0);
    expect(r4.events[0]).toMatchObject({ event: 'start', alreadyDone: total });
    expect(doneNames(r4.events)).toEqual([]);
  });

  it('lists, and uses instant transfer for content the server already holds', async () => {
    const ls = drive(['ls', '/bulk/tree']);
    expect((await ls.exit).code).toBe(0);
    expect(ls.events.map((e) => (e as { name?: string }).name)).toEqual(expect.arrayContaining(['a-big', 'empty-folder', 'dir0']));
    const again = drive(['upload', join(work, 'src', 'tree', 'a-big'), '--to', '/second']);
    expect((await again.exit).code).toBe(0);
    const outcomes = again.events.filter((e) => e.event === 'file-done').map((e) => [e.outcome, e.sent]);
    expect(outcomes).toEqual([
      ['instant', 0],
      ['instant', 0],
    ]);
  });

  it('downloads everything back (resuming after SIGINT) and every byte matches', async () => {
    const out = join(work, 'dl');
    const args = ['download', '/bulk/tree', '--out', out, '--concurrency', '3'];
    // The fifth signed read of one object (only big1.bin has more than 4 parts of 8 MiB) and later ones are
    // held: the interrupt lands with big1.bin partly downloaded, however fast the machine is.
    const reads = new Map<string, number>();
    gate.arm((q) => {
      if (q.action !== 'getObject' || !q.resourceUri) return false;
      const n = (reads.get(q.resourceUri) ?? 0) + 1;
      reads.set(q.resourceUri, n);
      return n >= 5;
    });
    const d1 = drive(args);
    await heldOrExited(d1);
    d1.child.kill('SIGINT');
    gate.release();
    expect((await d1.exit).code, d1.stderr).toBe(130);
    const d2 = drive(args);
    const x2 = await d2.exit;
    expect(x2.code, d2.stderr).toBe(0);
    const big1 = d2.events.find((e) => e.event === 'file-done' && e.path!.endsWith('big1.bin'));
    expect(big1, 'big1.bin finished in the second run').toBeDefined();
    expect(big1!.sent!).toBeLessThan(big1!.bytes!);

    const src = join(work, 'src', 'tree');
    const a = listTree(src);
    const b = listTree(join(out, 'tree'));
    expect(b.dirs).toEqual(a.dirs);
    expect(b.files).toEqual(a.files);
    for (const f of a.files) expect(sha(join(out, 'tree', f)), f).toBe(sha(join(src, f)));
    // No partial files or sidecars left behind.
    expect(b.files.filter((f) => f.endsWith('.part') || f.includes('.hcs-part'))).toEqual([]);
  });

  it('mkdir -p, cp, mv and rm work on paths', async () => {
    const steps: Array<[string[], number]> = [
      [['mkdir', '/ops/x/y'], 0],
      [['cp', '/bulk/tree/dir0/f0-1.txt', '/ops/x'], 0],
      [['mv', '/ops/x/f0-1.txt', '/ops/x/y/renamed.txt'], 0],
      [['rm', '/ops/x/y/renamed.txt'], 0],
      [['ls', '/ops/x/y/renamed.txt'], 5],
      [['rm', '/'], 2],
    ];
    for (const [args, code] of steps) {
      const r = drive(args);
      expect((await r.exit).code, `${args.join(' ')}: ${r.stderr}`).toBe(code);
    }
  });
});
}

cliSuite('drive CLI against the real server', {});

const s3 = process.env.HCS_TEST_S3_ENDPOINT;
if (s3) {
  cliSuite(`drive CLI against the real server on external S3 (${s3})`, {
    HCS_S3_ENDPOINT: s3,
    HCS_S3_ACCESS_KEY: process.env.HCS_TEST_S3_ACCESS_KEY ?? '',
    HCS_S3_SECRET_KEY: process.env.HCS_TEST_S3_SECRET_KEY ?? '',
    HCS_S3_BUCKET: `${process.env.HCS_TEST_S3_BUCKET ?? 'hcs'}-cli`,
    HCS_S3_REGION: process.env.HCS_TEST_S3_REGION ?? 'us-east-1',
  });
} else {
  console.info('drive CLI on external S3: skipped, HCS_TEST_S3_ENDPOINT is not set (radosgw: bash tests/s3/radosgw.sh start && eval "$(bash tests/s3/radosgw.sh env)")');
}
