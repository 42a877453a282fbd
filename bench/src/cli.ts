// Runs the real `drive` CLI as a child process against a bench server.
import { spawn } from 'node:child_process';
import { ROOT } from './lib.ts';

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
