import { describe, it, expect } from 'vitest';
import { formatSize } from './libraries.ts';

describe('formatSize (spec 9: 1024 steps, 2 decimals)', () => {
  it('formats capacity display text', () => {
    expect(formatSize(0)).toBe('0B');
    expect(formatSize(1023)).toBe('1023B');
    expect(formatSize(1024)).toBe('1KB');
    expect(formatSize(12 * 1024 ** 2)).toBe('12MB');
    expect(formatSize(2 * 1024 ** 3)).toBe('2GB');
    expect(formatSize(1.5 * 1024 ** 3)).toBe('1.5GB');
    expect(formatSize(1234567)).toBe('1.18MB');
    expect(formatSize(10 * 1024 ** 4)).toBe('10TB');
  });
});
