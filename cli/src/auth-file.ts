// The auth file holds the server and session token `drive login` obtained. It is a secret, so it is
// written 0600 inside a 0700 directory, atomically (a crash never leaves half a file), and a file
// found readable by others is tightened before use.
import { chmod, mkdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import { randomBytes } from 'node:crypto';

export interface AuthRecord {
  /** Server origin, normalised (no trailing slash). */
  server: string;
  token: string;
  userName: string;
  userId?: string;
  /** Epoch ms of the session's absolute expiry, when the server told us. */
  expiresAt?: number;
}

export function defaultConfigDir(env: NodeJS.ProcessEnv = process.env): string {
  const base = env.XDG_CONFIG_HOME && env.XDG_CONFIG_HOME.startsWith('/') ? env.XDG_CONFIG_HOME : join(homedir(), '.config');
  return join(base, 'hcs-drive');
}

export function defaultAuthPath(env: NodeJS.ProcessEnv = process.env): string {
  return join(defaultConfigDir(env), 'auth.json');
}

function isAuthRecord(v: unknown): v is AuthRecord {
  if (!v || typeof v !== 'object') return false;
  const r = v as Record<string, unknown>;
  return typeof r.server === 'string' && typeof r.token === 'string' && typeof r.userName === 'string';
}

/** The stored record, or null when there is none. A corrupt file counts as none (login rewrites it). */
export async function readAuth(path: string): Promise<AuthRecord | null> {
  let text: string;
  try {
    const st = await stat(path);
    if ((st.mode & 0o077) !== 0) await chmod(path, 0o600);
    text = await readFile(path, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw err;
  }
  try {
    const parsed: unknown = JSON.parse(text);
    return isAuthRecord(parsed) ? parsed : null;
  } catch {
    return null;
  }
}

export async function writeAuth(path: string, record: AuthRecord): Promise<void> {
  await writeSecretJson(path, record);
}

export async function removeAuth(path: string): Promise<boolean> {
  try {
    await rm(path);
    return true;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return false;
    throw err;
  }
}

/** Writes JSON 0600 via a temp file and rename, creating the directory 0700. */
export async function writeSecretJson(path: string, value: unknown): Promise<void> {
  const dir = dirname(path);
  await mkdir(dir, { recursive: true, mode: 0o700 });
  const tmp = join(dir, `.${randomBytes(6).toString('hex')}.tmp`);
  try {
    await writeFile(tmp, JSON.stringify(value), { mode: 0o600, flag: 'wx' });
    await rename(tmp, path);
  } catch (err) {
    await rm(tmp, { force: true });
    throw err;
  }
  await chmod(path, 0o600);
}
