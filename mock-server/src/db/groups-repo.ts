// Groups (issue #15): the only SQL that reads or writes groups, group_members and group_handovers. Who may do what
// to a group is the handler's (handlers/groups.ts); what a member may do on the group's files is the access gate's,
// fed by groupFacts here. Second-level members' folder rights are rows of `grants` (roles-repo), written here only
// when a member leaves or is promoted.
import { sql } from 'kysely';
import type { Db } from './sql/tx.ts';
import { atomically, forUpdate } from './sql/tx.ts';
import { AppError } from '../http/errors.ts';
import { newId } from '../ids.ts';
import { getOrCreateRoot, type InstanceRow } from './instances-repo.ts';

export type GroupLevel = 1 | 2;

/** What the access decision needs of one group for one user: whether it is dissolved, and their membership. */
export interface GroupFact {
  dissolved: boolean;
  member: { roleCode: string; level: GroupLevel } | null;
}

/** The facts of `groupIds` for the user, in one query. An id that is no group gets a dissolved fact (reaches nobody). */
export async function groupFacts(db: Db, groupIds: readonly string[], userId: string): Promise<Map<string, GroupFact>> {
  const out = new Map<string, GroupFact>();
  if (groupIds.length === 0) return out;
  const rows = await db
    .selectFrom('groups as g')
    .leftJoin('group_members as m', (j) => j.onRef('m.group_id', '=', 'g.id').on('m.user_id', '=', userId))
    .select(['g.id', 'g.dissolved_at', 'm.role_code', 'm.level'])
    .where('g.id', 'in', [...groupIds])
    .execute();
  for (const id of groupIds) out.set(id, { dissolved: true, member: null });
  for (const r of rows) {
    out.set(r.id, { dissolved: r.dissolved_at !== null, member: r.role_code ? { roleCode: r.role_code, level: Number(r.level) as GroupLevel } : null });
  }
  return out;
}

/** Whether the user is a member (any level) of the live group: the capacity calls' check. */
export async function isGroupMember(db: Db, groupId: string, userId: string): Promise<boolean> {
  const f = (await groupFacts(db, [groupId], userId)).get(groupId)!;
  return !f.dissolved && f.member !== null;
}

export interface GroupRow {
  id: string;
  name: string;
  description: string;
  quotaBytes: number | null;
  usedBytes: number;
  ownerId: string;
  ownerName: string;
  memberCount: number;
  createdAt: number;
  rootId: string;
  myRole: string | null;
  myLevel: GroupLevel | null;
}

export const LIB = 'NetDisk';

function groupQuery(db: Db, userId: string) {
  return db
    .selectFrom('groups as g')
    .innerJoin('users as o', 'o.id', 'g.owner_id')
    .leftJoin('group_members as me', (j) => j.onRef('me.group_id', '=', 'g.id').on('me.user_id', '=', userId))
    .leftJoin('instances as r', (j) => j.onRef('r.space_id', '=', 'g.id').on('r.space_kind', '=', 'group').on('r.lib_code', '=', LIB).on('r.parent_id', 'is', null))
    .select((eb) => [
      'g.id', 'g.name', 'g.description', 'g.quota_bytes', 'g.used_bytes', 'g.owner_id', 'o.user_name as owner_name', 'g.created_at',
      'r.id as root_id', 'me.role_code', 'me.level',
      eb.selectFrom('group_members as c').select((c) => c.fn.countAll<number>().as('n')).whereRef('c.group_id', '=', 'g.id').as('member_count'),
    ])
    .where('g.dissolved_at', 'is', null);
}

type RawGroup = Awaited<ReturnType<ReturnType<typeof groupQuery>['executeTakeFirst']>>;

function toGroup(r: NonNullable<RawGroup>): GroupRow {
  return {
    id: r.id, name: r.name, description: r.description, quotaBytes: r.quota_bytes === null ? null : Number(r.quota_bytes), usedBytes: Number(r.used_bytes),
    ownerId: r.owner_id, ownerName: r.owner_name, memberCount: Number(r.member_count ?? 0), createdAt: Number(r.created_at), rootId: r.root_id ?? '',
    myRole: r.role_code ?? null, myLevel: r.level === null || r.level === undefined ? null : (Number(r.level) as GroupLevel),
  };
}

