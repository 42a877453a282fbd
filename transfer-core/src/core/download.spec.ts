import { createHash } from 'node:crypto';
import { describe, expect, it, vi } from 'vitest';
import type { DownloadSink, DownloadSinkFactory } from '../ports/index.ts';
import { runWithClock } from '../test/fake-clock.ts';
import { harness, MiB } from '../test/harness.ts';
import { randomBytes } from '../test/memory-source.ts';
import { DownloadTask, downloadRecordKey, type DownloadRecord } from './download.ts';

const sha = (b: Uint8Array) => createHash('sha256').update(b).digest('hex');

/** A sink in memory that keeps its bytes across opens with resume, like a .part file. */
class MemorySinks implements DownloadSinkFactory {
  files = new Map<string, { data: Uint8Array; final: boolean }>();
  writes: Array<{ offset: number; length: number }> = [];
  async open({ key, size, resume }: { key: string; size: number; resume: boolean }): Promise<DownloadSink> {
    if (!resume || !this.files.has(key)) this.files.set(key, { data: new Uint8Array(size), final: false });
    const f = this.files.get(key)!;
    return {
      write: async (offset, data) => {
        this.writes.push({ offset, length: data.byteLength });
        f.data.set(data, offset);
      },
      flush: async () => {},
      read: async (offset, length) => f.data.slice(offset, offset + length),
      finalize: async () => {
        f.final = true;
      },
      abort: async () => {
        this.files.delete(key);
      },
    };
  }
}

function setup(size: number, partSize = 5 * MiB) {
  const h = harness();
  h.cp.partSize = partSize;
  const data = randomBytes(size, 11);
  const instanceId = h.cp.seedFile('movie.mp4', data);
  const sinks = new MemorySinks();
  const task = new DownloadTask({ instanceId, sinks }, h.deps);
  return { ...h, data, instanceId, sinks, task, run: (t = task) => runWithClock(h.clock, t.run()) };
}

