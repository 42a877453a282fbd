import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { setupServer } from 'msw/node';
import { getCheckFileExistMockHandler } from '../../api/gen/upload/upload.msw.ts';
import { getCreateInstancesMockHandler } from '../../api/gen/files/files.msw.ts';
import type { Instance } from '../../api/gen/model/instance.ts';
import { decodeWireText } from '../wire-encoding.ts';
import { planUpload, type SessionMemory, type UploadPrompts } from './upload-flow.ts';
import type { NewUpload } from './transfer-store.ts';

const server = setupServer();
beforeAll(() => server.listen({ onUnhandledFrame: 'error' }));
afterEach(() => server.resetHandlers());
afterAll(() => server.close());

/** A folder tree on the "server": existing names per parent; creates recorded. */
function drive(existing: Record<string, Array<{ name: string; id: string; kind: 'Folder' | 'File' }>>) {
  const created: Array<{ parentId: string; name: string }> = [];
  let n = 0;
  server.use(
    getCheckFileExistMockHandler(({ request }) => {
      const q = new URL(request.url).searchParams;
      const hit = (existing[q.get('parentId') ?? ''] ?? []).find((e) => e.name === decodeWireText(q.get('instanceName')!));
      return { ret: 0, msg: hit?.id ?? '', data: { ret: 0, data: hit ? 1 : 0, instanceId: hit?.id ?? null, classifierId: hit?.kind ?? null } };
    }),
    getCreateInstancesMockHandler(async ({ request }) => {
      const [body] = (await request.json()) as Array<{ parentId: string; instanceName: string }>;
      const name = decodeWireText(body!.instanceName);
      const id = `new${++n}`;
      created.push({ parentId: body!.parentId, name });
      (existing[body!.parentId] ??= []).push({ name, id, kind: 'Folder' });
      return { ret: 0, msg: 'success', data: [{ instanceId: id, instanceName: name } as Instance] };
    }),
  );
  return created;
}

function prompts(answers: Partial<UploadPrompts> = {}) {
  const log: string[] = [];
  const p: UploadPrompts = {
    notice: (level, key) => void log.push(`${level}:${key}`),
    over80G: async (names) => void log.push(`over80G:${names.join(',')}`),
    confirm30G: async () => true,
    pluginTip: async () => {
      log.push('pluginTip');
      return 'browser';
    },
    clientChoice: async () => 'web',
    conflict: async (names) => {
      log.push(`conflict:${names.join(',')}`);
      return 'newVersion';
    },
    invalidNames: async (items) => void log.push(`invalid:${items.map((i) => `${i.path}=${i.problem}`).join(',')}`),
    ...answers,
  };
  return { p, log };
}

const memory = (): SessionMemory => ({ pluginTipShown: false, clientChoice: undefined });
const target = { parentId: 'root', path: '/', libCode: 'NetDisk', instanceType: '1' };
const f = (name: string, size = 3) => new File([new Uint8Array(size)], name);

