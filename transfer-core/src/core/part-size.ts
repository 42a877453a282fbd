import { DEFAULT_PART_SIZE, MAX_PART_SIZE, MAX_PARTS, MiB, MIN_PART_SIZE } from './constants.ts';

export interface PartPlan {
  partSize: number;
  partCount: number;
  lastPartSize: number;
}

/**
 * Part size for a file (rclone's chunksize rule): the server's partSize (or 8 MiB) unless the file would then need
 * more than 10,000 parts, in which case it grows to the next MiB multiple that fits. Sizes below S3's 5 MiB
 * minimum are raised, since storage would refuse the completion otherwise.
 */
export function planParts(fileSize: number, serverPartSize?: number): PartPlan {
  if (!Number.isSafeInteger(fileSize) || fileSize < 0) throw new RangeError(`invalid file size ${fileSize}`);
  let partSize = serverPartSize && serverPartSize > 0 ? Math.max(serverPartSize, MIN_PART_SIZE) : DEFAULT_PART_SIZE;
  if (Math.ceil(fileSize / partSize) > MAX_PARTS) partSize = Math.ceil(fileSize / MAX_PARTS / MiB) * MiB;
  if (partSize > MAX_PART_SIZE) throw new RangeError(`file of ${fileSize} bytes does not fit in ${MAX_PARTS} parts`);
  const partCount = Math.max(1, Math.ceil(fileSize / partSize));
  const lastPartSize = fileSize - (partCount - 1) * partSize;
  return { partSize, partCount, lastPartSize };
}

/** Byte range [start, end) of part `n` (1-based). */
export function partRange(plan: PartPlan, n: number): { start: number; end: number; size: number } {
  const start = (n - 1) * plan.partSize;
  const size = n === plan.partCount ? plan.lastPartSize : plan.partSize;
  return { start, end: start + size, size };
}
