export { DEFAULT_MIN_PART_SIZE, EmbeddedS3Control, embeddedS3, type EmbeddedS3Options, type SweepResult } from './plugin.ts';
export type { EmbeddedLimits } from './context.ts';
