// Issue #21 in Chromium: the web app hands big transfers to a running `drive agent` (cli/dist) and shows them in its
// transfer panel. Without the agent: the wake attempts through the custom protocol, then the browser uploads. With it:
// a 600 MB selection brings the spec 5 plugin tip, choosing the agent hands the upload over (the agent has no native
// picker here, so the path is typed inside its allowed root), the panel shows the agent's row with progress, pause,
// resume and delete; a 51-file selection handed over goes on after the tab is closed, the reopened tab shows it
// again, and the files arrive byte-identical; a folder downloaded through the agent lands in its download folder as
// a tree. Transfers are stopped at known points by holding the server's signing of chosen storage requests.
// The web app speaks to the spec's fixed local ports (8756, 8801, 8754): when something else holds them, the suite is
// skipped with the reason printed.
import { spawn, type ChildProcess } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { closeSync, existsSync, mkdirSync, mkdtempSync, openSync, readdirSync, readFileSync, rmSync, ftruncateSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, beforeEach, describe, expect, it, onTestFailed } from 'vitest';
import type { BrowserContext, Page } from 'playwright-core';
import { unwrap, type HcsClient } from '@hcs/openapi/client';
import { HoldGate } from '../helpers/hold-gate.ts';
import { closeTransferPanel, explainFailure, recordToasts, settledTransferPanel, signInAsAdmin, startE2E, toastsSeen, visibleTextProblems, type E2E, dialogsSettled } from './harness.ts';

const DRIVE = fileURLToPath(new URL('../../cli/bin/drive.js', import.meta.url));
const AGENT_PORTS = { plugin: 8756, ws: 8801, client: 8754 } as const;
const MiB = 1024 * 1024;
const sha = (b: Buffer) => createHash('sha256').update(b).digest('hex');

function portFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const s = createServer();
    s.once('error', () => resolve(false));
    s.listen(port, '127.0.0.1', () => s.close(() => resolve(true)));
  });
}
const taken: number[] = [];
for (const p of Object.values(AGENT_PORTS)) if (!(await portFree(p))) taken.push(p);
if (taken.length > 0) console.log(`agent-handover e2e skipped: local port(s) ${taken.join(', ')} in use (another drive agent?); the web app only speaks to the spec's fixed ports`);

interface SignQuery {
  action?: string;
  resourceUri?: string;
}
/** Holds the server's signing of matching storage requests and bulk uploads (the agent's and the browser's) until released. */
const gate = new HoldGate<SignQuery>();
const partNumberOf = (q: SignQuery) => Number(/[?&]partNumber=(\d+)/.exec(q.resourceUri ?? '')?.[1] ?? 0);

let e2e: E2E;
let work: string;
let api: HcsClient;
let rootId: string;
const roots = () => join(work, 'allowed');
const downloads = () => join(work, 'downloads');

