// drive pull --from <server URL> --user <name> [--group <group>]: moves your files from an account on another drive
// server into this one. The other account's password is read from standard input only (as `drive login
// --password-stdin` reads it) and leaves this machine encrypted with this server's public key; this server signs in
// there and pulls the files as a job, which goes on if the command is interrupted. The command waits for the job and
// reports what it imported. --user here names the account on the other server (this server's session is the
// signed-in one). --group: that group's files go into your group of the same name here.
import type { Command } from 'commander';
import { encryptPassword, HcsError, unwrap } from '@hcs/openapi/client';
import { toCliError } from '../api.ts';
import { action, type CommandContext, type Io } from '../command-context.ts';
import { CliError, EXIT, usageError } from '../exit-codes.ts';
import { readPasswordStdin } from './session.ts';

/** How often the job's progress is asked for while waiting. */
const POLL_MS = 1000;

interface PullStatus {
  pullId: string;
  state: number;
  syncType: string;
  serverUrl: string;
  remoteUser: string;
  groupName?: string | null;
  files: number;
  skipped: number;
  failed: number;
  bytes: number;
  error?: string | null;
}

/** The other server's refusals said in words (the server's msg is for the web app's locale lookup). */
function pullError(err: unknown): unknown {
  if (err instanceof HcsError && err.code === 'REMOTE_LOGIN_FAILED') return new CliError(EXIT.AUTH, 'the other server refused that user name or password', err.code);
  if (err instanceof HcsError && err.code === 'REMOTE_UNREACHABLE') return new CliError(EXIT.UNREACHABLE, 'the other server cannot be reached (check --from)', err.code);
  if (err instanceof HcsError && err.code === 'FORBIDDEN') return new CliError(EXIT.REFUSED, `${err.message} (FORBIDDEN)`, err.code);
  return err;
}

function summary(s: PullStatus): string {
  const what = s.syncType === 'group' ? `group files${s.groupName ? ` of ${s.groupName}` : ''}` : 'personal files';
  return `Pulled ${what} of ${s.remoteUser} from ${s.serverUrl}: ${s.files} imported (${s.bytes} bytes), ${s.skipped} already here, ${s.failed} failed.`;
}

async function pull(ctx: CommandContext, stdin: NodeJS.ReadableStream & { isTTY?: boolean }, opts: { from?: string; group?: string; user?: string }): Promise<number> {
  if (!opts.from) throw usageError('--from <server URL> names the other drive server');
  if (!opts.user) throw usageError('--user <name> names your account on the other server');
  const password = await readPasswordStdin(stdin);
  if (!password) throw usageError('empty password: pipe the other account\'s password to standard input');
  const api = ctx.api();
  let started: PullStatus;
  try {
    const info = unwrap(await api.client.GET('/hcs/services/System/platformInfo', {}));
    if (!info.data) throw new CliError(EXIT.REFUSED, 'the server sent no platform info', 'BAD_RESPONSE');
    const body = { serverUrl: opts.from, userName: opts.user, password: await encryptPassword(info.data.publicKey, password) };
    const res = opts.group !== undefined
      ? unwrap(await api.client.POST('/hcs/controller/System/groupSync', { body: { ...body, syncType: 'group', groupName: opts.group } }))
      : unwrap(await api.client.POST('/hcs/controller/System/oneDiskSync', { body: { ...body, syncType: 'personal' } }));
    started = res.data!;
  } catch (err) {
    throw toCliError(pullError(err));
  }
  if (!ctx.settings.json) ctx.io.stderr.write(`Pulling from ${started.serverUrl} on the server (job ${started.pullId}); waiting for it to finish...\n`);
  let s = started;
  while (s.state === 3) {
    await new Promise((r) => setTimeout(r, POLL_MS));
    const now = (await api.call((c) => c.GET('/hcs/controller/System/pullSync/status', {}))).data;
    if (!now || now.pullId !== started.pullId) throw new CliError(EXIT.REFUSED, 'the pull job is gone', 'NOT_FOUND');
    s = now;
  }
  ctx.print({ event: 'pull', ...s }, summary(s));
  if (s.state === 2) {
    if (s.error) ctx.io.stderr.write(`drive: note: ${s.error}\n`);
    return s.failed > 0 ? EXIT.PARTIAL : EXIT.OK;
  }
  const code = s.error?.split(':')[0] || 'PULL_FAILED';
  throw new CliError(code === 'REMOTE_LOGIN_FAILED' ? EXIT.AUTH : EXIT.REFUSED, `the pull stopped: ${s.error ?? 'unknown reason'}`, code);
}

export function registerPull(program: Command, io: Io, stdin: NodeJS.ReadableStream & { isTTY?: boolean } = process.stdin): void {
  const cmd = program
    .command('pull')
    .description('Move your files from an account on another drive server into this one (password from standard input)')
    .requiredOption('--from <url>', 'the other drive server, e.g. https://old-drive.example.com')
    .option('--group <group>', 'pull that group\'s files into your group of the same name here (default: your personal files)')
    .addHelpText('after', '\n--user <name> (a global option) names your account on the other server.\nExample: printf "%s" "$OLD_PW" | drive pull --from https://old-drive.example.com --user alice');
  cmd.action(action(io, async (ctx, opts: { from?: string; group?: string }) => pull(ctx, stdin, { ...opts, user: cmd.optsWithGlobals<{ user?: string }>().user })));
}