/** A live group as `userId` sees it (their role in it), or undefined. */
export async function getGroup(db: Db, id: string, userId: string): Promise<GroupRow | undefined> {
  const r = await groupQuery(db, userId).where('g.id', '=', id).executeTakeFirst();
  return r ? toGroup(r) : undefined;
}

/** Live groups the user belongs to (or every live group with `all`), by name. */
export async function listGroups(
  db: Db, userId: string, f: { keyword?: string | undefined; all?: boolean; groupId?: string | undefined }, page: { limit: number; offset: number },
): Promise<{ rows: GroupRow[]; total: number }> {
  let q = groupQuery(db, userId);
  if (!f.all) q = q.where('me.user_id', 'is not', null);
  if (f.keyword) q = q.where(contains('g.name_key', f.keyword));
  if (f.groupId) q = q.where('g.id', '=', f.groupId);
  const total = await db.selectFrom(q.as('x')).select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
  const rows = await q.orderBy('g.name_key').orderBy('g.id').limit(page.limit).offset(page.offset).execute();
  return { rows: rows.map(toGroup), total: Number(total.n) };
}

function escapeLike(s: string): string {
  return s.replace(/[\\%_]/g, (c) => `\\${c}`);
}

/** `column` contains `keyword` (lower-cased), LIKE's wildcards taken literally (SQLite has no default escape). */
function contains(column: string, keyword: string, lower = false) {
  const ref = lower ? sql`lower(${sql.ref(column)})` : sql.ref(column);
  return sql<boolean>`${ref} like ${`%${escapeLike(keyword.toLowerCase())}%`} escape '\\'`;
}

function nameTakenError(): AppError {
  return new AppError('NAME_EXISTS', 'a group with this name exists', { fields: [{ field: 'groupName', message: 'exists' }] });
}

async function assertNameFree(db: Db, name: string, except?: string): Promise<void> {
  let q = db.selectFrom('groups').select('id').where('name_key', '=', name.toLowerCase()).where('dissolved_at', 'is', null);
  if (except) q = q.where('id', '<>', except);
  if (await q.executeTakeFirst()) throw nameTakenError();
}

/** Creates a live group with its creator as group_administrator and its space root; answers its id. */
export async function createGroup(db: Db, g: { name: string; description: string; quotaBytes: number | null; ownerId: string }, now = Date.now()): Promise<string> {
  return atomically(db, async (trx) => {
    await assertNameFree(trx, g.name);
    const id = `grp_${newId()}`;
    try {
      await trx.insertInto('groups').values({
        id, name: g.name, name_key: g.name.toLowerCase(), description: g.description, owner_id: g.ownerId, quota_bytes: g.quotaBytes, created_at: now, updated_at: now,
      }).execute();
    } catch (err) {
      // Another call took the name between the check and the insert (PostgreSQL).
      if (err instanceof Error && /groups_live_name|UNIQUE constraint failed: groups\.name_key/.test(`${err.message} ${(err as { constraint?: string }).constraint ?? ''}`)) throw nameTakenError();
      throw err;
    }
    await trx.insertInto('group_members').values({ group_id: id, user_id: g.ownerId, role_code: 'group_administrator', level: 1, created_at: now }).execute();
    await getOrCreateRoot(trx, { kind: 'group', id }, LIB, g.ownerId);
    return id;
  });
}

export async function updateGroup(db: Db, id: string, f: { name?: string | undefined; description?: string | undefined; quotaBytes?: number | null | undefined }, now = Date.now()): Promise<void> {
  await atomically(db, async (trx) => {
    if (f.name !== undefined) await assertNameFree(trx, f.name, id);
    const set: { name?: string; name_key?: string; description?: string; quota_bytes?: number | null; updated_at: number } = { updated_at: now };
    if (f.name !== undefined) Object.assign(set, { name: f.name, name_key: f.name.toLowerCase() });
    if (f.description !== undefined) set.description = f.description;
    if (f.quotaBytes !== undefined) {
      const g = await forUpdate(trx, trx.selectFrom('groups').select('used_bytes').where('id', '=', id)).executeTakeFirstOrThrow();
      if (f.quotaBytes !== null && f.quotaBytes < Number(g.used_bytes)) {
        throw new AppError('SPACE_NOT_ENOUGH', `group space: not enough space, the group already holds ${g.used_bytes} bytes`, { fields: [{ field: 'space', message: 'group' }] });
      }
      set.quota_bytes = f.quotaBytes;
    }
    await trx.updateTable('groups').set(set).where('id', '=', id).execute();
  });
}

