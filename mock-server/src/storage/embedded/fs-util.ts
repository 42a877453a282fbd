// Filesystem primitives for crash-safe updates: a file or directory becomes visible only by an
// atomic rename, after its content and the directory entry are on disk.
import { randomBytes } from 'node:crypto';
import { open, rename, rm, writeFile } from 'node:fs/promises';
import { basename, join } from 'node:path';

export function randomId(bytes = 12): string {
  return randomBytes(bytes).toString('hex');
}

/** fsync a directory so a rename or unlink inside it survives a power loss. */
export async function fsyncDir(dir: string): Promise<void> {
  const handle = await open(dir, 'r');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

export async function writeFileSynced(path: string, data: string | Buffer): Promise<void> {
  await writeFile(path, data, { flag: 'wx', flush: true });
}

/** Writes `data` to `target` atomically via a temp file in `tmpDir` (same filesystem). */
export async function writeFileAtomic(tmpDir: string, target: string, data: string | Buffer): Promise<void> {
  const tmp = join(tmpDir, `${basename(target)}.${randomId()}.tmp`);
  try {
    await writeFileSynced(tmp, data);
    await rename(tmp, target);
  } catch (err) {
    await rm(tmp, { force: true });
    throw err;
  }
}

/** Removes a directory tree so that it disappears at once: rename into tmp, then delete. */
export async function removeTreeAtomic(tmpDir: string, dir: string): Promise<void> {
  const graveyard = join(tmpDir, `${basename(dir)}.${randomId()}.removed`);
  try {
    await rename(dir, graveyard);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return;
    throw err;
  }
  await rm(graveyard, { recursive: true, force: true });
}

export function isNotFound(err: unknown): boolean {
  return (err as NodeJS.ErrnoException | undefined)?.code === 'ENOENT';
}
