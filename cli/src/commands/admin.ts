// drive admin ...: accounts, departments, roles and grants for administrators (and department managers inside
// their subtree: the server decides who may do what, the CLI only names things). Accounts, departments and roles are
// named as people know them (user name, department name, id or path of names, role code) and looked up here, because
// the calls take ids.
import { randomInt } from 'node:crypto';
import { readFile, stat } from 'node:fs/promises';
import type { Command } from 'commander';
import { encryptPassword, type components } from '@hcs/openapi/client';
import { formatSize, parseSize } from '@hcs/transfer-core';
import type { Api } from '../api.ts';
import { action, type CommandContext, type Io } from '../command-context.ts';
import { CliError, EXIT, usageError } from '../exit-codes.ts';
import { describeDept, formatRemote, pickDept, RemoteFs, type DeptRef } from '../remote-path.ts';
import { readPasswordStdin } from './session.ts';
import { registerAdminLib } from './admin-lib.ts';
import { registerAdminLdap } from './admin-ldap.ts';
import { registerAdminConsole } from './admin-console.ts';
import { registerAdminStorage } from './admin-storage.ts';
import { registerAdminSync } from './admin-sync.ts';

type S = components['schemas'];
type UserAdmin = S['UserAdmin'];
type Role = S['Role'];
type Grant = S['Grant'];

/** The contract's QuotaBytes bound (1 PiB). */
const MAX_QUOTA = 1125899906842624;
/** The server's importUsers limit: refused here before a larger file is read. */
const IMPORT_MAX_BYTES = 1048576;

/**
 * "10G", "512M", "1.5T", "1048576" -> bytes (binary units, the grammar of the import's quota column); "unlimited" or
 * "none" -> null.
 */
export function parseQuota(text: string, flag: string): number | null {
  if (/^(unlimited|none)$/i.test(text.trim())) return null;
  const bytes = parseSize(text);
  if (bytes === undefined || bytes > MAX_QUOTA) throw usageError(`${flag}: "${text}" is not a size like 10G, 512M or 1048576 (at most 1P), or "unlimited"`);
  return bytes;
}

/** YYYY-MM-DD -> the end of that day (UTC), as the import's expires column; "never" -> 1 (the spec's never). */
export function parseExpiry(text: string): number {
  if (/^never$/i.test(text.trim())) return 1;
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(text.trim());
  const ms = m ? Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3]), 23, 59, 59, 999) : NaN;
  if (!m || Number.isNaN(ms) || new Date(ms).getUTCDate() !== Number(m[3])) throw usageError(`--expires: "${text}" is not a date like 2030-12-31 (or "never")`);
  return ms;
}

const PASSWORD_CLASSES = ['ABCDEFGHJKLMNPQRSTUVWXYZ', 'abcdefghijkmnopqrstuvwxyz', '23456789', '#%+-.=@_'];

/** 20 characters from the four classes (look-alikes left out, as it is read off a screen), each class at least once. */
export function generatePassword(length = 20): string {
  const all = PASSWORD_CLASSES.join('');
  const chars = PASSWORD_CLASSES.map((c) => c[randomInt(c.length)]!);
  while (chars.length < length) chars.push(all[randomInt(all.length)]!);
  for (let i = chars.length - 1; i > 0; i--) {
    const j = randomInt(i + 1);
    [chars[i], chars[j]] = [chars[j]!, chars[i]!];
  }
  return chars.join('');
}

/** Every department with its path of names (the organisation chart is readable by every signed-in user). */
export async function allDepts(api: Api): Promise<Array<DeptRef & { parentId: string | null; memberCount: number; depth: number }>> {
  const tree = (await api.call((c) => c.GET('/hcs/controller/sysGroup/treeGroup', {}))).data ?? [];
  const out: Array<DeptRef & { parentId: string | null; memberCount: number; depth: number }> = [];
  const walk = (n: S['DeptTreeNode'], names: string[]) => {
    const pathNames = [...names, n.name];
    out.push({ id: n.id, name: n.name, pathNames, parentId: n.parentId, memberCount: n.memberCount ?? 0, depth: names.length });
    for (const c of n.children) walk(c, pathNames);
  };
  for (const n of tree) walk(n, []);
  return out;
}

