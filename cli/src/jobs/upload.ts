// `drive upload` as small named steps: scan, load job state, create folders, transfer through a queue,
// report. Every file's outcome is an event; the job never stops for one file's failure.
import { resolve } from 'node:path';
import type { Api } from '../api.ts';
import { toCliError } from '../api.ts';
import { encodeName } from '@hcs/openapi/client';
import { planBatches } from '@hcs/transfer-core';
import type { Reporter } from '../events.ts';
import { HashCache, sha256File } from '../hash-cache.ts';
import { formatRemote, parseRemote, RemoteFs } from '../remote-path.ts';
import { JobStats } from '../stats.ts';
import { TransferError, type Transfer } from '../transfer-types.ts';
import { JobState } from './job-state.ts';
import { runQueue } from './queue.ts';
import { scanSources, type LocalFile } from './scan.ts';

export type Conflict = 'newVersion' | 'keepBoth' | 'skip';

export interface UploadJobOptions {
  sources: string[];
  to: string;
  concurrency: number;
  conflict: Conflict;
  restart: boolean;
  /** Upload into this folder (by id) instead of resolving `to`, which then only names it in events (the local agent). */
  targetId?: string;
  /** Links are followed only inside the folder they were found in (see ScanOptions). */
  confine?: boolean;
}

/** What identifies an upload job's state: the same inputs resume the same journal. */
export function uploadJobKey(account: JobContext['account'], opts: UploadJobOptions): unknown {
  const parsed = parseRemote(opts.to);
  const to = formatRemote(parsed.space, parsed.segments);
  const key = { ...account, sources: opts.sources.map((s) => resolve(s)), to, conflict: opts.conflict };
  return opts.targetId ? { ...key, targetId: opts.targetId } : key;
}

export interface JobContext {
  api: Api;
  /** The transfer engine for a job, given the path its resume records go to. */
  transfer: (resumePath: string) => Transfer;
  reporter: Reporter;
  stateDir: string;
  /** Identity of the account, part of the job key so two accounts never share state. */
  account: { server: string; user: string };
  signal: AbortSignal;
}

export function errorInfo(err: unknown): { code: string; message: string } {
  if (err instanceof TransferError) return { code: err.code, message: err.message };
  // The engine's typed errors (spec section 8 codes) and Node system errors carry a string code.
  if (err instanceof Error && err.name !== 'HcsError' && err.name !== 'CliError' && typeof (err as { code?: unknown }).code === 'string') {
    return { code: (err as unknown as { code: string }).code, message: err.message };
  }
  const e = toCliError(err);
  return { code: e.code, message: e.message };
}

/** Bulk requests in flight at once: enough to keep reading, hashing and the server's filing overlapped. */
const MAX_BATCHES_IN_FLIGHT = 4;
const BATCH_MAX_FILES = 256;
const BATCH_MAX_BYTES = 8 * 1024 * 1024;

/**
 * Groups small files into bulk requests, in scan order: at most 256 files and 8 MiB each, and no fewer batches
 * than workers while there are enough files, so a few hundred files still travel in parallel.
 */
export function batchesOf(files: readonly LocalFile[], workers: number): LocalFile[][] {
  const perBatch = Math.max(16, Math.min(BATCH_MAX_FILES, Math.ceil(files.length / Math.max(1, workers))));
  return planBatches(files, (f) => f.size, perBatch, BATCH_MAX_BYTES);
}

