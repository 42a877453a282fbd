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
let base: string;
let work: string;
let env: NodeJS.ProcessEnv;
/** Registrations (save-instance / second-transfer answered ret 0) by decoded file name, in order. */
const registered: string[] = [];

function drive(args: string[], extraEnv: Record<string, string> = {}): Run {
  const child = spawn(process.execPath, [DRIVE, ...args], { env: { ...env, ...extraEnv }, stdio: ['ignore', 'pipe', 'pipe'] });
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
      ...storage,
    });
    built = await buildApp(config, {
      logger: false,
      instrument(app) {
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
              const row = built.ctx.db.prepare('SELECT name FROM instances WHERE id = ?').get(f.instanceId!) as { name: string };
              registered.push(row.name);
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
    await built?.close();
    if (work) rmSync(work, { recursive: true, force: true });
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

    // Run 1: Ctrl-C once the big file has at least one part finished.
    const r1 = drive(args);
    // Progress reports are throttled, so a fast store may jump past any window: interrupt at the first report
    // past 3 parts, or once big1.bin is done (run 2 then only checks the small files).
    await r1.until(
      (e) =>
        !!e.path?.endsWith('big1.bin') &&
        ((e.event === 'progress' && e.phase === 'transferring' && e.loaded! > 3 * 8 * MiB) || e.event === 'file-done'),
    );
    r1.child.kill('SIGINT');
    const x1 = await r1.exit;
    expect(x1.code, r1.stderr).toBe(130);
    expect(r1.events.at(-1)).toMatchObject({ event: 'summary', interrupted: true });
    const done1 = doneNames(r1.events);

    // Run 2: the same command resumes; kill -9 it once a good share of small files is through.
    const r2 = drive(args);
    // (Ctrl-C lets parts already in flight finish, so big1.bin may have completed in run 1 on a fast store.)
    const big1InRun1 = done1.includes('big1.bin');
    // Small files travel in bulk requests beside the big ones, so run 1 may already have finished most of them:
    // wait for a third of what is left (at most 60 files).
    const left = total - done1.length;
    await r2.until((_e, all) => doneNames(all).length >= Math.min(60, Math.ceil(left / 3)) && (big1InRun1 || doneNames(all).includes('big1.bin')));
    r2.child.kill('SIGKILL');
    await r2.exit;
    const done2 = doneNames(r2.events);
    expect(done2.filter((n) => done1.includes(n))).toEqual([]);
    expect(r2.events[0]).toMatchObject({ event: 'start', alreadyDone: done1.length });
    // The interrupted multi-part file continued from its confirmed parts.
    if (!big1InRun1) {
      const big1 = r2.events.find((e) => e.event === 'file-done' && e.path!.endsWith('big1.bin'));
      expect(big1, 'big1.bin finished in run 2').toBeDefined();
      expect(big1!.sent!).toBeLessThan(big1!.bytes!);
    }

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
    const d1 = drive(args);
    await d1.until((e) => e.event === 'progress' && e.phase === 'transferring' && !!e.path?.endsWith('big1.bin') && e.loaded! > 3 * 8 * MiB && e.loaded! < 80 * MiB);
    d1.child.kill('SIGINT');
    expect((await d1.exit).code).toBe(130);
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
