// Spec section 9: sizes step 1024 with 2 decimals; durations under 120 s as seconds, under an hour as
// minutes and seconds, under a day as hours and minutes.
const UNITS = ['B', 'KB', 'MB', 'GB', 'TB'];

export function formatBytes(n: number): string {
  let v = n;
  let u = 0;
  while (v >= 1024 && u < UNITS.length - 1) {
    v /= 1024;
    u++;
  }
  return u === 0 ? `${v} B` : `${v.toFixed(2)} ${UNITS[u]}`;
}

export function formatDuration(seconds: number | undefined): string {
  if (seconds === undefined || !Number.isFinite(seconds)) return '--';
  const s = Math.round(seconds);
  if (s < 120) return `${s}s`;
  if (s < 3600) return `${Math.floor(s / 60)}m ${s % 60}s`;
  if (s < 86400) return `${Math.floor(s / 3600)}h ${Math.floor((s % 3600) / 60)}m`;
  return `${Math.floor(s / 86400)}d ${Math.floor((s % 86400) / 3600)}h`;
}

/** A fixed-width text bar, e.g. [#####-----]. */
export function bar(loaded: number, total: number, width = 20): string {
  const frac = total > 0 ? Math.min(1, Math.max(0, loaded / total)) : 1;
  const full = Math.round(frac * width);
  return '█'.repeat(full) + '░'.repeat(width - full);
}
