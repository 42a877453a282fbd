// drive admin lib ...: business libraries (issue #18). The server decides who may (administrators only) and
// validates the code and names; the CLI only names things and prints them.
import type { Command } from 'commander';
import type { components } from '@hcs/openapi/client';
import { action, type Io } from '../command-context.ts';
import { usageError } from '../exit-codes.ts';

type Lib = components['schemas']['BusinessLibAdmin'];

function libJson(l: Lib) {
  return {
    libId: l.libId, libCode: l.libCode, nameZh: l.libName, nameEn: l.libNameEn, icon: l.webIcon, shown: l.isShow === 1, home: l.isHome === 1,
    sort: l.sort, enabled: l.isEnabled === 1, custom: l.custom === 1, rootId: l.rootId ?? null,
  };
}

function libLine(l: Lib): string {
  const flags = [l.isEnabled ? '' : 'disabled', l.custom ? '' : 'built-in', l.isHome ? 'home' : ''].filter(Boolean).join(',');
  return `${l.libCode.padEnd(24)} ${l.libName} / ${l.libNameEn}${flags ? `  [${flags}]` : ''}`;
}

export function registerAdminLib(admin: Command, io: Io): void {
  const lib = admin.command('lib').description('Business libraries');
  lib
    .command('add')
    .argument('<code>', 'library code: letters, digits and _, starting with a letter (2 to 32)')
    .requiredOption('--name-zh <name>', 'the Chinese name')
    .requiredOption('--name-en <name>', 'the English name')
    .option('--icon <name>', 'icon name for the web app', 'appstore')
    .option('--sort <n>', 'order on the home strip and in the switcher (smaller first)')
    .option('--not-home', 'leave it off the home strip')
    .description('Create a business library (with its root folder and menu)')
    .action(
      action(io, async (ctx, code: string, opts: { nameZh: string; nameEn: string; icon: string; sort?: string; notHome?: boolean }) => {
        const sort = opts.sort === undefined ? undefined : Number(opts.sort);
        if (sort !== undefined && (!Number.isInteger(sort) || sort < 0 || sort > 100000)) throw usageError(`--sort: "${opts.sort}" is not a whole number from 0 to 100000`);
        const body = { libCode: code, libName: opts.nameZh, libNameEn: opts.nameEn, webIcon: opts.icon, isHome: opts.notHome ? (0 as const) : (1 as const), ...(sort !== undefined ? { sort } : {}) };
        const made = (await ctx.api().call((c) => c.POST('/hcs/controller/BusinessLibs/add', { body }))).data!;
        ctx.print({ event: 'lib-add', ...libJson(made) }, `Created library ${made.libCode} (${made.libName} / ${made.libNameEn})`);
      }),
    );
  lib
    .command('ls')
    .description('List every business library, disabled and built-in ones included')
    .action(
      action(io, async (ctx) => {
        const libs = (await ctx.api().call((c) => c.GET('/hcs/controller/BusinessLibs/getAll', {}))).data ?? [];
        if (ctx.settings.json) for (const l of libs) ctx.print(libJson(l), '');
        else ctx.print(null, libs.map(libLine).join('\n'));
      }),
    );
}
