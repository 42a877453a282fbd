// Roles, their authorities and grants (issue #14): the only SQL that reads or writes roles, role_auths and grants.
// The access decision itself (nearest grant wins, deny beats allow, defaults) is files/access-gate.ts's; this module
// hands it the facts in batches: a user's department ancestry, and the grants that apply to them on a set of items.
import { sql } from 'kysely';
import { PERMISSIONS, type Permission } from '@hcs/openapi/operations';
import { atomically, type Db } from './sql/tx.ts';
import type { RolesTable } from './sql/schema.ts';
import { uniqueViolation } from './sql/errors.ts';
import { newId } from '../ids.ts';
import { AppError } from '../http/errors.ts';
import type { SpaceKind } from './quota.ts';
import { SEEDED_ROLES } from './sql/migrations/005_roles.ts';

export type RoleKind = RolesTable['kind'];
export type SubjectKind = 'user' | 'dept';

/** The authority catalogue with its display names, in the contract's order (x-hcs-permissions). */
export const AUTHORITIES: readonly { code: Permission; name: string; nameEn: string; description: string; descriptionEn: string }[] = [
  { code: 'view', name: '查看', nameEn: 'View', description: '在列表中看到、查看属性', descriptionEn: 'See it in listings and read its properties' },
  { code: 'preview', name: '预览', nameEn: 'Preview', description: '在线预览文件', descriptionEn: 'Preview files online' },
  { code: 'download', name: '下载', nameEn: 'Download', description: '下载文件和文件夹、复制到别处', descriptionEn: 'Download files and folders, copy them elsewhere' },
  { code: 'upload', name: '上传', nameEn: 'Upload', description: '上传文件', descriptionEn: 'Upload files' },
  { code: 'create', name: '新建', nameEn: 'Create', description: '新建文件夹，复制或移动到此处', descriptionEn: 'Create folders, copy or move items here' },
  { code: 'edit', name: '编辑', nameEn: 'Edit', description: '重命名、移动、修改备注', descriptionEn: 'Rename, move, edit remarks' },
  { code: 'delete', name: '删除', nameEn: 'Delete', description: '删除到回收站、还原、彻底删除', descriptionEn: 'Delete to the recycle bin, restore, purge' },
  { code: 'version', name: '版本管理', nameEn: 'Versions', description: '查看历史版本、回滚', descriptionEn: 'Read the version history, roll back' },
  { code: 'share', name: '内部分享', nameEn: 'Share', description: '分享给同事', descriptionEn: 'Share with colleagues' },
  { code: 'shareExternal', name: '外链分享', nameEn: 'Share by link', description: '创建外部链接', descriptionEn: 'Create external links' },
  { code: 'manage', name: '权限管理', nameEn: 'Manage permissions', description: '授予和撤销角色', descriptionEn: 'Grant and revoke roles' },
];

/** Authorities of the builtin roles, which cannot be edited: the decision's defaults read them without a query. */
export const BUILTIN_AUTHORITIES: ReadonlyMap<string, ReadonlySet<Permission>> = new Map(
  SEEDED_ROLES.map((r) => [r.code, new Set(r.authorities as readonly Permission[])]),
);

const ORDER = new Map(PERMISSIONS.map((p, i) => [p as string, i]));
const inCatalogueOrder = (ps: Iterable<string>): Permission[] =>
  [...new Set(ps)].filter((p): p is Permission => ORDER.has(p)).sort((a, b) => ORDER.get(a)! - ORDER.get(b)!);

export interface Role {
  id: string;
  code: string;
  name: string;
  nameEn: string;
  kind: RoleKind;
  builtin: boolean;
  deny: boolean;
  sort: number;
  authorities: Permission[];
  grantCount: number;
  createdAt: number;
}

interface RoleRow {
  id: string;
  code: string;
  name: string;
  name_en: string;
  kind: RoleKind;
  builtin: number;
  deny: number;
  sort: number;
  created_at: number;
  grant_count: number | string;
}

