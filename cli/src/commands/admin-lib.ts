// drive admin lib ...: business libraries (issue #18). The server decides who may (administrators only) and
// validates the code and names; the CLI only names things and prints them.
import type { Command } from 'commander';
import type { components } from '@hcs/openapi/client';
import { action, type Io } from '../command-context.ts';
import { usageError } from '../exit-codes.ts';

type Lib = components['schemas']['BusinessLibAdmin'];
type LibConfig = components['schemas']['LibConfig'];
type LibStats = components['schemas']['LibStats'];

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

function configJson(c: LibConfig) {
  return {
    libCode: c.libCode, custom: c.custom === 1, versionMaxCount: c.versionMaxCount, versionMaxDays: c.versionMaxDays, adminOnly: c.adminOnly === 1,
    defaults: c.defaults,
  };
}

function configLines(c: LibConfig): string {
  const own = (v: number | null, d: number) => (v === null ? `${d} (server default)` : String(v));
  return [
    `library          ${c.libCode}`,
    `versions kept    ${own(c.versionMaxCount, c.defaults.versionMaxCount)}`,
    `version days     ${own(c.versionMaxDays, c.defaults.versionMaxDays)}`,
    `admins only      ${c.adminOnly === 1 ? 'yes' : 'no'}`,
  ].join('\n');
}

/** A version limit option: a whole number in range, or "default" (null: back to the server's). */
function limit(flag: string, text: string | undefined, min: number): number | null | undefined {
  if (text === undefined) return undefined;
  if (text === 'default') return null;
  const n = Number(text);
  if (!Number.isInteger(n) || n < min || n > 100000) throw usageError(`${flag}: "${text}" is not "default" or a whole number from ${min} to 100000`);
  return n;
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
  lib
    .command('config')
    .argument('<code>', 'library code (NetDisk included)')
    .option('--versions <n|default>', 'history versions a file keeps at most')
    .option('--version-days <n|default>', 'days a history version is kept (0: no age limit)')
    .option('--admin-only <yes|no>', 'only administrators see and use the library (custom libraries)')
    .description("Show a library's settings, or change those given")
    .action(
      action(io, async (ctx, code: string, opts: { versions?: string; versionDays?: string; adminOnly?: string }) => {
        const versionMaxCount = limit('--versions', opts.versions, 1);
        const versionMaxDays = limit('--version-days', opts.versionDays, 0);
        if (opts.adminOnly !== undefined && opts.adminOnly !== 'yes' && opts.adminOnly !== 'no') throw usageError(`--admin-only: "${opts.adminOnly}" is not yes or no`);
        const changes = {
          ...(versionMaxCount !== undefined ? { versionMaxCount } : {}),
          ...(versionMaxDays !== undefined ? { versionMaxDays } : {}),
          ...(opts.adminOnly !== undefined ? { adminOnly: opts.adminOnly === 'yes' ? (1 as const) : (0 as const) } : {}),
        };
        const api = ctx.api();
        const c = Object.keys(changes).length
          ? (await api.call((cl) => cl.POST('/hcs/controller/BusinessLibs/config', { body: { libCode: code, ...changes } }))).data!
          : (await api.call((cl) => cl.GET('/hcs/controller/BusinessLibs/config', { params: { query: { libCode: code } } }))).data!;
        ctx.print({ event: 'lib-config', ...configJson(c) }, configLines(c));
      }),
    );
  lib
    .command('stats')
    .argument('[code]', 'one custom library (all of them without)')
    .description('What each custom library holds: files, folders, bytes, classifiers, attributes')
    .action(
      action(io, async (ctx, code: string | undefined) => {
        const stats: LibStats[] = (await ctx.api().call((c) => c.GET('/hcs/controller/BusinessLibs/stats', { params: { query: code ? { libCode: code } : {} } }))).data ?? [];
        if (ctx.settings.json) for (const s of stats) ctx.print(s, '');
        else ctx.print(null, stats.map((s) => `${s.libCode.padEnd(24)} ${s.files} files, ${s.folders} folders, ${s.bytes} bytes, ${s.classifiers} classifiers, ${s.attributes} attributes`).join('\n'));
      }),
    );
}
