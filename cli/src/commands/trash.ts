// drive trash ls / restore / purge / empty: the user's recycle bin. Entries are named by their original path
// ("/docs/a.txt", where they were deleted from) or by id; a path deleted more than once names its newest entry.
import type { Command } from 'commander';
import { formatSize } from '@hcs/transfer-core';
import type { components } from '@hcs/openapi/client';
import type { Api } from '../api.ts';
import { action, type CommandContext, type Io } from '../command-context.ts';
import { CliError, EXIT, usageError } from '../exit-codes.ts';
import { formatRemotePath, parseRemotePath } from '../remote-path.ts';
import { batchFailures } from './files.ts';

type RecycleItem = components['schemas']['RecycleItem'];

const PAGE = 500;
const SORT = { name: 'instanceName', size: 'fSize', time: 'deleteTime' } as const;

/** Where an entry was: its original folder's path and its name. */
function pathOf(e: RecycleItem): string {
  return formatRemotePath([...e.originalPath.split('/').filter(Boolean), e.instanceName]);
}

function entryJson(e: RecycleItem) {
  return {
    path: pathOf(e),
    name: e.instanceName,
    type: e.classifierId === 'Folder' ? 'folder' : 'file',
    size: e.fSize,
    id: e.instanceId,
    deleted: new Date(e.deleteTime).toISOString(),
    deletedBy: e.deletedByName,
  };
}

function entryLine(e: RecycleItem): string {
  const type = e.classifierId === 'Folder' ? 'd' : '-';
  const when = new Date(e.deleteTime).toISOString().slice(0, 16).replace('T', ' ');
  return `${type} ${formatSize(e.fSize).padStart(10)}  ${when}  ${pathOf(e)}${e.classifierId === 'Folder' ? '/' : ''}  ${e.instanceId}`;
}

/** Every entry of the bin (page by page), in the server's order for these options. */
async function allEntries(api: Api, q: { keyword?: string; sortField?: (typeof SORT)[keyof typeof SORT]; sortOrder?: 'asc' | 'desc' } = {}): Promise<RecycleItem[]> {
  const out: RecycleItem[] = [];
  for (let pageNo = 1; ; pageNo++) {
    const res = await api.call((c) => c.GET('/hcs/controller/pageRecycle', { params: { query: { ...q, pageNo, pageSize: PAGE } } }));
    const page = res.data;
    if (!page) return out;
    out.push(...page.list);
    if (page.list.length < PAGE || out.length >= page.total) return out;
  }
}

/** The entries the arguments name: an original path (newest entry of that path) or an entry id. */
async function entriesNamed(api: Api, args: string[]): Promise<Map<string, string>> {
  const bin = await allEntries(api);
  const named = new Map<string, string>();
  for (const arg of args) {
    let hit: RecycleItem | undefined;
    if (arg.startsWith('/')) {
      const want = formatRemotePath(parseRemotePath(arg));
      // Newest first: the server's default order.
      hit = bin.find((e) => pathOf(e) === want);
    } else {
      hit = bin.find((e) => e.instanceId === arg);
    }
    if (!hit) throw new CliError(EXIT.REFUSED, `not in the recycle bin: ${arg}`, 'NOT_FOUND');
    named.set(hit.instanceId, pathOf(hit));
  }
  return named;
}

async function restore(ctx: CommandContext, args: string[], opts: { keepBoth?: boolean; replace?: boolean }): Promise<void> {
  if (opts.keepBoth && opts.replace) throw usageError('--keep-both and --replace exclude each other');
  const api = ctx.api();
  const names = await entriesNamed(api, args);
  const conflict = opts.keepBoth ? 'keepBoth' : opts.replace ? 'replace' : undefined;
  const res = await api.call((c) =>
    c.GET('/hcs/controller/restore', { params: { query: { ids: [...names.keys()].join(','), ...(conflict ? { conflict } : {}) } } }),
  );
  for (const d of res.data?.done ?? []) {
    const to = formatRemotePath([...(d.parentNames ?? '').split('/').filter(Boolean), d.instanceName]);
    ctx.print({ event: 'restore', from: names.get(d.instanceId), to, id: d.instanceId }, `Restored ${names.get(d.instanceId)} -> ${to}`);
  }
  const failed = res.data?.failed ?? [];
  const failure = batchFailures(failed, names);
  if (failure && failed.some((f) => f.code === 'NAME_EXISTS')) {
    throw new CliError(failure.exitCode, `${failure.message} (the name is taken: pass --keep-both or --replace)`, failure.code);
  }
  if (failure) throw failure;
}

export function registerTrash(program: Command, io: Io): void {
  const trash = program.command('trash').description('The recycle bin: list, restore, delete for good, empty');

  trash
    .command('ls')
    .description('List the recycle bin, newest first: type, size, deletion time, original path, id')
    .option('--search <text>', 'only entries whose name contains this text (any case)')
    .option('--sort <key>', 'name, size or time (default time)')
    .option('--asc', 'ascending order (default: descending)')
    .action(
      action(io, async (ctx, opts: { search?: string; sort?: string; asc?: boolean }) => {
        if (opts.sort !== undefined && !(opts.sort in SORT)) throw usageError(`--sort must be one of ${Object.keys(SORT).join(', ')}`);
        const entries = await allEntries(ctx.api(), {
          ...(opts.search ? { keyword: opts.search } : {}),
          sortField: SORT[(opts.sort ?? 'time') as keyof typeof SORT],
          sortOrder: opts.asc ? 'asc' : 'desc',
        });
        for (const e of entries) ctx.print(entryJson(e), entryLine(e));
      }),
    );

  trash
    .command('restore')
    .argument('<entry...>', 'original paths (/docs/a.txt) or ids of recycle bin entries')
    .description('Restore entries to where they were deleted from (missing folders are recreated)')
    .option('--keep-both', 'when the name is taken, restore as "name (1).ext"')
    .option('--replace', 'when the name is taken, move what holds it to the recycle bin')
    .action(action(io, (ctx, args: string[], opts: { keepBoth?: boolean; replace?: boolean }) => restore(ctx, args, opts)));

  trash
    .command('purge')
    .argument('<entry...>', 'original paths (/docs/a.txt) or ids of recycle bin entries')
    .description('Delete entries for good (they stop counting against your quota; administrators can still recover them for a while)')
    .action(
      action(io, async (ctx, args: string[]) => {
        const api = ctx.api();
        const names = await entriesNamed(api, args);
        const res = await api.call((c) => c.GET('/hcs/controller/remove/delete', { params: { query: { ids: [...names.keys()].join(',') } } }));
        for (const id of res.data?.done ?? []) ctx.print({ event: 'purge', path: names.get(id), id }, `Deleted for good: ${names.get(id)}`);
        const failure = batchFailures(res.data?.failed ?? [], names);
        if (failure) throw failure;
      }),
    );

  trash
    .command('empty')
    .description('Delete everything in the recycle bin for good')
    .action(
      action(io, async (ctx) => {
        const res = await ctx.api().call((c) => c.POST('/hcs/controller/emptyRecycle', {}));
        const { count = 0, bytes = 0 } = res.data ?? {};
        ctx.print({ event: 'empty', count, bytes }, `Emptied the recycle bin: ${count} entr${count === 1 ? 'y' : 'ies'}, ${formatSize(bytes)}`);
      }),
    );
}
