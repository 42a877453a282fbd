// Sizes as people read them, spec section 9 (step 1024, 2 decimals), the same in the web app and the CLI.

const SIZE_UNITS = ['B', 'KB', 'MB', 'GB', 'TB'] as const;

/** Bytes in steps of 1024 with 2 decimals: 1536 -> "1.50KB". Values past TB stay in TB; '' for no valid size. */
export function formatSize(bytes: number | null | undefined): string {
  if (bytes == null || !Number.isFinite(bytes) || bytes < 0) return '';
  let value = bytes;
  let unit = 0;
  while (value >= 1024 && unit < SIZE_UNITS.length - 1) {
    value /= 1024;
    unit++;
  }
  return `${value.toFixed(2)}${SIZE_UNITS[unit]}`;
}

const PARSE_UNITS: Record<string, number> = { '': 1, K: 1024, M: 1024 ** 2, G: 1024 ** 3, T: 1024 ** 4, P: 1024 ** 5 };

/**
 * A size as people type it, in the same 1024 steps: "10G", "512M", "1.5T", "10 GB", "1048576" -> bytes. undefined
 * when it is not a size or not a safe integer number of bytes; callers apply their own upper bound.
 */
export function parseSize(text: string): number | undefined {
  const m = /^(\d+(?:\.\d+)?)\s*([KMGTP]?)(?:I?B)?$/i.exec(text.trim());
  if (!m) return undefined;
  const bytes = Math.round(Number(m[1]) * PARSE_UNITS[m[2]!.toUpperCase()]!);
  return Number.isSafeInteger(bytes) ? bytes : undefined;
}
