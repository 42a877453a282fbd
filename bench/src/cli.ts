// Runs the real `drive` CLI as a child process against a bench server.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { ROOT } from './lib.ts';

/**
 * bin/drive.js runs cli/dist when it exists, which can be older than cli/src; the bench must measure the code
 * as it is, so it rebuilds dist first (what `npm run build -w cli` does). tsc emits even with type errors.
 */
export function buildCli(): void {
  if (!existsSync(`${ROOT}cli/dist`)) return;
  const r = spawnSync(process.execPath, [`${ROOT}node_modules/typescript/bin/tsc`, '-p', `${ROOT}cli/tsconfig.build.json`], { cwd: ROOT, encoding: 'utf8' });
  if (r.status !== 0 && r.status !== 2) throw new Error(`building the CLI failed: ${r.stdout}${r.stderr}`);
}

export interface CliEnv {
  server: string;
  configDir: string;
  password: string;
}

export async function drive(env: CliEnv, args: string[]): Promise<{ code: number; out: string; err: string }> {
  const child = spawn(process.execPath, ['cli/bin/drive.js', ...args], {
    cwd: ROOT,
    env: {
      ...process.env,
      HCS_SERVER: env.server,
      HCS_CONFIG: `${env.configDir}/auth.json`,
      HCS_STATE_DIR: `${env.configDir}/state`,
      HCS_PASSWORD: env.password,
      HCS_USER: 'admin',
      NO_COLOR: '1',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  child.stdout.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr.on('data', (d: Buffer) => (err += d.toString()));
  const code = await new Promise<number>((resolve) => child.once('exit', (c) => resolve(c ?? 1)));
  if (code !== 0) throw new Error(`drive ${args.join(' ')} exited ${code}\n${err.slice(-2000)}\n${out.slice(-2000)}`);
  return { code, out, err };
}
