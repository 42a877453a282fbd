import { describe, expect, it } from 'vitest';
import { formatDate, formatSize, splitTimeLeft } from './format.ts';
import { checkName, encodeName } from './name-rules.ts';

describe('formatSize', () => {
  it('uses 1024 steps with 2 decimals', () => {
    expect(formatSize(0)).toBe('0 B');
    expect(formatSize(1023)).toBe('1023 B');
    expect(formatSize(1024)).toBe('1.00 KB');
    expect(formatSize(1536)).toBe('1.50 KB');
    expect(formatSize(8_388_608)).toBe('8.00 MB');
    expect(formatSize(85_899_345_920)).toBe('80.00 GB');
    expect(formatSize(1024 ** 5 * 3)).toBe('3072.00 TB');
  });
});

describe('splitTimeLeft', () => {
  it('follows the spec 9 bands', () => {
    expect(splitTimeLeft(119)).toMatchObject({ key: 'seconds', s: 119 });
    expect(splitTimeLeft(120)).toMatchObject({ key: 'minutesSeconds', m: 2, s: 0 });
    expect(splitTimeLeft(3599)).toMatchObject({ key: 'minutesSeconds', m: 59, s: 59 });
    expect(splitTimeLeft(3600)).toMatchObject({ key: 'hoursMinutes', h: 1, m: 0 });
    expect(splitTimeLeft(86399)).toMatchObject({ key: 'hoursMinutes', h: 23, m: 59 });
    expect(splitTimeLeft(90000)).toMatchObject({ key: 'daysHours', d: 1, h: 1 });
    expect(splitTimeLeft(Number.POSITIVE_INFINITY)).toBeUndefined();
  });
});

describe('formatDate', () => {
  it('prints YYYY-MM-DD HH:mm:ss in local time', () => {
    const ms = new Date(2024, 0, 2, 3, 4, 5).getTime();
    expect(formatDate(ms)).toBe('2024-01-02 03:04:05');
  });
});

describe('name rules', () => {
  it('rejects what spec 5 forbids and accepts ordinary names', () => {
    expect(checkName('')).toBe('empty');
    expect(checkName(' a')).toBe('whitespace');
    expect(checkName('a ')).toBe('whitespace');
    for (const c of ['\\', '[', ']', '/', ':', '*', '?', '"', '<', '>', '|']) expect(checkName(`a${c}b`)).toBe('forbidden');
    expect(checkName('报告 2024 (final).docx')).toBeUndefined();
  });

  it('encodes Base64 with _x/_j/_d', () => {
    expect(encodeName('a')).toBe('YQ_d_d');
    expect(encodeName('\u00fb\u00ef')).toBe('w7vDrw_d_d');
    expect(encodeName('??>')).toBe('Pz8_j');
    expect(encodeName('???')).toBe('Pz8_x');
    expect(atob(encodeName('文件.txt').replace(/_x/g, '/').replace(/_j/g, '+').replace(/_d/g, '='))).toBe(
      String.fromCharCode(...new TextEncoder().encode('文件.txt')),
    );
  });
});
