// drive group ...: team groups (issue #15). Groups, people and departments are named as people know them (group name
// or id, user name, department name or path) and looked up here, because the calls take ids; what the caller may do
// to a group is their group role, decided by the server.
import type { Command } from 'commander';
import type { components } from '@hcs/openapi/client';
import { formatSize, parseSize } from '@hcs/transfer-core';
import type { Api } from '../api.ts';
import { action, type CommandContext, type Io } from '../command-context.ts';
import { CliError, EXIT, usageError } from '../exit-codes.ts';
import { myGroups, pickDept, pickGroup, type GroupRef } from '../remote-path.ts';
import { allDepts, subjectAction } from './admin.ts';

type S = components['schemas'];
type Group = S['Group'];

export const GROUP_ROLES: readonly S['GroupRoleCode'][] = ['group_administrator', 'group_leader', 'file_leader', 'group_ordinary_members', 'groupdefaultrole'];
/** The contract's GroupCapacity bounds. */
const MIN_CAPACITY = 1048576;
const MAX_CAPACITY = 1125899906842624;

/** "10G", "512M", "1048576" -> bytes within the contract's bounds. */
export function parseCapacity(text: string): number {
  const bytes = parseSize(text);
  if (bytes === undefined || bytes < MIN_CAPACITY || bytes > MAX_CAPACITY) throw usageError(`--capacity: "${text}" is not a size like 10G or 512M (1M to 1P)`);
  return bytes;
}

export function parseRole(text: string | undefined): S['GroupRoleCode'] | undefined {
  if (text === undefined) return undefined;
  const role = GROUP_ROLES.find((r) => r === text.trim().toLowerCase());
  if (!role) throw usageError(`--role: "${text}" is not a group role (${GROUP_ROLES.join(', ')})`);
  return role;
}

function groupJson(g: Group) {
  return {
    groupId: g.groupId, name: g.groupName, description: g.description, capacity: g.capacity, used: g.usedSize, owner: g.ownerName,
    members: g.memberCount, role: g.myRole ?? null, level: g.myLevel ?? null, rootId: g.rootId, path: `group:${g.groupName}/`,
  };
}

function groupLine(g: Group): string {
  const cap = g.capacity === null ? 'unlimited' : formatSize(g.capacity);
  return `${g.groupName.padEnd(24)} ${(g.myRole ?? '-').padEnd(24)} ${`${formatSize(g.usedSize)} / ${cap}`.padEnd(24)} ${String(g.memberCount).padStart(6)} members  (id ${g.groupId})`;
}

async function groupOf(api: Api, ref: string): Promise<GroupRef> {
  return pickGroup(ref, await myGroups(api));
}

/** Exactly the account `name` among the users a group call answers (exact name first, else the only one without case). */
function pickUser<U extends { userName: string }>(name: string, list: readonly U[], where: string): U {
  const hit = list.find((u) => u.userName === name) ?? (() => {
    const loose = list.filter((u) => u.userName.toLowerCase() === name.toLowerCase());
    return loose.length === 1 ? loose[0] : undefined;
  })();
  if (!hit) throw new CliError(EXIT.REFUSED, `no ${where} "${name}"`, 'NOT_FOUND');
  return hit;
}

/** An account to add, found by the group's own candidate search (open to its members). */
async function candidate(api: Api, groupId: string, name: string) {
  const found = (await api.call((c) => c.GET('/hcs/controller/groupUser/searchAll', { params: { query: { groupId, keyword: name, limit: 100 } } }))).data;
  return pickUser(name, found?.users ?? [], 'account');
}

/** A member of the group by user name. */
async function memberOf(api: Api, groupId: string, name: string) {
  const page = (await api.call((c) => c.GET('/hcs/controller/groupUser/searchGroupUser', { params: { query: { groupId, keyword: name, pageSize: 1000 } } }))).data;
  return pickUser(name, page?.list ?? [], 'member of the group');
}

