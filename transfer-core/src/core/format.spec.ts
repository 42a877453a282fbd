import { describe, expect, it } from 'vitest';
import { formatSize, parseSize } from './format.ts';

describe('formatSize (1024 steps, 2 decimals)', () => {
  it.each([
    [0, '0.00B'],
    [1023, '1023.00B'],
    [1024, '1.00KB'],
    [1536, '1.50KB'],
    [12 * 1024 * 1024, '12.00MB'],
    [85899345920, '80.00GB'],
    [1073741824, '1.00GB'],
    [5 * 1024 ** 4, '5.00TB'],
    [2048 * 1024 ** 4, '2048.00TB'],
  ])('%d -> %s', (bytes, text) => expect(formatSize(bytes)).toBe(text));
  it('gives empty text for missing or invalid sizes', () => {
    expect(formatSize(undefined)).toBe('');
    expect(formatSize(-1)).toBe('');
    expect(formatSize(Number.NaN)).toBe('');
  });
});

describe('parseSize (the same 1024 steps)', () => {
  it.each([
    ['1048576', 1048576],
    ['10G', 10 * 1024 ** 3],
    ['10 GB', 10 * 1024 ** 3],
    ['512m', 512 * 1024 ** 2],
    ['1.5T', 1.5 * 1024 ** 4],
    ['2KiB', 2048],
    ['1P', 1024 ** 5],
    ['0', 0],
  ])('%s -> %d', (text, bytes) => expect(parseSize(text)).toBe(bytes));

  it.each(['', 'G', '-1G', '10X', '1e3', '10 G B', '99999999P'])('refuses %j', (text) => expect(parseSize(text)).toBeUndefined());
});