async function listRemote(parentId: string): Promise<Array<{ instanceId: string; instanceName: string; classifierId: string; fSize: number }>> {
  return unwrap(await api.GET('/hcs/controller/Page', { params: { query: { parentId, pageSize: 1000 } } })).data!.list as never;
}
async function remoteChild(parentId: string, name: string) {
  return (await listRemote(parentId)).find((i) => i.instanceName === name);
}
/** SHA-256 of a stored file, downloaded through the API as any client would. */
async function remoteSha(instanceId: string, name: string): Promise<string> {
  const link = unwrap(await api.GET('/hcs/controller/API/getS3DownloadUrl', { params: { query: { instanceId, fileName: encodeURIComponent(name) } } })).data!.url;
  const res = await fetch(new URL(link, e2e.baseUrl));
  expect(res.status).toBe(200);
  const h = createHash('sha256');
  // Streamed: a stored file may be hundreds of megabytes.
  for await (const chunk of Readable.fromWeb(res.body as never)) h.update(chunk as Buffer);
  return h.digest('hex');
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

/** Resolves once the agent's saved job list (state/agent/jobs.json, written atomically) shows a job `name` in `state`. */
async function agentRecorded(name: string, state: string): Promise<void> {
  const file = join(work, 'state', 'agent', 'jobs.json');
  // Each look is one small file read; it gives up with the test's timeout.
  for (;;) {
    const list = existsSync(file) ? (JSON.parse(readFileSync(file, 'utf8')) as Array<{ name: string; state: string }>) : [];
    if (list.some((j) => j.name === name && j.state === state)) return;
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** Counts, in every page of the context, the hidden frames that open the agent's custom protocol (the wake). */
async function countWakes(context: BrowserContext): Promise<void> {
  await context.addInitScript(() => {
    const w = window as unknown as { __wakes: number };
    w.__wakes = 0;
    new MutationObserver((records) => {
      for (const r of records)
        for (const n of r.addedNodes) if (n instanceof HTMLIFrameElement && n.src.startsWith('hcs-drive:')) w.__wakes++;
    }).observe(document, { childList: true, subtree: true });
  });
}
const wakes = (page: Page) => page.evaluate(() => (window as unknown as { __wakes: number }).__wakes);

const agentRow = (page: Page, kind: 'upload' | 'download', name: string) => page.getByTestId(`agent-${kind}-${name}`);
const TOAST = {
  waking: /正在唤醒传输插件|Waking up the transfer plugin/,
  fallback: /传输插件未运行|The transfer agent is not running/,
  handedOver: /已交给传输插件|Handed over to the transfer agent/,
};

/** The plugin tip of spec 5, answered with `choice`. */
async function answerPluginTip(page: Page, choice: 'agent' | 'browser'): Promise<void> {
  // The tip is a dialog: a press while it zooms in is lost on a loaded machine (seen in CI).
  await page.getByTestId(`plugin-tip-${choice}`).waitFor();
  await dialogsSettled(page);
  await page.getByTestId(`plugin-tip-${choice}`).click();
}

/** The agent has no native picker here: the user types the local path, inside the agent's allowed root. */
async function typeLocalPath(page: Page, path: string): Promise<void> {
  const input = page.getByTestId('agent-path-input');
  await input.waitFor();
  expect(await page.getByTestId('agent-path-roots').innerText()).toContain(roots());
  await input.fill(path);
  await dialogsSettled(page);
  await page.getByTestId('agent-path-ok').click();
}

describe.skipIf(taken.length > 0)('the local transfer agent from the browser', () => {
  beforeAll(async () => {
    work = mkdtempSync(join(tmpdir(), 'hcs-agent-e2e-'));
    mkdirSync(roots(), { recursive: true });
    mkdirSync(downloads(), { recursive: true });
    e2e = await startE2E({
      instrument(app) {
        app.addHook('preHandler', async (req) => {
          // Big files go part by part (signed storage requests), small ones in bulk.
          if (req.operationId === 'signStorageRequest') await gate.pass(req.query as SignQuery);
          if (req.operationId === 'bulkUpload') await gate.pass({ action: 'bulkUpload' });
        });
      },
    });
    api = (await e2e.server.login()).client;
    rootId = unwrap(await api.GET('/hcs/controller/Page', { params: { query: { pageSize: 1 } } })).data!.parentId;
  }, 180_000);

  afterAll(async () => {
    gate.release();
    await e2e?.close();
    if (work) rmSync(work, { recursive: true, force: true });
  });

  describe('without the agent', () => {
    let context: BrowserContext;
    let page: Page;
    beforeEach(() => onTestFailed(({ task }) => explainFailure(e2e, page, `agent-handover-${task.name}`)));
    afterAll(() => context?.close());

    it('wakes it through the custom protocol five times, then the browser uploads', async () => {
      ({ context, page } = await e2e.newPage({ locale: 'en-US' }));
      await countWakes(context);
      await recordToasts(context);
      await signInAsAdmin(e2e, page);
      // More than 50 files: the plugin tip (spec 5), without the bytes a 500 MB selection would need.
      const files = Array.from({ length: 51 }, (_, i) => ({ name: `woke-${String(i).padStart(2, '0')}.txt`, mimeType: 'text/plain', buffer: Buffer.from(`browser file ${i}`) }));
      await page.getByTestId('upload-file-input').setInputFiles(files);
      await answerPluginTip(page, 'agent');
      await expect.poll(async () => (await toastsSeen(page)).some((t) => TOAST.fallback.test(t)), { timeout: 60_000 }).toBe(true);
      expect((await toastsSeen(page)).some((t) => TOAST.waking.test(t))).toBe(true);
      expect(await wakes(page)).toBe(5);
      // The browser uploads the selection itself (all 51 would take minutes on a loaded machine: the first is enough).
      const first = files[0]!;
      await expect.poll(async () => (await remoteChild(rootId, first.name))?.instanceId, { timeout: 120_000 }).toBeTruthy();
      expect(await remoteSha((await remoteChild(rootId, first.name))!.instanceId, first.name)).toBe(sha(first.buffer));
    });
  });

  describe('with drive agent running', () => {
    let agent: { child: ChildProcess; out(): string; exit: Promise<number | null> };
    let context: BrowserContext;
    let page: Page;

    beforeAll(async () => {
      const child = spawn(process.execPath, [DRIVE, 'agent'], {
        env: {
          PATH: process.env.PATH,
          HOME: work,
          HCS_SERVER: e2e.baseUrl,
          HCS_CONFIG: join(work, 'config', 'auth.json'),
          HCS_STATE_DIR: join(work, 'state'),
          HCS_JSON: '1',
          HCS_AGENT_DOWNLOAD_DIR: downloads(),
          HCS_AGENT_ROOTS: roots(),
          HCS_AGENT_PICKER: 'none',
        },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let out = '';
      child.stderr!.setEncoding('utf8').on('data', (d: string) => (out += d));
      const exit = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
      await new Promise<void>((resolve, reject) => {
        child.stdout!.setEncoding('utf8').on('data', (d: string) => {
          out += d;
          if (out.split('\n').some((l) => l.startsWith('{') && (JSON.parse(l) as { event?: string }).event === 'agent-ready')) resolve();
        });
        void exit.then((code) => reject(new Error(`drive agent exited (${code}) before it was ready:\n${out}`)));
      });
      agent = { child, out: () => out, exit };
    }, 120_000);

    afterAll(async () => {
      gate.release();
      await context?.close();
      agent?.child.kill('SIGTERM');
      await agent?.exit;
    });

    beforeEach(() =>
      onTestFailed(({ task }) => {
        console.log(`drive agent said:\n${agent?.out()}`);
        return explainFailure(e2e, page, `agent-handover-${task.name}`);
      }),
    );

    it('a 600 MB selection: the plugin tip, the hand-over, the agent row with progress, pause, resume and delete', async () => {
      // A sparse file: 600 MB to the browser's and the agent's eyes, hardly any disk. Only a few parts are sent.
      const huge = join(roots(), 'huge.bin');
      const fd = openSync(huge, 'w');
      ftruncateSync(fd, 600 * MiB);
      closeSync(fd);
      ({ context, page } = await e2e.newPage({ locale: 'en-US' }));
      await recordToasts(context);
      await signInAsAdmin(e2e, page);
      gate.arm((q) => q.action === 'uploadPart' && partNumberOf(q) >= 4);
      await page.getByTestId('upload-file-input').setInputFiles(huge);
      await answerPluginTip(page, 'agent');
      await typeLocalPath(page, huge);
      await settledTransferPanel(page);
      const row = agentRow(page, 'upload', 'huge.bin');
      await row.waitFor();
      expect((await toastsSeen(page)).some((t) => TOAST.handedOver.test(t))).toBe(true);
      await gate.held();
      // Three parts went: the row shows their bytes as progress, and the size of the whole selection.
      await expect.poll(async () => Number(await row.getAttribute('data-percent')), { timeout: 60_000 }).toBeGreaterThan(0);
      expect(await row.getAttribute('data-state')).toBe('running');
      expect(await page.getByTestId('agent-transfers').innerText()).toContain('600');
      await e2e.screenshot(page, 'agent-handover-running');

      await page.getByTestId('agent-pause-upload-huge.bin').click();
      await expect.poll(() => row.getAttribute('data-state'), { timeout: 60_000 }).toBe('paused');
      // What was held when it paused may go now: the job stays paused.
      gate.release();
      gate.arm((q) => q.action === 'uploadPart' && partNumberOf(q) >= 6);
      await page.getByTestId('agent-resume-upload-huge.bin').click();
      await expect.poll(() => row.getAttribute('data-state'), { timeout: 60_000 }).toBe('running');
      await gate.held();
      await page.getByTestId('agent-delete-upload-huge.bin').click();
      await row.waitFor({ state: 'detached' });
      gate.release();
      expect(await remoteChild(rootId, 'huge.bin')).toBeUndefined();
      rmSync(huge);
      await context.close();
    });

    it('51 files handed over go on after the tab closes; the reopened tab shows them; they arrive byte-identical', async () => {
      const dir = join(roots(), 'many');
      mkdirSync(join(dir, 'sub'), { recursive: true });
      const local = new Map<string, Buffer>();
      for (let i = 0; i < 51; i++) local.set(`f${String(i).padStart(2, '0')}.bin`, randomBytes(1000 + i * 997));
      for (const [name, data] of local) writeFileSync(join(dir, name), data);
      writeFileSync(join(dir, 'sub', 'deep.txt'), 'a file one folder down');
      ({ context, page } = await e2e.newPage({ locale: 'zh-CN' }));
      await recordToasts(context);
      await signInAsAdmin(e2e, page);
      // Nothing is stored until the tab has been closed.
      gate.arm(() => true);
      await page.getByTestId('upload-file-input').setInputFiles([...local.keys()].map((n) => join(dir, n)));
      // The tip and the path question in Chinese: no raw keys, no English.
      await page.getByTestId('plugin-tip-agent').waitFor();
      expect(await visibleTextProblems(page, { lang: 'zh_CN', allow: [...local.keys()] })).toEqual([]);
      await answerPluginTip(page, 'agent');
      await page.getByTestId('agent-path-input').waitFor();
      expect(await visibleTextProblems(page, { lang: 'zh_CN', allow: [roots()] })).toEqual([]);
      await typeLocalPath(page, dir);
      await agentRow(page, 'upload', 'many').waitFor();
      await gate.held();
      expect(await agentRow(page, 'upload', 'many').getAttribute('data-state')).toBe('running');
      await page.close();

      gate.release();
      await agentRecorded('many', 'done');
      page = await context.newPage();
      await page.goto(`${e2e.baseUrl}/drive/personalFile`);
      await page.getByTestId('file-browser').waitFor();
      await page.getByTestId('transfer-list').click();
      await settledTransferPanel(page);
      const row = agentRow(page, 'upload', 'many');
      await row.waitFor();
      expect(await row.getAttribute('data-state')).toBe('done');
      expect(await row.getAttribute('data-percent')).toBe('100');
      expect(await visibleTextProblems(page, { lang: 'zh_CN', allow: ['many', 'huge.bin'] })).toEqual([]);
      await e2e.screenshot(page, 'agent-handover-reopened');

      const many = await remoteChild(rootId, 'many');
      expect(many?.classifierId).toBe('Folder');
      const stored = await listRemote(many!.instanceId);
      expect(stored.map((i) => i.instanceName).sort()).toEqual([...local.keys(), 'sub'].sort());
      for (const name of ['f00.bin', 'f25.bin', 'f50.bin']) {
        const file = stored.find((i) => i.instanceName === name)!;
        expect(await remoteSha(file.instanceId, name), name).toBe(sha(local.get(name)!));
      }
      expect(stored.every((i) => i.classifierId === 'Folder' || i.fSize === local.get(i.instanceName)!.length)).toBe(true);
    });

    it('a folder handed to the agent downloads into its download folder as a tree, byte-identical', async () => {
      // The reopened tab of the previous test is connected to the agent: its downloads go there.
      await closeTransferPanel(page);
      await page.getByTestId('row-download-many').click();
      const row = agentRow(page, 'download', 'many');
      await row.waitFor();
      await expect.poll(() => row.getAttribute('data-state'), { timeout: 120_000 }).toBe('done');
      expect((await toastsSeen(page)).some((t) => TOAST.handedOver.test(t))).toBe(true);
      const src = join(roots(), 'many');
      const got = join(downloads(), 'many');
      expect(listTree(got)).toEqual(listTree(src));
      for (const f of listTree(src).filter((p) => !p.endsWith('/'))) expect(sha(readFileSync(join(got, f))), f).toBe(sha(readFileSync(join(src, f))));
    });

    it('refuses a page of any other origin, in the browser too', async () => {
      const other = e2e.baseUrl.replace('127.0.0.1', 'localhost');
      const { context: ctx, page: p } = await e2e.newPage();
      const probe = () =>
        p.evaluate(async (ports) => {
          const online = await fetch(`http://127.0.0.1:${ports.plugin}/api/isAppOnline`).then(
            (r) => r.ok,
            () => false,
          );
          const socket = await new Promise<boolean>((resolve) => {
            const ws = new WebSocket(`ws://127.0.0.1:${ports.ws}`);
            ws.onopen = () => (ws.close(), resolve(true));
            ws.onclose = () => resolve(false);
          });
          return { online, socket };
        }, AGENT_PORTS);
      await p.goto(`${e2e.baseUrl}/drive/login`);
      expect(await probe()).toEqual({ online: true, socket: true });
      await p.goto(`${other}/drive/login`);
      expect(await probe()).toEqual({ online: false, socket: false });
      await ctx.close();
    });

    it('sent only responses that match the contract', () => {
      expect(e2e.server.violations).toEqual([]);
    });
  });
});
