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
