// The agent's progress updates to the web: throttled, but the last one of a burst is never lost (it was: a transfer
// that stalled after a burst showed the progress from before the burst until its next event).
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { ProgressThrottle } from './jobs.ts';

describe('ProgressThrottle', () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  it('sends the last update of a burst once the interval is up, once', () => {
    const sent: string[] = [];
    const t = new ProgressThrottle(250, (id) => sent.push(id));
    t.push('a', false);
    expect(sent).toEqual(['a']);
    t.push('a', false);
    t.push('a', false);
    expect(sent).toEqual(['a']);
    vi.advanceTimersByTime(250);
    expect(sent).toEqual(['a', 'a']);
    vi.advanceTimersByTime(1000);
    expect(sent).toEqual(['a', 'a']);
  });

  it('a forced update goes at once and takes the pending one with it; a forgotten job sends nothing more', () => {
    const sent: string[] = [];
    const t = new ProgressThrottle(250, (id) => sent.push(id));
    t.push('a', false);
    t.push('a', false);
    t.push('a', true);
    expect(sent).toEqual(['a', 'a']);
    vi.advanceTimersByTime(1000);
    expect(sent).toEqual(['a', 'a']);
    t.push('b', false);
    t.push('b', false);
    t.forget('b');
    vi.advanceTimersByTime(1000);
    expect(sent).toEqual(['a', 'a', 'b']);
  });
});
