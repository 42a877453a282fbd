// What every command needs: settings merged from flags, env and the auth file; an API client; output that
// honours --json; and one error path that prints a clear message and sets the documented exit code.
import type { Command } from 'commander';
import { readAuth } from './auth-file.ts';
import { createApi, toCliError, type Api } from './api.ts';
import { CliError, EXIT } from './exit-codes.ts';
import { resolveSettings, type GlobalFlags, type Settings } from './settings.ts';

export interface Io {
  stdout: NodeJS.WritableStream & { isTTY?: boolean };
  stderr: NodeJS.WritableStream;
  env: NodeJS.ProcessEnv;
}

export const processIo: Io = { stdout: process.stdout, stderr: process.stderr, env: process.env };

export async function loadSettings(cmd: Command, io: Io): Promise<Settings> {
  const flags = cmd.optsWithGlobals<GlobalFlags>();
  const jsonFromFlag = flags.json === true && cmd.getOptionValueSourceWithGlobals('json') === 'cli';
  const auth = await readAuth(resolveSettings(flags, io.env, null, jsonFromFlag).authPath);
  return resolveSettings(flags, io.env, auth, jsonFromFlag);
}

export interface CommandContext {
  settings: Settings;
  io: Io;
  api(opts?: { requireAuth?: boolean }): Api;
  /** Writes one JSON line (with --json) or the human text. */
  print(json: unknown, human: string): void;
}

export async function contextFor(cmd: Command, io: Io): Promise<CommandContext> {
  const settings = await loadSettings(cmd, io);
  return {
    settings,
    io,
    api: (opts) => createApi(settings, opts),
    print(json, human) {
      if (settings.json) io.stdout.write(JSON.stringify(json) + '\n');
      else if (human) io.stdout.write(human.endsWith('\n') ? human : human + '\n');
    },
  };
}

/** Reports a command's failure: a JSON error line with --json, always a message on stderr. */
export function reportError(err: unknown, io: Io, json: boolean): number {
  const e = err instanceof CliError ? err : toCliError(err);
  if (json) io.stdout.write(JSON.stringify({ event: 'error', code: e.code, message: e.message, exitCode: e.exitCode }) + '\n');
  io.stderr.write(`drive: ${e.message}\n`);
  return e.exitCode;
}

/** Wraps a command action: runs it with a context and turns any failure into the exit code. */
export function action<A extends unknown[]>(io: Io, fn: (ctx: CommandContext, ...args: A) => Promise<number | void>) {
  return async (...args: unknown[]): Promise<void> => {
    const cmd = args[args.length - 1] as Command;
    let json = false;
    try {
      const ctx = await contextFor(cmd, io);
      json = ctx.settings.json;
      const code = await fn(ctx, ...(args.slice(0, -1) as A));
      process.exitCode = code ?? EXIT.OK;
    } catch (err) {
      process.exitCode = reportError(err, io, json);
    }
  };
}
