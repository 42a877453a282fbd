// Typed local paths (when there is no native picker) are accepted only inside the roots the user configured.
// Both sides are compared as real paths, so neither `..` nor a symbolic link inside a root can reach outside it,
// and the agent then uploads the real path it checked, not the name it was given.
import { realpath } from 'node:fs/promises';
import { isAbsolute, sep } from 'node:path';
import { ProtocolError, RESULT } from './protocol.ts';

export function isInside(root: string, path: string): boolean {
  return path === root || path.startsWith(root.endsWith(sep) ? root : root + sep);
}

/** Real paths of the configured roots; roots that do not exist are dropped (nothing can be inside them). */
export async function realRoots(roots: readonly string[]): Promise<string[]> {
  const out: string[] = [];
  for (const r of roots) {
    try {
      out.push(await realpath(r));
    } catch {
      // A missing root allows nothing.
    }
  }
  return out;
}

/** The real path of a typed path when it lies inside one of the roots; else PATH_REFUSED. */
export async function checkTypedPath(path: string, roots: readonly string[]): Promise<string> {
  const refused = (why: string) => new ProtocolError(RESULT.PATH_REFUSED, 'PATH_REFUSED', why);
  if (!isAbsolute(path) || path.includes('\0')) throw refused('a local path must be absolute');
  if (roots.length === 0) throw refused('no local folders are allowed for typed paths (start the agent with --root DIR)');
  let real: string;
  try {
    real = await realpath(path);
  } catch {
    throw refused(`no such local file or folder: ${path}`);
  }
  if (!roots.some((r) => isInside(r, real))) throw refused(`${path} is outside the folders the agent may read`);
  return real;
}
