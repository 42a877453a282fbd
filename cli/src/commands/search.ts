// drive search <text> [--type <category>] [--label <l>] [--in <remote path>]: names containing <text> (any case,
// any script) in every space you may read, with the spec's file categories.
import type { Command } from 'commander';
import { action, type CommandContext, type Io } from '../command-context.ts';
import { CliError, EXIT, usageError } from '../exit-codes.ts';
import { RemoteFs, formatRemotePath } from '../remote-path.ts';
import { itemJson, itemLine } from './fav.ts';
import { labelNamed } from './tag.ts';

/** The spec's file filter categories (1-9), by name or number. */
export const CATEGORIES = ['folder', 'word', 'ppt', 'excel', 'pdf', 'image', 'video', 'audio', 'other'] as const;

const PAGE = 500;

function category(type: string): number {
  const n = /^[1-9]$/.test(type) ? Number(type) : CATEGORIES.indexOf(type.toLowerCase() as (typeof CATEGORIES)[number]) + 1;
  if (n < 1) throw usageError(`--type must be one of ${CATEGORIES.join(', ')} (or 1-9)`);
  return n;
}

async function search(ctx: CommandContext, text: string, opts: { type?: string; label?: string; in?: string }): Promise<void> {
  const fileFilter = opts.type === undefined ? undefined : category(opts.type);
  const api = ctx.api();
  let labelId: string | undefined;
  if (opts.label !== undefined) {
    const label = await labelNamed(api, opts.label);
    if (!label) throw new CliError(EXIT.REFUSED, `no label named ${opts.label}`, 'NOT_FOUND');
    labelId = label.labelId;
  }
  let parentId: string | undefined;
  if (opts.in !== undefined) {
    const r = await new RemoteFs(api).resolve(opts.in);
    if (r.instance && r.instance.classifierId !== 'Folder') throw usageError(`not a folder: ${formatRemotePath(r.segments)}`);
    parentId = r.id;
  }
  let cursor: string | undefined;
  for (;;) {
    const res = await api.call((c) =>
      c.GET('/hcs/controller/es/searchPage', {
        params: {
          query: {
            keyword: text, pageSize: PAGE, ...(fileFilter ? { fileFilter } : {}), ...(labelId ? { labelId } : {}), ...(parentId ? { parentId } : {}),
            ...(cursor ? { cursor } : {}),
          },
        },
      }),
    );
    for (const i of res.data?.list ?? []) ctx.print(itemJson(i), itemLine(i));
    cursor = res.data?.nextCursor ?? undefined;
    if (!cursor) return;
  }
}

export function registerSearch(program: Command, io: Io): void {
  program
    .command('search')
    .argument('<text>', 'part of the name (any case)')
    .description('Find files and folders by name in every space you may read')
    .option('--type <category>', `${CATEGORIES.join(', ')} (or 1-9)`)
    .option('--label <label>', 'only items carrying this label of yours')
    .option('--in <remote path>', 'only below this folder')
    .action(action(io, search));
}
