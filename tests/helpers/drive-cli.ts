// Runs the built `drive` CLI (cli/bin/drive.js) as a signed-in user against a test server and collects its JSON lines,
// for the CLI suites that check one command at a time (the transfer suite keeps its own streaming runner).
import { spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect } from 'vitest';
import { ADMIN_PASSWORD, type TestServer } from './server.ts';

const DRIVE = fileURLToPath(new URL('../../cli/bin/drive.js', import.meta.url));

export interface DriveResult {
  code: number | null;
  /** Every stdout line parsed as JSON (with --json), in order. */
  json: Array<Record<string, any>>;
  stdout: string;
  stderr: string;
}

export interface DriveOptions {
  /** The session token (HCS_TOKEN); the CLI then needs no sign-in of its own. */
  token: string;
  stdin?: string;
  /** false: the human output (HCS_JSON unset). */
  json?: boolean;
  env?: Record<string, string>;
}

/** The environment of a suite's CLI runs: the server, and a home, config and state of its own under `work`. */
export function cliEnv(srv: TestServer, work: string): NodeJS.ProcessEnv {
  return { PATH: process.env.PATH, HOME: work, HCS_SERVER: srv.baseUrl, HCS_CONFIG: join(work, 'config', 'auth.json'), HCS_STATE_DIR: join(work, 'state') };
}

/** The space an item lives in, by name (the server's own record, not the CLI's). */
export function spaceOf(srv: TestServer, name: string): Promise<{ space_kind: string; space_id: string }[]> {
  return srv.sql.all<{ space_kind: string; space_id: string }>('SELECT space_kind, space_id FROM instances WHERE name = ? AND deleted_at IS NULL', name);
}

/**
 * A fresh work directory (`prefix`), with the administrator signed in by `drive login` (JSON output): the environment
 * that later runs use, reading the saved session rather than an HCS_TOKEN.
 */
export async function adminLoginEnv(srv: TestServer, prefix: string): Promise<NodeJS.ProcessEnv> {
  const work = mkdtempSync(join(tmpdir(), prefix));
  const env = { PATH: process.env.PATH, HOME: work, HCS_SERVER: srv.baseUrl, HCS_USER: 'admin', HCS_CONFIG: join(work, 'auth.json'), HCS_STATE_DIR: join(work, 'state'), HCS_JSON: '1' };
  const login = spawn(process.execPath, [DRIVE, 'login'], { env: { ...env, HCS_PASSWORD: ADMIN_PASSWORD }, stdio: 'ignore' });
  expect(await new Promise((r) => login.on('close', r))).toBe(0);
  return env;
}

/** `env`: HCS_SERVER, HOME, HCS_CONFIG and HCS_STATE_DIR of the suite. */
export function driveRunner(env: () => NodeJS.ProcessEnv) {
  return (args: string[], opts: DriveOptions): Promise<DriveResult> =>
    new Promise((resolve, reject) => {
      const child = spawn(process.execPath, [DRIVE, ...args], {
        env: { ...env(), HCS_TOKEN: opts.token, ...(opts.json === false ? {} : { HCS_JSON: '1' }), ...opts.env },
        stdio: [opts.stdin === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'],
      });
      if (opts.stdin !== undefined) child.stdin!.end(opts.stdin);
      let stdout = '';
      let stderr = '';
      child.stdout!.setEncoding('utf8').on('data', (c: string) => (stdout += c));
      child.stderr!.setEncoding('utf8').on('data', (c: string) => (stderr += c));
      child.on('error', reject);
      child.on('close', (code) => {
        const json = opts.json === false ? [] : stdout.split('\n').filter((l) => l.trim() !== '').map((l) => JSON.parse(l) as Record<string, any>);
        resolve({ code, json, stdout, stderr });
      });
    });
}
