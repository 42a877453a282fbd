import { describe, expect, it, vi } from 'vitest';
import { harness, MiB } from '../test/harness.ts';
import { MemorySource, randomBytes } from '../test/memory-source.ts';
import { createUploadQueue } from './queues.ts';
import { UploadTask } from './upload.ts';

function setup(concurrency: number, files = 3, size = 1000) {
  const h = harness({ clock: undefined, retryBaseMs: 1 });
  h.cp.partSize = 5 * MiB;
  const q = createUploadQueue({ concurrency });
  const tasks = Array.from({ length: files }, (_, i) => new UploadTask({ id: `u${i}`, source: new MemorySource(`f${i}`, randomBytes(size, i + 1)), target: {} }, h.deps));
  return { ...h, q, tasks };
}

describe('TransferQueue (uploads)', () => {
  it('web rule: one file at a time, in order; finished items leave the queue', async () => {
    const t = setup(1);
    let active = 0;
    let maxActive = 0;
    const finished: string[] = [];
    t.q.events.on('status', (e) => {
      if (e.from === 'ready') maxActive = Math.max(maxActive, ++active);
      if (e.to === 'success') active--;
    });
    t.q.events.on('finished', (e) => finished.push(e.task.id));
    for (const task of t.tasks) t.q.add(task);
    await t.q.whenIdle();
    expect(maxActive).toBe(1);
    expect(finished).toEqual(['u0', 'u1', 'u2']);
    expect(t.q.tasks).toHaveLength(0);
  });

  it('CLI: N files at a time', async () => {
    const t = setup(3, 6);
    t.s3.failNext(() => true, { hang: true }, 100);
    for (const task of t.tasks) t.q.add(task);
    await vi.waitFor(() => expect(t.s3.inFlight).toBe(3));
    expect(t.tasks.filter((x) => x.status === 'uploading')).toHaveLength(3);
    expect(t.tasks.filter((x) => x.status === 'ready')).toHaveLength(3);
    t.q.pauseAll();
    await vi.waitFor(() => expect(t.s3.inFlight).toBe(0));
  });

  it('manual start of a queued item only warns', () => {
    const t = setup(1, 2);
    t.s3.failNext(() => true, { hang: true }, 100);
    for (const task of t.tasks) t.q.add(task);
    const warn = vi.fn();
    t.q.events.on('alreadyQueued', warn);
    expect(t.q.start('u1')).toBe(false);
    expect(warn).toHaveBeenCalledOnce();
    t.q.pauseAll();
  });

  it('network loss pauses and remembers ready/checking/uploading items; return resumes them', async () => {
    const t = setup(1, 3, 11 * MiB);
    t.s3.failNext((r) => r.query.get('partNumber') === '2', { hang: true });
    for (const task of t.tasks) t.q.add(task);
    await vi.waitFor(() => expect(t.s3.inFlight).toBe(1));
    t.q.networkLost();
    expect(t.tasks[0]!.status).toBe('pause');
    expect(t.tasks[1]!.status).toBe('ready');
    await vi.waitFor(() => expect(t.s3.inFlight).toBe(0));
    // Held while offline: nothing starts.
    await new Promise((r) => setTimeout(r, 20));
    expect(t.tasks[1]!.status).toBe('ready');
    // A user-paused item is not resumed by the network return.
    t.q.networkReturned();
    await t.q.whenIdle();
    expect(t.tasks.map((x) => x.status)).toEqual(['success', 'success', 'success']);
  });

  it('retry only from error; delete removes the item', async () => {
    const t = setup(1, 1);
    t.cp.quota = 0;
    t.q.add(t.tasks[0]!);
    await t.q.whenIdle();
    expect(t.tasks[0]!.status).toBe('error');
    expect(t.q.resume('u0')).toBe(false);
    t.cp.quota = Infinity;
    expect(t.q.retry('u0')).toBe(true);
    await t.q.whenIdle();
    expect(t.tasks[0]!.status).toBe('success');
    const t2 = setup(1, 1);
    t2.s3.failNext(() => true, { hang: true });
    t2.q.add(t2.tasks[0]!);
    await vi.waitFor(() => expect(t2.s3.inFlight).toBe(1));
    await t2.q.delete('u0');
    expect(t2.q.tasks).toHaveLength(0);
    expect(t2.tasks[0]!.status).toBe('deleted');
  });
});
