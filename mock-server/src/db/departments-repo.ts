// Departments: the tree (materialised id paths, `/root/a/b/`), its managers, and the nested quota rules. The only SQL
// that writes the departments and dept_managers tables. A subtree is a path prefix, compared with substr rather than
// LIKE: ids may hold '_', which LIKE reads as a wildcard.
import { newId } from '../ids.ts';
import { sql } from 'kysely';
import { atomically, forUpdate, type Db } from './sql/tx.ts';
import { uniqueViolation } from './sql/errors.ts';
import { AppError } from '../http/errors.ts';
import { assertValidName, nameKey } from '../files/names.ts';
import { ROOT_DEPT_ID } from './sql/migrations/004_org.ts';
import { subtreeReservations } from './quota.ts';

export { ROOT_DEPT_ID };

export interface DeptRow {
  id: string;
  name: string;
  parentId: string | null;
  sort: number;
  /** Ids from the root down to this department, itself included. */
  chain: string[];
  /** The stored path (`/root/a/`): a subtree is every path starting with it. */
  path: string;
  quotaBytes: number | null;
  /** Bytes of this department's space and every sub-department's (charged up the chain). */
  usedBytes: number;
  createdAt: number;
}

const COLUMNS = ['id', 'name', 'parent_id', 'sort', 'path', 'quota_bytes', 'used_bytes', 'created_at'] as const;

interface Raw {
  id: string;
  name: string;
  parent_id: string | null;
  sort: number;
  path: string;
  quota_bytes: number | null;
  used_bytes: number;
  created_at: number;
}

/** A department inserted without a path (rows from before 004's repository) counts as its own top. */
export function pathOf(r: { id: string; path: string }): string {
  return r.path === '' ? `/${r.id}/` : r.path;
}

function toDept(r: Raw): DeptRow {
  const path = pathOf(r);
  return {
    id: r.id,
    name: r.name,
    parentId: r.parent_id,
    sort: r.sort,
    chain: path.split('/').filter((s) => s !== ''),
    path,
    quotaBytes: r.quota_bytes,
    usedBytes: r.used_bytes,
    createdAt: r.created_at,
  };
}

export async function getDept(db: Db, id: string): Promise<DeptRow | undefined> {
  const r = await db.selectFrom('departments').select(COLUMNS).where('id', '=', id).executeTakeFirst();
  return r ? toDept(r) : undefined;
}

/** The department or NOT_FOUND. */
export async function mustGetDept(db: Db, id: string): Promise<DeptRow> {
  const d = await getDept(db, id);
  if (!d) throw new AppError('NOT_FOUND', `no department ${id}`);
  return d;
}

export async function getDepts(db: Db, ids: readonly string[]): Promise<Map<string, DeptRow>> {
  if (ids.length === 0) return new Map();
  const rows = await db.selectFrom('departments').select(COLUMNS).where('id', 'in', [...new Set(ids)]).execute();
  return new Map(rows.map((r) => [r.id, toDept(r)]));
}

/** Every department, siblings by sort then name: the tree is small enough to shape in memory. */
export async function listDepts(db: Db): Promise<DeptRow[]> {
  const rows = await db.selectFrom('departments').select(COLUMNS).orderBy('sort').orderBy('name_key').orderBy('id').execute();
  return rows.map(toDept);
}

/** Live accounts per department. */
export async function memberCounts(db: Db): Promise<Map<string, number>> {
  const rows = await db
    .selectFrom('users')
    .select(['dept_id', (eb) => eb.fn.countAll<number>().as('n')])
    .where('deleted_at', 'is', null)
    .where('dept_id', 'is not', null)
    .groupBy('dept_id')
    .execute();
  return new Map(rows.map((r) => [r.dept_id as string, Number(r.n)]));
}

/** The ids of `d`'s subtree (itself included) among `all`. */
export function subtreeOf(all: readonly DeptRow[], d: Pick<DeptRow, 'path'>): DeptRow[] {
  return all.filter((x) => x.path.startsWith(d.path));
}

/** Names along a chain of ids. */
export function namesOf(byId: ReadonlyMap<string, DeptRow>, chain: readonly string[]): string[] {
  return chain.map((id) => byId.get(id)?.name ?? id);
}

