// drive versions <path> / drive rollback <path> --version <n>: history versions of a remote file.
import { Option, type Command } from 'commander';
import { formatSize } from '@hcs/transfer-core';
import { action, type Io } from '../command-context.ts';
import { usageError } from '../exit-codes.ts';
import { formatRemotePath, RemoteFs } from '../remote-path.ts';

export function registerVersions(program: Command, io: Io): void {
  program
    .command('versions')
    .argument('<path>', 'remote file')
    .description('List the versions of a remote file, current first: version, time, size, author, SHA-256')
    .action(
      action(io, async (ctx, path: string) => {
        const api = ctx.api();
        const r = await new RemoteFs(api).resolve(path);
        if (!r.instance || r.instance.classifierId !== 'File') throw usageError(`not a file: ${formatRemotePath(r.segments)}`);
        const res = await api.call((c) => c.GET('/hcs/controller/getHistoryVersion', { params: { query: { instanceId: r.id } } }));
        for (const v of res.data?.list ?? []) {
          const when = new Date(v.createTime).toISOString();
          ctx.print(
            { path: formatRemotePath(r.segments), version: v.version, current: v.current, size: v.fSize, sha256: v.fMd5, author: v.userName, time: when },
            `${`v${v.version}`.padEnd(6)}${v.current ? '*' : ' '} ${when.slice(0, 16).replace('T', ' ')}  ${formatSize(v.fSize).padStart(10)}  ${v.userName.padEnd(12)}  ${v.fMd5}`,
          );
        }
      }),
    );

  program
    .command('rollback')
    .argument('<path>', 'remote file')
    // What the user types as --version arrives as --to-version (rollbackArgv); the help shows --version.
    .addOption(new Option('--version <n>', 'the version to make current (see drive versions)'))
    .addOption(new Option('--to-version <n>').hideHelp())
    .description('Make an older version of a remote file current (the replaced content is kept as a version)')
    .action(
      action(io, async (ctx, path: string, opts: { toVersion?: string }) => {
        if (opts.toVersion === undefined) throw usageError('--version <n> is required (see drive versions)');
        const version = Number(opts.toVersion);
        if (!Number.isSafeInteger(version) || version < 1 || version > 2147483647) throw usageError(`--version must be a positive whole number: ${opts.toVersion}`);
        const api = ctx.api();
        const r = await new RemoteFs(api).resolve(path);
        if (!r.instance || r.instance.classifierId !== 'File') throw usageError(`not a file: ${formatRemotePath(r.segments)}`);
        const res = await api.call((c) => c.POST('/hcs/controller/rollbackFile', { body: { instanceId: r.id, version } }));
        const now = res.data?.version ?? 0;
        ctx.print(
          { event: 'rollback', path: formatRemotePath(r.segments), from: version, version: now, id: r.id, sha256: res.data?.fMd5 ?? null },
          `Rolled back ${formatRemotePath(r.segments)} to version ${version} (now version ${now})`,
        );
      }),
    );
}

/** Global options that take a value (skipped when finding the command name). */
const VALUE_OPTIONS = new Set(['--server', '--user', '--config', '--state-dir']);

/**
 * The program's --version (print the version) is recognised after a command name too, so `drive rollback <path>
 * --version <n>` (the fixed interface) would print the version instead: after the rollback command, --version is
 * renamed to the command's own --to-version before commander parses. `argv` as process.argv (node, script, ...).
 */
export function rollbackArgv(argv: readonly string[]): string[] {
  let at = 2;
  while (at < argv.length && argv[at]!.startsWith('-')) at += VALUE_OPTIONS.has(argv[at]!) ? 2 : 1;
  if (argv[at] !== 'rollback') return [...argv];
  const out = argv.slice(0, at + 1);
  for (let i = at + 1; i < argv.length; i++) {
    const a = argv[i]!;
    if (a === '--') {
      out.push(...argv.slice(i));
      break;
    }
    out.push(a === '--version' ? '--to-version' : a.startsWith('--version=') ? `--to-version=${a.slice('--version='.length)}` : a);
  }
  return out;
}