async function deptOf(api: Api, ref: string): Promise<DeptRef> {
  return pickDept(ref, await allDepts(api));
}

/** The one account named `name`: exact user name first, else the only one matching it without case. */
function pickUser<U extends { userName: string }>(name: string, list: readonly U[], where: string): U {
  const exact = list.find((u) => u.userName === name);
  if (exact) return exact;
  const loose = list.filter((u) => u.userName.toLowerCase() === name.toLowerCase());
  if (loose.length === 1) return loose[0]!;
  throw new CliError(EXIT.REFUSED, `no ${where}account "${name}"`, 'NOT_FOUND');
}

/**
 * Where the caller may look accounts up: the whole organisation (undefined: administrators, and anyone else so that
 * the server's own refusal is what they see) or, for a department manager, each department they manage: a whole-
 * organisation listing is for administrators only.
 */
async function lookupScopes(api: Api): Promise<Array<string | undefined>> {
  const me = (await api.call((c) => c.GET('/hcs/controller/System/Current/User', {}))).data;
  const managed = me?.managedDeptIds ?? [];
  return me?.isAdmin || managed.length === 0 ? [undefined] : managed;
}

/** An account for administration, live (any state) or in the deleted-users list. */
async function accountOf(api: Api, name: string, deleted = false): Promise<UserAdmin> {
  const scopes = await lookupScopes(api);
  const list: UserAdmin[] = [];
  for (const deptId of scopes) {
    for (let pageNo = 1; ; pageNo++) {
      const query = { keyword: name, pageSize: 1000, pageNo, ...(deptId ? { deptId } : {}) };
      const page = (
        await api.call((c) =>
          deleted ? c.GET('/hcs/controller/Users/deletedUsers', { params: { query } }) : c.GET('/hcs/controller/Users/listByGroupId', { params: { query } }),
        )
      ).data;
      if (!page) break;
      list.push(...page.list);
      if (page.list.length === 0 || pageNo * page.pageSize >= page.total) break;
    }
  }
  if (scopes[0] !== undefined && !list.some((u) => u.userName.toLowerCase() === name.toLowerCase())) {
    // Not in the managed subtrees: say FORBIDDEN when the account exists elsewhere, as the server would for its id.
    const elsewhere = (await api.call((c) => c.GET('/hcs/controller/Users/group/users', { params: { query: { keyword: name, limit: 500 } } }))).data ?? [];
    if (elsewhere.some((u) => u.userName.toLowerCase() === name.toLowerCase())) {
      throw new CliError(EXIT.REFUSED, `account "${name}" is outside the departments you manage (FORBIDDEN)`, 'FORBIDDEN');
    }
  }
  return pickUser(name, list, deleted ? 'deleted ' : '');
}

/** A live account's id for grants and explanations (the pickers' call, open to folder managers too). */
export async function userIdOf(api: Api, name: string): Promise<{ userId: string; userName: string }> {
  const list = (await api.call((c) => c.GET('/hcs/controller/Users/group/users', { params: { query: { keyword: name, limit: 500 } } }))).data ?? [];
  return pickUser(name, list, '');
}

async function roleOf(api: Api, ref: string): Promise<Role> {
  const roles = (await api.call((c) => c.GET('/hcs/controller/SysRole/getAllRoleInfo', {}))).data ?? [];
  const role = roles.find((r) => r.roleId === ref) ?? roles.find((r) => r.roleCode.toLowerCase() === ref.toLowerCase());
  if (!role) throw new CliError(EXIT.REFUSED, `no role "${ref}" (see drive admin role list)`, 'NOT_FOUND');
  return role;
}

