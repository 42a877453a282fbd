// Step 1 of an upload: turn the LOCAL arguments into a flat list of files (and empty folders) with their
// remote relative paths, like `cp -r`: `drive upload dir --to /x` puts dir's tree under /x/dir.
import { lstat, opendir, realpath, stat } from 'node:fs/promises';
import { basename, join, resolve, sep } from 'node:path';
import { usageError } from '../exit-codes.ts';
import { nameProblem } from '../remote-path.ts';

export interface LocalFile {
  abs: string;
  /** Remote path segments relative to the target folder. */
  rel: string[];
  size: number;
  mtimeMs: number;
}

export interface ScanResult {
  files: LocalFile[];
  /** Every folder to exist remotely (relative segments), parents before children. */
  dirs: string[][];
  /** Entries that cannot be uploaded, reported as failures without stopping the job. */
  problems: Array<{ path: string; code: string; message: string }>;
}

export interface ScanOptions {
  /**
   * Follow a link to a file only when its target lies inside the folder the user named (real paths compared), so
   * nothing outside what was picked is read (the local agent). Off for `drive upload`, which follows them all.
   */
  confine?: boolean;
}

export async function scanSources(sources: readonly string[], opts: ScanOptions = {}): Promise<ScanResult> {
  const out: ScanResult = { files: [], dirs: [], problems: [] };
  if (sources.length === 0) throw usageError('nothing to upload: name at least one local file or folder');
  for (const src of sources) {
    const abs = resolve(src);
    let st;
    try {
      st = await stat(abs);
    } catch {
      throw usageError(`no such local file or folder: ${src}`);
    }
    const name = basename(abs);
    if (!name) throw usageError(`cannot upload the filesystem root: ${src}`);
    if (st.isFile()) {
      const problem = nameProblem(name);
      if (problem) out.problems.push({ path: abs, code: 'NAME_INVALID', message: problem });
      else out.files.push({ abs, rel: [name], size: st.size, mtimeMs: Math.trunc(st.mtimeMs) });
    } else if (st.isDirectory()) {
      await walk(abs, [name], out, opts.confine ? await realpath(abs) : undefined);
    } else {
      throw usageError(`not a regular file or folder: ${src}`);
    }
  }
  const seen = new Set<string>();
  out.files = out.files.filter((f) => {
    const k = f.rel.join('/');
    if (seen.has(k)) {
      out.problems.push({ path: f.abs, code: 'DUPLICATE', message: `two sources map to the same remote path ${k}` });
      return false;
    }
    seen.add(k);
    return true;
  });
  return out;
}

function inside(root: string, path: string): boolean {
  return path === root || path.startsWith(root.endsWith(sep) ? root : root + sep);
}

/** `confinedTo`: the real path of the named folder when links must stay inside it. */
async function walk(dirAbs: string, rel: string[], out: ScanResult, confinedTo?: string): Promise<void> {
  const problem = nameProblem(rel[rel.length - 1]!);
  if (problem) {
    out.problems.push({ path: dirAbs, code: 'NAME_INVALID', message: `${problem} (folder skipped)` });
    return;
  }
  out.dirs.push(rel);
  const entries: string[] = [];
  const dir = await opendir(dirAbs);
  for await (const e of dir) entries.push(e.name);
  entries.sort();
  for (const name of entries) {
    const abs = join(dirAbs, name);
    let st;
    try {
      st = await lstat(abs);
      // A link to a file is uploaded as that file; links to folders are not followed (they can loop).
      if (st.isSymbolicLink()) {
        const target = await stat(abs);
        if (!target.isFile()) {
          out.problems.push({ path: abs, code: 'SYMLINK_SKIPPED', message: 'symbolic link to a folder is not followed' });
          continue;
        }
        if (confinedTo !== undefined && !inside(confinedTo, await realpath(abs))) {
          out.problems.push({ path: abs, code: 'SYMLINK_SKIPPED', message: 'symbolic link to a file outside the chosen folder is not followed' });
          continue;
        }
        st = target;
      }
    } catch (err) {
      out.problems.push({ path: abs, code: 'UNREADABLE', message: (err as Error).message });
      continue;
    }
    if (st.isDirectory()) await walk(abs, [...rel, name], out, confinedTo);
    else if (st.isFile()) {
      const bad = nameProblem(name);
      if (bad) out.problems.push({ path: abs, code: 'NAME_INVALID', message: bad });
      else out.files.push({ abs, rel: [...rel, name], size: st.size, mtimeMs: Math.trunc(st.mtimeMs) });
    } else out.problems.push({ path: abs, code: 'NOT_A_FILE', message: 'not a regular file (skipped)' });
  }
}
