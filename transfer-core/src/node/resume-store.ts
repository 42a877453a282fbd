import { mkdir, open, readFile, rename, unlink } from 'node:fs/promises';
import { dirname } from 'node:path';
import type { ResumeStore } from '../ports/index.ts';

/**
 * ResumeStore as one JSON file, mode 0600 (it names files and sessions, and hash-wasm states hold file bytes).
 * Writes are serialised and atomic (temp file, fsync, rename), so a crash or kill -9 leaves the old or the new
 * state, never a torn one. One process per file: concurrent CLI runs should use separate state files.
 * Changes made while a write is in flight share the next write (group commit): a 16-file bulk upload changes
 * records several times per file, and one fsync per change would serialise the whole job on the disk.
 * A set/delete still resolves only once a write containing it is on disk.
 */
export function createFileResumeStore(path: string): ResumeStore {
  let data: Record<string, unknown> | undefined;
  let chain: Promise<unknown> = Promise.resolve();
  let writing: Promise<void> | undefined;
  let queued: Promise<void> | undefined;

  async function load(): Promise<Record<string, unknown>> {
    if (data) return data;
    try {
      const parsed: unknown = JSON.parse(await readFile(path, 'utf8'));
      data = parsed && typeof parsed === 'object' && !Array.isArray(parsed) ? (parsed as Record<string, unknown>) : {};
    } catch (err) {
      // Missing is normal; unreadable JSON (a foreign file) starts empty rather than blocking every transfer.
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT' && !(err instanceof SyntaxError)) throw err;
      data = {};
    }
    return data;
  }

  async function persist(): Promise<void> {
    const json = JSON.stringify(data ?? {});
    await mkdir(dirname(path), { recursive: true, mode: 0o700 });
    const tmp = `${path}.${process.pid}.${Date.now()}.tmp`;
    const fh = await open(tmp, 'w', 0o600);
    try {
      await fh.writeFile(json);
      await fh.sync();
    } finally {
      await fh.close();
    }
    try {
      await rename(tmp, path);
    } catch (err) {
      await unlink(tmp).catch(() => {});
      throw err;
    }
  }

  /** Persists the current data: now if idle, else once with every other change made during the current write. */
  function persistSoon(): Promise<void> {
    if (!writing) {
      writing = persist().finally(() => {
        writing = undefined;
      });
      return writing;
    }
    queued ??= writing
      .catch(() => {})
      .then(() => {
        queued = undefined;
        return persistSoon();
      });
    return queued;
  }

  function serial<T>(fn: () => Promise<T>): Promise<T> {
    const next = chain.then(fn, fn);
    chain = next.catch(() => {});
    return next;
  }

  return {
    get: <T>(key: string) => serial(async () => structuredClone((await load())[key]) as T | undefined),
    set: <T>(key: string, value: T) =>
      serial(async () => {
        (await load())[key] = JSON.parse(JSON.stringify(value));
      }).then(persistSoon),
    delete: (key: string) =>
      serial(async () => {
        const d = await load();
        if (!(key in d)) return false;
        delete d[key];
        return true;
      }).then((changed) => (changed ? persistSoon() : undefined)),
    keys: (prefix: string) => serial(async () => Object.keys(await load()).filter((k) => k.startsWith(prefix))),
  };
}
