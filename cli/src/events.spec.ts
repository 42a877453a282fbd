import { describe, expect, it } from 'vitest';
import { JsonReporter, jsonLine, type BulkEvent } from './events.ts';
import { JobStats } from './stats.ts';

function sink() {
  const lines: string[] = [];
  return { out: { write: (s: string) => lines.push(s) } as unknown as NodeJS.WritableStream, lines };
}

describe('--json events', () => {
  it('is one JSON object per line with event and ts first', () => {
    const line = jsonLine({ type: 'file-done', path: '/a', bytes: 3, outcome: 'instant', remote: '/x/a' }, Date.UTC(2025, 0, 2));
    expect(line.endsWith('\n')).toBe(true);
    expect(line.trim().includes('\n')).toBe(false);
    expect(JSON.parse(line)).toEqual({ event: 'file-done', ts: '2025-01-02T00:00:00.000Z', path: '/a', bytes: 3, outcome: 'instant', remote: '/x/a' });
    expect(Object.keys(JSON.parse(line)).slice(0, 2)).toEqual(['event', 'ts']);
  });

  it('throttles progress per file but always reports completion', () => {
    let now = 1000;
    const { out, lines } = sink();
    const r = new JsonReporter(out, { intervalMs: 500, now: () => now });
    const p = (path: string, loaded: number): BulkEvent => ({ type: 'progress', path, loaded, bytes: 100, phase: 'transferring' });
    r.emit(p('a', 10));
    r.emit(p('a', 20)); // dropped: same file within 500 ms
    r.emit(p('b', 10)); // another file is not throttled by a
    now += 600;
    r.emit(p('a', 30));
    r.emit(p('a', 100)); // the last progress of a file always goes through
    r.emit({ type: 'file-done', path: 'a', bytes: 100, outcome: 'uploaded', remote: '/a' });
    const events = lines.map((l) => JSON.parse(l) as { event: string; path: string; loaded?: number });
    expect(events.map((e) => `${e.event}:${e.path}:${e.loaded ?? ''}`)).toEqual([
      'progress:a:10',
      'progress:b:10',
      'progress:a:30',
      'progress:a:100',
      'file-done:a:',
    ]);
  });
});

describe('JobStats', () => {
  it('counts done, failed, skipped and bytes, including an earlier run', () => {
    let now = 0;
    const s = new JobStats(() => now);
    s.apply({ type: 'start', job: 'upload', files: 4, bytes: 400, alreadyDone: 1, alreadyDoneBytes: 100, target: '/' });
    s.apply({ type: 'file-start', path: 'a', bytes: 100 });
    now = 1000;
    s.apply({ type: 'progress', path: 'a', loaded: 50, bytes: 100, phase: 'transferring' });
    expect(s.bytesDone).toBe(150);
    expect(s.speed()).toBeCloseTo(50, 5);
    s.apply({ type: 'file-done', path: 'a', bytes: 100, outcome: 'uploaded', remote: '/a' });
    s.apply({ type: 'file-done', path: 'b', bytes: 100, outcome: 'skipped', remote: '/b' });
    s.apply({ type: 'file-failed', path: 'c', bytes: 100, code: 'X', message: 'boom' });
    const sum = s.summary(false);
    expect(sum).toMatchObject({ files: 4, done: 3, failed: 1, skipped: 1, bytes: 400, bytesDone: 300, interrupted: false });
    expect(sum.failures).toEqual([{ path: 'c', code: 'X', message: 'boom' }]);
  });
});
