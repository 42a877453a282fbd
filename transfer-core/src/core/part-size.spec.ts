import { describe, expect, it } from 'vitest';
import { MAX_PARTS, MiB } from './constants.ts';
import { partRange, planParts } from './part-size.ts';

describe('planParts', () => {
  it('defaults to 8 MiB parts', () => {
    expect(planParts(100 * MiB)).toEqual({ partSize: 8 * MiB, partCount: 13, lastPartSize: 4 * MiB });
  });
  it('respects the server partSize', () => {
    expect(planParts(100 * MiB, 16 * MiB)).toEqual({ partSize: 16 * MiB, partCount: 7, lastPartSize: 4 * MiB });
  });
  it('grows the part size so no file needs more than 10,000 parts', () => {
    const size = 85_899_345_920; // 80 GB, the spec's maximum
    const p = planParts(size, 8 * MiB);
    expect(p.partCount).toBeLessThanOrEqual(MAX_PARTS);
    expect(p.partSize % MiB).toBe(0);
    expect(p.partSize).toBe(9 * MiB);
    expect((p.partCount - 1) * p.partSize + p.lastPartSize).toBe(size);
  });
  it('keeps exactly 10,000 parts at the boundary', () => {
    expect(planParts(8 * MiB * MAX_PARTS).partCount).toBe(MAX_PARTS);
    expect(planParts(8 * MiB * MAX_PARTS + 1).partSize).toBe(9 * MiB);
  });
  it('raises a server partSize below the S3 minimum to 5 MiB', () => {
    expect(planParts(20 * MiB, 1 * MiB).partSize).toBe(5 * MiB);
  });
  it('plans one empty part for an empty file', () => {
    expect(planParts(0)).toEqual({ partSize: 8 * MiB, partCount: 1, lastPartSize: 0 });
  });
  it('rejects invalid sizes', () => {
    expect(() => planParts(-1)).toThrow(RangeError);
    expect(() => planParts(1.5)).toThrow(RangeError);
  });
  it('gives byte ranges that tile the file', () => {
    const p = planParts(20 * MiB + 3, 5 * MiB);
    let end = 0;
    for (let n = 1; n <= p.partCount; n++) {
      const r = partRange(p, n);
      expect(r.start).toBe(end);
      end = r.end;
    }
    expect(end).toBe(20 * MiB + 3);
  });
});