export interface RoleFilter {
  kind?: RoleKind | undefined;
  keyword?: string | undefined;
  ids?: readonly string[] | undefined;
}

/** Roles matching the filter with their authorities and grant counts, sorted by sort then code; two queries. */
export async function listRoles(db: Db, f: RoleFilter = {}, page?: { limit: number; offset: number }): Promise<{ roles: Role[]; total: number }> {
  let q = db.selectFrom('roles as r');
  if (f.kind) q = q.where('r.kind', '=', f.kind);
  if (f.ids) q = f.ids.length ? q.where('r.id', 'in', [...f.ids]) : q.where(sql.lit(false));
  if (f.keyword) {
    const like = `%${f.keyword.toLowerCase().replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
    q = q.where((eb) => eb.or([
      eb('r.code_key', 'like', sql<string>`${like} escape '\\'`),
      eb(eb.fn('lower', ['r.name']), 'like', sql<string>`${like} escape '\\'`),
      eb(eb.fn('lower', ['r.name_en']), 'like', sql<string>`${like} escape '\\'`),
    ]));
  }
  const total = page ? Number((await q.select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow()).n) : 0;
  let rq = q
    .select(['r.id', 'r.code', 'r.name', 'r.name_en', 'r.kind', 'r.builtin', 'r.deny', 'r.sort', 'r.created_at'])
    .select((eb) => eb.selectFrom('grants as g').whereRef('g.role_id', '=', 'r.id').select((e) => e.fn.countAll().as('n')).as('grant_count'))
    .orderBy('r.sort')
    .orderBy('r.code_key');
  if (page) rq = rq.limit(page.limit).offset(page.offset);
  const rows = (await rq.execute()) as RoleRow[];
  const auths = rows.length
    ? await db.selectFrom('role_auths').select(['role_id', 'permission']).where('role_id', 'in', rows.map((r) => r.id)).execute()
    : [];
  const byRole = new Map<string, string[]>();
  for (const a of auths) byRole.set(a.role_id, [...(byRole.get(a.role_id) ?? []), a.permission]);
  const roles = rows.map((r) => ({
    id: r.id,
    code: r.code,
    name: r.name,
    nameEn: r.name_en,
    kind: r.kind,
    builtin: r.builtin === 1,
    deny: r.deny === 1,
    sort: r.sort,
    authorities: inCatalogueOrder(byRole.get(r.id) ?? []),
    grantCount: Number(r.grant_count ?? 0),
    createdAt: r.created_at,
  }));
  return { roles, total: page ? total : roles.length };
}

export async function getRole(db: Db, id: string): Promise<Role | undefined> {
  return (await listRoles(db, { ids: [id] })).roles[0];
}

export interface RoleInput {
  id?: string | undefined;
  code: string;
  name: string;
  nameEn?: string | undefined;
  kind?: RoleKind | undefined;
  deny?: boolean | undefined;
  sort?: number | undefined;
  authorities: readonly Permission[];
}

function invalid(field: string, message: string): AppError {
  return new AppError('VALIDATION_FAILED', `${field}: ${message}`, { fields: [{ field, message }] });
}

/** Creates a role (no id) or replaces an existing non-builtin role's names, authorities, deny flag and sort. */
export async function saveRole(db: Db, input: RoleInput, now = Date.now()): Promise<Role> {
  const name = input.name.trim();
  if (name === '') throw invalid('roleName', 'must not be blank');
  if (input.deny && input.authorities.length > 0) throw invalid('authorities', 'a deny role holds no authorities');
  const nameEn = input.nameEn?.trim() || input.code;
  try {
    const id = await atomically(db, async (trx) => {
      if (input.id !== undefined) {
        const old = await trx.selectFrom('roles').select(['id', 'builtin', 'code_key']).where('id', '=', input.id).executeTakeFirst();
        if (!old) throw new AppError('NOT_FOUND', 'no such role');
        if (old.builtin === 1) throw new AppError('ROLE_BUILTIN', 'builtin roles cannot be changed');
        if (old.code_key !== input.code.toLowerCase()) throw invalid('roleCode', 'the code of a role cannot change');
        await trx.updateTable('roles').set({ name, name_en: nameEn, deny: input.deny ? 1 : 0, ...(input.sort !== undefined ? { sort: input.sort } : {}) })
          .where('id', '=', old.id).execute();
        await trx.deleteFrom('role_auths').where('role_id', '=', old.id).execute();
        await insertAuths(trx, old.id, input.authorities);
        return old.id;
      }
      const taken = await trx.selectFrom('roles').select('id').where('code_key', '=', input.code.toLowerCase()).executeTakeFirst();
      if (taken) throw new AppError('ROLE_EXISTS', 'another role has that code');
      const newIdValue = `r_${newId()}`;
      await trx.insertInto('roles').values({
        id: newIdValue, code: input.code, code_key: input.code.toLowerCase(), name, name_en: nameEn, kind: input.kind ?? 'file',
        builtin: 0, deny: input.deny ? 1 : 0, sort: input.sort ?? 1000, created_at: now,
      }).execute();
      await insertAuths(trx, newIdValue, input.authorities);
      return newIdValue;
    });
    return (await getRole(db, id))!;
  } catch (err) {
    // Two administrators creating the same code at once: the unique index decides, the loser hears ROLE_EXISTS.
    if (uniqueViolation(err) !== undefined) throw new AppError('ROLE_EXISTS', 'another role has that code');
    throw err;
  }
}

async function insertAuths(db: Db, roleId: string, authorities: readonly Permission[]): Promise<void> {
  const list = inCatalogueOrder(authorities);
  if (list.length) await db.insertInto('role_auths').values(list.map((permission) => ({ role_id: roleId, permission }))).execute();
}

/** Deletes a non-builtin role that no grant holds. */
export async function deleteRole(db: Db, id: string): Promise<void> {
  await atomically(db, async (trx) => {
    const role = await trx.selectFrom('roles').select(['id', 'builtin']).where('id', '=', id).executeTakeFirst();
    if (!role) throw new AppError('NOT_FOUND', 'no such role');
    if (role.builtin === 1) throw new AppError('ROLE_BUILTIN', 'builtin roles cannot be deleted');
    const used = await trx.selectFrom('grants').select('id').where('role_id', '=', id).limit(1).executeTakeFirst();
    if (used) throw new AppError('ROLE_IN_USE', 'the role is still granted; revoke its grants first');
    await trx.deleteFrom('role_auths').where('role_id', '=', id).execute();
    await trx.deleteFrom('roles').where('id', '=', id).execute();
  });
}

// ---- department ancestry and the grants that apply to a user ------------------------------------------------

const MAX_DEPT_DEPTH = 64;

/** A department and its ancestors, nearest first, in one query; [] for null or an unknown id. */
export async function deptChainOf(db: Db, deptId: string | null): Promise<string[]> {
  if (deptId === null) return [];
  const r = await sql<{ id: string }>`
    with recursive up(id, parent_id, depth) as (
      select id, parent_id, 0 from departments where id = ${deptId}
      union all
      select d.id, d.parent_id, up.depth + 1 from departments d join up on d.id = up.parent_id where up.depth < ${MAX_DEPT_DEPTH}
    )
    select id from up order by depth`.execute(db);
  return r.rows.map((x) => x.id);
}

/** A grant as the access decision needs it. */
export interface GrantFact {
  grantId: string;
  instanceId: string;
  roleId: string;
  roleCode: string;
  deny: boolean;
  subjectKind: SubjectKind;
  subjectId: string;
  authorities: ReadonlySet<Permission>;
}

/**
 * The grants on any of `instanceIds` whose subject is the user or one of `deptIds`, with their roles' authorities:
 * one query, whatever the number of items.
 */
export async function applicableGrants(db: Db, instanceIds: readonly string[], userId: string, deptIds: readonly string[]): Promise<GrantFact[]> {
  if (instanceIds.length === 0) return [];
  return grantFacts(db, { instanceIds }, userId, deptIds);
}

/**
 * The same for the live children of some folders (what hides some of them from a listing, or every sub-folder of a
 * tree node): one query.
 */
export async function applicableGrantsOnChildren(db: Db, parentIds: string | readonly string[], userId: string, deptIds: readonly string[]): Promise<GrantFact[]> {
  const ids = typeof parentIds === 'string' ? [parentIds] : [...parentIds];
  if (ids.length === 0) return [];
  return grantFacts(db, { parentIds: ids }, userId, deptIds);
}

/**
 * The same for every live item of a space (`id` undefined: of every space of that kind), for the folders that lead a
 * user to what was granted deeper down and for the department spaces a grant reaches: one query.
 */
export async function applicableGrantsInSpace(
  db: Db, space: { kind: SpaceKind; id?: string | undefined }, userId: string, deptIds: readonly string[],
): Promise<GrantFact[]> {
  return grantFacts(db, { space }, userId, deptIds);
}

type GrantsOn = { instanceIds: readonly string[] } | { parentIds: readonly string[] } | { space: { kind: SpaceKind; id?: string | undefined } };

async function grantFacts(db: Db, on: GrantsOn, userId: string, deptIds: readonly string[]): Promise<GrantFact[]> {
  let q = db
    .selectFrom('grants as g')
    .innerJoin('roles as r', 'r.id', 'g.role_id')
    .leftJoin('role_auths as a', 'a.role_id', 'g.role_id')
    .select(['g.id', 'g.instance_id', 'g.role_id', 'r.code', 'r.deny', 'g.subject_kind', 'g.subject_id', 'a.permission'])
    .where((eb) => {
      const user = eb.and([eb('g.subject_kind', '=', 'user'), eb('g.subject_id', '=', userId)]);
      return deptIds.length ? eb.or([user, eb.and([eb('g.subject_kind', '=', 'dept'), eb('g.subject_id', 'in', [...deptIds])])]) : user;
    });
  if ('parentIds' in on) {
    q = q.where('g.instance_id', 'in', (eb) => eb.selectFrom('instances').select('id').where('parent_id', 'in', [...on.parentIds]).where('deleted_at', 'is', null));
  } else if ('space' in on) {
    const { kind, id } = on.space;
    q = q.where('g.instance_id', 'in', (eb) => {
      const live = eb.selectFrom('instances').select('id').where('space_kind', '=', kind).where('deleted_at', 'is', null);
      return id === undefined ? live : live.where('space_id', '=', id);
    });
  } else q = q.where('g.instance_id', 'in', [...on.instanceIds]);
  const rows = await q.execute();
  const byId = new Map<string, GrantFact & { authorities: Set<Permission> }>();
  for (const r of rows) {
    let g = byId.get(r.id);
    if (!g) {
      g = {
        grantId: r.id, instanceId: r.instance_id, roleId: r.role_id, roleCode: r.code, deny: r.deny === 1,
        subjectKind: r.subject_kind, subjectId: r.subject_id, authorities: new Set(),
      };
      byId.set(r.id, g);
    }
    if (r.permission && ORDER.has(r.permission)) g.authorities.add(r.permission as Permission);
  }
  return [...byId.values()];
}

/**
 * The grants applying to the user (directly or through `deptIds`) on live items strictly below `root`, in one query:
 * it starts from the applicable grants of the root's space (few) and climbs from each to see whether it reaches the
 * root, instead of walking the whole subtree down.
 */
export async function applicableGrantsBelow(
  db: Db, root: { id: string; spaceKind: string; spaceId: string }, userId: string, deptIds: readonly string[],
): Promise<GrantFact[]> {
  const subject = deptIds.length
    ? sql`((g.subject_kind = 'user' and g.subject_id = ${userId}) or (g.subject_kind = 'dept' and g.subject_id in (${sql.join([...deptIds])})))`
    : sql`(g.subject_kind = 'user' and g.subject_id = ${userId})`;
  const r = await sql<{ id: string }>`
    with recursive up(gid, at, depth) as (
      select g.id, i.parent_id, 0 from grants g join instances i on i.id = g.instance_id
        where i.space_kind = ${root.spaceKind} and i.space_id = ${root.spaceId} and i.deleted_at is null and i.id <> ${root.id} and ${subject}
      union all
      select up.gid, p.parent_id, up.depth + 1 from instances p join up on p.id = up.at where up.at <> ${root.id} and up.depth < ${MAX_DEPT_DEPTH * 4}
    )
    select distinct gid as id from up where at = ${root.id}`.execute(db);
  if (r.rows.length === 0) return [];
  const ids = new Set(r.rows.map((x) => x.id));
  const byInstance = await db.selectFrom('grants').select('instance_id').where('id', 'in', [...ids]).execute();
  const facts = await applicableGrants(db, [...new Set(byInstance.map((g) => g.instance_id))], userId, deptIds);
  return facts.filter((f) => ids.has(f.grantId));
}

// ---- grants as the API shows them ----------------------------------------------------------------------------

export interface GrantView {
  id: string;
  instanceId: string;
  instanceName: string;
  roleId: string;
  roleCode: string;
  roleName: string;
  roleNameEn: string;
  deny: boolean;
  subjectKind: SubjectKind;
  subjectId: string;
  subjectName: string;
  subjectRealName: string | null;
  createdBy: string;
  createdAt: number;
}

export interface GrantFilter {
  instanceIds?: readonly string[] | undefined;
  grantIds?: readonly string[] | undefined;
  roleId?: string | undefined;
  subjectKind?: SubjectKind | undefined;
}

function grantQuery(db: Db, f: GrantFilter) {
  let q = db
    .selectFrom('grants as g')
    .innerJoin('roles as r', 'r.id', 'g.role_id')
    .innerJoin('instances as i', 'i.id', 'g.instance_id')
    .leftJoin('users as u', (j) => j.on('g.subject_kind', '=', 'user').onRef('u.id', '=', 'g.subject_id'))
    .leftJoin('departments as d', (j) => j.on('g.subject_kind', '=', 'dept').onRef('d.id', '=', 'g.subject_id'));
  if (f.instanceIds) q = f.instanceIds.length ? q.where('g.instance_id', 'in', [...f.instanceIds]) : q.where(sql.lit(false));
  if (f.grantIds) q = f.grantIds.length ? q.where('g.id', 'in', [...f.grantIds]) : q.where(sql.lit(false));
  if (f.roleId) q = q.where('g.role_id', '=', f.roleId);
  if (f.subjectKind) q = q.where('g.subject_kind', '=', f.subjectKind);
  return q;
}

/** Grants matching the filter, newest first, with the names a screen shows. */
export async function listGrants(db: Db, f: GrantFilter, page?: { limit: number; offset: number }): Promise<{ grants: GrantView[]; total: number }> {
  const total = page ? Number((await grantQuery(db, f).select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow()).n) : 0;
  let q = grantQuery(db, f)
    .select([
      'g.id', 'g.instance_id', 'i.name as instance_name', 'g.role_id', 'r.code as role_code', 'r.name as role_name', 'r.name_en as role_name_en',
      'r.deny', 'g.subject_kind', 'g.subject_id', 'u.user_name', 'u.real_name', 'd.name as dept_name', 'g.created_by', 'g.created_at',
    ])
    .orderBy('g.created_at', 'desc')
    .orderBy('g.id');
  if (page) q = q.limit(page.limit).offset(page.offset);
  const grants = (await q.execute()).map((r) => ({
    id: r.id,
    instanceId: r.instance_id,
    instanceName: r.instance_name,
    roleId: r.role_id,
    roleCode: r.role_code,
    roleName: r.role_name,
    roleNameEn: r.role_name_en,
    deny: r.deny === 1,
    subjectKind: r.subject_kind,
    subjectId: r.subject_id,
    subjectName: (r.subject_kind === 'user' ? r.user_name : r.dept_name) ?? '',
    subjectRealName: r.subject_kind === 'user' ? (r.real_name ?? '') : null,
    createdBy: r.created_by,
    createdAt: r.created_at,
  }));
  return { grants, total: page ? total : grants.length };
}

/** A file role a grant may use, or an error: NOT_FOUND for an unknown role, VALIDATION_FAILED for another kind. */
async function grantableRole(db: Db, roleId: string): Promise<void> {
  const role = await db.selectFrom('roles').select(['id', 'kind']).where('id', '=', roleId).executeTakeFirst();
  if (!role) throw new AppError('NOT_FOUND', 'no such role');
  if (role.kind !== 'file') throw invalid('roleId', 'only file roles are granted on files and folders');
}

/** NOT_FOUND unless every subject exists (accounts not deleted). */
async function assertSubjects(db: Db, kind: SubjectKind, ids: readonly string[]): Promise<void> {
  const wanted = [...new Set(ids)];
  if (wanted.length === 0) return;
  const found = kind === 'user'
    ? await db.selectFrom('users').select('id').where('id', 'in', wanted).where('deleted_at', 'is', null).execute()
    : await db.selectFrom('departments').select('id').where('id', 'in', wanted).execute();
  if (found.length !== wanted.length) throw new AppError('NOT_FOUND', kind === 'user' ? 'no such user' : 'no such department');
}

/** Grants the role to each subject on the instance (existing grants stay as they are); answers those grants. */
export async function addGrants(
  db: Db, instanceId: string, roleId: string, subjectKind: SubjectKind, subjectIds: readonly string[], by: string, now = Date.now(),
): Promise<GrantView[]> {
  return atomically(db, async (trx) => {
    await grantableRole(trx, roleId);
    await assertSubjects(trx, subjectKind, subjectIds);
    await trx.insertInto('grants')
      .values([...new Set(subjectIds)].map((subjectId) => ({
        id: `g_${newId()}`, role_id: roleId, subject_kind: subjectKind, subject_id: subjectId, instance_id: instanceId, created_by: by, created_at: now,
      })))
      .onConflict((oc) => oc.columns(['role_id', 'subject_kind', 'subject_id', 'instance_id']).doNothing())
      .execute();
    const ids = await trx.selectFrom('grants').select('id').where('instance_id', '=', instanceId).where('role_id', '=', roleId)
      .where('subject_kind', '=', subjectKind).where('subject_id', 'in', [...subjectIds]).execute();
    return (await listGrants(trx, { grantIds: ids.map((g) => g.id) })).grants;
  });
}

/** Revokes grants on the instance; NOT_FOUND (none revoked) when one of them is not a grant on it. */
export async function deleteGrants(db: Db, instanceId: string, grantIds: readonly string[]): Promise<void> {
  await atomically(db, async (trx) => {
    const wanted = [...new Set(grantIds)];
    const found = await trx.selectFrom('grants').select('id').where('instance_id', '=', instanceId).where('id', 'in', wanted).execute();
    if (found.length !== wanted.length) throw new AppError('NOT_FOUND', 'no such grant on this item');
    await trx.deleteFrom('grants').where('id', 'in', wanted).execute();
  });
}

/** Changes the role of one grant on the instance. */
export async function changeGrantRole(db: Db, instanceId: string, grantId: string, roleId: string): Promise<GrantView> {
  return atomically(db, async (trx) => {
    const g = await trx.selectFrom('grants').select(['id', 'role_id', 'subject_kind', 'subject_id'])
      .where('id', '=', grantId).where('instance_id', '=', instanceId).executeTakeFirst();
    if (!g) throw new AppError('NOT_FOUND', 'no such grant on this item');
    await grantableRole(trx, roleId);
    if (g.role_id !== roleId) {
      const clash = await trx.selectFrom('grants').select('id').where('instance_id', '=', instanceId).where('role_id', '=', roleId)
        .where('subject_kind', '=', g.subject_kind).where('subject_id', '=', g.subject_id).executeTakeFirst();
      if (clash) throw new AppError('GRANT_EXISTS', 'the subject already holds that role here');
      try {
        await trx.updateTable('grants').set({ role_id: roleId }).where('id', '=', grantId).execute();
      } catch (err) {
        // The same grant added meanwhile by another call: the unique index refuses the duplicate.
        if (uniqueViolation(err) !== undefined) throw new AppError('GRANT_EXISTS', 'the subject already holds that role here');
        throw err;
      }
    }
    return (await listGrants(trx, { grantIds: [grantId] })).grants[0]!;
  });
}

/** Replaces every grant on the instance by `specs`; grants that stay keep their ids. Answers the grants now on it. */
export async function replaceGrants(
  db: Db, instanceId: string, specs: readonly { roleId: string; subjectKind: SubjectKind; subjectId: string }[], by: string, now = Date.now(),
): Promise<GrantView[]> {
  return atomically(db, async (trx) => {
    for (const roleId of new Set(specs.map((s) => s.roleId))) await grantableRole(trx, roleId);
    for (const kind of ['user', 'dept'] as const) await assertSubjects(trx, kind, specs.filter((s) => s.subjectKind === kind).map((s) => s.subjectId));
    const key = (s: { roleId: string; subjectKind: string; subjectId: string }) => `${s.roleId}\u0000${s.subjectKind}\u0000${s.subjectId}`;
    const want = new Map(specs.map((s) => [key(s), s]));
    const have = await trx.selectFrom('grants').select(['id', 'role_id', 'subject_kind', 'subject_id']).where('instance_id', '=', instanceId).execute();
    const drop: string[] = [];
    for (const g of have) {
      const k = key({ roleId: g.role_id, subjectKind: g.subject_kind, subjectId: g.subject_id });
      if (want.has(k)) want.delete(k);
      else drop.push(g.id);
    }
    if (drop.length) await trx.deleteFrom('grants').where('id', 'in', drop).execute();
    if (want.size) {
      // A concurrent replacement may have inserted the same grant: it is wanted either way.
      await trx.insertInto('grants').values([...want.values()].map((s) => ({
        id: `g_${newId()}`, role_id: s.roleId, subject_kind: s.subjectKind, subject_id: s.subjectId, instance_id: instanceId, created_by: by, created_at: now,
      }))).onConflict((oc) => oc.columns(['role_id', 'subject_kind', 'subject_id', 'instance_id']).doNothing()).execute();
    }
    return (await listGrants(trx, { instanceIds: [instanceId] })).grants;
  });
}

/** Which of the departments `deptIds` the user manages, directly or as a manager of an ancestor: one query. */
export async function managedAmong(db: Db, userId: string, deptIds: readonly string[]): Promise<Set<string>> {
  if (deptIds.length === 0) return new Set();
  const r = await sql<{ space: string }>`
    with recursive up(space, id, parent_id, depth) as (
      select id, id, parent_id, 0 from departments where id in (${sql.join([...deptIds])})
      union all
      select up.space, d.id, d.parent_id, up.depth + 1 from departments d join up on d.id = up.parent_id where up.depth < ${MAX_DEPT_DEPTH}
    )
    select distinct up.space from up join dept_managers m on m.dept_id = up.id and m.user_id = ${userId}`.execute(db);
  return new Set(r.rows.map((x) => x.space));
}