/** A joined department is the root (the company): it exists and has no parent. */
const isRoot = (id: string | null, parent: string | null): boolean => id !== null && parent === null;

export interface MemberRow {
  userId: string;
  userName: string;
  userRealName: string;
  deptName: string | null;
  deptIsRoot: boolean;
  roleCode: string;
  level: GroupLevel;
  joinedAt: number;
  folders: { instanceId: string; instanceName: string }[];
}

/** A page of members: administrators first, then by user name; second-level members with their folders. */
export async function listMembers(
  db: Db, groupId: string, f: { keyword?: string | undefined; level?: GroupLevel | undefined }, page: { limit: number; offset: number },
): Promise<{ rows: MemberRow[]; total: number }> {
  let q = db
    .selectFrom('group_members as m')
    .innerJoin('users as u', 'u.id', 'm.user_id')
    .leftJoin('departments as d', 'd.id', 'u.dept_id')
    .where('m.group_id', '=', groupId);
  if (f.level) q = q.where('m.level', '=', f.level);
  if (f.keyword) {
    const k = f.keyword;
    q = q.where((eb) => eb.or([contains('u.user_name_key', k), contains('u.real_name', k, true)]));
  }
  const total = await q.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
  const rows = await q
    .select(['m.user_id', 'u.user_name', 'u.real_name', 'd.name as dept_name', 'd.parent_id as dept_parent', 'd.id as dept_id', 'm.role_code', 'm.level', 'm.created_at'])
    .orderBy(sql`case when m.role_code = 'group_administrator' then 0 else 1 end`)
    .orderBy('u.user_name_key').orderBy('m.user_id')
    .limit(page.limit).offset(page.offset).execute();
  const second = rows.filter((r) => Number(r.level) === 2).map((r) => r.user_id);
  const folders = await secondFolders(db, groupId, second);
  return {
    total: Number(total.n),
    rows: rows.map((r) => ({
      userId: r.user_id, userName: r.user_name, userRealName: r.real_name ?? r.user_name, deptName: r.dept_name ?? null, deptIsRoot: isRoot(r.dept_id, r.dept_parent), roleCode: r.role_code,
      level: Number(r.level) as GroupLevel, joinedAt: Number(r.created_at), folders: folders.get(r.user_id) ?? [],
    })),
  };
}

/** The folders of the group's space granted to each of the users (their second-level rights). */
async function secondFolders(db: Db, groupId: string, userIds: readonly string[]): Promise<Map<string, { instanceId: string; instanceName: string }[]>> {
  const out = new Map<string, { instanceId: string; instanceName: string }[]>();
  if (userIds.length === 0) return out;
  const rows = await db
    .selectFrom('grants as gr')
    .innerJoin('instances as i', 'i.id', 'gr.instance_id')
    .select(['gr.subject_id', 'i.id', 'i.name'])
    .where('gr.subject_kind', '=', 'user').where('gr.subject_id', 'in', [...userIds])
    .where('i.space_kind', '=', 'group').where('i.space_id', '=', groupId)
    .orderBy('i.name_key')
    .execute();
  for (const r of rows) out.set(r.subject_id, [...(out.get(r.subject_id) ?? []), { instanceId: r.id, instanceName: r.name }]);
  return out;
}

export async function memberOf(db: Db, groupId: string, userId: string): Promise<{ roleCode: string; level: GroupLevel } | undefined> {
  const r = await db.selectFrom('group_members').select(['role_code', 'level']).where('group_id', '=', groupId).where('user_id', '=', userId).executeTakeFirst();
  return r ? { roleCode: r.role_code, level: Number(r.level) as GroupLevel } : undefined;
}

export async function memberCounts(db: Db, groupId: string): Promise<{ total: number; first: number; second: number; administrators: number }> {
  const r = await db.selectFrom('group_members').where('group_id', '=', groupId)
    .select((eb) => [
      eb.fn.countAll<number>().as('total'),
      eb.fn.sum<number>(sql`case when level = 1 then 1 else 0 end`).as('first'),
      eb.fn.sum<number>(sql`case when level = 2 then 1 else 0 end`).as('second'),
      eb.fn.sum<number>(sql`case when role_code = 'group_administrator' then 1 else 0 end`).as('admins'),
    ]).executeTakeFirstOrThrow();
  return { total: Number(r.total), first: Number(r.first ?? 0), second: Number(r.second ?? 0), administrators: Number(r.admins ?? 0) };
}

