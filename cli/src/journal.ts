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
  /** Lines appended while a write is in flight, written together by the next one. */
  private pending: string[] = [];
  private next: Promise<void> | undefined;
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

  /**
   * Appends one record; resolves once its line is written. Writes are serialised so lines never interleave,
   * and lines appended while one write is in flight go out together in the next (a bulk job appends several
   * lines per file; one write each was a visible share of the CLI's time).
   */
  append(record: T): Promise<void> {
    this.pending.push(JSON.stringify(record) + '\n');
    this.next ??= this.chain.then(async () => {
      const lines = this.pending.join('');
      this.pending = [];
      this.next = undefined;
      if (!this.fh) throw new Error(`journal ${this.path} is not open`);
      await this.fh.write(lines);
    });
    this.chain = this.next.catch(() => undefined);
    return this.next;
  }

  async close(): Promise<void> {
    await this.chain;
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
