// The shared transfer engine (@hcs/transfer-core with its Node adapters) against the real server: the same
// code the CLI and the web app run, talking to the real /hcs control plane and signing every S3 request there.
// Runs on the embedded store, and again on an external S3 (radosgw) when HCS_TEST_S3_ENDPOINT is set.
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { createHash, randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createHcsClient, encodeName, unwrap, type HcsClient } from '@hcs/openapi/client';
import {
  createDownloadSinkFactory,
  createEngineDeps,
  createFileSource,
  createHcsControlPlane,
  createResumeStore,
  downloadRecordKey,
  DownloadTask,
  DownloadVerificationError,
  FileVerificationError,
  SpaceNotEnoughError,
  UploadTask,
  type DownloadRecord,
  type EngineDeps,
  type UploadTarget,
} from '@hcs/transfer-core/node';
import { recordingTransport } from '../../transfer-core/src/test/recording-transport.ts';
import { startServer, type TestServer } from '../helpers/server.ts';

const MiB = 1024 * 1024;
const sha = (b: Uint8Array) => createHash('sha256').update(b).digest('hex');

function engineDeps(client: HcsClient, stateFile: string, extra: Partial<EngineDeps> = {}): EngineDeps {
  return createEngineDeps({
    controlPlane: createHcsControlPlane(client),
    resumeStore: createResumeStore(stateFile),
    retryBaseMs: 20,
    progressIntervalMs: 0,
    ...extra,
  });
}

/**
 * Closes the server without waiting for sockets fetch opened and never used: an aborted (paused) request can
 * leave undici holding a connected socket with no request on it, and Node counts such a connection as active,
 * so close() would wait for the 60 s headers timeout. Nothing of the test is in flight here.
 */
async function closeServer(srv: TestServer): Promise<void> {
  const closing = srv.close();
  srv.built.app.server.closeAllConnections();
  await closing;
}

interface Ctx {
  srv: TestServer;
  client: HcsClient;
  dir: string;
}