/** A batch call's refusals as one error, each with its code (the whole batch here is one account). */
function batchFailed(failed: S['UserBatchResult']['failed'], name: string): CliError | null {
  const f = failed[0];
  return f ? new CliError(EXIT.REFUSED, `${name}: ${f.message} (${f.code})`, f.code) : null;
}

function userJson(u: UserAdmin) {
  return {
    userId: u.userId,
    userName: u.userName,
    realName: u.realName,
    deptId: u.deptId,
    dept: u.deptPathNames.join('/'),
    state: u.state,
    isAdmin: u.isAdmin,
    quotaBytes: u.quotaBytes,
    usedBytes: u.usedBytes,
    expires: u.userExpiredTime === 1 ? null : new Date(u.userExpiredTime).toISOString(),
    mustChangePassword: u.mustChangePassword,
    labels: u.labels,
  };
}

function userLine(u: UserAdmin): string {
  const quota = u.quotaBytes === null ? 'unlimited' : formatSize(u.quotaBytes);
  const name = u.realName ? `${u.userName} (${u.realName})` : u.userName;
  return `${name.padEnd(28)} ${u.state.padEnd(8)} ${`${formatSize(u.usedBytes)} / ${quota}`.padEnd(24)} ${u.deptPathNames.join('/')}${u.isAdmin ? '  [admin]' : ''}`;
}

function grantJson(g: Grant, on: string) {
  return { grantId: g.grantId, role: g.roleCode, subjectKind: g.subjectKind, subjectId: g.subjectId, subject: g.subjectName, on, instanceId: g.instanceId };
}

/** The root command of a subcommand (where the global options live). */
function rootOf(cmd: Command): Command {
  let c = cmd;
  while (c.parent) c = c.parent;
  return c;
}

/**
 * `--user <name>` on grant, revoke and access names whose access it is, but the program's global `--user` (the
 * account to sign in as) is parsed anywhere on the line and would take it. So the value given on the line is taken
 * from the global option as the subject, and the global goes back to what the environment says, so the call is
 * still made as the signed-in account.
 */
export function subjectAction<A extends unknown[]>(io: Io, fn: (ctx: CommandContext, subject: string | undefined, ...args: A) => Promise<number | void>) {
  return (...args: unknown[]): Promise<void> => {
    const cmd = args[args.length - 1] as Command;
    const root = rootOf(cmd);
    const local = (cmd.opts() as { user?: string }).user;
    let subject = local;
    if (root.getOptionValueSource('user') === 'cli') {
      subject ??= root.getOptionValue('user') as string;
      const fromEnv = io.env.HCS_USER?.trim() || undefined;
      root.setOptionValueWithSource('user', fromEnv, fromEnv ? 'env' : 'default');
    }
    return action(io, (ctx, ...rest: A) => fn(ctx, subject, ...rest))(...args);
  };
}

async function grantTarget(api: Api, on: string | undefined): Promise<{ instanceId: string; path: string }> {
  if (!on) throw usageError('--on <remote path> is required (e.g. --on dept:Sales/contracts or --on /shared)');
  const fs = new RemoteFs(api);
  const r = await fs.resolve(on);
  return { instanceId: r.id, path: formatRemote(r.space, r.segments) };
}

function subjectOf(opts: { dept?: string }, user: string | undefined): { kind: 'user'; name: string } | { kind: 'dept'; ref: string } {
  if (user !== undefined && opts.dept !== undefined) throw usageError('name either --user or --dept, not both');
  if (user !== undefined) return { kind: 'user', name: user };
  if (opts.dept !== undefined) return { kind: 'dept', ref: opts.dept };
  throw usageError('name who: --user <name> or --dept <department>');
}

/** The subject's id for a grant: a department among all (grants may name any department), or a live account. */
async function subjectId(api: Api, s: ReturnType<typeof subjectOf>): Promise<{ id: string; label: string }> {
  if (s.kind === 'dept') {
    const d = await deptOf(api, s.ref);
    return { id: d.id, label: `department ${d.pathNames.join('/')}` };
  }
  const u = await userIdOf(api, s.name);
  return { id: u.userId, label: `user ${u.userName}` };
}

