// Instance-name rules of spec 5, checked before anything is sent so the user sees the reason at once,
// and the wire encoding every create/rename/transport uses.

/** Backslash, brackets, slash, colon, asterisk, question mark, double quote, angle brackets, pipe. */
const FORBIDDEN = /[\\[\]/:*?"<>|]/;
export const MAX_NAME_LENGTH = 255;

export type NameProblem = 'empty' | 'whitespace' | 'forbidden' | 'tooLong' | 'dots';

export function checkName(name: string): NameProblem | undefined {
  if (name.length === 0) return 'empty';
  if (/^\s|\s$/.test(name)) return 'whitespace';
  if (FORBIDDEN.test(name)) return 'forbidden';
  // "." and ".." would address the folder itself or its parent on every file system the drive syncs to.
  if (name === '.' || name === '..') return 'dots';
  if ([...name].length > MAX_NAME_LENGTH) return 'tooLong';
  return undefined;
}

/**
 * Base64 of the UTF-8 bytes with / -> _x, + -> _j, = -> _d (spec 5). Same as encodeName in @hcs/openapi/client;
 * copied because that module pulls openapi-fetch and Node-only typings into the browser bundle.
 */
export function encodeName(name: string): string {
  const bytes = new TextEncoder().encode(name);
  let bin = '';
  for (const b of bytes) bin += String.fromCharCode(b);
  return btoa(bin).replace(/\//g, '_x').replace(/\+/g, '_j').replace(/=/g, '_d');
}