export async function runUpload(ctx: JobContext, opts: UploadJobOptions): Promise<JobStats> {
  const { reporter, signal } = ctx;
  const stats = new JobStats();
  const emit: Reporter['emit'] = (e) => {
    stats.apply(e);
    reporter.emit(e);
  };
  const { space, segments: targetSegs } = parseRemote(opts.to);
  const target = formatRemote(space, targetSegs);

  // Step 1: what to send.
  const scan = await scanSources(opts.sources, { confine: opts.confine });
  // Step 2: what an earlier run of the same command already finished.
  const state = await JobState.open(ctx.stateDir, 'upload', uploadJobKey(ctx.account, opts), { restart: opts.restart });
  const cache = new HashCache(ctx.stateDir);
  await cache.load();
  const transfer = ctx.transfer(state.path.replace(/\.jsonl$/, '.engine.json'));
  try {
    const pending: LocalFile[] = [];
    let doneBytes = 0;
    let doneFiles = 0;
    for (const f of scan.files) {
      if (state.isDone(f.rel.join('/'), f.size, f.mtimeMs)) {
        doneFiles++;
        doneBytes += f.size;
      } else pending.push(f);
    }
    const totalBytes = scan.files.reduce((a, f) => a + f.size, 0);
    emit({ type: 'start', job: 'upload', files: scan.files.length + scan.problems.length, bytes: totalBytes, alreadyDone: doneFiles, alreadyDoneBytes: doneBytes, target });
    for (const p of scan.problems) emit({ type: 'file-failed', path: p.path, bytes: 0, code: p.code, message: p.message });

    // Step 3: folders, parents first; a folder that cannot be created fails only the files under it.
    const fs = new RemoteFs(ctx.api);
    const folderIds = new Map<string, string>();
    const folderErrors = new Map<string, { code: string; message: string }>();
    // Folders are made from the target's space root (a department's too), or from the agent's given folder.
    const baseId = opts.targetId ?? (await fs.root(space));
    const targetId = opts.targetId ?? (await fs.ensureFolder(targetSegs, undefined, baseId));
    const needed = new Set<string>();
    for (const f of pending) for (let i = 1; i < f.rel.length; i++) needed.add(f.rel.slice(0, i).join('/'));
    for (const d of scan.dirs) needed.add(d.join('/'));
    const ordered = [...needed].sort((a, b) => a.split('/').length - b.split('/').length || a.localeCompare(b));
    const cacheByAbsPath = new Map<string, string>();
    for (const rel of ordered) {
      if (signal.aborted) break;
      const parentRel = rel.includes('/') ? rel.slice(0, rel.lastIndexOf('/')) : '';
      if (parentRel && !folderIds.has(parentRel)) continue;
      try {
        const segs = opts.targetId ? rel.split('/') : [...targetSegs, ...rel.split('/')];
        folderIds.set(rel, await fs.ensureFolder(segs, cacheByAbsPath, baseId));
      } catch (err) {
        if (signal.aborted) break;
        folderErrors.set(rel, errorInfo(err));
      }
    }

    // Step 4: the transfers. Small files go many to a request (bulk-upload); the rest, and any file that was in
    // flight when an earlier run died (it needs the already-registered check below), one by one.
    const small: LocalFile[] = [];
    const single: LocalFile[] = [];
    for (const f of pending) (f.size <= transfer.maxBatchFileSize && !state.session(f.rel.join('/')) ? small : single).push(f);
    const parentOf = (f: LocalFile): string | undefined => {
      const parentRel = f.rel.slice(0, -1).join('/');
      return parentRel ? folderIds.get(parentRel) : targetId;
    };
    const parentMissing = (f: LocalFile) => {
      const parentRel = f.rel.slice(0, -1).join('/');
      const cause = folderErrors.get(parentRel) ?? { code: 'PARENT_MISSING', message: `folder ${parentRel} could not be created` };
      emit({ type: 'file-failed', path: f.abs, bytes: f.size, code: cause.code, message: cause.message });
    };
    const batchWorkers = Math.max(1, Math.min(opts.concurrency, MAX_BATCHES_IN_FLIGHT));
    const batches = batchesOf(small, batchWorkers);
    const runBatch = async (batch: LocalFile[]) => {
      const files = batch.flatMap((f) => {
        const parentId = parentOf(f);
        if (!parentId) {
          parentMissing(f);
          return [];
        }
        return [{ f, parentId }];
      });
      if (files.length === 0) return;
      for (const { f } of files) emit({ type: 'file-start', path: f.abs, bytes: f.size });
      // Marked in flight first: if this run dies while the server files the batch, the next run checks before
      // sending a file again (see the single-file path), so keepBoth never makes "name (1)" copies of it.
      await Promise.all(files.map(({ f }) => state.markSession(f.rel.join('/'), 'in-flight')));
      let results;
      try {
        results = await transfer.uploadBatch(
          files.map(({ f, parentId }) => ({ path: f.abs, size: f.size, name: f.rel[f.rel.length - 1]!, parentId })),
          opts.conflict,
          signal,
        );
      } catch (err) {
        if (signal.aborted) return;
        const info = errorInfo(err);
        for (const { f } of files) emit({ type: 'file-failed', path: f.abs, bytes: f.size, code: info.code, message: info.message });
        return;
      }
      await Promise.all(
        results.map(async (r, k) => {
          const { f } = files[k]!;
          const remote = formatRemote(space, [...targetSegs, ...f.rel]);
          if (r.outcome === 'failed' || !r.instanceId) {
            const info = r.error ? errorInfo(r.error) : { code: 'UPLOAD_FAILED', message: 'upload failed' };
            emit({ type: 'file-failed', path: f.abs, bytes: f.size, code: info.code, message: info.message });
            return;
          }
          await state.markDone(f.rel.join('/'), { size: f.size, mtime: f.mtimeMs, id: r.instanceId, sha: r.sha256 });
          const outcome = r.outcome === 'skipped' ? 'skipped' : r.outcome === 'instant' ? 'instant' : 'uploaded';
          emit({ type: 'file-done', path: f.abs, bytes: f.size, outcome, remote, ...(outcome === 'skipped' ? {} : { sent: r.bytesSent }) });
        }),
      );
    };
    const bulk = runQueue(batches, batchWorkers, signal, runBatch);

    const singles = runQueue(single, opts.concurrency, signal, async (f) => {
      const relPath = f.rel.join('/');
      const parentId = parentOf(f);
      if (!parentId) {
        parentMissing(f);
        return;
      }
      const name = f.rel[f.rel.length - 1]!;
      const remote = formatRemote(space, [...targetSegs, ...f.rel]);
      emit({ type: 'file-start', path: f.abs, bytes: f.size });
      try {
        if (opts.conflict === 'skip') {
          const exists = await ctx.api.call((c) =>
            c.GET('/hcs/controller/API/check-file-exist', { params: { query: { parentId, instanceName: encodeName(name) } }, signal }),
          );
          if (exists.data?.data === 1) {
            await state.markDone(relPath, { size: f.size, mtime: f.mtimeMs, id: exists.data.instanceId ?? exists.msg });
            emit({ type: 'file-done', path: f.abs, bytes: f.size, outcome: 'skipped', remote });
            return;
          }
        }
        let cachedSha = cache.get(f.abs, f.size, f.mtimeMs);
        if (state.session(relPath)) {
          cachedSha ??= await sha256File(f.abs, { signal });
          void cache.set(f.abs, f.size, f.mtimeMs, cachedSha);
          // The file was in flight when the last run died: it may have been registered just before, with
          // the journal line lost. Same name, size and hash in the folder means it is done.
          const existing = await fs.findChild(parentId, name);
          if (existing && existing.classifierId === 'File' && existing.fSize === f.size && existing.fMd5 === cachedSha) {
            await state.markDone(relPath, { size: f.size, mtime: f.mtimeMs, id: existing.instanceId, sha: cachedSha });
            emit({ type: 'file-done', path: f.abs, bytes: f.size, outcome: 'uploaded', remote, sent: 0 });
            return;
          }
        }
        // Marked in flight before any byte moves, so a crash leads the next run to the check above.
        await state.markSession(relPath, state.session(relPath) ?? 'in-flight');
        const res = await transfer.upload({
          path: f.abs,
          size: f.size,
          name,
          parentId,
          conflict: opts.conflict === 'keepBoth' ? 'keepBoth' : 'newVersion',
          sha256: cachedSha,
          resumeFId: state.session(relPath) === 'in-flight' ? undefined : state.session(relPath),
          signal,
          onProgress: (loaded, total, phase) => emit({ type: 'progress', path: f.abs, loaded, bytes: total, phase }),
          onHashed: (sha) => void cache.set(f.abs, f.size, f.mtimeMs, sha),
          onSession: (fId) => void state.markSession(relPath, fId),
        });
        await state.markDone(relPath, { size: f.size, mtime: f.mtimeMs, id: res.instanceId, sha: res.sha256 });
        emit({ type: 'file-done', path: f.abs, bytes: f.size, outcome: res.instant ? 'instant' : 'uploaded', remote, sent: res.bytesSent });
      } catch (err) {
        // An interrupted file is neither done nor failed: the next run resumes it.
        if (signal.aborted) return;
        const info = errorInfo(err);
        if (info.code === 'HASH_MISMATCH') cache.forget(f.abs);
        emit({ type: 'file-failed', path: f.abs, bytes: f.size, code: info.code, message: info.message });
      }
    });
    await Promise.all([bulk, singles]);
  } finally {
    await state.close();
    await cache.close();
  }
  emit(stats.summary(signal.aborted));
  return stats;
}