async function userState(ctx: CommandContext, name: string, kind: 'disable' | 'enable' | 'delete' | 'restore'): Promise<void> {
  const api = ctx.api();
  const u = await accountOf(api, name, kind === 'restore');
  const body = { userIds: [u.userId] };
  const res = await api.call((c) =>
    kind === 'disable' || kind === 'enable'
      ? c.POST('/hcs/controller/Users/setUserState', { body: { ...body, enabled: kind === 'enable' } })
      : kind === 'delete'
        ? c.POST('/hcs/controller/Users/delUserInfo', { body })
        : c.POST('/hcs/controller/Users/restoreDelUser', { body }),
  );
  const failure = batchFailed(res.data?.failed ?? [], u.userName);
  if (failure) throw failure;
  const said = { disable: 'Disabled', enable: 'Enabled', delete: 'Deleted (restorable with drive admin user restore)', restore: 'Restored' }[kind];
  ctx.print({ event: `user-${kind}`, userId: u.userId, userName: u.userName }, `${said}: ${u.userName}`);
}

type Stdin = NodeJS.ReadableStream & { isTTY?: boolean };

function registerUser(admin: Command, io: Io, stdin: Stdin): void {
  const user = admin.command('user').description('Accounts: add, list, disable, enable, delete, restore, purge, import');

  user
    .command('add')
    .argument('<name>', 'user name (sign-in name)')
    .option('--real-name <name>', 'display name')
    .option('--dept <department>', 'department: name, id or path of names (default: the root department)')
    .option('--quota <size>', 'personal quota like 10G, 512M, or "unlimited"')
    .option('--expires <date>', 'last day the account works, YYYY-MM-DD (UTC), or "never"')
    .option('--password-stdin', 'read the password (one line) from standard input; without it a strong one is generated, printed once, and must be changed at first sign-in')
    .description('Create an account')
    .action(
      action(io, async (ctx, name: string, opts: { realName?: string; dept?: string; quota?: string; expires?: string; passwordStdin?: boolean }) => {
        // Everything local is checked before anything is sent.
        const quotaBytes = opts.quota === undefined ? undefined : parseQuota(opts.quota, '--quota');
        const userExpiredTime = opts.expires === undefined ? undefined : parseExpiry(opts.expires);
        const generated = opts.passwordStdin ? undefined : generatePassword();
        const password = generated ?? (await readPasswordStdin(stdin)).split(/\r?\n/)[0]!;
        if (!password) throw usageError('--password-stdin: the first line of standard input is empty');
        const api = ctx.api();
        const dept = opts.dept === undefined ? undefined : await deptOf(api, opts.dept);
        const info = (await api.call((c) => c.GET('/hcs/services/System/platformInfo', {}))).data;
        if (!info) throw new CliError(EXIT.REFUSED, 'the server sent no platform info', 'BAD_RESPONSE');
        const body: S['SaveUserRequest'] = {
          userName: name,
          password: await encryptPassword(info.publicKey, password),
          // A generated password has been on an administrator's screen: its owner replaces it.
          mustChangePassword: generated !== undefined,
        };
        if (opts.realName !== undefined) body.realName = opts.realName;
        if (dept) body.deptId = dept.id;
        if (quotaBytes !== undefined) body.quotaBytes = quotaBytes;
        if (userExpiredTime !== undefined) body.userExpiredTime = userExpiredTime;
        const u = (await api.call((c) => c.POST('/hcs/controller/Users/setUserInfo', { body }))).data;
        if (!u) throw new CliError(EXIT.REFUSED, 'the server returned no account', 'BAD_RESPONSE');
        const shown = generated ? `\nPassword (shown once; to be changed at first sign-in): ${generated}` : '';
        ctx.print({ event: 'user-add', ...userJson(u), ...(generated ? { password: generated } : {}) }, `Created ${u.userName} in ${u.deptPathNames.join('/')} (id ${u.userId})${shown}`);
      }),
    );

  user
    .command('list')
    .option('--dept <department>', 'only this department and its sub-departments (name, id or path of names)')
    .description('List accounts (every state but deleted), by user name')
    .action(
      action(io, async (ctx, opts: { dept?: string }) => {
        const api = ctx.api();
        const deptId = opts.dept === undefined ? undefined : (await deptOf(api, opts.dept)).id;
        for (let pageNo = 1; ; pageNo++) {
          const page = (await api.call((c) => c.GET('/hcs/controller/Users/listByGroupId', { params: { query: { ...(deptId ? { deptId } : {}), pageSize: 1000, pageNo } } }))).data;
          if (!page) break;
          for (const u of page.list) ctx.print(userJson(u), userLine(u));
          if (page.list.length === 0 || pageNo * page.pageSize >= page.total) break;
        }
      }),
    );

  for (const kind of ['disable', 'enable', 'delete', 'restore'] as const) {
    const what = {
      disable: 'Disable an account: it cannot sign in and its sessions stop working',
      enable: 'Enable a disabled account',
      delete: 'Delete an account into the deleted-users list (its files stay; restore brings it back)',
      restore: 'Bring a deleted account back with all its files',
    }[kind];
    user
      .command(kind)
      .argument('<name>', 'user name')
      .description(what)
      .action(action(io, (ctx, name: string) => userState(ctx, name, kind)));
  }

  user
    .command('purge')
    .argument('<name>', 'user name of a deleted account')
    .option('--hand-over <name>', "account that receives the purged account's files (in a folder named after it); without it they go to the administrators' recycle bin")
    .description('Remove a deleted account for good')
    .action(
      action(io, async (ctx, name: string, opts: { handOver?: string }) => {
        const api = ctx.api();
        const u = await accountOf(api, name, true);
        const to = opts.handOver === undefined ? undefined : await userIdOf(api, opts.handOver);
        const r = (await api.call((c) => c.POST('/hcs/controller/Users/realDeleteUser', { body: { userId: u.userId, ...(to ? { handOverTo: to.userId } : {}) } }))).data;
        if (!r) throw new CliError(EXIT.REFUSED, 'the server returned no purge result', 'BAD_RESPONSE');
        const where = to ? `handed over to ${to.userName}` : "moved to the administrators' recycle bin";
        ctx.print(
          { event: 'user-purge', userId: u.userId, userName: u.userName, files: r.files, bytes: r.bytes, handedOverTo: to?.userName ?? null, folderId: r.folderId },
          `Purged ${u.userName}: ${r.files} files and folders (${formatSize(r.bytes)}) ${where}`,
        );
      }),
    );

  user
    .command('import')
    .argument('<file.csv>', 'UTF-8 CSV with a header line: userName,password[,realName,dept,quota,expires,email,phone,labels]')
    .description('Create accounts from a CSV file; reports every row, exits 1 when any row failed')
    .action(
      action(io, async (ctx, file: string) => {
        const size = await stat(file).then((s) => (s.isFile() ? s.size : -1), () => -2);
        if (size === -2) throw usageError(`no such file: ${file}`);
        if (size === -1) throw usageError(`not a file: ${file}`);
        if (size > IMPORT_MAX_BYTES) throw usageError(`${file} is larger than the server accepts (1 MiB); split it`);
        const csv = await readFile(file, 'utf8');
        const report = (
          await ctx.api().call((c) =>
            c.POST('/hcs/controller/Users/importUsers', { body: csv, bodySerializer: (b: string) => b, headers: { 'Content-Type': 'text/csv; charset=utf-8' } }),
          )
        ).data;
        if (!report) throw new CliError(EXIT.REFUSED, 'the server returned no import report', 'BAD_RESPONSE');
        for (const r of report.rows) {
          const human = r.status === 'created' ? `row ${r.row} ${r.userName}: created` : `row ${r.row} ${r.userName || '(no name)'}: failed: ${r.message ?? ''} (${r.code ?? 'ERROR'})`;
          ctx.print({ event: 'import-row', ...r }, human);
        }
        ctx.print({ event: 'import', created: report.created, failed: report.failed }, `${report.created} created, ${report.failed} failed`);
        return report.failed > 0 ? EXIT.PARTIAL : EXIT.OK;
      }),
    );
}