export async function managedDeptIds(db: Db, userId: string): Promise<string[]> {
  const rows = await db.selectFrom('dept_managers').select('dept_id').where('user_id', '=', userId).execute();
  return rows.map((r) => r.dept_id);
}

export async function managersOf(db: Db, deptId: string): Promise<{ userId: string; userName: string; realName: string }[]> {
  const rows = await db
    .selectFrom('dept_managers as m')
    .innerJoin('users as u', 'u.id', 'm.user_id')
    .select(['u.id', 'u.user_name', 'u.real_name'])
    .where('m.dept_id', '=', deptId)
    .where('u.deleted_at', 'is', null)
    .orderBy('u.user_name_key')
    .execute();
  return rows.map((r) => ({ userId: r.id, userName: r.user_name, realName: r.real_name }));
}

/** Whether someone managing `managed` administers `d`: they manage it or a department above it. */
export function manages(managed: ReadonlySet<string>, d: Pick<DeptRow, 'chain'>): boolean {
  return d.chain.some((id) => managed.has(id));
}

/** Whether they manage a department strictly above `d` (changing `d` itself needs that). */
export function managesAbove(managed: ReadonlySet<string>, d: Pick<DeptRow, 'chain'>): boolean {
  return d.chain.slice(0, -1).some((id) => managed.has(id));
}

function nameExists(name: string): AppError {
  return new AppError('NAME_EXISTS', `the parent department already has a department named ${name}`, { fields: [{ field: 'name', message: 'exists' }] });
}

async function assertNameFree(db: Db, parentId: string, name: string, exceptId?: string): Promise<void> {
  let q = db.selectFrom('departments').select('id').where('parent_id', '=', parentId).where('name_key', '=', nameKey(name));
  if (exceptId) q = q.where('id', '<>', exceptId);
  if (await q.executeTakeFirst()) throw nameExists(name);
}

/**
 * Locks the rows of a chain root first (ORDER BY path: every transaction takes them in the same order, so two
 * charges into sibling departments queue on their common parent instead of deadlocking) and returns them.
 */
export async function lockChain(db: Db, chain: readonly string[]): Promise<DeptRow[]> {
  if (chain.length === 0) return [];
  const rows = await forUpdate(db, db.selectFrom('departments').select(COLUMNS).where('id', 'in', [...chain]).orderBy('path')).execute();
  const byId = new Map(rows.map((r) => [r.id, toDept(r)]));
  return chain.map((id) => byId.get(id)).filter((d): d is DeptRow => d !== undefined);
}

/**
 * The most a department's quota may be: what its parent still has free, counting the department's own use as the
 * parent's (quota - used + the department's used). Infinity when the parent is unlimited.
 */
function quotaBound(parent: DeptRow | undefined, own: number): number {
  if (!parent || parent.quotaBytes === null) return Infinity;
  return Math.max(0, parent.quotaBytes - parent.usedBytes + own);
}

/** The departments with the bytes of uploads in flight into their subtrees counted as used, as quota checks count them. */
async function withReservations(db: Db, depts: DeptRow[]): Promise<DeptRow[]> {
  const reserved = await subtreeReservations(db, depts.map((d) => d.id), Date.now());
  return depts.map((d) => ({ ...d, usedBytes: d.usedBytes + (reserved.get(d.id) ?? 0) }));
}

function assertQuota(parent: DeptRow | undefined, quota: number | null, used: number): void {
  if (quota === null) {
    if (parent && parent.quotaBytes !== null) {
      throw new AppError('SPACE_NOT_ENOUGH', 'a department under a limited department must be limited too', { fields: [{ field: 'quotaBytes', message: 'unlimited' }] });
    }
    return;
  }
  const bound = quotaBound(parent, used);
  if (quota > bound) {
    throw new AppError('SPACE_NOT_ENOUGH', `the parent department has ${bound} bytes left for this department`, { fields: [{ field: 'quotaBytes', message: String(bound) }] });
  }
  if (quota < used) {
    throw new AppError('VALIDATION_FAILED', `the department already uses ${used} bytes`, { fields: [{ field: 'quotaBytes', message: 'below used' }] });
  }
}

export interface DeptChanges {
  name?: string;
  parentId?: string;
  sort?: number;
  /** undefined: unchanged; null: unlimited. */
  quotaBytes?: number | null;
  managerIds?: string[];
}

