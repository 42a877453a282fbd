// The organisation (issue #14): departments (sysGroup) and accounts (Users). Who may call what is the contract's
// access mark, enforced before these run: administrators, or department managers inside their subtree
// ({ manages: dept | user }). The finer rules the mark cannot say live here: changing a department itself needs a
// manager above it, and nobody but an administrator touches an administrator's account, their own, or grants
// administration.
import type { AppContext, Handlers } from '../context.ts';
import { defaultQuotaBytes } from '../config-store.ts';
import type { SessionUser } from '../auth/types.ts';
import { AppError } from '../http/errors.ts';
import { ok, done } from '../http/envelope.ts';
import { authOf } from '../auth/index.ts';
import { assertPasswordPolicy, hashPassword } from '../auth/passwords.ts';
import { revokeUserSessions } from '../db/sessions-repo.ts';
import { transaction, type Db } from '../db/sql/tx.ts';
import {
  createDept, deleteDept, listDepts, managedDeptIds, managersOf, manages, managesAbove, memberCounts, mustGetDept, namesOf,
  ROOT_DEPT_ID, subtreeOf, updateDept, type DeptRow,
} from '../db/departments-repo.ts';
import {
  createUser, getAdminUser, getLabels, isExpired, listAdminUsers, markUserDeleted, restoreUser, setLabels, setPasswordHash,
  updateUser, type AccountFilter, type AdminUser,
} from '../db/users-repo.ts';
import { purgeUser } from '../db/purge-user.ts';
import { clearDirectoryDisabled } from '../db/identity-repo.ts';
import { deptSpacesGranted } from '../files/access-gate.ts';
import type { components } from '@hcs/openapi/schema';
// Only the size grammar: the package's index would bring the transfer engine (and its DOM types) into the server.
import { parseSize } from '@hcs/transfer-core/format';
import type { ErrorCode } from '@hcs/openapi/operations';

type S = components['schemas'];

/** At most this many accounts in treeGroupAndUser (the contract's `truncated`). */
const TREE_USERS_MAX = 5000;
/** The CSV import's bounds (the contract's). */
const IMPORT_MAX_BYTES = 1024 * 1024;
const IMPORT_MAX_ROWS = 5000;

function caller(user: SessionUser | null): SessionUser {
  if (!user) throw new AppError('UNAUTHENTICATED', 'login.required');
  return user;
}

function stateOf(u: AdminUser, now = Date.now()): S['AccountState'] {
  if (u.deletedAt !== null) return 'deleted';
  if (!u.isEnabled) return 'disabled';
  return isExpired(u, now) ? 'expired' : 'active';
}

/** RFC 4180 records (quoted fields with "" escapes, CRLF or LF); a leading BOM is skipped. */
export function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let field = '';
  let quoted = false;
  let i = text.charCodeAt(0) === 0xfeff ? 1 : 0;
  const endField = () => {
    row.push(field);
    field = '';
  };
  for (; i < text.length; i++) {
    const c = text[i]!;
    if (quoted) {
      if (c === '"' && text[i + 1] === '"') {
        field += '"';
        i++;
      } else if (c === '"') quoted = false;
      else field += c;
    } else if (c === '"' && field === '') quoted = true;
    else if (c === ',') endField();
    else if (c === '\n' || c === '\r') {
      if (c === '\r' && text[i + 1] === '\n') i++;
      endField();
      rows.push(row);
      row = [];
    } else field += c;
  }
  if (field !== '' || row.length > 0) {
    endField();
    rows.push(row);
  }
  return rows.filter((r) => !(r.length === 1 && r[0] === ''));
}

/** "10G", "512M", "1.5T", "1048576" -> bytes, at most the contract's QuotaBytes bound (1 PiB); undefined otherwise. */
function quotaOf(text: string): number | undefined {
  const bytes = parseSize(text);
  return bytes !== undefined && bytes <= 1125899906842624 ? bytes : undefined;
}