/** Throws GROUP_LAST_ADMIN unless the group keeps an administrator once `leaving` are no longer administrators. */
export async function assertAdminLeft(db: Db, groupId: string, leaving: readonly string[]): Promise<void> {
  if (leaving.length === 0) return;
  // Locking the administrators' rows makes two demotions racing on PostgreSQL queue, so they cannot both pass.
  const admins = await forUpdate(db, db.selectFrom('group_members').select('user_id').where('group_id', '=', groupId).where('role_code', '=', 'group_administrator'))
    .execute();
  if (!admins.some((a) => !leaving.includes(a.user_id))) throw new AppError('GROUP_LAST_ADMIN', 'the group would be left without an administrator');
}

const ID_CHUNK = 1000;

/**
 * Adds full members: the users `userIds` and every live user of the departments `deptIds` and their subtrees, in
 * one INSERT ... SELECT per chunk of 1,000 ids and one per department (never a statement per user). Members keep
 * their role and level. Answers how many were added.
 */
export async function addMembers(db: Db, groupId: string, userIds: readonly string[], deptIds: readonly string[], roleCode: string, now = Date.now()): Promise<number> {
  return atomically(db, async (trx) => {
    const before = await trx.selectFrom('group_members').select((eb) => eb.fn.countAll<number>().as('n')).where('group_id', '=', groupId).executeTakeFirstOrThrow();
    const insert = (users: ReturnType<typeof candidates>) =>
      trx.insertInto('group_members').columns(['group_id', 'user_id', 'role_code', 'level', 'created_at'])
        .expression(users.select((eb) => [eb.val(groupId).as('group_id'), 'u.id', eb.val(roleCode).as('role_code'), eb.val(1).as('level'), eb.val(now).as('created_at')]))
        .onConflict((oc) => oc.columns(['group_id', 'user_id']).doNothing());
    const candidates = (w: (q: ReturnType<typeof base>) => ReturnType<typeof base>) => w(base());
    const base = () => trx.selectFrom('users as u').where('u.deleted_at', 'is', null);
    const unique = [...new Set(userIds)];
    for (let i = 0; i < unique.length; i += ID_CHUNK) {
      await insert(candidates((q) => q.where('u.id', 'in', unique.slice(i, i + ID_CHUNK)))).execute();
    }
    for (const deptId of new Set(deptIds)) {
      const d = await trx.selectFrom('departments').select('path').where('id', '=', deptId).executeTakeFirst();
      if (!d) throw new AppError('NOT_FOUND', 'no such department', { fields: [{ field: 'deptIds', message: deptId }] });
      await insert(candidates((q) => q.where('u.dept_id', 'in', (eb) =>
        eb.selectFrom('departments as s').select('s.id').where((w) => w.or([w('s.id', '=', deptId), w.and([w(sql.lit(d.path), '<>', ''), w(sql`substr(s.path, 1, ${d.path.length})`, '=', d.path)])]))))).execute();
    }
    const after = await trx.selectFrom('group_members').select((eb) => eb.fn.countAll<number>().as('n')).where('group_id', '=', groupId).executeTakeFirstOrThrow();
    return Number(after.n) - Number(before.n);
  });
}

