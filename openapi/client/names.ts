// The contract's name rules (EncodedName, spec section 5) in one place: the server enforces them, and the web and
// the CLI check them first so nothing the server would refuse is sent. Each caller words the problem itself
// (the server's English, the web's locale keys, the CLI's messages); only the codes are shared.

/** Longest name, in characters (code points, so one emoji or CJK character counts once). */
export const MAX_NAME_LENGTH = 255;

/** Characters a file or folder name may not contain. */
export const FORBIDDEN_NAME_CHARS = ['\\', '[', ']', '/', ':', '*', '?', '"', '<', '>', '|'] as const;

export const NAME_PROBLEMS = ['empty', 'whitespace', 'tooLong', 'forbiddenChars', 'control', 'reserved'] as const;
export type NameProblem = (typeof NAME_PROBLEMS)[number];

// Control characters would let a name smuggle line breaks into logs, zip headers and Content-Disposition.
const CONTROL = /[\u0000-\u001f\u007f]/;

/** Why a file or folder name is invalid, or null when it is fine. A name of only whitespace counts as empty. */
export function nameProblem(name: string): NameProblem | null {
  if (name.length === 0) return 'empty';
  if (/^\s|\s$/.test(name)) return name.trim().length === 0 ? 'empty' : 'whitespace';
  if ([...name].length > MAX_NAME_LENGTH) return 'tooLong';
  if (FORBIDDEN_NAME_CHARS.some((c) => name.includes(c))) return 'forbiddenChars';
  if (CONTROL.test(name)) return 'control';
  // "." and ".." mean this folder and its parent in every path syntax, so they cannot name an entry.
  if (name === '.' || name === '..') return 'reserved';
  return null;
}
