// Runs the built `drive` CLI (cli/bin/drive.js) as a signed-in user against a test server and collects its JSON lines,
// for the CLI suites that check one command at a time (the transfer suite keeps its own streaming runner).
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

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
