import { describe, expect, it } from 'vitest';
import { formatDate, formatDuration, isValidName, maskName, nameProblem, passwordStrength } from './format.ts';

describe('formatDuration', () => {
  it('under 120 s as seconds', () => {
    expect(formatDuration(0)).toBe('0s');
    expect(formatDuration(119)).toBe('119s');
  });
  it('under an hour as minutes and seconds', () => {
    expect(formatDuration(120)).toBe('2min 0s');
    expect(formatDuration(3599)).toBe('59min 59s');
  });
  it('under a day as hours and minutes', () => {
    expect(formatDuration(3600)).toBe('1h 0min');
    expect(formatDuration(86399)).toBe('23h 59min');
  });
  it('a day or more as days and hours, with translated units', () => {
    expect(formatDuration(90000, { s: '秒', min: '分', h: '小时', d: '天' })).toBe('1天 1小时');
  });
});

describe('formatDate (YYYY-MM-DD HH:mm:ss at a UTC offset)', () => {
  it('converts a UTC instant to the given offset', () => {
    expect(formatDate('2024-01-02T03:04:05Z', 480)).toBe('2024-01-02 11:04:05');
    expect(formatDate('2024-01-02T03:04:05Z', -300)).toBe('2024-01-01 22:04:05');
    expect(formatDate(Date.UTC(2023, 11, 31, 23, 59, 59), 60)).toBe('2024-01-01 00:59:59');
  });
  it('reads zone-less server times as UTC and keeps explicit offsets', () => {
    expect(formatDate('2024-06-30 16:00:00', 480)).toBe('2024-07-01 00:00:00');
    expect(formatDate('2024-06-30T16:00:00+08:00', 0)).toBe('2024-06-30 08:00:00');
    expect(formatDate('1719763200000', 0)).toBe('2024-06-30 16:00:00');
  });
  it('gives empty text for garbage', () => {
    expect(formatDate('not a date', 0)).toBe('');
    expect(formatDate(null)).toBe('');
    expect(formatDate(9e15, 0)).toBe('');
  });
});

describe('maskName', () => {
  it('2 characters: first + **', () => expect(maskName('张三')).toBe('张**'));
  it('3 or 4 characters: first, **, last', () => {
    expect(maskName('王小明')).toBe('王**明');
    expect(maskName('abcd')).toBe('a**d');
  });
  it('over 4: first two, stars, last two', () => {
    expect(maskName('abcde')).toBe('ab*de');
    expect(maskName('Alexander')).toBe('Al*****er');
  });
  it('leaves a single character alone', () => expect(maskName('a')).toBe('a'));
});

describe('passwordStrength', () => {
  it('is 0 under 8 characters whatever the mix', () => expect(passwordStrength('aA1!xY2')).toBe(0));
  it('counts lowercase, uppercase, digit, symbol and other', () => {
    expect(passwordStrength('abcdefgh')).toBe(1);
    expect(passwordStrength('abcdEFGH')).toBe(2);
    expect(passwordStrength('abcdEF12')).toBe(3);
    expect(passwordStrength('abcdE1!x')).toBe(4);
    expect(passwordStrength('abcE1! 中')).toBe(5);
  });
  it('is 0 when equal to the user name or its reverse', () => {
    expect(passwordStrength('Admin123', 'Admin123')).toBe(0);
    expect(passwordStrength('321nimdA', 'Admin123')).toBe(0);
    expect(passwordStrength('Admin1234', 'Admin123')).toBe(3);
  });
});

describe('name validity', () => {
  it.each(['a\\b', 'a[b', 'a]b', 'a/b', 'a:b', 'a*b', 'a?b', 'a"b', 'a<b', 'a>b', 'a|b'])('%s has a forbidden char', (n) =>
    expect(nameProblem(n)).toBe('forbiddenChars'),
  );
  it('empty and blank names are invalid', () => {
    expect(nameProblem('')).toBe('empty');
    expect(nameProblem('   ')).toBe('empty');
  });
  it('leading or trailing whitespace is invalid', () => {
    expect(nameProblem(' a.txt')).toBe('whitespace');
    expect(nameProblem('a.txt\t')).toBe('whitespace');
  });
  it("the server's other rules: 255 characters (code points), no control characters, not . or ..", () => {
    expect(nameProblem('字'.repeat(255))).toBeNull();
    expect(nameProblem('😀'.repeat(255))).toBeNull();
    expect(nameProblem('a'.repeat(256))).toBe('tooLong');
    expect(nameProblem('a\nb')).toBe('control');
    expect(nameProblem('..')).toBe('reserved');
  });
  it('ordinary names pass', () => {
    expect(isValidName('报告 (1).docx')).toBe(true);
    expect(isValidName('a b.c')).toBe(true);
  });
});