/** Second-level members: `userIds` (none of them a full member) get `roleCode` granted on each folder. */
export async function addSecondLevel(db: Db, groupId: string, userIds: readonly string[], folders: readonly InstanceRow[], roleCode: string, by: string, now = Date.now()): Promise<void> {
  await atomically(db, async (trx) => {
    const full = await trx.selectFrom('group_members').select('user_id').where('group_id', '=', groupId).where('user_id', 'in', [...userIds]).where('level', '=', 1).execute();
    if (full.length > 0) throw new AppError('CONFLICT', `already a full member: ${full.map((f) => f.user_id).join(', ')}`);
    const live = await trx.selectFrom('users').select('id').where('id', 'in', [...userIds]).where('deleted_at', 'is', null).execute();
    if (live.length !== new Set(userIds).size) throw new AppError('NOT_FOUND', 'no such user');
    await trx.insertInto('group_members')
      .values(userIds.map((u) => ({ group_id: groupId, user_id: u, role_code: roleCode, level: 2 as const, created_at: now })))
      .onConflict((oc) => oc.columns(['group_id', 'user_id']).doUpdateSet({ role_code: roleCode })).execute();
    await trx.insertInto('grants')
      .values(userIds.flatMap((u) => folders.map((f) => ({
        id: `g_${newId()}`, role_id: roleCode, subject_kind: 'user' as const, subject_id: u, instance_id: f.id, created_by: by, created_at: now,
      }))))
      .onConflict((oc) => oc.columns(['role_id', 'subject_kind', 'subject_id', 'instance_id']).doNothing())
      .execute();
  });
}

/** The user's grants on items of the group's space (`instanceIds`, or all): a second-level member's rights. */
export async function dropSpaceGrants(db: Db, groupId: string, userIds: readonly string[], instanceIds?: readonly string[]): Promise<void> {
  if (userIds.length === 0) return;
  let inSpace = db.selectFrom('instances').select('id').where('space_kind', '=', 'group').where('space_id', '=', groupId);
  if (instanceIds) inSpace = inSpace.where('id', 'in', [...instanceIds]);
  await db.deleteFrom('grants').where('subject_kind', '=', 'user').where('subject_id', 'in', [...userIds]).where('instance_id', 'in', inSpace).execute();
}

/** Second-level members left without any folder of the group leave it. */
export async function dropFolderlessSecond(db: Db, groupId: string, userIds: readonly string[]): Promise<void> {
  const held = await secondFolders(db, groupId, userIds);
  const gone = userIds.filter((u) => !held.has(u));
  if (gone.length > 0) await db.deleteFrom('group_members').where('group_id', '=', groupId).where('level', '=', 2).where('user_id', 'in', gone).execute();
}

export async function removeMembers(db: Db, groupId: string, userIds: readonly string[], now = Date.now()): Promise<void> {
  await atomically(db, async (trx) => {
    await assertAdminLeft(trx, groupId, userIds);
    await dropSpaceGrants(trx, groupId, await secondOnly(trx, groupId, userIds));
    await trx.deleteFrom('group_members').where('group_id', '=', groupId).where('user_id', 'in', [...userIds]).execute();
    await trx.updateTable('group_handovers').set({ status: 'cancelled', decided_at: now }).where('group_id', '=', groupId).where('status', '=', 'pending')
      .where((eb) => eb.or([eb('from_user_id', 'in', [...userIds]), eb('to_user_id', 'in', [...userIds])])).execute();
  });
}

async function secondOnly(db: Db, groupId: string, userIds: readonly string[]): Promise<string[]> {
  const r = await db.selectFrom('group_members').select('user_id').where('group_id', '=', groupId).where('user_id', 'in', [...userIds]).where('level', '=', 2).execute();
  return r.map((x) => x.user_id);
}

/** A full member's new group role; one who is no longer an administrator withdraws the handover they offered. */
export async function setRole(db: Db, groupId: string, userId: string, roleCode: string, now = Date.now()): Promise<void> {
  await atomically(db, async (trx) => {
    if (roleCode === 'group_administrator') {
      await trx.updateTable('group_members').set({ role_code: roleCode }).where('group_id', '=', groupId).where('user_id', '=', userId).execute();
      return;
    }
    await assertAdminLeft(trx, groupId, [userId]);
    await trx.updateTable('group_members').set({ role_code: roleCode }).where('group_id', '=', groupId).where('user_id', '=', userId).execute();
    await trx.updateTable('group_handovers').set({ status: 'cancelled', decided_at: now })
      .where('group_id', '=', groupId).where('status', '=', 'pending').where('from_user_id', '=', userId).execute();
  });
}

/** A second-level member becomes a full member: their folder grants go. */
export async function promote(db: Db, groupId: string, userId: string, roleCode: string | undefined): Promise<void> {
  await atomically(db, async (trx) => {
    await dropSpaceGrants(trx, groupId, [userId]);
    await trx.updateTable('group_members').set({ level: 1, ...(roleCode ? { role_code: roleCode } : {}) }).where('group_id', '=', groupId).where('user_id', '=', userId).execute();
  });
}

