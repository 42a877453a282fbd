// Spec section 9: durations under 120 s as seconds, under an hour as minutes and seconds, under a day as hours and
// minutes. Sizes come from @hcs/transfer-core's formatSize, shared with the web app.
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