describe('DownloadTask', () => {
  it('downloads in ranged parts, 3 in parallel, verifies and finalizes', async () => {
    const t = setup(17 * MiB + 3);
    let max = 0;
    t.s3.faults.push(() => ((max = Math.max(max, t.s3.inFlight + 1)), undefined));
    await t.run();
    expect(t.task.status).toBe('success');
    const ranges = t.s3.requests.map((r) => r.headers.Range).sort();
    expect(ranges).toEqual([`bytes=0-${5 * MiB - 1}`, `bytes=${10 * MiB}-${15 * MiB - 1}`, `bytes=${15 * MiB}-${17 * MiB + 2}`, `bytes=${5 * MiB}-${10 * MiB - 1}`].sort());
    expect(max).toBe(3);
    const f = t.sinks.files.get(downloadRecordKey(t.instanceId))!;
    expect(f.final).toBe(true);
    expect(sha(f.data)).toBe(sha(t.data));
    expect(t.store.map.size).toBe(0);
  });

  it('persists finished parts, and a resumed download fetches only the rest', async () => {
    const t = setup(20 * MiB);
    t.s3.failNext((r) => r.headers.Range?.startsWith(`bytes=${10 * MiB}-`) ?? false, { hang: true });
    const running = t.task.run();
    await vi.waitFor(async () => expect((await t.store.get<DownloadRecord>(downloadRecordKey(t.instanceId)))?.done.length).toBe(3));
    expect(t.task.pause()).toBe(true);
    await running;
    expect(t.task.status).toBe('pause');
    // A new process: a new task over the same store and sink storage (partial items reload as paused).
    const again = new DownloadTask({ instanceId: t.instanceId, sinks: t.sinks }, t.deps, 'pause');
    expect(again.resume()).toBe(true);
    const before = t.s3.requests.length;
    await t.run(again);
    expect(again.status).toBe('success');
    expect(t.s3.requests.slice(before).map((r) => r.headers.Range)).toEqual([`bytes=${10 * MiB}-${15 * MiB - 1}`]);
    expect(sha(t.sinks.files.get(downloadRecordKey(t.instanceId))!.data)).toBe(sha(t.data));
  });

  it('two downloads of one file with their own record keys never trust each other\'s parts', async () => {
    const t = setup(20 * MiB);
    t.s3.failNext((r) => r.headers.Range?.startsWith(`bytes=${10 * MiB}-`) ?? false, { hang: true });
    const first = new DownloadTask({ instanceId: t.instanceId, sinks: t.sinks, recordKey: 'download:job-1' }, t.deps);
    const running = first.run();
    await vi.waitFor(async () => expect((await t.store.get<DownloadRecord>('download:job-1'))?.done.length).toBe(3));
    first.pause();
    await running;
    const second = new DownloadTask({ instanceId: t.instanceId, sinks: t.sinks, recordKey: 'download:job-2' }, t.deps);
    const before = t.s3.requests.length;
    await t.run(second);
    expect(second.status).toBe('success');
    // All four parts fetched: job-1's finished parts belong to job-1's target, not this one.
    expect(t.s3.requests.slice(before).filter((r) => r.headers.Range).length).toBe(4);
    expect(sha(t.sinks.files.get('download:job-2')!.data)).toBe(sha(t.data));
    expect((await t.store.get<DownloadRecord>('download:job-1'))?.done.length).toBe(3);
    expect(await t.store.get(downloadRecordKey(t.instanceId))).toBeUndefined();
  });

  it('a part answered 503 is retried and rewritten from its start', async () => {
    const t = setup(6 * MiB);
    t.s3.failNext((r) => r.headers.Range?.startsWith('bytes=0-') ?? false, { status: 503 });
    await t.run();
    expect(t.task.status).toBe('success');
    expect(sha(t.sinks.files.get(downloadRecordKey(t.instanceId))!.data)).toBe(sha(t.data));
  });

  it('a SHA-256 mismatch is a typed error and the partial data is discarded', async () => {
    const t = setup(3 * MiB);
    const obj = [...t.s3.objects.keys()][0]!;
    const stored = t.s3.objects.get(obj)!;
    stored[1000] = stored[1000]! ^ 0xff; // storage corrupted after the upload
    await t.run();
    expect(t.task.status).toBe('error');
    expect(t.task.error?.code).toBe('202');
    expect(t.task.error?.constructor.name).toBe('DownloadVerificationError');
    expect(t.sinks.files.size).toBe(0);
    expect(t.store.map.size).toBe(0);
  });

  it('storage failing after retries puts the item in refresh, resumable', async () => {
    const t = setup(1 * MiB);
    t.s3.failNext(() => true, { status: 500 }, 4);
    await t.run();
    expect(t.task.status).toBe('refresh');
    expect(t.task.error?.code).toBe('REQUEST');
    expect(t.task.resume()).toBe(true);
    await t.run();
    expect(t.task.status).toBe('success');
  });

  it('unknown file: get file information failed', async () => {
    const h = harness();
    const task = new DownloadTask({ instanceId: 'nope', sinks: new MemorySinks() }, h.deps);
    await runWithClock(h.clock, task.run());
    expect(task.error?.code).toBe('DOWNLOAD_INFO');
  });

  it('delete removes partial data and the record', async () => {
    const t = setup(12 * MiB);
    t.s3.failNext((r) => r.headers.Range?.startsWith(`bytes=${5 * MiB}-`) ?? false, { hang: true });
    const running = t.task.run();
    await vi.waitFor(async () => expect((await t.store.get<DownloadRecord>(downloadRecordKey(t.instanceId)))?.done.length).toBeGreaterThan(0));
    await t.task.delete();
    await running;
    expect(t.task.status).toBe('deleted');
    expect(t.sinks.files.size).toBe(0);
    expect(t.store.map.size).toBe(0);
  });
});