export interface HandoverRow {
  id: string;
  groupId: string;
  groupName: string;
  fromUserId: string;
  fromUserName: string;
  toUserId: string;
  toUserName: string;
  status: 'pending' | 'accepted' | 'declined' | 'cancelled';
  createdAt: number;
  decidedAt: number | null;
}

function handoverQuery(db: Db) {
  return db.selectFrom('group_handovers as h')
    .innerJoin('groups as g', 'g.id', 'h.group_id')
    .innerJoin('users as f', 'f.id', 'h.from_user_id')
    .innerJoin('users as t', 't.id', 'h.to_user_id')
    .select(['h.id', 'h.group_id', 'g.name as group_name', 'h.from_user_id', 'f.user_name as from_name', 'h.to_user_id', 't.user_name as to_name', 'h.status', 'h.created_at', 'h.decided_at']);
}

type RawHandover = NonNullable<Awaited<ReturnType<ReturnType<typeof handoverQuery>['executeTakeFirst']>>>;
const toHandover = (r: RawHandover): HandoverRow => ({
  id: r.id, groupId: r.group_id, groupName: r.group_name, fromUserId: r.from_user_id, fromUserName: r.from_name, toUserId: r.to_user_id,
  toUserName: r.to_name, status: r.status, createdAt: Number(r.created_at), decidedAt: r.decided_at === null ? null : Number(r.decided_at),
});

export async function getHandover(db: Db, id: string): Promise<HandoverRow | undefined> {
  const r = await handoverQuery(db).where('h.id', '=', id).executeTakeFirst();
  return r ? toHandover(r) : undefined;
}

export async function handoversOf(db: Db, f: { groupId?: string; pendingFor?: string }): Promise<HandoverRow[]> {
  let q = handoverQuery(db).where('g.dissolved_at', 'is', null);
  if (f.groupId) q = q.where('h.group_id', '=', f.groupId);
  if (f.pendingFor) q = q.where('h.to_user_id', '=', f.pendingFor).where('h.status', '=', 'pending');
  return (await q.orderBy('h.created_at', 'desc').orderBy('h.id', 'desc').limit(50).execute()).map(toHandover);
}

/** A new pending handover; the group's pending one before it is cancelled. */
export async function submitHandover(db: Db, groupId: string, from: string, to: string, now = Date.now()): Promise<string> {
  return atomically(db, async (trx) => {
    await trx.updateTable('group_handovers').set({ status: 'cancelled', decided_at: now }).where('group_id', '=', groupId).where('status', '=', 'pending').execute();
    const id = `ho_${newId()}`;
    await trx.insertInto('group_handovers').values({ id, group_id: groupId, from_user_id: from, to_user_id: to, status: 'pending', created_at: now }).execute();
    return id;
  });
}

/**
 * Takes a pending handover to `status`; on accepted the receiver becomes administrator and owner, the submitter a
 * leader. CONFLICT when it is no longer pending (a race lost, or decided before).
 */
export async function decideHandover(db: Db, h: HandoverRow, status: 'accepted' | 'declined' | 'cancelled', now = Date.now()): Promise<void> {
  await atomically(db, async (trx) => {
    const r = await trx.updateTable('group_handovers').set({ status, decided_at: now }).where('id', '=', h.id).where('status', '=', 'pending').returning('id').executeTakeFirst();
    if (!r) throw new AppError('CONFLICT', 'the handover is no longer pending');
    if (status !== 'accepted') return;
    const receiver = await trx.selectFrom('group_members').select('level').where('group_id', '=', h.groupId).where('user_id', '=', h.toUserId).executeTakeFirst();
    if (!receiver || Number(receiver.level) !== 1) throw new AppError('CONFLICT', 'the receiver is no longer a member of the group');
    await trx.updateTable('group_members').set({ role_code: 'group_administrator' }).where('group_id', '=', h.groupId).where('user_id', '=', h.toUserId).execute();
    if (h.fromUserId !== h.toUserId) {
      await trx.updateTable('group_members').set({ role_code: 'group_leader' }).where('group_id', '=', h.groupId).where('user_id', '=', h.fromUserId).execute();
    }
    await trx.updateTable('groups').set({ owner_id: h.toUserId, updated_at: now }).where('id', '=', h.groupId).execute();
  });
}

