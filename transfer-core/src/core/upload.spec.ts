import { createHash } from 'node:crypto';
import { HcsError } from '@hcs/openapi/client';
import { describe, expect, it, vi } from 'vitest';
import { runWithClock } from '../test/fake-clock.ts';
import { harness, MiB } from '../test/harness.ts';
import { MemorySource, randomBytes } from '../test/memory-source.ts';
import { computeProof } from './hash.ts';
import { UploadTask, uploadRecordKey, type UploadRecord } from './upload.ts';
import { createWasmHasherFactory } from './wasm-hasher.ts';
import type { Transport } from '../ports/index.ts';

const sha = (b: Uint8Array) => createHash('sha256').update(b).digest('hex');

function setup(size: number, opts: { partSize?: number; seed?: number } = {}) {
  const h = harness();
  h.cp.partSize = opts.partSize;
  const source = new MemorySource('report.bin', randomBytes(size, opts.seed ?? 7));
  const task = new UploadTask({ source, target: { parentId: 'root' } }, h.deps);
  const statuses: string[] = [];
  task.events.on('status', (e) => statuses.push(e.to));
  return { ...h, source, task, statuses, run: () => runWithClock(h.clock, task.run()) };
}

function storedContent(h: ReturnType<typeof setup>, instanceId: string): Uint8Array | undefined {
  const f = h.cp.files.get(instanceId)!;
  return h.s3.objects.get(`/drive/${f.key}`);
}