function engineSuite(label: string, env: Record<string, string> | undefined) {
  describe(label, () => {
    const c = {} as Ctx;
    let n = 0;
    /** A fresh path named `name` (each in its own folder, so the upload keeps the plain name). */
    const tmp = (name: string) => {
      const d = join(c.dir, `f${++n}`);
      mkdirSync(d);
      return join(d, name);
    };
    const writeTmp = (name: string, bytes: Uint8Array) => {
      const p = tmp(name);
      writeFileSync(p, bytes);
      return p;
    };

    async function upload(path: string, target: UploadTarget, deps: EngineDeps, name?: string): Promise<UploadTask> {
      const source = await createFileSource(path, name);
      try {
        const task = new UploadTask({ source, target }, deps);
        await task.run();
        return task;
      } finally {
        await source.close();
      }
    }

    /** Downloads with the engine into a fresh folder; returns the task and the folder. */
    async function download(instanceId: string, deps: EngineDeps): Promise<{ task: DownloadTask; out: string }> {
      const out = mkdtempSync(join(c.dir, 'dl-'));
      const task = new DownloadTask({ instanceId, sinks: createDownloadSinkFactory({ dir: out }) }, deps);
      await task.run();
      return { task, out };
    }

    async function mkdir(name: string): Promise<string> {
      const env = unwrap(await c.client.POST('/hcs/controller/Instances', { body: [{ libCode: 'NetDisk', classifierId: 'Folder', instanceName: encodeName(name) }] }));
      return env.data![0]!.instanceId;
    }

    async function fileInfo(instanceId: string) {
      return unwrap(await c.client.GET('/hcs/controller/API/getDownloadFileInfo', { params: { query: { instanceId } } })).data!;
    }

    /**
     * Part numbers storage holds for the unfinished upload of this content (the server's session, then ListParts).
     * A part whose body was already in when the pause cut its connection may still land after this look, so
     * callers bracket what a resume sends with `expectResent` rather than expecting this list to be final.
     */
    async function storedParts(bytes: Uint8Array, name: string): Promise<number[]> {
      const s = await createHcsControlPlane(c.client).getPartInfo({ fMd5: sha(bytes), fName: name });
      expect(s?.uploadId).toBeTruthy();
      const out: number[] = [];
      for await (const p of c.srv.built.ctx.store().listParts(s!.objectKey, s!.uploadId!)) out.push(p.partNumber);
      return out.sort();
    }

    /**
     * What a resume sent, given the parts storage held when we looked (`stored`) and the parts whose PUT was cut
     * by the pause (`cut`: sent, never answered, so each may or may not have landed since): never a stored part,
     * and every missing part except those cut ones.
     */
    function expectResent(resent: number[], all: number[], stored: number[], cut: number[]): void {
      const missing = all.filter((p) => !stored.includes(p));
      expect(resent.filter((p) => !missing.includes(p)), 'parts sent again although storage held them').toEqual([]);
      expect(missing.filter((p) => !cut.includes(p) && !resent.includes(p)), 'missing parts not sent').toEqual([]);
      expect(new Set(resent).size, 'a part sent twice').toBe(resent.length);
    }
    const cutParts = (t: { sent: Array<{ kind: string; status?: number; partNumber?: number }> }) =>
      t.sent.filter((r) => r.kind === 'uploadPart' && r.status === undefined).map((r) => r.partNumber!);

    beforeAll(async () => {
      c.srv = await startServer({ env });
      c.client = (await c.srv.login()).client;
      c.dir = mkdtempSync(join(tmpdir(), 'hcs-engine-'));
    });
    afterAll(async () => {
      rmSync(c.dir, { recursive: true, force: true });
      await closeServer(c.srv);
      expect(c.srv.violations).toEqual([]);
    });

    it('uploads a small file with one PUT and downloads it back byte for byte', async () => {
      const bytes = randomBytes(100_000);
      const t = recordingTransport();
      const task = await upload(writeTmp('small.bin', bytes), {}, engineDeps(c.client, tmp('state.json'), { transport: t }));
      expect(task.status, String(task.error)).toBe('success');
      expect(task.result).toMatchObject({ instant: false, fMd5: sha(bytes) });
      expect(t.sent.map((r) => r.kind)).toEqual(['putObject']);
      // Straight to the storage under test: the external endpoint, or the embedded store on the server's port.
      if (env?.HCS_S3_ENDPOINT) expect(t.sent[0]!.origin).toBe(new URL(env.HCS_S3_ENDPOINT).origin);
      else expect(new URL(t.sent[0]!.origin).port).toBe(new URL(c.srv.baseUrl).port);
      const info = await fileInfo(task.result!.instanceId);
      expect([info.filename, info.fileSize, info.fMd5]).toEqual(['small.bin', bytes.length, sha(bytes)]);
      const { task: d, out } = await download(task.result!.instanceId, engineDeps(c.client, tmp('state.json')));
      expect(d.status, String(d.error)).toBe('success');
      expect(readFileSync(join(out, 'small.bin')).equals(bytes)).toBe(true);
    });

    it('uploads and downloads an empty file', async () => {
      const task = await upload(writeTmp('empty.txt', new Uint8Array(0)), {}, engineDeps(c.client, tmp('state.json')));
      expect(task.status, String(task.error)).toBe('success');
      expect(task.result!.fMd5).toBe(sha(new Uint8Array(0)));
      const t = recordingTransport();
      const { task: d, out } = await download(task.result!.instanceId, engineDeps(c.client, tmp('state.json'), { transport: t }));
      expect(d.status, String(d.error)).toBe('success');
      expect(readFileSync(join(out, 'empty.txt')).length).toBe(0);
      expect(t.sent).toEqual([]);
    });

    // Shared by the multipart, instant-transfer and ranged-download cases: 3 parts at the server's 8 MiB.
    const big = randomBytes(2 * 8 * MiB + 123_457);
    let bigId = '';

    it('uploads a multi-part file: one multipart upload, 3 parts, one completion', async () => {
      const t = recordingTransport();
      const task = await upload(writeTmp('big.bin', big), {}, engineDeps(c.client, tmp('state.json'), { transport: t }));
      expect(task.status, String(task.error)).toBe('success');
      bigId = task.result!.instanceId;
      const kinds = t.sent.map((r) => r.kind);
      expect(kinds.filter((k) => k === 'initMultipart')).toHaveLength(1);
      expect(kinds.filter((k) => k === 'completeMultipart')).toHaveLength(1);
      expect(t.sent.filter((r) => r.kind === 'uploadPart').map((r) => r.partNumber).sort()).toEqual([1, 2, 3]);
      const info = await fileInfo(bigId);
      expect([info.fileSize, info.fMd5]).toEqual([big.length, sha(big)]);
    });

    it('downloads in ranged parts, verified byte for byte and by SHA-256', async () => {
      const t = recordingTransport();
      const { task, out } = await download(bigId, engineDeps(c.client, tmp('state.json'), { transport: t }));
      expect(task.status, String(task.error)).toBe('success');
      const got = readFileSync(join(out, 'big.bin'));
      expect(got.equals(big)).toBe(true);
      expect(sha(got)).toBe(sha(big));
      const ranges = t.sent.filter((r) => r.kind === 'getObject').map((r) => r.range).sort();
      expect(ranges).toEqual([`bytes=0-${8 * MiB - 1}`, `bytes=${16 * MiB}-${big.length - 1}`, `bytes=${8 * MiB}-${16 * MiB - 1}`].sort());
      expect(t.sent.every((r) => r.status === 206)).toBe(true);
      expect(readdirSync(out)).toEqual(['big.bin']);
    });

    it('instant transfer of the same content into another folder: proof of possession passes, nothing is sent', async () => {
      const folder = await mkdir(`instant-${n}`);
      const t = recordingTransport();
      const task = await upload(writeTmp('copy.bin', big), { parentId: folder }, engineDeps(c.client, tmp('state.json'), { transport: t }));
      expect(task.status, String(task.error)).toBe('success');
      expect(task.result!.instant).toBe(true);
      expect(task.result!.instanceId).not.toBe(bigId);
      expect(t.sent).toEqual([]);
      const { task: d, out } = await download(task.result!.instanceId, engineDeps(c.client, tmp('state.json')));
      expect(d.status, String(d.error)).toBe('success');
      expect(readFileSync(join(out, 'copy.bin')).equals(big)).toBe(true);
    });

    it('same name: newVersion replaces the content of the same file, keepBoth adds "name (1).ext"', async () => {
      const folder = await mkdir(`conflict-${n}`);
      const deps = () => engineDeps(c.client, tmp('state.json'));
      const v1 = randomBytes(3000);
      const first = await upload(writeTmp('a.txt', v1), { parentId: folder }, deps(), 'report.txt');
      expect(first.status, String(first.error)).toBe('success');
      const exists = await deps().controlPlane.checkFileExist({ parentId: folder, name: 'report.txt' });
      expect(exists).toEqual({ exists: true, instanceId: first.result!.instanceId, classifierId: 'File' });

      const v2 = randomBytes(4000);
      const nv = await upload(writeTmp('b.txt', v2), { parentId: folder, conflict: 'newVersion' }, deps(), 'report.txt');
      expect(nv.status, String(nv.error)).toBe('success');
      expect(nv.result!.instanceId).toBe(first.result!.instanceId);
      expect(await fileInfo(first.result!.instanceId)).toMatchObject({ filename: 'report.txt', fileSize: 4000, fMd5: sha(v2) });

      const v3 = randomBytes(5000);
      const kb = await upload(writeTmp('c.txt', v3), { parentId: folder, conflict: 'keepBoth' }, deps(), 'report.txt');
      expect(kb.status, String(kb.error)).toBe('success');
      expect(kb.result!.instanceId).not.toBe(first.result!.instanceId);
      expect(await fileInfo(kb.result!.instanceId)).toMatchObject({ filename: 'report (1).txt', fileSize: 5000, fMd5: sha(v3) });
      expect(await fileInfo(first.result!.instanceId)).toMatchObject({ fMd5: sha(v2) });
    });

    it('pause mid-upload, then resume: finished parts are never sent again', async () => {
      const bytes = randomBytes(4 * 8 * MiB + 1000); // 5 parts
      const path = writeTmp('paused.bin', bytes);
      const okParts: number[] = [];
      const t1 = recordingTransport((r) => {
        if (r.kind !== 'uploadPart' || r.status !== 200) return;
        okParts.push(r.partNumber!);
        if (okParts.length === 2) task.pause();
      });
      const state = tmp('state.json');
      const source = await createFileSource(path);
      const deps1 = engineDeps(c.client, state, { transport: t1 });
      const task = new UploadTask({ source, target: {} }, deps1);
      await task.run();
      expect(task.status).toBe('pause');
      expect(okParts.length).toBeGreaterThanOrEqual(2);
      const stored = await storedParts(bytes, 'paused.bin');
      expect(stored).toEqual(expect.arrayContaining(okParts));
      const cut = cutParts(t1);

      // The second run's requests are counted on their own.
      const t2 = t1;
      t2.sent = [];
      t2.after = undefined;
      expect(task.resume()).toBe(true);
      await task.run();
      await source.close();
      expect(task.status, String(task.error)).toBe('success');
      const resent = t2.sent.filter((r) => r.kind === 'uploadPart').map((r) => r.partNumber!);
      // Exactly the parts storage did not hold at the pause (a part answered just as the pause hit counts as held;
      // one cut mid-flight may have landed since).
      expectResent(resent, [1, 2, 3, 4, 5], stored, cut);
      expect(t2.sent.some((r) => r.kind === 'listParts')).toBe(true);
      expect(t2.sent.filter((r) => r.kind === 'initMultipart')).toEqual([]);
      const { task: d, out } = await download(task.result!.instanceId, engineDeps(c.client, tmp('state.json')));
      expect(d.status, String(d.error)).toBe('success');
      expect(readFileSync(join(out, 'paused.bin')).equals(bytes)).toBe(true);
    });

    it('resumes on another machine (new engine, empty local store) from the server part record and ListParts', async () => {
      const bytes = randomBytes(3 * 8 * MiB + 77); // 4 parts
      const path = writeTmp('roaming.bin', bytes);
      const okParts: number[] = [];
      const t1 = recordingTransport((r) => {
        if (r.kind !== 'uploadPart' || r.status !== 200) return;
        okParts.push(r.partNumber!);
        if (okParts.length === 2) first.pause();
      });
      const src1 = await createFileSource(path);
      const first = new UploadTask({ source: src1, target: {} }, engineDeps(c.client, tmp('machine-a.json'), { transport: t1 }));
      await first.run();
      await src1.close();
      expect(first.status).toBe('pause');
      const stored = await storedParts(bytes, 'roaming.bin');
      expect(stored).toEqual(expect.arrayContaining(okParts));
      const cut = cutParts(t1);

      const machineB = tmp('machine-b.json');
      expect(existsSync(machineB)).toBe(false);
      const t2 = recordingTransport();
      const second = await upload(path, {}, engineDeps(c.client, machineB, { transport: t2 }));
      expect(second.status, String(second.error)).toBe('success');
      expect(second.result!.instant).toBe(false);
      const sent2 = t2.sent.filter((r) => r.kind === 'uploadPart').map((r) => r.partNumber!);
      expectResent(sent2, [1, 2, 3, 4], stored, cut);
      expect(t2.sent.filter((r) => r.kind === 'initMultipart')).toEqual([]);
      expect(t2.sent.some((r) => r.kind === 'listParts')).toBe(true);
      expect(await fileInfo(second.result!.instanceId)).toMatchObject({ fileSize: bytes.length, fMd5: sha(bytes) });
    });

    it('quota exceeded: the upload ends in [002] and sends nothing to storage', async () => {
      const db = c.srv.sql;
      const admin = (await db.get("SELECT id, used_bytes AS used, quota_bytes AS quota FROM users WHERE user_name = 'admin'")) as { id: string; used: number; quota: number | null };
      await db.run('UPDATE users SET quota_bytes = ? WHERE id = ?', admin.used + 10, admin.id);
      try {
        const t = recordingTransport();
        const task = await upload(writeTmp('too-big.bin', randomBytes(5000)), {}, engineDeps(c.client, tmp('state.json'), { transport: t }));
        expect(task.status).toBe('error');
        expect(task.error).toBeInstanceOf(SpaceNotEnoughError);
        expect(task.error!.code).toBe('002');
        expect(t.sent).toEqual([]);
      } finally {
        await db.run('UPDATE users SET quota_bytes = ? WHERE id = ?', admin.quota, admin.id);
      }
    });

    it('a download paused and resumed fetches only the parts it did not have', async () => {
      const state = tmp('state.json');
      const out = mkdtempSync(join(c.dir, 'dl-'));
      const t = recordingTransport();
      const deps = engineDeps(c.client, state, { partConcurrency: 1, transport: t });
      const task = new DownloadTask({ instanceId: bigId, sinks: createDownloadSinkFactory({ dir: out }) }, deps);
      const off = task.events.on('progress', (p) => {
        if (p.loaded >= 8 * MiB + 1) task.pause();
      });
      await task.run();
      off();
      expect(task.status).toBe('pause');
      const firstRunDone = (await deps.resumeStore.get<DownloadRecord>(downloadRecordKey(bigId)))!.done;
      expect(firstRunDone).toEqual([1]);
      expect(existsSync(join(out, 'big.bin'))).toBe(false);
      expect(existsSync(join(out, 'big.bin.part'))).toBe(true);

      const t2 = t;
      t2.sent = [];
      expect(task.resume()).toBe(true);
      await task.run();
      expect(task.status, String(task.error)).toBe('success');
      expect(t2.sent.map((r) => r.range).sort()).toEqual([`bytes=${16 * MiB}-${big.length - 1}`, `bytes=${8 * MiB}-${16 * MiB - 1}`]);
      expect(readFileSync(join(out, 'big.bin')).equals(big)).toBe(true);
      expect(readdirSync(out)).toEqual(['big.bin']);
    });

    it('a session revoked mid-upload: onUnauthorized signs in again and the upload carries on', async () => {
      const bytes = randomBytes(8 * MiB + 4096); // 2 parts
      let token = (await c.srv.login()).token;
      const client = createHcsClient({ baseUrl: c.srv.baseUrl, token: () => token });
      let relogins = 0;
      const revoke = (t: string) =>
        c.srv.sql.run('UPDATE sessions SET revoked_at = ? WHERE id = ?', Date.now(), createHash('sha256').update(t).digest('hex'));
      const t = recordingTransport((r) => {
        if (r.kind === 'uploadPart' && relogins === 0) void revoke(token);
      });
      const deps = engineDeps(client, tmp('state.json'), {
        transport: t,
        partConcurrency: 1,
        onUnauthorized: async () => {
          relogins++;
          token = (await c.srv.login()).token;
        },
      });
      const task = await upload(writeTmp('relogin.bin', bytes), {}, deps);
      expect(task.status, String(task.error)).toBe('success');
      expect(relogins).toBe(1);
      expect(t.sent.filter((r) => r.kind === 'uploadPart').map((r) => r.partNumber)).toEqual([1, 2]);
      expect(await fileInfo(task.result!.instanceId)).toMatchObject({ fileSize: bytes.length, fMd5: sha(bytes) });
    });

    it('content that changed after hashing is refused ([202]: storage checks a single PUT against the signed SHA-256); the retry hashes again and stores what is really there', async () => {
      const original = randomBytes(200_000);
      const changed = Buffer.from(original);
      changed[123] = changed[123]! ^ 0x01;
      const path = writeTmp('moving.txt', original);
      const real = await createFileSource(path);
      // The first full pass (the hash) sees the original bytes; every read after it sees the edit, as if the
      // file were rewritten in place with the same size and mtime granularity.
      let hashed = 0;
      const source = {
        name: real.name,
        size: real.size,
        identity: real.identity,
        async read(offset: number, length: number, signal?: AbortSignal) {
          const first = hashed < real.size;
          const bytes = await real.read(offset, length, signal);
          if (first) {
            hashed += bytes.byteLength;
            return bytes;
          }
          return changed.subarray(offset, offset + bytes.byteLength);
        },
      };
      const deps = engineDeps(c.client, tmp('state.json'));
      const task = new UploadTask({ source, target: {} }, deps);
      await task.run();
      expect(task.status).toBe('error');
      expect(task.error).toBeInstanceOf(FileVerificationError);
      expect(task.error!.code).toBe('202');
      expect(await deps.controlPlane.getPartInfo({ fMd5: sha(original), fName: 'moving.txt' })).toBeNull();

      expect(task.retry()).toBe(true);
      await task.run();
      await real.close();
      expect(task.status, String(task.error)).toBe('success');
      expect(task.result!.fMd5).toBe(sha(changed));
      expect(await fileInfo(task.result!.instanceId)).toMatchObject({ fileSize: changed.length, fMd5: sha(changed) });
    });

    it('a tampered stored object is caught at download: typed hash error, no file left behind', async () => {
      const bytes = randomBytes(300_000);
      const up = await upload(writeTmp('victim.bin', bytes), {}, engineDeps(c.client, tmp('state.json')));
      expect(up.status, String(up.error)).toBe('success');
      const info = await fileInfo(up.result!.instanceId);
      const evil = Buffer.from(bytes);
      evil[150_000] = evil[150_000]! ^ 0xff;
      await c.srv.built.ctx.store().putObject(info.objectKey, evil, { contentLength: evil.length });
      const { task, out } = await download(up.result!.instanceId, engineDeps(c.client, tmp('state.json')));
      expect(task.status).toBe('error');
      expect(task.error).toBeInstanceOf(DownloadVerificationError);
      expect(task.error!.code).toBe('202');
      expect(readdirSync(out)).toEqual([]);
    });
  });
}

