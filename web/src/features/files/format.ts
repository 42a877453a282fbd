// Display formatting of spec section 9. Kept here until the shell's web/src/shared/format lands; the lead can
// swap the imports to the shared helpers, the outputs are specified by the spec so they must agree.
const UNITS = ['B', 'KB', 'MB', 'GB', 'TB'] as const;

/** 1024 steps, 2 decimals: 1536 -> "1.50 KB"; bytes stay integral ("512 B"). */
export function formatSize(bytes: number): string {
  if (!Number.isFinite(bytes) || bytes < 0) return '-';
  let value = bytes;
  let unit = 0;
  while (value >= 1024 && unit < UNITS.length - 1) {
    value /= 1024;
    unit += 1;
  }
  return unit === 0 ? `${value} B` : `${value.toFixed(2)} ${UNITS[unit]}`;
}

export interface TimeParts {
  key: 'seconds' | 'minutesSeconds' | 'hoursMinutes' | 'daysHours';
  d: number;
  h: number;
  m: number;
  s: number;
}

/** Spec 9: under 120 s as seconds; under an hour as minutes and seconds; under a day as hours and minutes. */
export function splitTimeLeft(totalSeconds: number): TimeParts | undefined {
  if (!Number.isFinite(totalSeconds) || totalSeconds < 0) return undefined;
  const t = Math.ceil(totalSeconds);
  const d = Math.floor(t / 86400);
  const h = Math.floor((t % 86400) / 3600);
  const m = Math.floor((t % 3600) / 60);
  const s = t % 60;
  if (t < 120) return { key: 'seconds', d: 0, h: 0, m: 0, s: t };
  if (t < 3600) return { key: 'minutesSeconds', d: 0, h: 0, m: Math.floor(t / 60), s };
  if (t < 86400) return { key: 'hoursMinutes', d: 0, h: Math.floor(t / 3600), m, s };
  return { key: 'daysHours', d, h, m, s };
}

const pad = (n: number): string => String(n).padStart(2, '0');

/** YYYY-MM-DD HH:mm:ss in the browser's zone (the UTC offset conversion of spec 9). */
export function formatDate(epochMs: number | null | undefined): string {
  if (epochMs === null || epochMs === undefined || !Number.isFinite(epochMs)) return '-';
  const d = new Date(epochMs);
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())} ${pad(d.getHours())}:${pad(d.getMinutes())}:${pad(d.getSeconds())}`;
}

/** Bytes per second as a size per second. */
export function formatSpeed(bytesPerSecond: number): string {
  return `${formatSize(Math.max(0, Math.round(bytesPerSecond)))}/s`;
}
