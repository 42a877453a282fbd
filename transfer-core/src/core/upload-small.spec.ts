// Files below the minimum part size: one PUT, no resume record, no session lookup by hash; delete still ends
// the server session, and a second run reuses the server's unfinished session instead of opening another.
import { describe, expect, it, vi } from 'vitest';
import { runWithClock } from '../test/fake-clock.ts';
import { harness, MiB } from '../test/harness.ts';
import { MemorySource, randomBytes } from '../test/memory-source.ts';
import type { ResumeStore } from '../ports/index.ts';
import { UploadTask } from './upload.ts';

function countingStore(inner: ResumeStore): ResumeStore & { writes: number } {
  const s = {
    writes: 0,
    get: <T>(k: string) => inner.get<T>(k),
    set: async <T>(k: string, v: T) => {
      s.writes++;
      await inner.set(k, v);
    },
    delete: async (k: string) => {
      s.writes++;
      await inner.delete(k);
    },
    keys: (p: string) => inner.keys(p),
  };
  return s;
}

describe('UploadTask: small files', () => {
  it('writes no resume record and skips the session lookup by hash', async () => {
    const h = harness();
    const store = countingStore(h.store);
    const task = new UploadTask({ source: new MemorySource('a.txt', randomBytes(4096, 3)), target: { parentId: 'root' } }, { ...h.deps, resumeStore: store });
    await runWithClock(h.clock, task.run());
    expect(task.status).toBe('success');
    expect(store.writes).toBe(1); // the final delete of a record that never existed (no disk write)
    expect(h.store.map.size).toBe(0);
    expect(h.cp.calls).not.toContain('getPartInfo');
  });

  it('large files still keep a resume record and look for a session by hash', async () => {
    const h = harness();
    h.cp.partSize = 5 * MiB;
    const store = countingStore(h.store);
    const task = new UploadTask({ source: new MemorySource('b.bin', randomBytes(6 * MiB, 4)), target: { parentId: 'root' } }, { ...h.deps, resumeStore: store });
    await runWithClock(h.clock, task.run());
    expect(task.status).toBe('success');
    expect(store.writes).toBeGreaterThan(1);
    expect(h.cp.calls).toContain('getPartInfo');
  });

  it('delete of an in-flight small upload ends its server session', async () => {
    const h = harness();
    h.s3.failNext((r) => r.method === 'PUT', { hang: true });
    const task = new UploadTask({ source: new MemorySource('c.txt', randomBytes(1000, 5)), target: { parentId: 'root' } }, h.deps);
    const running = task.run();
    await vi.waitFor(() => expect(h.s3.inFlight).toBeGreaterThan(0));
    await task.delete();
    await running;
    expect(task.status).toBe('deleted');
    expect(h.cp.calls).toContain('destroyPartInfo');
    expect(h.cp.sessions.size).toBe(0);
  });
});