describe('UploadTask: the upload protocol', () => {
  it('uploads a small file with one PUT and registers it', async () => {
    const t = setup(1000);
    await t.run();
    expect(t.task.status).toBe('success');
    expect(t.statuses).toEqual(['checking', 'uploading', 'success']);
    expect(t.s3.requests.map((r) => r.method)).toEqual(['PUT']);
    expect(sha(storedContent(t, t.task.result!.instanceId)!)).toBe(sha(t.source.data));
    expect(t.task.result).toMatchObject({ instant: false, fMd5: sha(t.source.data) });
    expect(t.store.map.size).toBe(0);
  });

  it('uploads a large file in parts, 3 in parallel, and merges them', async () => {
    const t = setup(23 * MiB + 5, { partSize: 5 * MiB });
    let maxInFlight = 0;
    t.s3.faults.push(() => {
      maxInFlight = Math.max(maxInFlight, t.s3.inFlight + 1);
      return undefined;
    });
    await t.run();
    expect(t.task.status).toBe('success');
    expect(t.statuses).toEqual(['checking', 'uploading', 'merging', 'success']);
    expect(t.s3.partRequests().map((r) => Number(r.query.get('partNumber'))).sort()).toEqual([1, 2, 3, 4, 5]);
    expect(maxInFlight).toBe(3);
    expect(sha(storedContent(t, t.task.result!.instanceId)!)).toBe(sha(t.source.data));
    expect(t.cp.calls.filter((c) => c === 'setPartInfo')).toHaveLength(5);
  });

  it('uploads an empty file', async () => {
    const t = setup(0);
    await t.run();
    expect(t.task.status).toBe('success');
    expect(t.task.result!.fMd5).toBe('e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855');
  });

  it('uses instant transfer with a proof of possession when the content exists', async () => {
    const t = setup(50_000);
    t.cp.seedFile('other.bin', t.source.data);
    await t.run();
    expect(t.task.status).toBe('success');
    expect(t.task.result!.instant).toBe(true);
    expect(t.statuses).toEqual(['checking', 'success']);
    expect(t.s3.requests).toHaveLength(0);
    expect(t.cp.calls).toContain('secondTransfer');
  });

  it('computes the proof as the SHA-256 of exactly the named range', async () => {
    const data = randomBytes(100_000, 3);
    const proof = await computeProof(new MemorySource('x', data), createWasmHasherFactory(), 33_333, 4096);
    expect(proof).toBe(sha(data.subarray(33_333, 33_333 + 4096)));
    await expect(computeProof(new MemorySource('x', data), createWasmHasherFactory(), 99_000, 4096)).rejects.toBeInstanceOf(RangeError);
  });

  it('a source returning short reads is "file information missing"', async () => {
    const t = setup(1000);
    t.source.read = async () => new Uint8Array(0);
    await t.run();
    expect(t.task.status).toBe('error');
    expect(t.task.error?.code).toBe('FILE_MISSING');
  });

  it('[102]: the empty-digest check itself', async () => {
    const t = setup(1000);
    const real = createWasmHasherFactory();
    t.deps.hasherFactory = {
      checkpoints: false,
      async create() {
        const h = await real.create();
        return { ...h, update: async () => {}, digest: () => h.digest() };
      },
    };
    const task = new UploadTask({ source: t.source, target: {} }, t.deps);
    await runWithClock(t.clock, task.run());
    expect(task.status).toBe('error');
    expect(task.error?.code).toBe('102');
  });

  it('[002]: not enough space', async () => {
    const t = setup(1000);
    t.cp.quota = 10;
    await t.run();
    expect(t.task.error?.code).toBe('002');
    expect(t.task.status).toBe('error');
  });

  it('[201]: a refused signature', async () => {
    const t = setup(1000);
    t.cp.failNext('signStorageRequest', new HcsError(403, 1, 'no', 'FORBIDDEN'));
    await t.run();
    expect(t.task.error?.code).toBe('201');
  });

  it('[302]: the direct PUT failing', async () => {
    const t = setup(1000);
    t.s3.failNext((r) => r.method === 'PUT', { status: 403 });
    await t.run();
    expect(t.task.error?.code).toBe('302');
  });

  it('[301]: the multipart initiation failing', async () => {
    const t = setup(11 * MiB, { partSize: 5 * MiB });
    t.s3.failNext((r) => r.query.has('uploads'), { status: 403 });
    await t.run();
    expect(t.task.error?.code).toBe('301');
  });

  it('[203]: failing to sign the merge', async () => {
    const t = setup(11 * MiB, { partSize: 5 * MiB });
    const sign = t.cp.signStorageRequest.bind(t.cp);
    t.cp.signStorageRequest = async (q) => {
      if (q.action === 'completeMultipart') throw new HcsError(403, 1, 'no', 'FORBIDDEN');
      return sign(q);
    };
    await t.run();
    expect(t.task.error?.code).toBe('203');
    expect(t.task.status).toBe('error');
  });

  it('retries a part answered 500 (3 times) and then succeeds', async () => {
    const t = setup(11 * MiB, { partSize: 5 * MiB });
    t.s3.failNext((r) => r.query.get('partNumber') === '2', { status: 500 }, 3);
    await t.run();
    expect(t.task.status).toBe('success');
    expect(t.s3.partRequests().filter((r) => r.query.get('partNumber') === '2')).toHaveLength(4);
  });

  it('[303]: a part failing 4 times fails the upload, keeping the other parts', async () => {
    const t = setup(11 * MiB, { partSize: 5 * MiB });
    t.s3.failNext((r) => r.query.get('partNumber') === '2', { status: 500 }, 4);
    await t.run();
    expect(t.task.status).toBe('error');
    expect(t.task.error?.code).toBe('303');
    // retry only from error; finished parts are not sent again
    const before = t.s3.partRequests().length;
    expect(t.task.retry()).toBe(true);
    await t.run();
    expect(t.task.status).toBe('success');
    const again = t.s3.partRequests().slice(before).map((r) => r.query.get('partNumber'));
    expect(again).toEqual(['2']);
  });

  it('a 401 calls the re-login hook and retries', async () => {
    const relogin = vi.fn(async () => {});
    const t = setup(1000);
    t.deps.onUnauthorized = relogin;
    const task = new UploadTask({ source: t.source, target: {} }, t.deps);
    t.cp.failNext('getFileUploadable', new HcsError(401, 401, 'login', 'UNAUTHENTICATED'), 2);
    await runWithClock(t.clock, task.run());
    expect(relogin).toHaveBeenCalledTimes(2);
    expect(task.status).toBe('success');
  });

  it('a part that outlives the 900 s timeout (after retries) ends in onTimeout', async () => {
    const t = setup(11 * MiB, { partSize: 5 * MiB });
    t.s3.failNext((r) => r.query.get('partNumber') === '3', { hang: true }, 4);
    await runWithClock(t.clock, t.task.run(), 900_000);
    expect(t.task.status).toBe('onTimeout');
    expect(t.task.error?.code).toBe('303');
    expect(t.clock.delays.filter((d) => d === 900_000).length).toBeGreaterThanOrEqual(4);
    expect(t.task.retry()).toBe(true);
    await t.run();
    expect(t.task.status).toBe('success');
  });

  it('pause cancels the in-flight part requests; resume sends only the unfinished parts', async () => {
    const t = setup(26 * MiB, { partSize: 5 * MiB });
    t.s3.failNext((r) => r.query.get('partNumber') === '4', { hang: true });
    t.cp.syncSpeed = 1e12;
    const running = t.task.run();
    await vi.waitFor(() => expect(t.s3.requests.some((r) => r.query.get('partNumber') === '4')).toBe(true));
    await vi.waitFor(() => expect(t.cp.calls.filter((c) => c === 'setPartInfo').length).toBeGreaterThanOrEqual(3));
    expect(t.task.pause()).toBe(true);
    await running;
    expect(t.task.status).toBe('pause');
    expect(t.s3.inFlight).toBe(0);
    expect(t.task.error).toBeUndefined();
    expect(t.task.retry()).toBe(false);
    const sentBefore = new Set(t.s3.partRequests().filter((r) => r.query.get('partNumber') !== '4').map((r) => r.query.get('partNumber')));
    expect(t.task.resume()).toBe(true);
    expect(t.task.status).toBe('ready');
    await t.run();
    expect(t.task.status).toBe('success');
    const counts = new Map<string, number>();
    for (const r of t.s3.partRequests()) counts.set(r.query.get('partNumber')!, (counts.get(r.query.get('partNumber')!) ?? 0) + 1);
    for (const n of sentBefore) expect(counts.get(n!)).toBe(1);
    expect(sha(storedContent(t, t.task.result!.instanceId)!)).toBe(sha(t.source.data));
  });

  it('reports the bytes of a part as storage receives them, not only when the part is done', async () => {
    const t = setup(20 * MiB, { partSize: 8 * MiB });
    t.cp.syncSpeed = 1e12;
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const s3 = t.s3;
    // Part 1 reports half its bytes sent, then waits: what the page sees meanwhile is the point of the test.
    const transport: Transport = {
      async request(req) {
        if (req.method === 'PUT' && new URL(req.url).searchParams.get('partNumber') === '1') {
          req.onUploadProgress?.(4 * MiB);
          await gate;
        }
        return s3.request(req);
      },
    };
    const task = new UploadTask({ source: t.source, target: { parentId: 'root' } }, { ...t.deps, transport, progressIntervalMs: 0 });
    const seen: number[] = [];
    task.events.on('progress', (p) => p.phase === 'transferring' && seen.push(p.loaded));
    const running = task.run();
    // Parts 2 and 3 (12 MiB) are done; part 1 has half of its 8 MiB on storage.
    await vi.waitFor(() => expect(seen.at(-1)).toBe(16 * MiB));
    expect(seen[1]).toBe(4 * MiB);
    release();
    await running;
    expect(task.status).toBe('success');
    expect(task.progress.loaded).toBe(20 * MiB);
  });

  it('sends the last progress of a burst once the interval is up, when the transfer then stalls', async () => {
    const t = setup(16 * MiB, { partSize: 8 * MiB });
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const s3 = t.s3;
    const transport: Transport = {
      async request(req) {
        if (req.method === 'PUT' && new URL(req.url).searchParams.get('partNumber') === '2') await gate;
        return s3.request(req);
      },
    };
    const task = new UploadTask({ source: t.source, target: { parentId: 'root' } }, { ...t.deps, transport });
    const seen: number[] = [];
    task.events.on('progress', (p) => p.phase === 'transferring' && seen.push(p.loaded));
    const running = task.run();
    // Part 1 is stored while part 2 waits; the clock has not moved, so its progress came within the interval.
    await vi.waitFor(() => expect(task.progress.loaded).toBe(8 * MiB));
    expect(seen.at(-1)).toBe(0);
    t.clock.advance(250);
    expect(seen.at(-1)).toBe(8 * MiB);
    release();
    await runWithClock(t.clock, running);
    expect(task.status).toBe('success');
  });

  it('resumes from another machine (empty local store) through getPartInfo + ListParts', async () => {
    const t = setup(26 * MiB, { partSize: 5 * MiB });
    t.s3.failNext((r) => r.query.get('partNumber') === '5', { status: 403 });
    await t.run();
    expect(t.task.status).toBe('error');
    // Part 6 finished on storage but its setPartInfo was lost: storage is authoritative.
    const session = [...t.cp.sessions.values()][0]!;
    const recorded = session.parts.map((p) => p.partNumber);
    t.store.map.clear();
    const other = new UploadTask({ source: new MemorySource('report.bin', t.source.data), target: { parentId: 'root' } }, t.deps);
    const before = t.s3.partRequests().length;
    await runWithClock(t.clock, other.run());
    expect(other.status).toBe('success');
    const resent = t.s3.partRequests().slice(before).map((r) => Number(r.query.get('partNumber')));
    expect(resent).toEqual([5]);
    expect(recorded).not.toContain(5);
    expect(t.cp.calls.filter((c) => c === 'getFileUploadable')).toHaveLength(1);
  });

  it('starts a new multipart upload when storage lost the old one (NoSuchUpload)', async () => {
    const t = setup(11 * MiB, { partSize: 5 * MiB });
    t.s3.failNext((r) => r.query.get('partNumber') === '3', { status: 403 });
    await t.run();
    t.s3.uploads.clear();
    t.task.retry();
    await t.run();
    expect(t.task.status).toBe('success');
    expect(sha(storedContent(t, t.task.result!.instanceId)!)).toBe(sha(t.source.data));
  });

  it('a server-side hash mismatch reports [202] and forgets the hash, so a retry hashes again', async () => {
    const t = setup(1000);
    t.cp.lieAboutHash = true;
    await t.run();
    expect(t.task.status).toBe('error');
    expect(t.task.error?.code).toBe('202');
    expect(t.cp.sessions.size).toBe(0);
    // The hash is forgotten: a retry hashes again (reads the file from the start).
    t.cp.lieAboutHash = false;
    t.source.reads.length = 0;
    t.task.retry();
    await t.run();
    expect(t.task.status).toBe('success');
    expect(t.source.reads[0]).toEqual({ offset: 0, length: 1000 });
  });

  it('save-instance ret 2 is the upload-security refusal', async () => {
    const t = setup(1000);
    t.cp.failNext('saveInstance', new HcsError(200, 2, 'blocked by policy', 'FORBIDDEN'));
    await t.run();
    expect(t.task.error?.code).toBe('UPLOAD_SECURITY');
    expect(t.task.error?.serverMessage).toBe('blocked by policy');
  });

  it('throttles to the server syncSpeed', async () => {
    const t = setup(16 * MiB, { partSize: 5 * MiB });
    t.cp.syncSpeed = 4 * MiB;
    await t.run();
    expect(t.task.status).toBe('success');
    // 16 MiB at 4 MiB/s with a 4 MiB burst: at least 3 s of waiting on the clock.
    expect(t.clock.now()).toBeGreaterThanOrEqual(3000);
  });

  it('keeps the hash across runs: a paused upload does not hash again', async () => {
    const t = setup(11 * MiB, { partSize: 5 * MiB });
    t.s3.failNext((r) => r.query.get('partNumber') === '1', { hang: true });
    const running = t.task.run();
    await vi.waitFor(() => expect(t.s3.inFlight).toBeGreaterThan(0));
    t.task.pause();
    await running;
    const rec = await t.store.get<UploadRecord>(uploadRecordKey(t.source, t.task.target));
    expect(rec?.hash).toBe(sha(t.source.data));
    t.source.reads.length = 0;
    t.task.resume();
    await t.run();
    expect(t.task.status).toBe('success');
    // Only part reads (5 MiB / 1 MiB), no 20 MiB hash chunk from offset 0 covering the file.
    expect(t.source.reads.every((r) => r.length <= 5 * MiB)).toBe(true);
  });

  it('delete aborts the session on the server and forgets the local record', async () => {
    const t = setup(11 * MiB, { partSize: 5 * MiB });
    t.s3.failNext((r) => r.query.get('partNumber') === '1', { hang: true });
    const running = t.task.run();
    await vi.waitFor(() => expect(t.s3.inFlight).toBeGreaterThan(0));
    await t.task.delete();
    await running;
    expect(t.task.status).toBe('deleted');
    expect(t.cp.calls).toContain('destroyPartInfo');
    expect(t.cp.sessions.size).toBe(0);
    expect(t.store.map.size).toBe(0);
    expect(t.task.resume()).toBe(false);
  });

  it('refuses files above 80 GB', async () => {
    const h = harness();
    const source = { name: 'huge', size: 85_899_345_921, identity: 'huge', read: async () => new Uint8Array() };
    const task = new UploadTask({ source, target: {} }, h.deps);
    await task.run();
    expect(task.error?.code).toBe('TOO_LARGE');
    expect(task.error?.messageKey).toBe('transfer.moreThan80GB');
  });
});

