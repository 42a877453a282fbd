// The plugin tip's third answer (spec 4/5): choosing the local agent hands the upload over and the browser sends
// nothing; when the agent is not there (hand-over false) the browser uploads as before.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { setupServer } from 'msw/node';
import { getCheckFileExistMockHandler } from '../../api/gen/upload/upload.msw.ts';
import { planUpload, type SessionMemory, type UploadPrompts, type UploadTarget } from './upload-flow.ts';
import type { NewUpload } from './transfer-store.ts';

const target: UploadTarget = { parentId: 'root', path: '/', libCode: 'NetDisk', instanceType: '1' };
const memory = (): SessionMemory => ({ pluginTipShown: false, clientChoice: undefined });
/** 51 files: over the plugin tip's 50, all in new folders so no same-name check is needed. */
const pick = () => ({ files: Array.from({ length: 51 }, (_, i) => ({ file: new File(['x'], `f${i}.txt`), dir: '' })), dirs: [] });

function prompts(handOver: UploadPrompts['handOver']): { p: UploadPrompts; log: string[] } {
  const log: string[] = [];
  return {
    log,
    p: {
      notice: (level, key) => void log.push(`${level}:${key}`),
      over80G: async () => undefined,
      confirm30G: async () => true,
      pluginTip: async () => (log.push('pluginTip'), 'agent'),
      handOver,
      clientChoice: async () => 'web',
      conflict: async () => 'keepBoth',
      invalidNames: async () => undefined,
    },
  };
}

// The same-name check finds nothing: every file is new.
const server = setupServer(getCheckFileExistMockHandler(() => ({ ret: 0, msg: '', data: { ret: 0, data: 0, instanceId: null, classifierId: null } })));
beforeAll(() => server.listen({ onUnhandledFrame: 'error' }));
afterAll(() => server.close());

describe('planUpload and the local agent', () => {
  it('hands the selection to the agent when it is chosen in the plugin tip, and queues nothing in the browser', async () => {
    const targets: UploadTarget[] = [];
    const { p, log } = prompts(async (t) => (targets.push(t), true));
    const queued: NewUpload[] = [];
    const mem = memory();
    expect(await planUpload(pick(), target, p, mem, (items) => queued.push(...items))).toEqual({ handedOver: true });
    expect(targets).toEqual([target]);
    expect(queued).toEqual([]);
    expect(log).toEqual(['pluginTip']);
    // The tip is shown once per session either way.
    expect(mem.pluginTipShown).toBe(true);
  });

  it('goes on in the browser when the agent cannot take it', async () => {
    const { p, log } = prompts(async () => false);
    const queued: NewUpload[] = [];
    expect(await planUpload(pick(), target, p, memory(), (items) => queued.push(...items))).toEqual({ queued: 51 });
    expect(queued).toHaveLength(51);
    expect(log).toEqual(['pluginTip']);
  });

  it('keeps a business library upload with attribute values in the browser, which saves them with each file', async () => {
    const handed: UploadTarget[] = [];
    const { p } = prompts(async (t) => (handed.push(t), true));
    const queued: NewUpload[] = [];
    const attrs = { classifierId: 'cls_1', values: { contractNo: 'C-1' } };
    expect(await planUpload(pick(), { ...target, libCode: 'CONTRACTS', instanceType: '3', attrs }, p, memory(), (items) => queued.push(...items))).toEqual({ queued: 51 });
    expect(handed).toEqual([]);
    expect(queued.every((q) => q.attrs === attrs)).toBe(true);
  });
});
