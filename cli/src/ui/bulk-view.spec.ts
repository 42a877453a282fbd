import { describe, expect, it } from 'vitest';
import { createElement as h } from 'react';
import { render } from 'ink-testing-library';
import { BulkView, summaryText, type BulkViewProps } from './bulk-view.ts';

const base: BulkViewProps = {
  job: 'upload',
  finished: [],
  active: [],
  files: 3,
  done: 0,
  failed: 0,
  bytes: 3 * 1024 * 1024,
  bytesDone: 0,
  speed: 0,
  timeLeft: undefined,
};

describe('BulkView', () => {
  it('shows finished files above, active ones with a bar below, and the summary line last', () => {
    const props: BulkViewProps = {
      ...base,
      finished: [
        { key: '1', path: 'docs/a.txt', bytes: 1024, outcome: 'uploaded' },
        { key: '2', path: 'docs/b.txt', bytes: 2048, outcome: 'failed', message: '[002]: space not enough' },
      ],
      active: [{ path: 'docs/big.bin', bytes: 1000, loaded: 500, phase: 'transferring' }],
      done: 1,
      failed: 1,
      bytesDone: 1024 * 1024,
      speed: 1024 * 1024,
      timeLeft: 2,
    };
    const { lastFrame } = render(h(BulkView, props));
    const frame = lastFrame() ?? '';
    const lines = frame.split('\n');
    const idx = (s: string) => lines.findIndex((l) => l.includes(s));
    expect(idx('docs/a.txt')).toBeGreaterThanOrEqual(0);
    expect(frame).toContain('DONE');
    expect(frame).toContain('FAIL');
    expect(frame).toContain('[002]: space not enough');
    expect(lines[idx('docs/big.bin')]).toMatch(/send\s+█{10}░{10}\s+50%/);
    expect(idx('docs/a.txt')).toBeLessThan(idx('docs/big.bin'));
    expect(idx('docs/big.bin')).toBeLessThan(idx('Files 1/3'));
    expect(lines[idx('Files 1/3')]).toBe('Files 1/3 · 1.00MB of 3.00MB · 1.00MB/s · 2s left · 1 failed');
  });

  it('keeps finished items static while live rows change', () => {
    const first = { key: '1', path: 'a', bytes: 1, outcome: 'instant' };
    const { lastFrame, rerender, frames } = render(h(BulkView, { ...base, finished: [first], active: [{ path: 'b', bytes: 10, loaded: 1, phase: 'hashing' as const }] }));
    rerender(h(BulkView, { ...base, finished: [first], active: [{ path: 'b', bytes: 10, loaded: 9, phase: 'transferring' as const }] }));
    expect(lastFrame()).toContain(' 90% b');
    // The finished line is not repeated by the redraw of the live part.
    expect((lastFrame() ?? '').split('INSTANT').length - 1).toBe(1);
    expect(frames.length).toBeGreaterThanOrEqual(2);
  });

  it('summarises in-flight files beyond the limit and shows the pause notice', () => {
    const active = Array.from({ length: 5 }, (_, i) => ({ path: `f${i}`, bytes: 10, loaded: 0, phase: 'transferring' as const }));
    const frame = render(h(BulkView, { ...base, active, maxActive: 2, stopping: true })).lastFrame() ?? '';
    expect(frame).toContain('+3 more in flight');
    expect(frame).toContain('pausing: saving state');
  });

  it('formats the summary per spec 9 units', () => {
    expect(summaryText({ files: 10, done: 10, failed: 0, bytes: 5 * 1024 ** 3, bytesDone: 5 * 1024 ** 3, speed: 0, timeLeft: 3700 })).toBe(
      'Files 10/10 · 5.00GB of 5.00GB · 0.00B/s · 1h 1m left · 0 failed',
    );
  });
});