/**
 * A source that hands out slices (FileSource.slice, as a browser's File does): upload bodies are Blobs the transport
 * reads as it sends. `changed` makes the file unreadable from then on, as a browser's File whose file was edited.
 */
class SlicingSource extends MemorySource {
  readonly slices: Array<{ offset: number; length: number }> = [];
  changed = false;
  override async read(offset: number, length: number, signal?: AbortSignal): Promise<Uint8Array> {
    if (this.changed) throw new DOMException('the file changed', 'NotReadableError');
    return super.read(offset, length, signal);
  }
  slice(offset: number, length: number): Blob {
    this.slices.push({ offset, length });
    const bytes = this.data.slice(offset, Math.min(offset + length, this.data.byteLength));
    const changed = () => this.changed;
    // A Blob that fails to read once the file has changed, like a browser's file-backed slice.
    return new (class extends Blob {
      override async arrayBuffer(): Promise<ArrayBuffer> {
        if (changed()) throw new DOMException('the file changed', 'NotReadableError');
        return super.arrayBuffer();
      }
    })([bytes]);
  }
}

describe("UploadTask: bodies sent from the source's slices", () => {
  function sliced(size: number, partSize?: number) {
    const h = harness();
    h.cp.partSize = partSize;
    const source = new SlicingSource('report.bin', randomBytes(size, 11));
    const task = new UploadTask({ source, target: { parentId: 'root' } }, h.deps);
    return { ...h, source, task, run: () => runWithClock(h.clock, task.run()) };
  }
  const stored = (t: ReturnType<typeof sliced>) => t.s3.objects.get(`/drive/${t.cp.files.get(t.task.result!.instanceId)!.key}`)!;

  it('sends every part as a slice, reads nothing but the hashing pass, and stores the same bytes', async () => {
    const t = sliced(11 * MiB + 3, 5 * MiB);
    await t.run();
    expect(t.task.status).toBe('success');
    expect([...t.source.slices].sort((a, b) => a.offset - b.offset)).toEqual([
      { offset: 0, length: 5 * MiB },
      { offset: 5 * MiB, length: 5 * MiB },
      { offset: 10 * MiB, length: MiB + 3 },
    ]);
    // The reads are the hashing's: one pass over the file, in order, none of them again for a part.
    let end = 0;
    for (const r of t.source.reads) {
      expect(r.offset).toBe(end);
      end += r.length;
    }
    expect(end).toBe(t.source.size);
    expect(sha(stored(t))).toBe(sha(t.source.data));
  });

  it("sends a small file's single PUT as a slice", async () => {
    const t = sliced(1000);
    await t.run();
    expect(t.task.status).toBe('success');
    expect(t.source.slices).toEqual([{ offset: 0, length: 1000 }]);
    expect(sha(stored(t))).toBe(sha(t.source.data));
  });

  it('a file changed after hashing fails its parts like the network; the engine reads the range and says FILE_MISSING', async () => {
    const t = sliced(11 * MiB, 5 * MiB);
    // The file changes once hashing is over, when the first part's slice is taken.
    const slice = t.source.slice.bind(t.source);
    t.source.slice = (offset, length) => {
      t.source.changed = true;
      return slice(offset, length);
    };
    await t.run();
    expect(t.task.status).toBe('error');
    expect(t.task.error?.code).toBe('FILE_MISSING');
  });

  it("a network failure on a slice that still reads stays a network failure: retried, then the part's error", async () => {
    const t = sliced(11 * MiB, 5 * MiB);
    t.s3.failNext((r) => r.query.get('partNumber') === '2', { networkError: true }, 4);
    await t.run();
    expect(t.task.status).toBe('error');
    expect(t.task.error?.code).toBe('303');
    expect(t.s3.partRequests().filter((r) => r.query.get('partNumber') === '2')).toHaveLength(4);
  });
});