/** Marks the group dissolved (once: CONFLICT when it already is), cancelling a pending handover. */
export async function markDissolved(db: Db, groupId: string, now = Date.now()): Promise<void> {
  const r = await db.updateTable('groups').set({ dissolved_at: now, updated_at: now }).where('id', '=', groupId).where('dissolved_at', 'is', null).returning('id').executeTakeFirst();
  if (!r) throw new AppError('NOT_FOUND', 'no such group');
  await db.updateTable('group_handovers').set({ status: 'cancelled', decided_at: now }).where('group_id', '=', groupId).where('status', '=', 'pending').execute();
}

/** Unfinished uploads into the group's space (dissolving ends them). */
export async function openUploadsIn(db: Db, groupId: string): Promise<string[]> {
  const r = await db.selectFrom('upload_sessions').select('id').where('space_kind', '=', 'group').where('space_id', '=', groupId).where('ended_at', 'is', null).execute();
  return r.map((x) => x.id);
}

/** Live top-level items of the group's space (what dissolving recycles). */
export async function topLevelItems(db: Db, groupId: string): Promise<string[]> {
  const r = await db.selectFrom('instances as c').innerJoin('instances as r', 'r.id', 'c.parent_id')
    .select('c.id').where('r.space_kind', '=', 'group').where('r.space_id', '=', groupId).where('r.parent_id', 'is', null).where('c.deleted_at', 'is', null).execute();
  return r.map((x) => x.id);
}

/** Sub-departments of a department (the root's when null) with their subtrees' live user counts. */
export async function subDepartments(db: Db, parentId: string | null, limit = 1000) {
  let q = db.selectFrom('departments').select('id');
  q = parentId === null ? q.where('parent_id', 'in', (eb) => eb.selectFrom('departments').select('id').where('parent_id', 'is', null)) : q.where('parent_id', '=', parentId);
  const ids = await q.limit(limit).execute();
  return ids.length === 0 ? [] : subDeptsByIds(db, ids.map((d) => d.id));
}

/** Users and departments whose names contain the keyword, users marked when members of the group. */
export async function searchCandidates(db: Db, groupId: string, keyword: string, limit: number) {
  const users = await db.selectFrom('users as u').leftJoin('departments as d', 'd.id', 'u.dept_id')
    .leftJoin('group_members as m', (j) => j.onRef('m.user_id', '=', 'u.id').on('m.group_id', '=', groupId))
    .select(['u.id', 'u.user_name', 'u.real_name', 'd.name as dept_name', 'd.id as dept_id', 'd.parent_id as dept_parent', 'm.user_id as member'])
    .where('u.deleted_at', 'is', null)
    .where((eb) => eb.or([contains('u.user_name_key', keyword), contains('u.real_name', keyword, true)]))
    .orderBy('u.user_name_key').limit(limit).execute();
  const depts = await db.selectFrom('departments').select('id').where(contains('name_key', keyword)).orderBy('name_key').limit(limit).execute();
  const deptRows = depts.length === 0 ? [] : await subDeptsByIds(db, depts.map((d) => d.id));
  return {
    users: users.map((u) => ({ userId: u.id, userName: u.user_name, userRealName: u.real_name ?? u.user_name, deptName: u.dept_name ?? null, deptIsRoot: isRoot(u.dept_id, u.dept_parent), member: u.member !== null })),
    depts: deptRows,
  };
}

async function subDeptsByIds(db: Db, ids: string[]) {
  const rows = await db.selectFrom('departments as d').select((eb) => [
    'd.id', 'd.name', 'd.parent_id',
    eb.exists(eb.selectFrom('departments as c').select('c.id').whereRef('c.parent_id', '=', 'd.id')).as('has_children'),
    eb.selectFrom('users as u').innerJoin('departments as s', 's.id', 'u.dept_id').select((c) => c.fn.countAll<number>().as('n'))
      .where('u.deleted_at', 'is', null).where(sql<boolean>`substr(s.path, 1, length(d.path)) = d.path`).as('user_count'),
  ]).where('d.id', 'in', ids).orderBy('d.name_key').execute();
  return rows.map((r) => ({ deptId: r.id, deptName: r.name, deptIsRoot: r.parent_id === null, hasChildren: Boolean(Number(r.has_children)), userCount: Number(r.user_count ?? 0) }));
}
