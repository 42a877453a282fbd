// Builds the commander program: global options (each also an HCS_* variable) and the commands.
import { Command, Option } from 'commander';
import type { Io } from './command-context.ts';
import { registerAccess } from './commands/access.ts';
import { registerAdmin } from './commands/admin.ts';
import { registerAgent } from './commands/agent.ts';
import { registerFav } from './commands/fav.ts';
import { registerFiles } from './commands/files.ts';
import { registerGroup } from './commands/group.ts';
import { registerLinkTransfer } from './commands/link-transfer.ts';
import { registerPull } from './commands/pull.ts';
import { registerSearch } from './commands/search.ts';
import { registerSession } from './commands/session.ts';
import { registerShare } from './commands/share.ts';
import { registerTag } from './commands/tag.ts';
import { registerTransfer } from './commands/transfer.ts';
import { registerTrash } from './commands/trash.ts';
import { registerVersions, rollbackArgv } from './commands/versions.ts';
import { ENV } from './settings.ts';

const EXIT_HELP = `
Exit codes:
  0    success
  1    some files failed (each is listed)
  2    usage error (bad flags, arguments or local paths)
  3    authentication: not signed in, session ended, wrong credentials, account frozen or expired
  4    server or storage unreachable (or 502/503/504)
  5    the server refused the operation (not found, name exists, no space, ...)
  130  interrupted (Ctrl-C); bulk jobs saved their state: run the same command to resume

Environment:
${Object.entries(ENV)
  .map(([k, v]) => `  ${k.padEnd(16)} ${v}`)
  .join('\n')}
`;

export function buildProgram(io: Io): Command {
  const program = new Command('drive')
    .description('Terminal client for the HCS cloud drive: files, bulk upload and download')
    .version('0.1.0')
    .addOption(new Option('--server <url>', 'server origin').env('HCS_SERVER'))
    .addOption(new Option('--user <name>', 'user name').env('HCS_USER'))
    .addOption(new Option('--config <file>', 'auth file').env('HCS_CONFIG'))
    .addOption(new Option('--state-dir <dir>', 'job state and hash cache directory').env('HCS_STATE_DIR'))
    // Not .env(): commander would treat HCS_JSON=0 as true; settings.ts parses it.
    .option('--json', 'one JSON object per line on stdout (also HCS_JSON=1)')
    .addHelpText('after', EXIT_HELP)
    .showHelpAfterError('(run `drive --help` for usage)')
    .exitOverride()
    .configureOutput({ writeOut: (s) => io.stdout.write(s), writeErr: (s) => io.stderr.write(s) });
  registerSession(program, io);
  registerFiles(program, io);
  registerTransfer(program, io);
  registerAgent(program, io);
  registerFav(program, io);
  registerTag(program, io);
  registerSearch(program, io);
  registerAdmin(program, io);
  registerAccess(program, io);
  registerTrash(program, io);
  registerVersions(program, io);
  registerGroup(program, io);
  registerShare(program, io);
  registerLinkTransfer(program, io);
  registerPull(program, io);
  for (const cmd of program.commands) cmd.exitOverride().configureOutput({ writeOut: (s) => io.stdout.write(s), writeErr: (s) => io.stderr.write(s) });
  const parseAsync = program.parseAsync.bind(program);
  program.parseAsync = (argv, opts) => parseAsync(argv && !opts?.from ? rollbackArgv(argv) : argv, opts);
  return program;
}
