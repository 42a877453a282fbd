// drive ls / mkdir / rm / mv / cp: remote paths resolved from the personal root or a department space's (dept:, see
// remote-path.ts).
import type { Command } from 'commander';
import { encodeName } from '@hcs/openapi/client';
import { formatSize } from '@hcs/transfer-core';
import type { Api } from '../api.ts';
import { action, type CommandContext, type Io } from '../command-context.ts';
import { CliError, EXIT, usageError } from '../exit-codes.ts';
import { formatRemote, parseRemote, RemoteFs, type Instance } from '../remote-path.ts';

function entryJson(i: Instance, path: string) {
  return {
    path,
    name: i.instanceName,
    type: i.classifierId === 'Folder' ? 'folder' : 'file',
    size: i.fSize,
    sha256: i.fMd5 ?? null,
    id: i.instanceId,
    modified: new Date(i.updateTime).toISOString(),
  };
}

function entryLine(i: Instance): string {
  const type = i.classifierId === 'Folder' ? 'd' : '-';
  const size = i.classifierId === 'Folder' ? '' : formatSize(i.fSize);
  const when = new Date(i.updateTime).toISOString().slice(0, 16).replace('T', ' ');
  return `${type} ${size.padStart(10)}  ${when}  ${i.instanceName}${i.classifierId === 'Folder' ? '/' : ''}`;
}

/** Fails the batch call's per-entry failures as one error listing them. */
export function batchFailures(failed: Array<{ instanceId: string; code: string; msg: string }>, names: Map<string, string>): CliError | null {
  if (failed.length === 0) return null;
  const lines = failed.map((f) => `${names.get(f.instanceId) ?? f.instanceId}: ${f.code} ${f.msg}`);
  return new CliError(EXIT.REFUSED, lines.join('; '), failed[0]!.code);
}

/** Where SRC should go for mv/cp: into DST when it is a folder, else into DST's parent under DST's name. */
async function destinationOf(fs: RemoteFs, dst: string): Promise<{ folderId: string; newName: string | null }> {
  const { space, segments: segs } = parseRemote(dst);
  try {
    const r = await fs.resolve(dst);
    if (!r.instance || r.instance.classifierId === 'Folder') return { folderId: r.id, newName: null };
    throw new CliError(EXIT.REFUSED, `destination exists: ${formatRemote(space, segs)}`, 'NAME_EXISTS');
  } catch (err) {
    if (!(err instanceof CliError) || err.code !== 'NOT_FOUND' || segs.length === 0) throw err;
  }
  const parent = await fs.resolve(formatRemote(space, segs.slice(0, -1)));
  if (parent.instance && parent.instance.classifierId !== 'Folder') throw new CliError(EXIT.REFUSED, `not a folder: ${formatRemote(space, segs.slice(0, -1))}`, 'NOT_A_FOLDER');
  return { folderId: parent.id, newName: segs[segs.length - 1]! };
}

async function rename(api: Api, id: string, name: string): Promise<Instance> {
  const res = await api.call((c) => c.POST('/hcs/controller/Instances/{id}', { params: { path: { id } }, body: { instanceName: encodeName(name) } }));
  if (!res.data) throw new CliError(EXIT.REFUSED, 'the server returned no instance after renaming', 'BAD_RESPONSE');
  return res.data;
}

