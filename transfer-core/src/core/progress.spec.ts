// Progress events are throttled, but the last one of a burst is never lost (it was: a transfer that stalled after a
// burst showed the progress from before the burst until its next event, in the web panel and the agent's rows).
import { describe, expect, it } from 'vitest';
import { FakeClock } from '../test/fake-clock.ts';
import { ProgressThrottle } from './progress.ts';

describe('ProgressThrottle', () => {
  it('emits the last update of a burst once the interval is up, once', () => {
    const clock = new FakeClock();
    let sent = 0;
    const t = new ProgressThrottle(clock, 250, () => sent++);
    t.push(false);
    expect(sent).toBe(1);
    clock.advance(100);
    t.push(false);
    t.push(false);
    expect(sent).toBe(1);
    clock.advance(150);
    expect(sent).toBe(2);
    clock.advance(1000);
    expect(sent).toBe(2);
  });

  it('a forced update goes at once and takes the pending one with it; a cancelled one is never sent', () => {
    const clock = new FakeClock();
    let sent = 0;
    const t = new ProgressThrottle(clock, 250, () => sent++);
    t.push(false);
    t.push(false);
    t.push(true);
    expect(sent).toBe(2);
    clock.advance(1000);
    expect(sent).toBe(2);
    t.push(false);
    clock.advance(10);
    t.push(false);
    t.cancel();
    clock.advance(1000);
    expect(sent).toBe(3);
    expect(clock.pending).toBe(0);
  });
});
