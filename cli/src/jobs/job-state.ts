// State of one bulk job, keyed by the command's inputs (kind, server, user, sources, target, options), so
// running the same command again after Ctrl-C, a crash or kill -9 continues where it stopped: finished
// files are skipped without a server round trip and an interrupted upload resumes its server session.
import { createHash } from 'node:crypto';
import { join } from 'node:path';
import { Journal, readJournal } from '../journal.ts';

type Rec =
  | { t: 'head'; v: 1; kind: string; key: unknown; at: number }
  | { t: 'done'; p: string; size: number; mtime: number; id: string; sha?: string }
  | { t: 'session'; p: string; fId: string };

export function jobId(kind: string, key: unknown): string {
  return `${kind}-${createHash('sha256').update(JSON.stringify(key)).digest('hex').slice(0, 32)}`;
}

export class JobState {
  readonly path: string;
  private readonly done = new Map<string, Extract<Rec, { t: 'done' }>>();
  private readonly sessions = new Map<string, string>();
  private readonly journal: Journal<Rec>;
  /** True when an earlier run of this command left state behind. */
  resumed = false;

  private constructor(path: string) {
    this.path = path;
    this.journal = new Journal<Rec>(path);
  }

  static async open(stateDir: string, kind: string, key: unknown, opts: { restart?: boolean } = {}): Promise<JobState> {
    const state = new JobState(join(stateDir, 'jobs', `${jobId(kind, key)}.jsonl`));
    if (opts.restart) await state.journal.remove();
    const records = await readJournal<Rec>(state.path);
    for (const r of records) {
      if (r.t === 'done' && typeof r.p === 'string') {
        state.done.set(r.p, r);
        state.sessions.delete(r.p);
      } else if (r.t === 'session' && typeof r.p === 'string' && typeof r.fId === 'string') {
        state.sessions.set(r.p, r.fId);
      }
    }
    state.resumed = records.length > 0;
    await state.journal.open();
    if (records.length === 0) await state.journal.append({ t: 'head', v: 1, kind, key, at: Date.now() });
    return state;
  }

  /** Finished in an earlier run and unchanged since (same size and mtime). */
  isDone(p: string, size: number, mtime: number): boolean {
    const d = this.done.get(p);
    return !!d && d.size === size && d.mtime === mtime;
  }

  doneRecord(p: string): { id: string; size: number; sha?: string } | undefined {
    return this.done.get(p);
  }

  session(p: string): string | undefined {
    return this.sessions.get(p);
  }

  async markSession(p: string, fId: string): Promise<void> {
    if (this.sessions.get(p) === fId) return;
    this.sessions.set(p, fId);
    await this.journal.append({ t: 'session', p, fId });
  }

  async markDone(p: string, rec: { size: number; mtime: number; id: string; sha?: string }): Promise<void> {
    const r = { t: 'done' as const, p, ...rec };
    this.done.set(p, r);
    this.sessions.delete(p);
    await this.journal.append(r);
  }

  close(): Promise<void> {
    return this.journal.close();
  }
}