describe('planUpload', () => {
  it('creates the missing folders of a folder upload, reuses existing ones and queues files into them', async () => {
    const created = drive({ root: [{ name: 'top', id: 'top1', kind: 'Folder' }] });
    const queued: NewUpload[] = [];
    const { p } = prompts();
    const r = await planUpload(
      { files: [{ file: f('a.txt'), dir: 'top' }, { file: f('b.txt'), dir: 'top/sub' }], dirs: ['top', 'top/sub', 'top/sub/empty'] },
      target,
      p,
      memory(),
      (items) => queued.push(...items),
    );
    expect(r).toEqual({ queued: 2 });
    expect(created).toEqual([
      { parentId: 'top1', name: 'sub' },
      { parentId: 'new1', name: 'empty' },
    ]);
    expect(queued.map((q) => [q.name, q.parentId, q.uploadTo, q.conflict])).toEqual([
      ['a.txt', 'top1', '/top', 'keepBoth'],
      ['b.txt', 'new1', '/top/sub', 'keepBoth'],
    ]);
  });

  it('asks about same-name files and passes the answer to every queued file', async () => {
    drive({ root: [{ name: 'a.txt', id: 'x', kind: 'File' }] });
    const queued: NewUpload[] = [];
    const { p, log } = prompts();
    await planUpload({ files: [{ file: f('a.txt'), dir: '' }, { file: f('c.txt'), dir: '' }], dirs: [] }, target, p, memory(), (i) => queued.push(...i));
    expect(log).toContain('conflict:a.txt');
    expect(queued.map((q) => q.conflict)).toEqual(['newVersion', 'newVersion']);
  });

  it('uploads nothing when the user cancels the same-name question', async () => {
    drive({ root: [{ name: 'a.txt', id: 'x', kind: 'File' }] });
    const queued: NewUpload[] = [];
    const { p } = prompts({ conflict: async () => 'cancel' });
    expect(await planUpload({ files: [{ file: f('a.txt'), dir: '' }], dirs: [] }, target, p, memory(), (i) => queued.push(...i))).toEqual({ aborted: 'cancelled' });
    expect(queued).toHaveLength(0);
  });

  it('shows the plugin tip once per session, then takes the browser path', async () => {
    drive({});
    const mem = memory();
    const { p, log } = prompts();
    const many = Array.from({ length: 51 }, (_, i) => ({ file: f(`f${i}`), dir: '' }));
    const queued: NewUpload[] = [];
    await planUpload({ files: many, dirs: [] }, target, p, mem, (i) => queued.push(...i));
    await planUpload({ files: many, dirs: [] }, target, p, mem, (i) => queued.push(...i));
    expect(log.filter((l) => l === 'pluginTip')).toHaveLength(1);
    expect(queued).toHaveLength(102);
  });

  it('stops on empty and on refused 30 GB confirmation without touching the server', async () => {
    const { p, log } = prompts({ confirm30G: async () => false });
    expect(await planUpload({ files: [], dirs: [] }, target, p, memory(), () => {})).toEqual({ aborted: 'empty' });
    expect(log).toEqual(['info:transfer.empty']);
    const huge = new File([], 'big.iso');
    Object.defineProperty(huge, 'size', { value: 32_212_254_721 });
    expect(await planUpload({ files: [{ file: huge, dir: '' }], dirs: [] }, target, p, { pluginTipShown: true, clientChoice: 'web' }, () => {})).toEqual({ aborted: 'cancelled' });
  });

  it('one bad name does not stop the others: the valid files go, each invalid one is listed with its rule first', async () => {
    const checked: string[] = [];
    drive({});
    server.use(
      getCheckFileExistMockHandler(({ request }) => {
        checked.push(decodeWireText(new URL(request.url).searchParams.get('instanceName')!));
        return { ret: 0, msg: '', data: { ret: 0, data: 0, instanceId: null, classifierId: null } };
      }),
    );
    const queued: NewUpload[] = [];
    const { p, log } = prompts({
      invalidNames: async (items) => {
        // Shown before anything reaches the server or the queue.
        expect(checked).toEqual([]);
        expect(queued).toEqual([]);
        log.push(`invalid:${items.map((i) => `${i.path}=${i.problem}`).join(',')}`);
      },
    });
    const r = await planUpload(
      { files: [{ file: f('report[1].txt'), dir: '' }, { file: f('second.png'), dir: '' }, { file: f(' lead.txt'), dir: '' }, { file: f('doc.pdf'), dir: '' }], dirs: [] },
      target,
      p,
      memory(),
      (i) => queued.push(...i),
    );
    expect(log).toEqual(['invalid:report[1].txt=forbiddenChars, lead.txt=whitespace']);
    expect(r).toEqual({ queued: 2 });
    expect(queued.map((q) => q.name)).toEqual(['second.png', 'doc.pdf']);
    expect(checked.sort()).toEqual(['doc.pdf', 'second.png']);
  });

  it('a folder with a bad name is listed once and skipped with everything in it; the rest of the tree goes', async () => {
    const created = drive({});
    const queued: NewUpload[] = [];
    const { p, log } = prompts();
    const r = await planUpload(
      {
        files: [
          { file: f('a.txt'), dir: 'top' },
          { file: f('b.txt'), dir: 'top/bad:dir' },
          { file: f('c.txt'), dir: 'top/bad:dir/deeper' },
          { file: f('d?.txt'), dir: 'top/ok' },
        ],
        dirs: ['top', 'top/bad:dir', 'top/bad:dir/deeper', 'top/ok'],
      },
      target,
      p,
      memory(),
      (i) => queued.push(...i),
    );
    expect(log).toEqual(['invalid:top/bad:dir=forbiddenChars,top/ok/d?.txt=forbiddenChars']);
    expect(created.map((c) => c.name)).toEqual(['top', 'ok']);
    expect(queued.map((q) => q.name)).toEqual(['a.txt']);
    expect(r).toEqual({ queued: 1 });
  });

  it('nothing valid left: nothing is queued after the list', async () => {
    const queued: NewUpload[] = [];
    const { p, log } = prompts();
    expect(await planUpload({ files: [{ file: f('a|b'), dir: '' }], dirs: [] }, target, p, memory(), (i) => queued.push(...i))).toEqual({ aborted: 'invalidNames' });
    expect(log).toEqual(['invalid:a|b=forbiddenChars']);
    expect(queued).toEqual([]);
  });
});