async function moveOrCopy(ctx: CommandContext, kind: 'move' | 'copy', src: string, dst: string): Promise<void> {
  const api = ctx.api();
  const fs = new RemoteFs(api);
  const source = await fs.resolve(src);
  if (!source.instance) throw usageError(`cannot ${kind} the root folder`);
  const { folderId, newName } = await destinationOf(fs, dst);
  const dest = parseRemote(dst);
  const to = formatRemote(dest.space, newName ? dest.segments : [...dest.segments, source.instance.instanceName]);
  const from = formatRemote(source.space, source.segments);
  if (kind === 'move' && newName && source.instance.parentId === folderId) {
    // A rename within the same folder is not a move.
    const renamed = await rename(api, source.id, newName);
    ctx.print({ event: kind, from, to, id: renamed.instanceId }, `Moved ${from} -> ${to}`);
    return;
  }
  const path = kind === 'move' ? '/hcs/controller/moveInstance' : '/hcs/controller/copyInstance';
  // A clash is an error rather than a silent "name (1)": the user named the destination.
  const res = await api.call((c) => c.GET(path, { params: { query: { ids: source.id, targetInstanceId: folderId, conflict: newName ? 'rename' : 'fail' } } }));
  const failure = batchFailures(res.data?.failed ?? [], new Map([[source.id, src]]));
  if (failure) throw failure;
  let result = res.data?.done[0];
  if (!result) throw new CliError(EXIT.REFUSED, `the server did not ${kind} ${src}`, 'BAD_RESPONSE');
  if (newName && result.instanceName !== newName) result = await rename(api, result.instanceId, newName);
  ctx.print({ event: kind, from, to, id: result.instanceId }, `${kind === 'move' ? 'Moved' : 'Copied'} ${from} -> ${to}`);
}

export function registerFiles(program: Command, io: Io): void {
  program
    .command('ls')
    .argument('[path]', 'remote folder or file', '/')
    .description('List a remote folder (folders first)')
    .action(
      action(io, async (ctx, path: string) => {
        const fs = new RemoteFs(ctx.api());
        const r = await fs.resolve(path);
        const base = formatRemote(r.space, r.segments);
        if (r.instance && r.instance.classifierId === 'File') {
          ctx.print(entryJson(r.instance, base), entryLine(r.instance));
          return;
        }
        for await (const child of fs.children(r.id)) {
          ctx.print(entryJson(child, formatRemote(r.space, [...r.segments, child.instanceName])), entryLine(child));
        }
      }),
    );

  program
    .command('mkdir')
    .argument('<path...>', 'remote folders to create')
    .description('Create remote folders, with any missing parents (like mkdir -p)')
    .action(
      action(io, async (ctx, paths: string[]) => {
        const fs = new RemoteFs(ctx.api());
        for (const p of paths) {
          const target = parseRemote(p);
          if (target.segments.length === 0) throw usageError('the root folder always exists');
          const id = await fs.ensurePath(target);
          const path = formatRemote(target.space, target.segments);
          ctx.print({ event: 'mkdir', path, id }, `Created ${path}`);
        }
      }),
    );

  program
    .command('rm')
    .argument('<path...>', 'remote files or folders')
    .description('Move remote files or folders (with their contents) to the recycle bin')
    .action(
      action(io, async (ctx, paths: string[]) => {
        const api = ctx.api();
        const fs = new RemoteFs(api);
        const names = new Map<string, string>();
        // Resolve everything first: one typo must not leave half the list deleted.
        for (const p of paths) {
          const r = await fs.resolve(p);
          if (!r.instance) throw usageError('refusing to delete the root folder');
          names.set(r.id, formatRemote(r.space, r.segments));
        }
        const res = await api.call((c) => c.GET('/hcs/controller/delete', { params: { query: { ids: [...names.keys()].join(',') } } }));
        for (const d of res.data?.done ?? []) ctx.print({ event: 'rm', path: names.get(d.instanceId) ?? d.instanceName, id: d.instanceId }, `Moved to the recycle bin: ${names.get(d.instanceId) ?? d.instanceName}`);
        const failure = batchFailures(res.data?.failed ?? [], names);
        if (failure) throw failure;
      }),
    );

  program
    .command('mv')
    .argument('<src>', 'remote file or folder')
    .argument('<dst>', 'remote folder to move into, or a new path')
    .description('Move (or rename) a remote file or folder')
    .action(action(io, (ctx, src: string, dst: string) => moveOrCopy(ctx, 'move', src, dst)));

  program
    .command('cp')
    .argument('<src>', 'remote file or folder')
    .argument('<dst>', 'remote folder to copy into, or a new path')
    .description('Copy a remote file or folder (no bytes are copied: blobs are shared)')
    .action(action(io, (ctx, src: string, dst: string) => moveOrCopy(ctx, 'copy', src, dst)));
}