engineSuite('transfer engine on the embedded store', undefined);

const s3 = process.env.HCS_TEST_S3_ENDPOINT;
if (s3) {
  engineSuite(`transfer engine on external S3 (${process.env.HCS_TEST_S3_FLAVOR ?? 's3'} at ${s3})`, {
    HCS_S3_ENDPOINT: s3,
    HCS_S3_ACCESS_KEY: process.env.HCS_TEST_S3_ACCESS_KEY ?? '',
    HCS_S3_SECRET_KEY: process.env.HCS_TEST_S3_SECRET_KEY ?? '',
    HCS_S3_BUCKET: process.env.HCS_TEST_S3_BUCKET ?? 'hcs-engine-suite',
    HCS_S3_REGION: process.env.HCS_TEST_S3_REGION ?? 'us-east-1',
  });
} else {
  console.info('transfer engine on external S3: skipped, HCS_TEST_S3_ENDPOINT is not set (radosgw: bash tests/s3/radosgw.sh start && eval "$(bash tests/s3/radosgw.sh env)")');
  describe('transfer engine on external S3', () => {
    it.skip('skipped: set HCS_TEST_S3_ENDPOINT (+ _ACCESS_KEY, _SECRET_KEY, _BUCKET, _REGION), e.g. eval "$(bash tests/s3/radosgw.sh env)"', () => {});
  });
}
