// Where each setting comes from. Precedence, highest first: command-line flag, HCS_* environment variable,
// the auth file written by `drive login`, built-in default. Commander applies flag-over-env for value
// options (Option.env); booleans and the auth file are merged here so the rule lives in one tested place.
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';
import { defaultAuthPath, type AuthRecord } from './auth-file.ts';
import { usageError } from './exit-codes.ts';

/** Global flags as commander parsed them (flag or env already merged for value options). */
export interface GlobalFlags {
  server?: string;
  user?: string;
  config?: string;
  json?: boolean;
  stateDir?: string;
}

export interface Settings {
  server: string | undefined;
  userName: string | undefined;
  /** Session token: HCS_TOKEN, else the auth file's when it belongs to the same server. */
  token: string | undefined;
  authPath: string;
  json: boolean;
  /** Job state files and the hash cache. */
  stateDir: string;
}

/** Environment variables that configure the CLI; `drive --help` and the README list the same. */
export const ENV = {
  HCS_SERVER: 'Server origin, e.g. https://drive.example.com (flag --server)',
  HCS_USER: 'User name to sign in as (flag --user)',
  HCS_PASSWORD: 'Password for `drive login` (no flag: argv is visible to other local users)',
  HCS_TOKEN: 'Session token to use instead of the auth file (no flag, for the same reason)',
  HCS_CONFIG: 'Auth file path (flag --config; default $XDG_CONFIG_HOME/hcs-drive/auth.json)',
  HCS_STATE_DIR: 'Job state and hash cache directory (flag --state-dir; default $XDG_STATE_HOME/hcs-drive)',
  HCS_JSON: 'Print one JSON line per event: 1/true/yes (flag --json)',
  HCS_TO: 'Remote folder for `drive upload` (flag --to; default /)',
  HCS_CONCURRENCY: 'Files transferred at a time (flag --concurrency; default 4)',
  HCS_CONFLICT: 'Same name in the folder: newVersion, keepBoth or skip (flag --conflict; default newVersion)',
  HCS_OUT: 'Local folder for `drive download` (flag --out; default .)',
} as const;

/** Parses a boolean environment value; undefined when unset or empty. */
export function envBool(value: string | undefined): boolean | undefined {
  if (value === undefined || value.trim() === '') return undefined;
  const v = value.trim().toLowerCase();
  if (['1', 'true', 'yes', 'on'].includes(v)) return true;
  if (['0', 'false', 'no', 'off'].includes(v)) return false;
  throw usageError(`invalid boolean "${value}" (use 1/0, true/false, yes/no)`);
}

/** Validates and normalises a server origin: http(s) only, no credentials, no query, trailing / and /hcs dropped. */
export function normaliseServer(raw: string): string {
  let url: URL;
  try {
    url = new URL(raw.trim());
  } catch {
    throw usageError(`invalid server URL "${raw}" (expected e.g. https://drive.example.com)`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw usageError(`server URL must be http or https: ${raw}`);
  if (url.username || url.password) throw usageError('server URL must not carry credentials');
  if (url.search || url.hash) throw usageError('server URL must not carry a query or fragment');
  const path = url.pathname.replace(/\/+$/, '').replace(/\/hcs$/, '');
  return `${url.origin}${path}`;
}

export function defaultStateDir(env: NodeJS.ProcessEnv): string {
  const base = env.XDG_STATE_HOME && env.XDG_STATE_HOME.startsWith('/') ? env.XDG_STATE_HOME : join(homedir(), '.local', 'state');
  return join(base, 'hcs-drive');
}

export function resolveSettings(flags: GlobalFlags, env: NodeJS.ProcessEnv, auth: AuthRecord | null, jsonFromFlag: boolean): Settings {
  const json = jsonFromFlag ? true : (envBool(env.HCS_JSON) ?? false);
  const explicitServer = flags.server ? normaliseServer(flags.server) : undefined;
  const authServer = auth ? safeNormalise(auth.server) : undefined;
  const server = explicitServer ?? authServer;
  const envToken = env.HCS_TOKEN?.trim() || undefined;
  // A stored token is only ever sent to the server it was issued by.
  const authToken = auth && authServer !== undefined && authServer === server ? auth.token : undefined;
  const token = envToken ?? authToken;
  const userName = flags.user ?? (authToken ? auth?.userName : undefined);
  return {
    server,
    userName,
    token,
    authPath: resolve(flags.config ?? defaultAuthPath(env)),
    json,
    stateDir: resolve(flags.stateDir ?? defaultStateDir(env)),
  };
}

function safeNormalise(raw: string): string | undefined {
  try {
    return normaliseServer(raw);
  } catch {
    return undefined;
  }
}

/** Parses an integer option within bounds, or throws a usage error naming the option. */
export function parseIntOption(name: string, value: string | number | undefined, def: number, min: number, max: number): number {
  if (value === undefined || value === '') return def;
  const n = typeof value === 'number' ? value : Number(value);
  if (!Number.isInteger(n) || n < min || n > max) throw usageError(`${name} must be an integer from ${min} to ${max}, got "${value}"`);
  return n;
}