function registerDept(admin: Command, io: Io): void {
  const dept = admin.command('dept').description('Departments: add, list, quota');

  dept
    .command('add')
    .argument('<name>', 'department name')
    .option('--parent <department>', 'parent department: name, id or path of names (default: the root department)')
    .description('Create a department')
    .action(
      action(io, async (ctx, name: string, opts: { parent?: string }) => {
        const api = ctx.api();
        const parent = opts.parent === undefined ? undefined : await deptOf(api, opts.parent);
        const d = (await api.call((c) => c.POST('/hcs/controller/sysGroup/setGroupInfo', { body: { name, ...(parent ? { parentId: parent.id } : {}) } }))).data;
        if (!d) throw new CliError(EXIT.REFUSED, 'the server returned no department', 'BAD_RESPONSE');
        ctx.print({ event: 'dept-add', id: d.id, name: d.name, parentId: d.parentId, path: d.pathNames.join('/'), pathNames: d.pathNames }, `Created department ${describeDept(d)}`);
      }),
    );

  dept
    .command('list')
    .description('List the department tree')
    .action(
      action(io, async (ctx) => {
        for (const d of await allDepts(ctx.api())) {
          ctx.print(
            { id: d.id, name: d.name, parentId: d.parentId, path: d.pathNames.join('/'), pathNames: d.pathNames, memberCount: d.memberCount },
            `${'  '.repeat(d.depth)}${d.name}  (id ${d.id}, ${d.memberCount} ${d.memberCount === 1 ? 'member' : 'members'})`,
          );
        }
      }),
    );

  dept
    .command('quota')
    .argument('<department>', 'name, id or path of names')
    .argument('<size>', 'like 10G or 512M, or "unlimited"')
    .description("Set a department's quota (its sub-departments' files count against it too)")
    .action(
      action(io, async (ctx, ref: string, sizeText: string) => {
        const quotaBytes = parseQuota(sizeText, 'size');
        const api = ctx.api();
        const d = await deptOf(api, ref);
        await api.call((c) => c.POST('/hcs/controller/sysGroup/setGroupInfo', { body: { id: d.id, quotaBytes } }));
        const info = (await api.call((c) => c.GET('/hcs/controller/sysGroup/getGroupInfo', { params: { query: { id: d.id } } }))).data;
        const used = info?.usedBytes ?? 0;
        ctx.print(
          { event: 'dept-quota', id: d.id, path: d.pathNames.join('/'), quotaBytes, usedBytes: used },
          `Quota of ${d.pathNames.join('/')}: ${quotaBytes === null ? 'unlimited' : formatSize(quotaBytes)} (${formatSize(used)} used)`,
        );
      }),
    );
}