async function setManagers(db: Db, deptId: string, userIds: readonly string[]): Promise<void> {
  const ids = [...new Set(userIds)];
  if (ids.length > 0) {
    const live = await db.selectFrom('users').select('id').where('id', 'in', ids).where('deleted_at', 'is', null).execute();
    if (live.length !== ids.length) throw new AppError('NOT_FOUND', 'a manager is not a live account', { fields: [{ field: 'managerIds', message: 'unknown' }] });
  }
  await db.deleteFrom('dept_managers').where('dept_id', '=', deptId).execute();
  if (ids.length > 0) await db.insertInto('dept_managers').values(ids.map((user_id) => ({ dept_id: deptId, user_id }))).execute();
}

/** Creates a department under `parentId` (the root when omitted). */
export async function createDept(db: Db, input: DeptChanges & { name: string }, now = Date.now()): Promise<DeptRow> {
  const name = assertValidName(input.name.normalize('NFC'), 'name');
  return atomically(db, async (trx) => {
    const parentId = input.parentId ?? ROOT_DEPT_ID;
    const parent = (await withReservations(trx, await lockChain(trx, [parentId])))[0];
    if (!parent) throw new AppError('NOT_FOUND', `no department ${parentId}`);
    await assertNameFree(trx, parent.id, name);
    const quota = input.quotaBytes === undefined ? null : input.quotaBytes;
    // A child of a limited department starts limited: unlimited there would be a way round the parent's quota.
    assertQuota(parent, quota === null && parent.quotaBytes !== null ? 0 : quota, 0);
    const id = newId();
    try {
      await trx
        .insertInto('departments')
        .values({
          id,
          name,
          name_key: nameKey(name),
          parent_id: parent.id,
          sort: input.sort ?? 0,
          path: `${parent.path}${id}/`,
          quota_bytes: quota === null && parent.quotaBytes !== null ? 0 : quota,
          created_at: now,
        })
        .execute();
    } catch (err) {
      throw uniqueViolation(err) ? nameExists(name) : err;
    }
    if (input.managerIds) await setManagers(trx, id, input.managerIds);
    return (await getDept(trx, id)) as DeptRow;
  });
}

/** Renames, moves (never under itself), re-sorts, sets the quota or the managers of a department. */
export async function updateDept(db: Db, id: string, c: DeptChanges): Promise<DeptRow> {
  return atomically(db, async (trx) => {
    const dept = await mustGetDept(trx, id);
    if (id === ROOT_DEPT_ID && c.parentId !== undefined && c.parentId !== null) throw new AppError('CONFLICT', 'the root department cannot move');
    const moving = c.parentId !== undefined && c.parentId !== dept.parentId;
    let parentId = dept.parentId;
    if (moving) {
      const target = await mustGetDept(trx, c.parentId as string);
      if (target.path.startsWith(dept.path)) throw new AppError('CONFLICT', 'a department cannot move under itself or one of its sub-departments');
      parentId = target.id;
    }
    // Old and new ancestors, locked root first, before any check reads their usage.
    const newParent = parentId ? await mustGetDept(trx, parentId) : undefined;
    const lockedRows = await lockChain(trx, [...new Set([...dept.chain, ...(newParent?.chain ?? [])])]);
    // Stored bytes move with the department; uploads in flight follow its path by themselves.
    const stored = (lockedRows.find((d) => d.id === id) as DeptRow).usedBytes;
    const locked = await withReservations(trx, lockedRows);
    const byId = new Map(locked.map((d) => [d.id, d]));
    const self = byId.get(id) as DeptRow;
    const name = c.name === undefined ? self.name : assertValidName(c.name.normalize('NFC'), 'name');
    if (parentId && (name !== self.name || moving)) await assertNameFree(trx, parentId, name, id);

    if (moving && newParent) {
      const oldAncestors = self.chain.slice(0, -1);
      const newAncestors = newParent.chain;
      const leaving = oldAncestors.filter((a) => !newAncestors.includes(a));
      const joining = newAncestors.filter((a) => !oldAncestors.includes(a));
      for (const a of joining) {
        const d = byId.get(a) as DeptRow;
        if (d.quotaBytes !== null && d.usedBytes + self.usedBytes > d.quotaBytes) {
          throw new AppError('SPACE_NOT_ENOUGH', `${d.name} has no room for the ${self.usedBytes} bytes of this department`);
        }
      }
      if (stored > 0) {
        if (leaving.length) await trx.updateTable('departments').set({ used_bytes: sql`used_bytes - ${stored}` }).where('id', 'in', leaving).execute();
        if (joining.length) await trx.updateTable('departments').set({ used_bytes: sql`used_bytes + ${stored}` }).where('id', 'in', joining).execute();
      }
      const newPath = `${newParent.path}${id}/`;
      await sql`update departments set path = ${newPath} || substr(path, ${self.path.length + 1})
        where substr(path, 1, ${self.path.length}) = ${self.path}`.execute(trx);
      await trx.updateTable('departments').set({ parent_id: newParent.id }).where('id', '=', id).execute();
    }
    if (c.quotaBytes !== undefined) {
      const parent = parentId ? byId.get(parentId) : undefined;
      assertQuota(parent, c.quotaBytes, self.usedBytes);
      // Sub-departments keep fitting: their quotas may not add past the new one's room.
      if (c.quotaBytes !== null) {
        const biggest = await trx.selectFrom('departments').select((eb) => eb.fn.max('quota_bytes').as('q')).where('parent_id', '=', id).executeTakeFirst();
        if (biggest?.q !== null && biggest?.q !== undefined && Number(biggest.q) > c.quotaBytes) {
          throw new AppError('VALIDATION_FAILED', 'a sub-department has a larger quota', { fields: [{ field: 'quotaBytes', message: 'below a sub-department' }] });
        }
      }
    }
    try {
      await trx
        .updateTable('departments')
        .set({
          name,
          name_key: nameKey(name),
          ...(c.sort !== undefined ? { sort: c.sort } : {}),
          ...(c.quotaBytes !== undefined ? { quota_bytes: c.quotaBytes } : {}),
        })
        .where('id', '=', id)
        .execute();
    } catch (err) {
      throw uniqueViolation(err) ? nameExists(name) : err;
    }
    if (c.managerIds) await setManagers(trx, id, c.managerIds);
    return mustGetDept(trx, id);
  });
}

