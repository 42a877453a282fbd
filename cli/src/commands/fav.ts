// drive fav add / rm / ls: My Favorites. Items are named by remote path (personal space); ls lists favourites of
// every space, with the path inside their own space.
import type { Command } from 'commander';
import type { components } from '@hcs/openapi/client';
import type { Api } from '../api.ts';
import { action, type CommandContext, type Io } from '../command-context.ts';
import { RemoteFs, formatRemotePath } from '../remote-path.ts';
import { CliError, EXIT, usageError } from '../exit-codes.ts';

type Instance = components['schemas']['Instance'];

const PAGE = 500;
const SPACE: Record<string, string> = { '1': 'personal', '2': 'group', '3': 'department' };

/** An item's path inside its own space, from the names of its folders. */
export function pathInSpace(i: Pick<Instance, 'parentNames' | 'instanceName'>): string {
  return formatRemotePath([...(i.parentNames ?? '').split('/').filter(Boolean), i.instanceName]);
}

/** The JSON of an item listed by fav ls, tag ls and search: where it lives and what it is. */
export function itemJson(i: Instance) {
  return {
    path: pathInSpace(i),
    space: SPACE[i.instanceType] ?? i.instanceType,
    spaceId: i.spaceId ?? null,
    name: i.instanceName,
    type: i.classifierId === 'Folder' ? 'folder' : 'file',
    size: i.fSize,
    id: i.instanceId,
    parentId: i.parentId,
    labels: (i.labels ?? []).map((l) => l.name),
    modified: new Date(i.updateTime).toISOString(),
  };
}

export function itemLine(i: Instance): string {
  const space = i.instanceType === '1' ? '' : `[${SPACE[i.instanceType] ?? i.instanceType}] `;
  const labels = i.labels?.length ? `  #${i.labels.map((l) => l.name).join(' #')}` : '';
  return `${space}${pathInSpace(i)}${i.classifierId === 'Folder' ? '/' : ''}${labels}`;
}

/** The batch call's per-item failures as one error naming each path. */
function failures(failed: Array<{ instanceId: string; code: string; msg: string }>, names: Map<string, string>): CliError | null {
  if (failed.length === 0) return null;
  return new CliError(EXIT.REFUSED, failed.map((f) => `${names.get(f.instanceId) ?? f.instanceId}: ${f.code} ${f.msg}`).join('; '), failed[0]!.code);
}

async function idsOf(api: Api, paths: string[]): Promise<Map<string, string>> {
  const fs = new RemoteFs(api);
  const ids = new Map<string, string>();
  for (const p of paths) {
    const r = await fs.resolve(p);
    if (!r.instance) throw usageError('the root folder cannot be a favourite');
    ids.set(r.id, formatRemotePath(r.segments));
  }
  return ids;
}

async function add(ctx: CommandContext, paths: string[]): Promise<void> {
  const api = ctx.api();
  const ids = await idsOf(api, paths);
  const res = await api.call((c) => c.POST('/hcs/controller/collectionFile', { body: { ids: [...ids.keys()].join(',') } }));
  for (const d of res.data?.done ?? []) ctx.print({ event: 'fav', path: ids.get(d.instanceId), id: d.instanceId }, `Favourite: ${ids.get(d.instanceId)}`);
  const failure = failures(res.data?.failed ?? [], ids);
  if (failure) throw failure;
}

async function remove(ctx: CommandContext, paths: string[]): Promise<void> {
  const api = ctx.api();
  const ids = await idsOf(api, paths);
  const res = await api.call((c) => c.GET('/hcs/controller/delCollectionFile', { params: { query: { ids: [...ids.keys()].join(',') } } }));
  ctx.print({ event: 'unfav', paths: [...ids.values()], removed: res.data?.removed ?? 0 }, `Removed ${res.data?.removed ?? 0} favourite(s)`);
}

async function list(ctx: CommandContext): Promise<void> {
  const api = ctx.api();
  for (let pageNo = 1; ; pageNo++) {
    const res = await api.call((c) => c.GET('/hcs/controller/pageCollectionFile', { params: { query: { pageNo, pageSize: PAGE } } }));
    const page = res.data;
    if (!page) return;
    for (const f of page.list) ctx.print({ ...itemJson(f), favourited: new Date(f.favouriteTime).toISOString() }, itemLine(f));
    if (page.list.length < PAGE || pageNo * PAGE >= page.total) return;
  }
}

export function registerFav(program: Command, io: Io): void {
  const fav = program.command('fav').description('My Favorites: add, remove, list');
  fav.command('add').argument('<path...>', 'remote paths').description('Add files or folders to My Favorites').action(action(io, add));
  fav.command('rm').argument('<path...>', 'remote paths').description('Remove files or folders from My Favorites').action(action(io, remove));
  fav.command('ls').description('List My Favorites, newest first (items you can no longer reach are left out)').action(action(io, list));
}