function registerRoles(admin: Command, io: Io): void {
  const role = admin.command('role').description('Roles (named sets of authorities)');
  role
    .command('list')
    .description('List the roles with their authorities')
    .action(
      action(io, async (ctx) => {
        const roles = (await ctx.api().call((c) => c.GET('/hcs/controller/SysRole/getAllRoleInfo', {}))).data ?? [];
        for (const r of roles) {
          const what = r.deny ? 'DENY (holds nothing)' : r.authorities.join(', ') || '(none)';
          ctx.print(
            { roleId: r.roleId, roleCode: r.roleCode, roleName: r.roleName, roleNameEn: r.roleNameEn, kind: r.kind, builtin: r.builtin, deny: r.deny, authorities: r.authorities, grantCount: r.grantCount },
            `${r.roleCode.padEnd(30)} ${r.kind.padEnd(10)} ${what}`,
          );
        }
      }),
    );

  for (const kind of ['grant', 'revoke'] as const) {
    admin
      .command(kind)
      .argument('<role>', 'role code (see drive admin role list)')
      .option('--user <name>', kind === 'grant' ? 'grant to this account' : 'revoke from this account')
      .option('--dept <department>', kind === 'grant' ? 'grant to this department (reaching its sub-departments)' : 'revoke from this department')
      .option('--on <remote path>', 'folder or file: /personal/path or dept:<department>/path')
      .description(kind === 'grant' ? 'Grant a role on a folder or file (inherited by everything under it)' : 'Revoke a grant')
      .action(
        subjectAction(io, async (ctx, user, roleRef: string, opts: { dept?: string; on?: string }) => {
          const who = subjectOf(opts, user);
          const api = ctx.api();
          const target = await grantTarget(api, opts.on);
          const role = await roleOf(api, roleRef);
          const subject = await subjectId(api, who);
          if (kind === 'grant') {
            const grants = (
              await api.call((c) =>
                who.kind === 'user'
                  ? c.POST('/hcs/controller/SysRoleUser/setGroupRoleUser', { body: { instanceId: target.instanceId, roleId: role.roleId, userIds: [subject.id] } })
                  : c.POST('/hcs/controller/SysRoleUser/setGroupRoleGroup', { body: { instanceId: target.instanceId, roleId: role.roleId, deptIds: [subject.id] } }),
              )
            ).data ?? [];
            const g = grants.find((x) => x.subjectId === subject.id) ?? grants[0];
            if (!g) throw new CliError(EXIT.REFUSED, 'the server returned no grant', 'BAD_RESPONSE');
            ctx.print({ event: 'grant', ...grantJson(g, target.path) }, `Granted ${role.roleCode} to ${subject.label} on ${target.path}`);
            return;
          }
          const g = await findGrant(api, target.instanceId, role.roleId, who.kind, subject.id);
          if (!g) throw new CliError(EXIT.REFUSED, `${subject.label} holds no grant of ${role.roleCode} on ${target.path}`, 'NOT_FOUND');
          await api.call((c) => c.POST('/hcs/controller/SysRoleUser/delGroupRoleUser', { body: { instanceId: target.instanceId, grantIds: [g.grantId] } }));
          ctx.print({ event: 'revoke', ...grantJson(g, target.path) }, `Revoked ${role.roleCode} from ${subject.label} on ${target.path}`);
        }),
      );
  }
}

