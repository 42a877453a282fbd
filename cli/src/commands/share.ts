// drive share ...: sharing (issue #17). This file holds the command group and the internal shares (part 1):
// `drive share user` shares a file or folder with a user, a department or a group with a share role, `drive share
// with-me` lists what others shared with the caller. Users, departments and groups are named as people know them and
// looked up here (the calls take ids); whether the caller may share, and with which role, is the server's decision.
import type { Command } from 'commander';
import type { components } from '@hcs/openapi/client';
import type { Api } from '../api.ts';
import type { Io } from '../command-context.ts';
import { action, type CommandContext } from '../command-context.ts';
import { CliError, EXIT, usageError } from '../exit-codes.ts';
import { formatRemote, myGroups, pickDept, pickGroup, RemoteFs } from '../remote-path.ts';
import { allDepts, subjectAction, userIdOf } from './admin.ts';
import { registerShareLinks } from './share-links.ts';

type S = components['schemas'];
type Sharing = S['FileSharing'];

export const SHARE_ROLES: readonly S['ShareRoleCode'][] = [
  'groupShare_view_only', 'groupShare_reader', 'groupShare_download', 'groupShare_downloader', 'groupShare_sharedby', 'groupShare_default_role',
  'groupShare_uploader', 'groupShare_edit', 'groupShare_operator', 'groupShare_external_sharing', 'groupShare_manager', 'groupShare_manager_new',
];

/** A share role by its code, with or without the groupShare_ prefix ("reader" is groupShare_reader). */
export function parseShareRole(text: string): S['ShareRoleCode'] {
  const t = text.trim().toLowerCase();
  const role = SHARE_ROLES.find((r) => r.toLowerCase() === t || r.toLowerCase() === `groupshare_${t}`);
  if (!role) throw usageError(`--role: "${text}" is not a share role (${SHARE_ROLES.map((r) => r.slice('groupShare_'.length)).join(', ')})`);
  return role;
}

type Recipient = { kind: 'user'; name: string } | { kind: 'dept'; ref: string } | { kind: 'group'; ref: string };

function recipientOf(user: string | undefined, opts: { dept?: string; group?: string }): Recipient {
  const given = [user, opts.dept, opts.group].filter((v) => v !== undefined).length;
  if (given !== 1) throw usageError('name exactly one recipient: --user <name>, --dept <department> or --group <group>');
  if (user !== undefined) return { kind: 'user', name: user };
  if (opts.dept !== undefined) return { kind: 'dept', ref: opts.dept };
  return { kind: 'group', ref: opts.group! };
}

async function recipientId(api: Api, r: Recipient): Promise<{ kind: Recipient['kind']; id: string; label: string }> {
  if (r.kind === 'user') {
    const u = await userIdOf(api, r.name);
    return { kind: 'user', id: u.userId, label: `user ${u.userName}` };
  }
  if (r.kind === 'dept') {
    const d = pickDept(r.ref, await allDepts(api));
    return { kind: 'dept', id: d.id, label: `department ${d.pathNames.join('/')}` };
  }
  const g = pickGroup(r.ref, await myGroups(api));
  return { kind: 'group', id: g.groupId, label: `group ${g.groupName}` };
}

function sharingJson(s: Sharing) {
  return {
    fileSharingId: s.fileSharingId, instanceId: s.instanceId, name: s.instanceName, type: s.classifierId === 'Folder' ? 'folder' : 'file', size: s.fSize,
    owner: s.ownerName, role: s.roleCode ?? null, created: new Date(s.createTime).toISOString(),
  };
}

function sharingLine(s: Sharing): string {
  const name = s.classifierId === 'Folder' ? `${s.instanceName}/` : s.instanceName;
  return `${name.padEnd(32)} ${(s.roleCode ?? '-').padEnd(30)} from ${s.ownerName.padEnd(16)} (share ${s.fileSharingId})`;
}

export function registerShare(program: Command, io: Io): void {
  const share = program.command('share').description('Share files and folders: with colleagues (user, with-me)');

  share
    .command('user')
    .argument('<path>', 'remote file or folder: /personal/path, dept:<department>/path or group:<group>/path')
    .option('--user <name>', 'share with this account')
    .option('--dept <department>', 'share with everyone in this department and its sub-departments (name, path or id)')
    .option('--group <group>', 'share with every member of this group (one of yours: name or id)')
    .requiredOption('--role <role>', `share role: ${SHARE_ROLES.map((r) => r.slice('groupShare_'.length)).join(', ')}`)
    .description('Share a file or folder with a colleague, a department or a group, with a share role')
    .action(
      subjectAction(io, async (ctx: CommandContext, user, path: string, opts: { dept?: string; group?: string; role: string }) => {
        const roleCode = parseShareRole(opts.role);
        const who = recipientOf(user, opts);
        const api = ctx.api();
        const item = await new RemoteFs(api).resolve(path);
        const to = await recipientId(api, who);
        const res = (await api.call((c) => c.POST('/hcs/controller/fileSharing', { body: { instanceId: item.id, recipients: [{ kind: to.kind, id: to.id, roleCode }] } }))).data;
        if (!res) throw new CliError(EXIT.REFUSED, 'the server returned no share', 'BAD_RESPONSE');
        const shown = formatRemote(item.space, item.segments);
        ctx.print(
          { event: 'shared', fileSharingId: res.fileSharingId, path: shown, instanceId: item.id, recipient: { kind: to.kind, id: to.id }, role: roleCode },
          `Shared ${shown} with ${to.label} as ${roleCode} (share ${res.fileSharingId})`,
        );
      }),
    );

  share
    .command('with-me')
    .option('--keyword <text>', 'only items whose name contains this')
    .description('List what colleagues shared with you, newest first')
    .action(
      action(io, async (ctx: CommandContext, opts: { keyword?: string }) => {
        const api = ctx.api();
        const list: Sharing[] = [];
        let cursor: string | undefined;
        for (;;) {
          const query = { pageSize: 1000, ...(opts.keyword ? { keyword: opts.keyword } : {}), ...(cursor ? { cursor } : {}) };
          const page = (await api.call((c) => c.GET('/hcs/controller/pageFileSharingList', { params: { query } }))).data;
          if (!page) break;
          list.push(...page.list);
          if (!page.nextCursor) break;
          cursor = page.nextCursor;
        }
        if (ctx.settings.json) for (const s of list) ctx.print(sharingJson(s), '');
        else ctx.print(null, list.length ? list.map(sharingLine).join('\n') : 'Nothing is shared with you.');
      }),
    );

  // Public links (issue #17 part 2): link, ls, rm and log.
  registerShareLinks(share, io);
}