export function orgUsersHandlers(ctx: AppContext): Handlers {
  const { db } = ctx;
  const auth = authOf(ctx);

  /** Every department by id, for path names. */
  const deptIndex = async () => {
    const all = await listDepts(db);
    return { all, byId: new Map(all.map((d) => [d.id, d])) };
  };

  const deptView = (d: DeptRow, byId: ReadonlyMap<string, DeptRow>, all: readonly DeptRow[], members: ReadonlyMap<string, number>): S['Dept'] => ({
    id: d.id,
    name: d.name,
    parentId: d.parentId,
    sort: d.sort,
    path: d.chain,
    pathNames: namesOf(byId, d.chain),
    childCount: all.filter((x) => x.parentId === d.id).length,
    memberCount: members.get(d.id) ?? 0,
  });

  /** Account views in one batch: departments, labels and managed departments loaded once. */
  const userViews = async (users: readonly AdminUser[]): Promise<S['UserAdmin'][]> => {
    if (users.length === 0) return [];
    const ids = users.map((u) => u.id);
    const [{ byId }, labels, managed] = await Promise.all([
      deptIndex(),
      getLabels(db, ids),
      db.selectFrom('dept_managers').select(['user_id', 'dept_id']).where('user_id', 'in', ids).execute(),
    ]);
    const now = Date.now();
    return users.map((u) => ({
      userId: u.id,
      userName: u.userName,
      realName: u.realName,
      deptId: u.deptId,
      deptPathNames: u.deptId && byId.get(u.deptId) ? namesOf(byId, byId.get(u.deptId)!.chain) : [],
      email: u.email,
      phone: u.phone,
      userIsEnabled: u.isEnabled ? 1 : 0,
      userExpiredTime: u.expiredTime,
      isAdmin: u.isAdmin,
      quotaBytes: u.quotaBytes,
      usedBytes: u.usedBytes,
      mustChangePassword: u.mustChangePassword,
      labels: labels.get(u.id) ?? [],
      state: stateOf(u, now),
      createTime: u.createdAt,
      updateTime: u.updatedAt,
      deleteTime: u.deletedAt,
      managedDeptIds: managed.filter((m) => m.user_id === u.id).map((m) => m.dept_id),
    }));
  };

  const mustGetUser = async (d: Db, id: string): Promise<AdminUser> => {
    const u = await getAdminUser(d, id);
    if (!u) throw new AppError('NOT_FOUND', `no account ${id}`);
    return u;
  };

  /** What only administrators may do to an account: touch an administrator, or (for managers) their own account. */
  const assertMayAdminister = (actor: SessionUser, target: AdminUser) => {
    if (actor.isAdmin) return;
    if (target.isAdmin) throw new AppError('FORBIDDEN', "only administrators change an administrator's account");
    if (target.id === actor.userId) throw new AppError('FORBIDDEN', 'department managers do not administer their own account');
  };

  /** The root department when a call names none: administrators only (the access mark checks named ones). */
  const orRoot = (actor: SessionUser, deptId: string | undefined): string => {
    if (deptId !== undefined) return deptId;
    if (!actor.isAdmin) throw new AppError('FORBIDDEN', 'only administrators act on the root department; name a department you manage');
    return ROOT_DEPT_ID;
  };

  /**
   * A manager who names managers hands out power over the department: only to accounts of the subtree they manage
   * (the one holding `chain`, the department or its parent), or an outsider would gain rights there. Managers already
   * appointed (by an administrator) may stay; administrators appoint anyone.
   */
  async function assertAppointable(
    actor: SessionUser, chainOf: () => Promise<readonly string[]>, managerIds: readonly string[] | undefined, current: readonly string[],
  ): Promise<void> {
    if (actor.isAdmin || !managerIds) return;
    const newcomers = [...new Set(managerIds)].filter((id) => !current.includes(id));
    if (newcomers.length === 0) return;
    const managed = new Set(await managedDeptIds(db, actor.userId));
    const roots = (await chainOf()).filter((id) => managed.has(id));
    const accounts = await db.selectFrom('users').select(['id', 'user_name', 'dept_id']).where('id', 'in', newcomers).where('deleted_at', 'is', null).execute();
    for (const a of accounts) {
      const chain = a.dept_id === null ? [] : (await mustGetDept(db, a.dept_id)).chain;
      if (!chain.some((id) => roots.includes(id))) {
        throw new AppError('FORBIDDEN', `${a.user_name} is outside the departments you manage and cannot be made a manager here`, {
          fields: [{ field: 'managerIds', message: 'outside your departments' }],
        });
      }
    }
  }

  /** Departments whose accounts a listing may show: the subtree of deptId (or just it). */
  const deptScope = async (deptId: string | undefined, includeSub: boolean): Promise<string[]> => {
    const { all, byId } = await deptIndex();
    const d = byId.get(deptId ?? ROOT_DEPT_ID);
    if (!d) throw new AppError('NOT_FOUND', `no department ${deptId}`);
    return includeSub ? subtreeOf(all, d).map((x) => x.id) : [d.id];
  };

  /** A batch over accounts: the gate's per-item refusals, then `act` on each of the rest in its own transaction. */
  const batch = async (req: { user: SessionUser | null; accessRefused: Map<string, AppError> | null }, userIds: readonly string[], act: (trx: Db, u: AdminUser, actor: SessionUser) => Promise<void>) => {
    const actor = caller(req.user);
    const doneIds: string[] = [];
    const failed: S['UserBatchResult']['failed'] = [];
    for (const id of [...new Set(userIds)]) {
      const refused = req.accessRefused?.get(id);
      if (refused) {
        failed.push({ userId: id, code: refused.code, message: refused.message });
        continue;
      }
      try {
        await transaction(db, async (trx) => {
          const u = await mustGetUser(trx, id);
          assertMayAdminister(actor, u);
          await act(trx, u, actor);
        });
        doneIds.push(id);
      } catch (err) {
        if (!(err instanceof AppError)) throw err;
        failed.push({ userId: id, code: err.code, message: err.message });
      }
    }
    return ok({ done: doneIds, failed });
  };

  const decryptPassword = (wire: string, field: string) => auth.keys.decryptPassword(wire, field);

  return {
    async getDeptTree(req) {
      caller(req.user);
      const { all, byId } = await deptIndex();
      const members = await memberCounts(db);
      const top = byId.get(req.query.id ?? ROOT_DEPT_ID);
      if (!top) throw new AppError('NOT_FOUND', `no department ${req.query.id}`);
      const node = (d: DeptRow): S['DeptTreeNode'] => ({
        id: d.id, name: d.name, parentId: d.parentId, sort: d.sort, memberCount: members.get(d.id) ?? 0,
        children: all.filter((x) => x.parentId === d.id).map(node),
      });
      return ok([node(top)]);
    },

    async listReachableDepts(req) {
      const user = caller(req.user);
      const { all, byId } = await deptIndex();
      const reach = new Map<string, S['ReachableDept']['via']>();
      if (user.isAdmin) for (const d of all) reach.set(d.id, 'admin');
      else {
        // Members of a department reach its space and those of the departments above it.
        const own = user.deptId ? byId.get(user.deptId) : undefined;
        for (const id of own?.chain ?? []) reach.set(id, 'member');
        const managed = new Set(await managedDeptIds(db, user.userId));
        for (const d of all) if (!reach.has(d.id) && manages(managed, d)) reach.set(d.id, 'manager');
        // A grant inside a department's space: its root leads the caller down to the granted item (a passage).
        for (const id of await deptSpacesGranted(db, user)) if (!reach.has(id) && byId.has(id)) reach.set(id, 'grant');
      }
      return ok(all.filter((d) => reach.has(d.id)).map((d) => ({ id: d.id, name: d.name, path: d.chain, pathNames: namesOf(byId, d.chain), via: reach.get(d.id)! })));
    },

    async countSubDepts(req) {
      caller(req.user);
      const { all, byId } = await deptIndex();
      const d = byId.get(req.query.id);
      if (!d) throw new AppError('NOT_FOUND', `no department ${req.query.id}`);
      const members = await memberCounts(db);
      const sub = subtreeOf(all, d);
      return ok({
        deptNum: all.filter((x) => x.parentId === d.id).length,
        allDeptNum: sub.length - 1,
        userNum: members.get(d.id) ?? 0,
        allUserNum: sub.reduce((n, x) => n + (members.get(x.id) ?? 0), 0),
      });
    },

    async listChildDepts(req) {
      caller(req.user);
      const { all, byId } = await deptIndex();
      const id = req.query.id ?? ROOT_DEPT_ID;
      if (!byId.has(id)) throw new AppError('NOT_FOUND', `no department ${id}`);
      const members = await memberCounts(db);
      return ok(all.filter((x) => x.parentId === id).map((d) => deptView(d, byId, all, members)));
    },

    async listSubtreeDepts(req) {
      caller(req.user);
      const { all, byId } = await deptIndex();
      const top = byId.get(req.query.id);
      if (!top) throw new AppError('NOT_FOUND', `no department ${req.query.id}`);
      const members = await memberCounts(db);
      const out: S['SubDept'][] = [];
      const walk = (d: DeptRow, depth: number) => {
        for (const c of all.filter((x) => x.parentId === d.id)) {
          if (out.length >= 10_000) return;
          out.push({ ...deptView(c, byId, all, members), depth });
          walk(c, depth + 1);
        }
      };
      walk(top, 1);
      return ok(out);
    },

    async getDeptInfo(req) {
      caller(req.user);
      const { all, byId } = await deptIndex();
      const d = byId.get(req.query.id);
      if (!d) throw new AppError('NOT_FOUND', `no department ${req.query.id}`);
      const members = await memberCounts(db);
      return ok({
        ...deptView(d, byId, all, members),
        quotaBytes: d.quotaBytes,
        usedBytes: d.usedBytes,
        allMemberCount: subtreeOf(all, d).reduce((n, x) => n + (members.get(x.id) ?? 0), 0),
        managers: await managersOf(db, d.id),
      });
    },

    async saveDept(req) {
      const user = caller(req.user);
      const b = req.body;
      let saved: DeptRow;
      if (b.id === undefined) {
        if (b.name === undefined) throw new AppError('VALIDATION_FAILED', 'a new department needs a name', { fields: [{ field: 'name', message: 'required' }] });
        const parentId = orRoot(user, b.parentId);
        await assertAppointable(user, async () => (await mustGetDept(db, parentId)).chain, b.managerIds, []);
        saved = await createDept(db, { ...b, name: b.name, parentId });
      } else {
        if (!user.isAdmin) {
          const d = await mustGetDept(db, b.id);
          const managed = new Set(await managedDeptIds(db, user.userId));
          if (!managesAbove(managed, d)) throw new AppError('FORBIDDEN', 'changing a department needs a manager of a department above it');
          await assertAppointable(user, async () => d.chain, b.managerIds, (await managersOf(db, d.id)).map((m) => m.userId));
        }
        saved = await updateDept(db, b.id, b);
      }
      const { all, byId } = await deptIndex();
      return ok(deptView(saved, byId, all, await memberCounts(db)));
    },

    async deleteDept(req) {
      const user = caller(req.user);
      const b = req.body;
      if (!user.isAdmin) {
        const d = await mustGetDept(db, b.id);
        if (!managesAbove(new Set(await managedDeptIds(db, user.userId)), d)) throw new AppError('FORBIDDEN', 'deleting a department needs a manager of a department above it');
      }
      await deleteDept(db, b.id, b.moveMembersTo);
      return done();
    },

    async getDeptTreeLevel(req) {
      caller(req.user);
      const { all, byId } = await deptIndex();
      const id = req.query.id ?? ROOT_DEPT_ID;
      if (!byId.has(id)) throw new AppError('NOT_FOUND', `no department ${id}`);
      return ok(all.filter((x) => x.parentId === id).map((d) => ({ id: d.id, name: d.name, kind: 'dept' as const, parentId: d.parentId, isLeaf: !all.some((x) => x.parentId === d.id) })));
    },

    async listDeptMembers(req) {
      caller(req.user);
      const q = req.query;
      await mustGetDept(db, q.id);
      const pageNo = q.pageNo ?? 1;
      const pageSize = q.pageSize ?? 20;
      const { list, total } = await listAdminUsers(db, { deptIds: [q.id], state: 'all', keyword: q.keyword?.trim() || undefined, pageNo: 1, pageSize: 100_000 });
      const managers = new Set((await managersOf(db, q.id)).map((m) => m.userId));
      const rows = list
        .map((u) => ({ userId: u.id, userName: u.userName, realName: u.realName, isManager: managers.has(u.id) }))
        .sort((a, b) => Number(b.isManager) - Number(a.isManager));
      return ok({ list: rows.slice((pageNo - 1) * pageSize, pageNo * pageSize), total, pageNo, pageSize });
    },

    async getUserTreeLevel(req) {
      caller(req.user);
      const { all, byId } = await deptIndex();
      const id = req.query.id ?? ROOT_DEPT_ID;
      if (!byId.has(id)) throw new AppError('NOT_FOUND', `no department ${id}`);
      const depts = all.filter((x) => x.parentId === id).map((d) => ({ id: d.id, name: d.name, kind: 'dept' as const, parentId: d.parentId, isLeaf: false }));
      const { list } = await listAdminUsers(db, { deptIds: [id], state: 'active', pageNo: 1, pageSize: TREE_USERS_MAX });
      const users = list.map((u) => ({ id: u.id, name: u.realName, kind: 'user' as const, parentId: id, isLeaf: true, userName: u.userName }));
      return ok([...depts, ...users]);
    },

    async listDeptUsers(req) {
      const q = req.query;
      const pageNo = q.pageNo ?? 1;
      const pageSize = q.pageSize ?? 20;
      const deptIds = await deptScope(orRoot(caller(req.user), q.deptId), (q.includeSub ?? 1) === 1);
      const { list, total } = await listAdminUsers(db, { deptIds, state: (q.state ?? 'all') as AccountFilter, label: q.label, keyword: q.keyword?.trim() || undefined, pageNo, pageSize });
      return ok({ list: await userViews(list), total, pageNo, pageSize });
    },

    async listDeletedUsers(req) {
      const q = req.query;
      const pageNo = q.pageNo ?? 1;
      const pageSize = q.pageSize ?? 20;
      const deptIds = await deptScope(orRoot(caller(req.user), q.deptId), true);
      const { list, total } = await listAdminUsers(db, { deptIds, state: 'deleted', keyword: q.keyword?.trim() || undefined, pageNo, pageSize });
      return ok({ list: await userViews(list), total, pageNo, pageSize });
    },

    async getUserLabels(req) {
      caller(req.user);
      await mustGetUser(db, req.query.userId);
      return ok((await getLabels(db, [req.query.userId])).get(req.query.userId) ?? []);
    },

    async setUserLabels(req) {
      const actor = caller(req.user);
      const b = req.body;
      return ok(
        await transaction(db, async (trx) => {
          assertMayAdminister(actor, await mustGetUser(trx, b.userId));
          return setLabels(trx, b.userId, b.labels);
        }),
      );
    },

    async pickDeptUsers(req) {
      caller(req.user);
      const q = req.query;
      const deptIds = q.deptId ? await deptScope(q.deptId, true) : null;
      const { list } = await listAdminUsers(db, { deptIds, state: 'active', keyword: q.keyword?.trim() || undefined, pageNo: 1, pageSize: q.limit ?? 50 });
      return ok(list.map((u) => ({ userId: u.id, userName: u.userName, realName: u.realName, deptId: u.deptId })));
    },

    async getUserInfo(req) {
      caller(req.user);
      const [view] = await userViews([await mustGetUser(db, req.query.userId)]);
      return ok(view!);
    },

    async saveUser(req) {
      const actor = caller(req.user);
      const b = req.body;
      if (b.isAdmin !== undefined && !actor.isAdmin) throw new AppError('FORBIDDEN', 'only administrators grant or take administration');
      if (b.deptId !== undefined) await mustGetDept(db, b.deptId);
      let id = b.userId;
      if (id === undefined) {
        if (!b.userName || !b.password) {
          throw new AppError('VALIDATION_FAILED', 'a new account needs a user name and a password', {
            fields: [...(b.userName ? [] : [{ field: 'userName', message: 'required' }]), ...(b.password ? [] : [{ field: 'password', message: 'required' }])],
          });
        }
        // Read before the transaction: on SQLite the transaction holds the one connection the settings are read on.
        const defaultQuota = await defaultQuotaBytes(ctx);
        const created = await transaction(db, async (trx) => {
          const u = await createUser(trx, {
            userName: b.userName!, password: decryptPassword(b.password!, 'password'), realName: b.realName, deptId: orRoot(actor, b.deptId),
            isAdmin: b.isAdmin, isEnabled: b.userIsEnabled === undefined ? true : b.userIsEnabled === 1, expiredTime: b.userExpiredTime,
            quotaBytes: b.quotaBytes === undefined ? defaultQuota : b.quotaBytes,
            mustChangePassword: b.mustChangePassword, email: b.email, phone: b.phone,
          });
          if (b.labels) await setLabels(trx, u.id, b.labels);
          return u;
        });
        id = created.id;
      } else {
        const userId = id;
        if (b.userName !== undefined) throw new AppError('VALIDATION_FAILED', 'a user name cannot change', { fields: [{ field: 'userName', message: 'immutable' }] });
        await transaction(db, async (trx) => {
          const u = await mustGetUser(trx, userId);
          if (u.deletedAt !== null) throw new AppError('CONFLICT', 'restore the account before editing it');
          assertMayAdminister(actor, u);
          if (actor.isAdmin && u.id === actor.userId && (b.isAdmin === false || b.userIsEnabled === 0)) {
            throw new AppError('FORBIDDEN', 'administrators cannot disable themselves or take their own administration');
          }
          await updateUser(trx, userId, {
            realName: b.realName, deptId: b.deptId, email: b.email, phone: b.phone, expiredTime: b.userExpiredTime, quotaBytes: b.quotaBytes,
            isEnabled: b.userIsEnabled === undefined ? undefined : b.userIsEnabled === 1, isAdmin: b.isAdmin,
          });
          if (b.labels) await setLabels(trx, userId, b.labels);
          if (b.password !== undefined) {
            const plain = decryptPassword(b.password, 'password');
            assertPasswordPolicy(plain, u.userName);
            await setPasswordHash(trx, userId, await hashPassword(plain), b.mustChangePassword ?? true);
            await revokeUserSessions(trx, userId);
          }
        });
      }
      const [view] = await userViews([await mustGetUser(db, id)]);
      return ok(view!);
    },

    async deleteUsers(req) {
      return batch(req, req.body.userIds, async (trx, u) => {
        if (!(await markUserDeleted(trx, u.id))) throw new AppError('NOT_FOUND', 'the account is already deleted');
        await revokeUserSessions(trx, u.id);
      });
    },

    async restoreUsers(req) {
      return batch(req, req.body.userIds, async (trx, u) => {
        if (!(await restoreUser(trx, u.id))) throw new AppError('NOT_FOUND', 'the account is not deleted');
      });
    },

    async purgeUser(req) {
      const actor = caller(req.user);
      const b = req.body;
      return ok(await purgeUser(db, b.userId, b.handOverTo, actor.userId));
    },

    async setUsersEnabled(req) {
      const { userIds, enabled } = req.body;
      return batch(req, userIds, async (trx, u, actor) => {
        if (u.deletedAt !== null) throw new AppError('NOT_FOUND', 'the account is deleted');
        if (u.id === actor.userId && !enabled) throw new AppError('FORBIDDEN', 'you cannot disable yourself');
        await updateUser(trx, u.id, { isEnabled: enabled });
        // An administrator's decision replaces directory sync's: an account frozen here stays frozen when its
        // directory entry comes back (sync enables again only accounts it disabled itself).
        await clearDirectoryDisabled(trx, u.id);
        if (!enabled) await revokeUserSessions(trx, u.id);
      });
    },

    async resetUserPassword(req) {
      const actor = caller(req.user);
      const b = req.body;
      const plain = decryptPassword(b.password, 'password');
      await transaction(db, async (trx) => {
        const u = await mustGetUser(trx, b.userId);
        if (u.deletedAt !== null) throw new AppError('NOT_FOUND', 'the account is deleted');
        assertMayAdminister(actor, u);
        assertPasswordPolicy(plain, u.userName);
        await setPasswordHash(trx, u.id, await hashPassword(plain), true);
        await revokeUserSessions(trx, u.id);
      });
      return done();
    },

    async setUsersQuota(req) {
      const { userIds, quotaBytes } = req.body;
      return batch(req, userIds, async (trx, u) => {
        if (u.deletedAt !== null) throw new AppError('NOT_FOUND', 'the account is deleted');
        await updateUser(trx, u.id, { quotaBytes });
      });
    },

    async moveUsers(req) {
      const { userIds, deptId } = req.body;
      await mustGetDept(db, deptId);
      return batch(req, userIds, async (trx, u) => {
        await updateUser(trx, u.id, { deptId });
      });
    },

    async getDeptUserTree(req) {
      caller(req.user);
      const { all, byId } = await deptIndex();
      const { list, total } = await listAdminUsers(db, { deptIds: null, state: 'active', keyword: req.query.keyword?.trim() || undefined, pageNo: 1, pageSize: TREE_USERS_MAX });
      const byDept = new Map<string, S['UserPick'][]>();
      for (const u of list) {
        const d = u.deptId && byId.has(u.deptId) ? u.deptId : ROOT_DEPT_ID;
        if (!byDept.has(d)) byDept.set(d, []);
        byDept.get(d)!.push({ userId: u.id, userName: u.userName, realName: u.realName, deptId: u.deptId });
      }
      const node = (d: DeptRow): S['DeptUserTreeNode'] => ({
        id: d.id, name: d.name, parentId: d.parentId, users: byDept.get(d.id) ?? [], children: all.filter((x) => x.parentId === d.id).map(node),
      });
      const root = byId.get(ROOT_DEPT_ID);
      return ok({ tree: root ? [node(root)] : [], truncated: total > list.length });
    },

    async importUsers(req) {
      const actor = caller(req.user);
      const raw = req.body;
      if (typeof raw !== 'string') throw new AppError('BAD_REQUEST', 'send the CSV file as text/csv');
      if (Buffer.byteLength(raw) > IMPORT_MAX_BYTES) throw new AppError('PAYLOAD_TOO_LARGE', `at most ${IMPORT_MAX_BYTES} bytes of CSV`);
      const records = parseCsv(raw);
      const header = (records.shift() ?? []).map((h) => h.trim());
      const col = (name: string) => header.findIndex((h) => h.toLowerCase() === name.toLowerCase());
      if (col('userName') < 0) {
        throw new AppError('VALIDATION_FAILED', 'the first line must name the columns, userName among them', { fields: [{ field: 'userName', message: 'missing column' }] });
      }
      if (records.length > IMPORT_MAX_ROWS) throw new AppError('PAYLOAD_TOO_LARGE', `at most ${IMPORT_MAX_ROWS} rows per file`);
      const { all, byId } = await deptIndex();
      const managed = new Set(actor.isAdmin ? [] : await managedDeptIds(db, actor.userId));
      const defaultDept = req.query.deptId ?? ROOT_DEPT_ID;
      /** A department id, or a path of names from below the root ("R&D/Backend"). */
      const findDept = (text: string): DeptRow | undefined => {
        if (byId.has(text)) return byId.get(text);
        let cur = byId.get(ROOT_DEPT_ID);
        for (const part of text.split('/').map((p) => p.trim()).filter((p) => p !== '')) {
          cur = all.find((d) => d.parentId === cur?.id && d.name.toLowerCase() === part.toLowerCase());
          if (!cur) return undefined;
        }
        return cur;
      };
      const rows: S['ImportRow'][] = [];
      for (const [i, rec] of records.entries()) {
        const get = (name: string) => {
          const c = col(name);
          return c >= 0 ? (rec[c] ?? '').trim() : '';
        };
        const line = i + 2;
        const userName = get('userName');
        const fail = (code: ErrorCode, message: string) => rows.push({ row: line, userName, status: 'failed', code, message });
        try {
          if (!userName) throw new AppError('VALIDATION_FAILED', 'userName is empty');
          const password = rec[col('password')] ?? '';
          if (col('password') < 0 || password === '') throw new AppError('VALIDATION_FAILED', 'password is empty');
          const deptText = get('dept');
          const dept = deptText ? findDept(deptText) : byId.get(defaultDept);
          if (!dept) throw new AppError('NOT_FOUND', `no department ${deptText || defaultDept}`);
          if (!actor.isAdmin && !manages(managed, dept)) throw new AppError('FORBIDDEN', 'that department is outside the departments you manage');
          const quotaText = get('quota');
          const quota = quotaText ? quotaOf(quotaText) : undefined;
          if (quotaText && quota === undefined) throw new AppError('VALIDATION_FAILED', `quota ${quotaText} is not a size`);
          const expiresText = get('expires');
          let expiredTime: number | undefined;
          if (expiresText) {
            const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(expiresText);
            const t = m ? Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3]), 23, 59, 59, 999) : NaN;
            if (!m || Number.isNaN(t) || new Date(t).getUTCDate() !== Number(m[3])) throw new AppError('VALIDATION_FAILED', `expires ${expiresText} is not a date (YYYY-MM-DD)`);
            expiredTime = t;
          }
          const labels = get('labels').split(';').map((l) => l.trim()).filter((l) => l !== '');
          if (labels.some((l) => l.length > 64 || /[\u0000-\u001f,]/.test(l))) throw new AppError('VALIDATION_FAILED', 'a label is too long or holds a comma');
          const defaultQuota = await defaultQuotaBytes(ctx);
          const created = await transaction(db, async (trx) => {
            const u = await createUser(trx, {
              userName, password, realName: get('realName') || undefined, deptId: dept.id,
              quotaBytes: quota === undefined ? defaultQuota : quota, expiredTime, mustChangePassword: true,
              email: get('email').slice(0, 254), phone: get('phone').slice(0, 32),
            });
            if (labels.length) await setLabels(trx, u.id, labels);
            return u;
          });
          rows.push({ row: line, userName, status: 'created', userId: created.id });
        } catch (err) {
          if (!(err instanceof AppError)) throw err;
          fail(err.code, err.message);
        }
      }
      const created = rows.filter((r) => r.status === 'created').length;
      return ok({ created, failed: rows.length - created, rows });
    },
  };
}

