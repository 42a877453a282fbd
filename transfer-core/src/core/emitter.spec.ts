import { describe, expect, it, vi } from 'vitest';
import { Emitter } from './emitter.ts';

describe('Emitter', () => {
  it('calls the listeners present when the event fired; one subscribed meanwhile hears only later events', () => {
    const e = new Emitter<{ tick: number }>();
    const late: number[] = [];
    const off = e.on('tick', () => {
      off();
      e.on('tick', (n) => void late.push(n));
    });
    e.emit('tick', 1);
    e.emit('tick', 2);
    expect(late).toEqual([2]);
  });

  it('a throwing listener is reported and the others still hear the event', () => {
    const e = new Emitter<{ tick: number }>();
    const heard: number[] = [];
    e.on('tick', () => {
      throw new Error('listener bug');
    });
    e.on('tick', (n) => void heard.push(n));
    const reported = vi.spyOn(console, 'error').mockImplementation(() => {});
    try {
      e.emit('tick', 7);
      // Not swallowed silently: developers see the bug in the console.
      expect(reported).toHaveBeenCalledTimes(1);
    } finally {
      reported.mockRestore();
    }
    expect(heard).toEqual([7]);
  });
});