/** The grant of `roleId` to the subject on exactly this item (inherited grants are on other items). */
async function findGrant(api: Api, instanceId: string, roleId: string, kind: 'user' | 'dept', subjectId: string): Promise<Grant | undefined> {
  for (let pageNo = 1; ; pageNo++) {
    const query = { instanceId, roleId, pageNo, pageSize: 1000 };
    const page = (
      await api.call((c) =>
        kind === 'user'
          ? c.GET('/hcs/controller/SysRoleUser/pageGroupRoleList', { params: { query } })
          : c.GET('/hcs/controller/SysRoleUser/pageGroupRoleGroupList', { params: { query } }),
      )
    ).data;
    if (!page) return undefined;
    const hit = page.list.find((g) => g.subjectId === subjectId && g.subjectKind === kind && g.instanceId === instanceId);
    if (hit) return hit;
    if (page.list.length === 0 || pageNo * page.pageSize >= page.total) return undefined;
  }
}

export function registerAdmin(program: Command, io: Io, stdin: Stdin = process.stdin): void {
  const admin = program.command('admin').description('Administration: accounts, departments, roles and grants');
  registerUser(admin, io, stdin);
  registerDept(admin, io);
  registerRoles(admin, io);
  registerAdminLib(admin, io);
  registerAdminLdap(admin, io);
  registerAdminConsole(admin, io);
  registerAdminStorage(admin, io, stdin);
  registerAdminSync(admin, io);
}
