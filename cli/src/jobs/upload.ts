// `drive upload` as small named steps: scan, load job state, create folders, transfer through a queue,
// report. Every file's outcome is an event; the job never stops for one file's failure.
import { resolve } from 'node:path';
import type { Api } from '../api.ts';
import { toCliError } from '../api.ts';
import { encodeName } from '@hcs/openapi/client';
import type { Reporter } from '../events.ts';
import { HashCache, sha256File } from '../hash-cache.ts';
import { formatRemotePath, parseRemotePath, RemoteFs } from '../remote-path.ts';
import { JobStats } from '../stats.ts';
import type { Transfer } from '../transfer.ts';
import { TransferError } from '../transfer.ts';
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

export async function runUpload(ctx: JobContext, opts: UploadJobOptions): Promise<JobStats> {
  const { reporter, signal } = ctx;
  const stats = new JobStats();
  const emit: Reporter['emit'] = (e) => {
    stats.apply(e);
    reporter.emit(e);
  };
  const targetSegs = parseRemotePath(opts.to);
  const target = formatRemotePath(targetSegs);

  // Step 1: what to send.
  const scan = await scanSources(opts.sources);
  const key = { ...ctx.account, sources: opts.sources.map((s) => resolve(s)), to: target, conflict: opts.conflict };
  // Step 2: what an earlier run of the same command already finished.
  const state = await JobState.open(ctx.stateDir, 'upload', key, { restart: opts.restart });
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
    const targetId = await fs.ensureFolder(targetSegs);
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
        const segs = [...targetSegs, ...rel.split('/')];
        folderIds.set(rel, await fs.ensureFolder(segs, cacheByAbsPath));
      } catch (err) {
        if (signal.aborted) break;
        folderErrors.set(rel, errorInfo(err));
      }
    }

    // Step 4: the transfers.
    await runQueue(pending, opts.concurrency, signal, async (f) => {
      const relPath = f.rel.join('/');
      const parentRel = f.rel.slice(0, -1).join('/');
      const parentId = parentRel ? folderIds.get(parentRel) : targetId;
      if (!parentId) {
        const cause = folderErrors.get(parentRel) ?? { code: 'PARENT_MISSING', message: `folder ${parentRel} could not be created` };
        emit({ type: 'file-failed', path: f.abs, bytes: f.size, code: cause.code, message: cause.message });
        return;
      }
      const name = f.rel[f.rel.length - 1]!;
      const remote = formatRemotePath([...targetSegs, ...f.rel]);
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
  } finally {
    await state.close();
    await cache.close();
  }
  emit(stats.summary(signal.aborted));
  return stats;
}

