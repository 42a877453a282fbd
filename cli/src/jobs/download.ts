// `drive download` as named steps: resolve the remote paths, list folder contents (getFolderInfo, paged),
// check every name is a safe local path segment, create folders, transfer through a queue, report.
// Names come from the server, so a hostile or corrupt name can never write outside --out.
import { mkdir, stat } from 'node:fs/promises';
import { resolve, sep } from 'node:path';
import type { Reporter } from '../events.ts';
import { sha256File } from '../hash-cache.ts';
import { formatRemote, formatRemotePath, notFound, parseRemote, RemoteFs, type Resolved } from '../remote-path.ts';
import { JobStats } from '../stats.ts';
import { TransferError } from '../transfer-types.ts';
import { JobState } from './job-state.ts';
import { runQueue } from './queue.ts';
import { errorInfo, type JobContext } from './upload.ts';

export interface DownloadJobOptions {
  remotes: string[];
  out: string;
  concurrency: number;
  overwrite: boolean;
  restart: boolean;
  /** Download these instances (by id) instead of resolving `remotes` (the local agent). */
  instanceIds?: string[];
}

/** What identifies a download job's state: the same inputs resume the same journal. */
export function downloadJobKey(account: JobContext['account'], opts: DownloadJobOptions): unknown {
  const out = resolve(opts.out);
  if (opts.instanceIds) return { ...account, instanceIds: opts.instanceIds, out };
  return { ...account, remotes: opts.remotes.map((r) => {
    const p = parseRemote(r);
    return formatRemote(p.space, p.segments);
  }), out };
}

interface RemoteFile {
  instanceId: string;
  rel: string[];
  size: number;
  sha256: string;
  remote: string;
}

/** Why a server-provided name cannot be a local path segment, or null when it can. */
export function unsafeSegment(name: string): string | null {
  if (name === '' || name === '.' || name === '..') return `unsafe name "${name}"`;
  if (/[/\\\0]/.test(name)) return `name contains a path separator or NUL: ${JSON.stringify(name)}`;
  return null;
}

/** Joins validated segments under root and proves the result stays inside it. */
export function safeJoin(root: string, segments: readonly string[]): string {
  for (const s of segments) {
    const bad = unsafeSegment(s);
    if (bad) throw new TransferError('UNSAFE_PATH', bad);
  }
  const full = resolve(root, ...segments);
  if (full !== root && !full.startsWith(root.endsWith(sep) ? root : root + sep)) throw new TransferError('UNSAFE_PATH', `path escapes the output folder: ${segments.join('/')}`);
  return full;
}


