import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { HcsError } from '@hcs/openapi/client';
import type { BulkUploadOutcome, ControlPlane } from '../ports/index.ts';
import { runWithClock } from '../test/fake-clock.ts';
import { harness } from '../test/harness.ts';
import { MemorySource, randomBytes } from '../test/memory-source.ts';
import { planBatches, uploadBatch } from './bulk.ts';
import { FileMissingError, FileVerificationError, NetworkError, SpaceNotEnoughError, UploadFailedError } from './errors.ts';

const sha = (b: Uint8Array) => createHash('sha256').update(b).digest('hex');
type BulkReq = Parameters<NonNullable<ControlPlane['bulkUpload']>>[0];

function withBulk(answer: (req: BulkReq, call: number) => Promise<BulkUploadOutcome[]>) {
  const h = harness();
  const calls: BulkReq[] = [];
  h.deps.controlPlane = Object.assign(Object.create(h.cp) as ControlPlane, {
    bulkUpload: (req: BulkReq) => {
      calls.push(req);
      return answer(req, calls.length);
    },
  });
  return { ...h, calls };
}

describe('bulk upload', () => {
  it('sends each file once with the SHA-256 of the bytes read, and maps per-file answers', async () => {
    const a = randomBytes(4096, 1);
    const b = randomBytes(0, 2);
    const c = randomBytes(10_000, 3);
    const { deps, calls } = withBulk(async (req) =>
      req.files.map((f, i): BulkUploadOutcome => (i === 0 ? { outcome: 'uploaded', instanceId: `id-${f.name}` } : i === 1 ? { outcome: 'instant', instanceId: 'id-b' } : { outcome: 'failed', code: 'HASH_MISMATCH', msg: 'bad' })),
    );
    const out = await uploadBatch(
      [{ source: new MemorySource('a.txt', a), parentId: 'p1' }, { source: new MemorySource('b', b) }, { source: new MemorySource('c', c) }],
      { conflict: 'keepBoth' },
      deps,
      new AbortController().signal,
    );
    expect(calls).toHaveLength(1);
    expect(calls[0]!.files).toEqual([
      { name: 'a.txt', size: 4096, sha256: sha(a), parentId: 'p1' },
      { name: 'b', size: 0, sha256: sha(b), parentId: undefined },
      { name: 'c', size: 10_000, sha256: sha(c), parentId: undefined },
    ]);
    expect(calls[0]!.bodies.map((x) => sha(x))).toEqual([sha(a), sha(b), sha(c)]);
    expect(out.map((r) => [r.outcome, r.instanceId, r.bytesSent])).toEqual([
      ['uploaded', 'id-a.txt', 4096],
      ['instant', 'id-b', 0],
      ['failed', undefined, 10_000],
    ]);
    expect(out[2]!.error).toBeInstanceOf(FileVerificationError);
  });

  it('a file that cannot be read or changed size fails alone and is not sent', async () => {
    const ok = new MemorySource('ok', randomBytes(100, 4));
    const shrunk = new MemorySource('shrunk', randomBytes(100, 5));
    Object.defineProperty(shrunk, 'size', { value: 200 });
    const { deps, calls } = withBulk(async (req) => req.files.map(() => ({ outcome: 'failed', code: 'SPACE_NOT_ENOUGH' })));
    const out = await uploadBatch([{ source: shrunk }, { source: ok }], { conflict: 'skip' }, deps, new AbortController().signal);
    expect(calls[0]!.files.map((f) => f.name)).toEqual(['ok']);
    expect(out[0]!.error).toBeInstanceOf(FileMissingError);
    expect(out[1]!.error).toBeInstanceOf(SpaceNotEnoughError);
  });

  it('retries a 5xx answer (nothing was filed) but not a lost connection (the server may have filed it)', async () => {
    const five = withBulk(async (req, n) => {
      if (n < 3) throw new HcsError(503, 1, 'busy', 'INTERNAL');
      return req.files.map(() => ({ outcome: 'uploaded', instanceId: 'x' }));
    });
    const out = await runWithClock(five.clock, uploadBatch([{ source: new MemorySource('f', randomBytes(10, 6)) }], { conflict: 'keepBoth' }, five.deps, new AbortController().signal));
    expect(five.calls).toHaveLength(3);
    expect(out[0]!.outcome).toBe('uploaded');

    const lost = withBulk(async () => {
      throw new TypeError('fetch failed');
    });
    await expect(uploadBatch([{ source: new MemorySource('f', randomBytes(10, 7)) }], { conflict: 'keepBoth' }, lost.deps, new AbortController().signal)).rejects.toBeInstanceOf(NetworkError);
    expect(lost.calls).toHaveLength(1);

    const refused = withBulk(async () => {
      throw new HcsError(400, 1, 'bad manifest', 'VALIDATION_FAILED');
    });
    await expect(uploadBatch([{ source: new MemorySource('f', randomBytes(10, 8)) }], { conflict: 'keepBoth' }, refused.deps, new AbortController().signal)).rejects.toBeInstanceOf(UploadFailedError);
    expect(refused.calls).toHaveLength(1);
  });

  it('plans batches within the file and byte limits, in order', () => {
    const size = (n: number) => n;
    expect(planBatches([1, 1, 1], size, 2).map((b) => b.length)).toEqual([2, 1]);
    expect(planBatches([5, 5, 5], size, 10, 10).map((b) => b.length)).toEqual([2, 1]);
    expect(planBatches([20, 1], size, 10, 10).map((b) => b.length)).toEqual([1, 1]);
    expect(planBatches([], size, 10)).toEqual([]);
  });
});
