// Display and validation helpers of spec sections 5 and 9, shared by every screen (files, transfers, account).
// Pure functions: no i18n or DOM here, callers pass translated unit labels where text is shown.
import { nameProblem } from '@hcs/openapi/client';

// One size formatter for the web app and the CLI (spec 9: "1.50KB").
export { formatSize } from '@hcs/transfer-core';

export interface DurationUnits {
  s: string;
  min: string;
  h: string;
  d: string;
}
const EN_UNITS: DurationUnits = { s: 's', min: 'min', h: 'h', d: 'd' };

/**
 * Remaining/elapsed time: under 120 s as seconds ("95s"); under an hour as minutes and seconds ("5min 3s");
 * under a day as hours and minutes ("2h 5min"); beyond that days and hours.
 */
export function formatDuration(totalSeconds: number, units: DurationUnits = EN_UNITS): string {
  if (!Number.isFinite(totalSeconds) || totalSeconds < 0) return '';
  const s = Math.round(totalSeconds);
  if (s < 120) return `${s}${units.s}`;
  if (s < 3600) return `${Math.floor(s / 60)}${units.min} ${s % 60}${units.s}`;
  if (s < 86400) return `${Math.floor(s / 3600)}${units.h} ${Math.floor((s % 3600) / 60)}${units.min}`;
  return `${Math.floor(s / 86400)}${units.d} ${Math.floor((s % 86400) / 3600)}${units.h}`;
}

const pad = (n: number) => String(n).padStart(2, '0');

/**
 * YYYY-MM-DD HH:mm:ss of an instant, shown at a UTC offset (minutes east of UTC; default: this browser's offset).
 * Accepts epoch ms, ISO strings (with or without zone; without one they are taken as UTC, which is how the server
 * stores times) and Date. Returns '' for unparseable input rather than "NaN-NaN".
 */
export function formatDate(input: number | string | Date | null | undefined, offsetMinutes?: number): string {
  if (input == null || input === '') return '';
  let ms: number;
  if (input instanceof Date) ms = input.getTime();
  else if (typeof input === 'number') ms = input;
  else if (/^\d+$/.test(input)) ms = Number(input);
  else {
    const iso = input.includes('T') || input.includes(' ') ? input.replace(' ', 'T') : input;
    ms = Date.parse(/[zZ]|[+-]\d\d:?\d\d$/.test(iso) ? iso : `${iso}Z`);
  }
  if (!Number.isFinite(ms)) return '';
  const offset = offsetMinutes ?? -new Date(ms).getTimezoneOffset();
  const d = new Date(ms + offset * 60_000);
  // Outside Date's range (±8.64e15 ms) every field is NaN.
  if (!Number.isFinite(d.getTime())) return '';
  return (
    `${d.getUTCFullYear()}-${pad(d.getUTCMonth() + 1)}-${pad(d.getUTCDate())} ` +
    `${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())}:${pad(d.getUTCSeconds())}`
  );
}

/**
 * Masks a person's name (spec 5): 2 characters -> first + "**"; 3 or 4 -> first, "**", last;
 * longer -> first two, one star per hidden character, last two. Counts code points, so CJK and emoji mask cleanly.
 */
export function maskName(name: string): string {
  const c = Array.from(name);
  if (c.length <= 1) return name;
  if (c.length === 2) return `${c[0]}**`;
  if (c.length <= 4) return `${c[0]}**${c[c.length - 1]}`;
  return `${c.slice(0, 2).join('')}${'*'.repeat(c.length - 4)}${c.slice(-2).join('')}`;
}

export const PASSWORD_MIN_LENGTH = 8;

/**
 * Password strength 0-5: one point per character class present (lowercase, uppercase, digit, ASCII symbol,
 * other such as spaces or non-ASCII letters). 0 when shorter than 8 or equal to the user name or its reverse.
 */
export function passwordStrength(password: string, userName?: string): number {
  if (Array.from(password).length < PASSWORD_MIN_LENGTH) return 0;
  if (userName) {
    const reversed = Array.from(userName).reverse().join('');
    if (password === userName || password === reversed) return 0;
  }
  let lower = 0;
  let upper = 0;
  let digit = 0;
  let symbol = 0;
  let other = 0;
  for (const ch of password) {
    if (/[a-z]/.test(ch)) lower = 1;
    else if (/[A-Z]/.test(ch)) upper = 1;
    else if (/[0-9]/.test(ch)) digit = 1;
    else if (/[!-/:-@[-`{-~]/.test(ch)) symbol = 1;
    else other = 1;
  }
  return lower + upper + digit + symbol + other;
}

// The name rules are the contract's, one copy shared with the server and the CLI; screens word each problem by
// its code (files.nameProblem.<code>).
export { FORBIDDEN_NAME_CHARS, MAX_NAME_LENGTH, NAME_PROBLEMS, nameProblem, type NameProblem } from '@hcs/openapi/client';

export function isValidName(name: string): boolean {
  return nameProblem(name) === null;
}