/**
 * Deletes an empty department: no sub-departments, no files in its space (the empty library roots go with it),
 * and no accounts unless `moveMembersTo` takes them (deleted accounts of it move too, so a restore finds a home).
 */
export async function deleteDept(db: Db, id: string, moveMembersTo?: string): Promise<void> {
  if (id === ROOT_DEPT_ID) throw new AppError('CONFLICT', 'the root department cannot be deleted');
  await atomically(db, async (trx) => {
    const dept = (await lockChain(trx, [id]))[0];
    if (!dept) throw new AppError('NOT_FOUND', `no department ${id}`);
    if (await trx.selectFrom('departments').select('id').where('parent_id', '=', id).executeTakeFirst()) {
      throw new AppError('DEPT_NOT_EMPTY', 'the department has sub-departments');
    }
    const files = await trx
      .selectFrom('instances')
      .select('id')
      .where('space_kind', '=', 'dept')
      .where('space_id', '=', id)
      .where('parent_id', 'is not', null)
      .executeTakeFirst();
    if (files || dept.usedBytes > 0) throw new AppError('DEPT_NOT_EMPTY', 'the department space holds files');
    if (moveMembersTo !== undefined) {
      if (moveMembersTo === id) throw new AppError('CONFLICT', 'the members cannot move into the department being deleted');
      await mustGetDept(trx, moveMembersTo);
      await trx.updateTable('users').set({ dept_id: moveMembersTo, updated_at: Date.now() }).where('dept_id', '=', id).execute();
    } else if (await trx.selectFrom('users').select('id').where('dept_id', '=', id).executeTakeFirst()) {
      throw new AppError('DEPT_NOT_EMPTY', 'the department has accounts');
    }
    // Uploads still open into the space can never be filed there now.
    await trx.deleteFrom('upload_sessions').where('space_kind', '=', 'dept').where('space_id', '=', id).execute();
    await trx.deleteFrom('instances').where('space_kind', '=', 'dept').where('space_id', '=', id).where('parent_id', 'is', null).execute();
    await trx.deleteFrom('dept_managers').where('dept_id', '=', id).execute();
    // Grants to the department name it by id only (no foreign key): they go with it.
    await trx.deleteFrom('grants').where('subject_kind', '=', 'dept').where('subject_id', '=', id).execute();
    await trx.deleteFrom('departments').where('id', '=', id).execute();
  });
}