export function registerGroup(program: Command, io: Io): void {
  const group = program.command('group').description('Team groups: create, list, add and remove members, hand over, accept, dissolve');

  group
    .command('create')
    .argument('<name>', 'group name')
    .option('--capacity <size>', 'bytes the group may hold, e.g. 10G (default: the server\'s policy)')
    .option('--description <text>', 'what the group is for')
    .description('Create a group; you become its administrator')
    .action(
      action(io, async (ctx: CommandContext, name: string, opts: { capacity?: string; description?: string }) => {
        const body = { groupName: name, ...(opts.capacity ? { capacity: parseCapacity(opts.capacity) } : {}), ...(opts.description ? { description: opts.description } : {}) };
        const g = (await ctx.api().call((c) => c.POST('/hcs/controller/groupFile/newGroup', { body }))).data;
        if (!g) throw new CliError(EXIT.REFUSED, 'the server returned no group', 'BAD_RESPONSE');
        ctx.print({ event: 'group-create', ...groupJson(g) }, `Created group ${g.groupName} (id ${g.groupId}); its files are group:${g.groupName}/`);
      }),
    );

  group
    .command('list')
    .description('The groups you belong to, with your role')
    .action(
      action(io, async (ctx: CommandContext) => {
        const api = ctx.api();
        const list: Group[] = [];
        for (let pageNo = 1; ; pageNo++) {
          const page = (await api.call((c) => c.GET('/hcs/controller/groupFile/searchGroup', { params: { query: { pageNo, pageSize: 1000 } } }))).data;
          if (!page) break;
          list.push(...page.list);
          if (page.list.length === 0 || pageNo * page.pageSize >= page.total) break;
        }
        if (ctx.settings.json) for (const g of list) ctx.print(groupJson(g), '');
        else ctx.print(null, list.length ? list.map(groupLine).join('\n') : 'You belong to no group.');
      }),
    );

  group
    .command('add')
    .argument('<group>', 'group name or id')
    .option('--user <name>', 'add this account')
    .option('--dept <department>', 'add every account of this department and its sub-departments')
    .option('--role <group role>', `their role: ${GROUP_ROLES.join(', ')} (default groupdefaultrole)`)
    .description('Add members to a group')
    .action(
      subjectAction(io, async (ctx, user, ref: string, opts: { dept?: string; role?: string }) => {
        if (user !== undefined && opts.dept !== undefined) throw usageError('name either --user or --dept, not both');
        if (user === undefined && opts.dept === undefined) throw usageError('name who: --user <name> or --dept <department>');
        const role = parseRole(opts.role);
        const api = ctx.api();
        const g = await groupOf(api, ref);
        const who = user !== undefined ? await candidate(api, g.groupId, user) : undefined;
        const dept = opts.dept !== undefined ? pickDept(opts.dept, await allDepts(api)) : undefined;
        const body = { groupId: g.groupId, ...(who ? { userIds: [who.userId] } : { deptIds: [dept!.id] }), ...(role ? { roleCode: role } : {}) };
        const r = (await api.call((c) => c.POST('/hcs/controller/groupFile/addUserForLarge', { body }))).data;
        const label = who ? `user ${who.userName}` : `department ${dept!.pathNames.join('/')}`;
        ctx.print(
          { event: 'group-add', groupId: g.groupId, group: g.groupName, ...(who ? { user: who.userName, userId: who.userId } : { dept: dept!.pathNames.join('/'), deptId: dept!.id }), role: role ?? 'groupdefaultrole', added: r?.added ?? 0, skipped: r?.skipped ?? 0 },
          `Added ${label} to ${g.groupName}: ${r?.added ?? 0} new member(s), ${r?.skipped ?? 0} already in`,
        );
      }),
    );

  group
    .command('remove')
    .argument('<group>', 'group name or id')
    .option('--user <name>', 'the member to remove')
    .description('Remove a member from a group')
    .action(
      subjectAction(io, async (ctx, user, ref: string) => {
        if (user === undefined) throw usageError('name the member: --user <name>');
        const api = ctx.api();
        const g = await groupOf(api, ref);
        const m = await memberOf(api, g.groupId, user);
        await api.call((c) => c.POST('/hcs/controller/groupUser/deleteGroupUser', { body: { groupId: g.groupId, userIds: [m.userId] } }));
        ctx.print({ event: 'group-remove', groupId: g.groupId, group: g.groupName, user: m.userName, userId: m.userId }, `Removed ${m.userName} from ${g.groupName}`);
      }),
    );

  group
    .command('handover')
    .argument('<group>', 'group name or id')
    .requiredOption('--to <name>', 'the member who is to take the group over')
    .description('Offer the group to another member; it is theirs once they accept (drive group accept)')
    .action(
      action(io, async (ctx: CommandContext, ref: string, opts: { to: string }) => {
        const api = ctx.api();
        const g = await groupOf(api, ref);
        const m = await memberOf(api, g.groupId, opts.to);
        const h = (await api.call((c) => c.POST('/hcs/controller/groupFile/submitGroupHandover', { body: { groupId: g.groupId, toUserId: m.userId } }))).data;
        if (!h) throw new CliError(EXIT.REFUSED, 'the server returned no handover', 'BAD_RESPONSE');
        ctx.print({ event: 'group-handover', handoverId: h.handoverId, groupId: g.groupId, group: g.groupName, to: h.toUserName, status: h.status }, `Offered ${g.groupName} to ${h.toUserName}; waiting for them to accept`);
      }),
    );

  group
    .command('accept')
    .argument('<group>', 'group name or id')
    .option('--decline', 'decline the handover instead')
    .description('Accept (or --decline) the handover of a group offered to you')
    .action(
      action(io, async (ctx: CommandContext, ref: string, opts: { decline?: boolean }) => {
        const api = ctx.api();
        const g = await groupOf(api, ref);
        const pending = ((await api.call((c) => c.GET('/hcs/controller/groupFile/getHandoverInfo', {}))).data ?? []).find((h) => h.groupId === g.groupId);
        if (!pending) throw new CliError(EXIT.REFUSED, `no handover of ${g.groupName} is waiting for you`, 'NOT_FOUND');
        const action_ = opts.decline ? 'decline' : 'accept';
        const h = (await api.call((c) => c.POST('/hcs/controller/groupFile/precessGroupHandover', { body: { handoverId: pending.handoverId, action: action_ } }))).data;
        ctx.print(
          { event: `group-${action_}`, handoverId: pending.handoverId, groupId: g.groupId, group: g.groupName, from: pending.fromUserName, status: h?.status ?? null },
          opts.decline ? `Declined ${g.groupName} from ${pending.fromUserName}` : `You are now the administrator of ${g.groupName}`,
        );
      }),
    );

  group
    .command('dissolve')
    .argument('<group>', 'group name or id')
    .description('Dissolve a group: its files go to the administrators\' recycle bin and nobody reaches them any more')
    .action(
      action(io, async (ctx: CommandContext, ref: string) => {
        const api = ctx.api();
        const g = await groupOf(api, ref);
        const r = (await api.call((c) => c.POST('/hcs/controller/groupFile/dissolveGroup', { body: { groupId: g.groupId } }))).data;
        ctx.print({ event: 'group-dissolve', groupId: g.groupId, group: g.groupName, recycled: r?.recycled ?? 0 }, `Dissolved ${g.groupName} (${r?.recycled ?? 0} top-level item(s) recycled)`);
      }),
    );
}
