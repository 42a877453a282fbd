// Append-only JSON-lines journals for job state and the hash cache. Appending one line per finished file
// keeps a 10,000-file job O(n) on disk and survives kill -9: a torn last line is simply ignored on replay.
import { mkdir, open, readFile, rename, rm, chmod, type FileHandle } from 'node:fs/promises';
import { dirname } from 'node:path';

export async function readJournal<T>(path: string): Promise<T[]> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw err;
  }
  const out: T[] = [];
  for (const line of text.split('\n')) {
    if (!line) continue;
    try {
      out.push(JSON.parse(line) as T);
    } catch {
      // A line cut short by a crash: everything before it is intact.
    }
  }
  return out;
}

export class Journal<T> {
  private fh: FileHandle | undefined;
  private chain: Promise<void> = Promise.resolve();
  private readonly path: string;
  constructor(path: string) {
    this.path = path;
  }

  /** Opens for appending (0600, directory 0700). */
  async open(): Promise<void> {
    await mkdir(dirname(this.path), { recursive: true, mode: 0o700 });
    this.fh = await open(this.path, 'a', 0o600);
    await chmod(this.path, 0o600);
  }

  /** Appends one record; writes are serialised so lines never interleave. */
  append(record: T): Promise<void> {
    const line = JSON.stringify(record) + '\n';
    this.chain = this.chain.then(async () => {
      if (!this.fh) throw new Error(`journal ${this.path} is not open`);
      await this.fh.write(line);
    });
    return this.chain;
  }

  async close(): Promise<void> {
    await this.chain.catch(() => undefined);
    await this.fh?.close();
    this.fh = undefined;
  }

  /** Replaces the journal with exactly these records (compaction), atomically. */
  async rewrite(records: T[]): Promise<void> {
    await mkdir(dirname(this.path), { recursive: true, mode: 0o700 });
    const tmp = `${this.path}.${process.pid}.tmp`;
    const fh = await open(tmp, 'w', 0o600);
    try {
      await fh.write(records.map((r) => JSON.stringify(r) + '\n').join(''));
      await fh.sync();
    } finally {
      await fh.close();
    }
    await rename(tmp, this.path);
  }

  async remove(): Promise<void> {
    await this.close();
    await rm(this.path, { force: true });
  }
}
