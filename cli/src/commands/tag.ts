// drive tag add / rm / ls <path> [<label>]: the caller's own labels on files and folders. add creates a label of
// that name when there is none yet; ls lists the labels on <path>, or with a label the items below <path> carrying it.
import type { Command } from 'commander';
import type { components } from '@hcs/openapi/client';
import type { Api } from '../api.ts';
import { action, type CommandContext, type Io } from '../command-context.ts';
import { CliError, EXIT, usageError } from '../exit-codes.ts';
import { RemoteFs, formatRemotePath, type Resolved } from '../remote-path.ts';
import { itemJson, itemLine } from './fav.ts';

type Label = components['schemas']['Label'];

const PAGE = 500;
/** The server's default colour for a new label (the contract's). */
const DEFAULT_COLOR = '#1677ff';

async function labels(api: Api): Promise<Label[]> {
  return (await api.call((c) => c.GET('/hcs/controller/labels'))).data ?? [];
}

/** The caller's label of this name (any case), or null. */
export async function labelNamed(api: Api, name: string): Promise<Label | null> {
  const want = name.trim().normalize('NFC').toLowerCase();
  return (await labels(api)).find((l) => l.name.normalize('NFC').toLowerCase() === want) ?? null;
}

async function item(api: Api, path: string): Promise<Resolved & { instance: NonNullable<Resolved['instance']> }> {
  const r = await new RemoteFs(api).resolve(path);
  if (!r.instance) throw usageError('the root folder carries no labels');
  return r as Resolved & { instance: NonNullable<Resolved['instance']> };
}

async function add(ctx: CommandContext, path: string, name: string | undefined): Promise<void> {
  if (!name) throw usageError('name the label: drive tag add <path> <label>');
  const api = ctx.api();
  const target = await item(api, path);
  const label = (await labelNamed(api, name)) ?? (await api.call((c) => c.POST('/hcs/controller/labels', { body: { name, color: DEFAULT_COLOR } }))).data!;
  const res = await api.call((c) => c.POST('/hcs/controller/saveInstanceLabel', { body: { instanceId: target.id, labelIds: [label.labelId], mode: 'add' } }));
  const on = (res.data?.labels ?? []).map((l) => l.name);
  ctx.print({ event: 'tag', path: formatRemotePath(target.segments), label: label.name, labels: on }, `${formatRemotePath(target.segments)}: #${on.join(' #')}`);
}

async function remove(ctx: CommandContext, path: string, name: string | undefined): Promise<void> {
  if (!name) throw usageError('name the label: drive tag rm <path> <label>');
  const api = ctx.api();
  const target = await item(api, path);
  const label = await labelNamed(api, name);
  if (!label) throw new CliError(EXIT.REFUSED, `no label named ${name}`, 'NOT_FOUND');
  const res = await api.call((c) => c.POST('/hcs/controller/saveInstanceLabel', { body: { instanceId: target.id, labelIds: [label.labelId], mode: 'remove' } }));
  const on = (res.data?.labels ?? []).map((l) => l.name);
  ctx.print({ event: 'untag', path: formatRemotePath(target.segments), label: label.name, labels: on }, `${formatRemotePath(target.segments)}: ${on.length ? `#${on.join(' #')}` : '(no labels)'}`);
}

async function list(ctx: CommandContext, path: string, name: string | undefined): Promise<void> {
  const api = ctx.api();
  const fs = new RemoteFs(api);
  const target = await fs.resolve(path);
  if (name === undefined) {
    if (!target.instance) {
      for (const l of await labels(api)) ctx.print({ label: l.name, color: l.color, items: l.itemCount, id: l.labelId }, `#${l.name}  ${l.color}  ${l.itemCount}`);
      return;
    }
    const one = (await api.call((c) => c.GET('/hcs/controller/Instances/{id}', { params: { path: { id: target.id } } }))).data!;
    for (const l of one.labels ?? []) ctx.print({ path: formatRemotePath(target.segments), label: l.name, color: l.color, id: l.labelId }, `#${l.name}  ${l.color}`);
    return;
  }
  const label = await labelNamed(api, name);
  if (!label) throw new CliError(EXIT.REFUSED, `no label named ${name}`, 'NOT_FOUND');
  const parentId = target.instance ? target.id : undefined;
  if (target.instance && target.instance.classifierId !== 'Folder') throw usageError(`not a folder: ${formatRemotePath(target.segments)}`);
  let cursor: string | undefined;
  for (;;) {
    const res = await api.call((c) =>
      c.GET('/hcs/controller/es/searchPage', { params: { query: { labelId: label.labelId, pageSize: PAGE, ...(parentId ? { parentId } : {}), ...(cursor ? { cursor } : {}) } } }),
    );
    for (const i of res.data?.list ?? []) ctx.print(itemJson(i), itemLine(i));
    cursor = res.data?.nextCursor ?? undefined;
    if (!cursor) return;
  }
}

export function registerTag(program: Command, io: Io): void {
  const tag = program.command('tag').description('Your own labels on files and folders');
  tag.command('add').argument('<path>', 'remote path').argument('[label]', 'label name (created when new)').description('Put a label on a file or folder')
    .action(action(io, add));
  tag.command('rm').argument('<path>', 'remote path').argument('[label]', 'label name').description('Take a label off a file or folder')
    .action(action(io, remove));
  tag.command('ls').argument('<path>', 'remote path (/ lists all your labels)').argument('[label]', 'list the items below <path> that carry this label')
    .description('The labels on <path>, or the items below <path> carrying <label>')
    .action(action(io, list));
}