export async function runDownload(ctx: JobContext, opts: DownloadJobOptions): Promise<JobStats> {
  const { reporter, signal } = ctx;
  const stats = new JobStats();
  const emit: Reporter['emit'] = (e) => {
    stats.apply(e);
    reporter.emit(e);
  };
  const outRoot = resolve(opts.out);
  const fs = new RemoteFs(ctx.api);

  // Step 1: everything to fetch. Resolution errors are fatal (a typo should not half-run a job).
  const files: RemoteFile[] = [];
  const dirs: string[][] = [];
  const problems: Array<{ path: string; code: string; message: string }> = [];
  const sources: Array<() => Promise<Resolved>> = opts.instanceIds
    ? opts.instanceIds.map((id) => async () => {
        const instance = (await ctx.api.call((c) => c.GET('/hcs/controller/Instances/{id}', { params: { path: { id } }, signal }))).data;
        if (!instance) throw notFound(id);
        return { id: instance.instanceId, instance, segments: [instance.instanceName] };
      })
    : opts.remotes.map((remote) => () => fs.resolve(remote));
  for (const source of sources) {
    const r = await source();
    const segs = r.segments;
    if (r.instance && r.instance.classifierId === 'File') {
      files.push({ instanceId: r.id, rel: [r.instance.instanceName], size: r.instance.fSize, sha256: r.instance.fMd5 ?? '', remote: formatRemote(r.space, segs) });
      continue;
    }
    // A folder lands under its own name; the root lands directly in --out.
    const prefix = r.instance ? [r.instance.instanceName] : [];
    if (prefix.length) dirs.push(prefix);
    let cursor: string | undefined;
    for (;;) {
      signal.throwIfAborted();
      const page = (
        await ctx.api.call((c) =>
          c.GET('/hcs/controller/getFolderInfo', { params: { query: { instanceId: r.id, limit: 1000, ...(cursor ? { cursor } : {}) } }, signal }),
        )
      ).data;
      if (!page) break;
      for (const e of page.data) {
        const rel = [...prefix, ...e.pathNames.split('/').filter((s) => s !== '')];
        const remotePath = formatRemote(r.space, [...segs, ...e.pathNames.split('/').filter(Boolean)]);
        if (e.classifierId === 'Folder') dirs.push(rel);
        else if (e.syncStatus === '0') problems.push({ path: remotePath, code: 'SYNCING', message: 'syncing, wait to download' });
        else if (!e.fileInfo) problems.push({ path: remotePath, code: 'FILE_INFO_MISSING', message: 'valid file information missing' });
        else files.push({ instanceId: e.instanceId, rel, size: e.fileInfo.fileSize, sha256: e.fileInfo.fMd5, remote: remotePath });
      }
      if (!page.nextCursor) break;
      cursor = page.nextCursor;
    }
  }

  const state = await JobState.open(ctx.stateDir, 'download', downloadJobKey(ctx.account, opts), { restart: opts.restart });
  const transfer = ctx.transfer(state.path.replace(/\.jsonl$/, '.engine.json'));
  try {
    const pending: Array<RemoteFile & { dest: string }> = [];
    let doneFiles = 0;
    let doneBytes = 0;
    for (const f of files) {
      let dest: string;
      try {
        dest = safeJoin(outRoot, f.rel);
      } catch (err) {
        problems.push({ path: f.remote, ...errorInfo(err) });
        continue;
      }
      const rec = state.doneRecord(f.rel.join('/'));
      const local = await stat(dest).catch(() => null);
      if (rec && rec.id === f.instanceId && rec.sha === f.sha256 && local?.isFile() && local.size === f.size) {
        doneFiles++;
        doneBytes += f.size;
      } else pending.push({ ...f, dest });
    }
    emit({ type: 'start', job: 'download', files: files.length + problems.length, bytes: files.reduce((a, f) => a + f.size, 0), alreadyDone: doneFiles, alreadyDoneBytes: doneBytes, target: outRoot });
    for (const p of problems) emit({ type: 'file-failed', path: p.path, bytes: 0, code: p.code, message: p.message });

    // Step 2: local folders (including empty ones).
    for (const d of dirs) {
      try {
        await mkdir(safeJoin(outRoot, d), { recursive: true });
      } catch (err) {
        emit({ type: 'file-failed', path: formatRemotePath(d), bytes: 0, ...errorInfo(err) });
      }
    }

    // Step 3: the transfers.
    await runQueue(pending, opts.concurrency, signal, async (f) => {
      emit({ type: 'file-start', path: f.remote, bytes: f.size });
      try {
        await mkdir(resolve(f.dest, '..'), { recursive: true });
        const local = await stat(f.dest).catch(() => null);
        if (local) {
          // An existing file with the same content is kept; a different one only with --overwrite.
          if (local.isFile() && local.size === f.size && (await sha256File(f.dest, { signal })) === f.sha256) {
            await state.markDone(f.rel.join('/'), { size: f.size, mtime: Math.trunc(local.mtimeMs), id: f.instanceId, sha: f.sha256 });
            emit({ type: 'file-done', path: f.remote, bytes: f.size, outcome: 'skipped', remote: f.dest });
            return;
          }
          if (!opts.overwrite || !local.isFile()) {
            emit({ type: 'file-failed', path: f.remote, bytes: f.size, code: 'LOCAL_EXISTS', message: `${f.dest} exists with other content (use --overwrite)` });
            return;
          }
        }
        const res = await transfer.download({
          instanceId: f.instanceId,
          dest: f.dest,
          signal,
          onProgress: (loaded, total, phase) => emit({ type: 'progress', path: f.remote, loaded, bytes: total, phase }),
        });
        const st = await stat(f.dest);
        await state.markDone(f.rel.join('/'), { size: res.bytes, mtime: Math.trunc(st.mtimeMs), id: f.instanceId, sha: res.sha256 });
        emit({ type: 'file-done', path: f.remote, bytes: res.bytes, outcome: 'downloaded', remote: f.dest, sent: res.bytesFetched });
      } catch (err) {
        if (signal.aborted) return;
        emit({ type: 'file-failed', path: f.remote, bytes: f.size, ...errorInfo(err) });
      }
    });
  } finally {
    await state.close();
  }
  emit(stats.summary(signal.aborted));
  return stats;
}

