import { describe, expect, it } from 'vitest';
import { newId } from './ids.ts';

describe('newId', () => {
  it('never starts with "-", which a CLI argument would read as an option; keeps its length and alphabet', () => {
    // Plain base64url starts one id in 64 with '-': 20,000 ids without one would happen by chance about once in 10^137.
    const ids = Array.from({ length: 20_000 }, () => newId());
    expect(ids.filter((id) => id.startsWith('-'))).toEqual([]);
    expect(ids.every((id) => /^[A-Za-z0-9_-]{16}$/.test(id))).toBe(true);
    expect(new Set(ids).size).toBe(ids.length);
    expect(newId(9)).toMatch(/^[A-Za-z0-9_][A-Za-z0-9_-]{11}$/);
  });
});
