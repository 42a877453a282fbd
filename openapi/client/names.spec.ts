import { describe, expect, it } from 'vitest';
import { MAX_NAME_LENGTH, nameProblem, type NameProblem } from './index.ts';

describe('nameProblem (the contract’s EncodedName rules)', () => {
  it.each<[string, NameProblem]>([
    ['', 'empty'],
    ['   ', 'empty'],
    [' a.txt', 'whitespace'],
    ['a.txt\t', 'whitespace'],
    ['a'.repeat(MAX_NAME_LENGTH + 1), 'tooLong'],
    ['a:b', 'forbiddenChars'],
    ['a/b', 'forbiddenChars'],
    ['[x]', 'forbiddenChars'],
    ['a\u0000b', 'control'],
    ['line\nbreak', 'control'],
    ['del\u007f', 'control'],
    ['.', 'reserved'],
    ['..', 'reserved'],
  ])('%j -> %s', (name, problem) => expect(nameProblem(name)).toBe(problem));

  it('accepts ordinary names, counting characters rather than UTF-16 units', () => {
    for (const name of ['a', 'report (1).pdf', '报告.docx', '...', '.bashrc', 'a b', '字'.repeat(255), '😀'.repeat(255)]) {
      expect(nameProblem(name), name).toBeNull();
    }
  });
});
