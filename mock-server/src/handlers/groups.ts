// Groups (contract tag "groups", issue #15). The calls are marked signed-in: what a caller may do to a group is
// their group role, checked here (`roleIn`): a group they are not a member of answers NOT_FOUND as if it did not
// exist, unless they are a system administrator (who manages every group). What members may do on the group's
// files is the access gate's decision (group role -> authorities), not this module's.
import type { AppContext, Handlers } from '../context.ts';
import { done, ok } from '../http/envelope.ts';
import { AppError } from '../http/errors.ts';
import { callerOf, listFolderFor, marksOf } from '../files/access.ts';
import { permissionsFor, permissionsOfChildren } from '../files/access-gate.ts';
import { instanceView, viewOf } from '../files/wire.ts';
import { personalise } from './labels.ts';
import { transaction } from '../db/sql/tx.ts';
import { deleteToRecycle, getInstanceRows, getOrCreateRoot } from '../db/instances-repo.ts';
import { usableLib } from '../db/libraries-repo.ts';
import { moveToSecondLevel } from '../db/recycle-repo.ts';
import { endSession } from '../db/uploads-repo.ts';
import {
  addMembers, addSecondLevel, createGroup, decideHandover, dropFolderlessSecond, dropSpaceGrants, getGroup, getHandover,
  handoversOf, listGroups, listMembers, markDissolved, memberCounts, memberOf, openUploadsIn, promote, removeMembers, searchCandidates, setRole, subDepartments,
  submitHandover, topLevelItems, updateGroup, type GroupRow, type HandoverRow, type MemberRow,
} from '../db/groups-repo.ts';
import type { SessionUser } from '../auth/types.ts';
import type { components } from '@hcs/openapi/schema';

type Schemas = components['schemas'];

const GiB = 1024 ** 3;
/** Capacity policy for groups made by anyone but system administrators (see the contract's GroupCapacity). */
const DEFAULT_BYTES = 10 * GiB;
const MAX_BYTES = 100 * GiB;

/** What each group role may do to the group itself (its files are the access gate's). */
type GroupAction = 'read' | 'settings' | 'capacity' | 'members' | 'roles' | 'handover' | 'dissolve';
const ROLE_ACTIONS: Readonly<Record<string, readonly GroupAction[]>> = {
  group_administrator: ['read', 'settings', 'capacity', 'members', 'roles', 'handover', 'dissolve'],
  group_leader: ['read', 'settings', 'members'],
};

function groupView(g: GroupRow): Schemas['Group'] {
  return {
    groupId: g.id, groupName: g.name, description: g.description, capacity: g.quotaBytes, usedSize: g.usedBytes, ownerId: g.ownerId,
    ownerName: g.ownerName, memberCount: g.memberCount, createTime: g.createdAt, rootId: g.rootId, instanceType: '2',
    myRole: g.myRole, myLevel: g.myLevel,
  };
}

function memberView(m: MemberRow): Schemas['GroupMember'] {
  return {
    userId: m.userId, userName: m.userName, userRealName: m.userRealName, deptName: m.deptName, deptIsRoot: m.deptIsRoot, roleCode: m.roleCode as Schemas['GroupRoleCode'],
    level: m.level, folders: m.folders, joinTime: m.joinedAt,
  };
}

function handoverView(h: HandoverRow): Schemas['Handover'] {
  return {
    handoverId: h.id, groupId: h.groupId, groupName: h.groupName, fromUserId: h.fromUserId, fromUserName: h.fromUserName, toUserId: h.toUserId,
    toUserName: h.toUserName, status: h.status, createTime: h.createdAt, decideTime: h.decidedAt,
  };
}

const page = (pageNo: number | undefined, pageSize: number | undefined) => {
  const size = pageSize ?? 20;
  return { limit: size, offset: ((pageNo ?? 1) - 1) * size, pageNo: pageNo ?? 1, pageSize: size };
};

function validation(field: string, message: string): AppError {
  return new AppError('VALIDATION_FAILED', `${field}: ${message}`, { fields: [{ field, message }] });
}

/** A group name as the contract allows it (plain text, not blank, no path characters). */
function groupName(name: string): string {
  if (name.trim() === '' || name !== name.trim()) throw validation('groupName', 'blank or surrounded by whitespace');
  if (/[\\[\]/:*?"<>|\p{Cc}]/u.test(name)) throw validation('groupName', 'forbidden character');
  return name;
}

function capacityFor(user: SessionUser, capacity: number | undefined): number | undefined {
  if (capacity !== undefined && !user.isAdmin && capacity > MAX_BYTES) throw validation('capacity', `at most ${MAX_BYTES} bytes`);
  return capacity;
}

export function groupsHandlers(ctx: AppContext): Handlers {
  const { db } = ctx;

  /** The live group as the caller sees it, when they may take `action` on it; NOT_FOUND when they cannot see it. */
  async function roleIn(user: SessionUser, groupId: string, action: GroupAction): Promise<GroupRow> {
    const g = await getGroup(db, groupId, user.userId);
    if (!g || (g.myRole === null && !user.isAdmin)) throw new AppError('NOT_FOUND', 'no such group');
    if (user.isAdmin || action === 'read') return g;
    // A second-level member reads the group's members like anyone in it, and administers nothing.
    const allowed = g.myLevel === 1 ? ROLE_ACTIONS[g.myRole!] ?? ['read'] : ['read'];
    if (!allowed.includes(action)) throw new AppError('FORBIDDEN', `your group role may not change the group's ${action}`);
    return g;
  }

  const fresh = async (user: SessionUser, id: string) => groupView((await getGroup(db, id, user.userId))!);

  /** Leaders may add and remove members but neither touch administrators nor make one. */
  const assertRoleGrantable = (user: SessionUser, g: GroupRow, roleCode: string | undefined) => {
    if (roleCode === 'group_administrator' && !user.isAdmin && g.myRole !== 'group_administrator') {
      throw new AppError('FORBIDDEN', 'only administrators of the group make administrators');
    }
  };

  return {
    async searchGroup(req) {
      const user = callerOf(req.user);
      const q = req.query;
      const p = page(q.pageNo, q.pageSize);
      const { rows, total } = await listGroups(db, user.userId, { keyword: q.keyword?.trim() || undefined, all: q.all === true && user.isAdmin, groupId: q.groupId }, p);
      return ok({ list: rows.map(groupView), total, pageNo: p.pageNo, pageSize: p.pageSize });
    },

    async newGroup(req) {
      const user = callerOf(req.user);
      const b = req.body;
      const quota = capacityFor(user, b.capacity) ?? (user.isAdmin ? null : DEFAULT_BYTES);
      const id = await createGroup(db, { name: groupName(b.groupName), description: b.description ?? '', quotaBytes: quota, ownerId: user.userId });
      return ok(await fresh(user, id));
    },

    async updateGroup(req) {
      const user = callerOf(req.user);
      const b = req.body;
      const g = await roleIn(user, b.groupId, b.capacity !== undefined || b.unlimited ? 'capacity' : 'settings');
      if (b.unlimited && !user.isAdmin) throw new AppError('FORBIDDEN', 'only system administrators remove a group\'s capacity limit');
      await updateGroup(db, g.id, {
        name: b.groupName === undefined ? undefined : groupName(b.groupName),
        description: b.description,
        quotaBytes: b.unlimited ? null : capacityFor(user, b.capacity),
      });
      return ok(await fresh(user, g.id));
    },

    async pageGroupFile(req) {
      const user = callerOf(req.user);
      const q = req.query;
      const g = await roleIn(user, q.groupId, 'read');
      const { folder, ancestors, page: listed } = await listFolderFor(db, user, g.rootId, undefined, undefined, {
        sortField: q.sortField ?? 'instanceName', sortOrder: q.sortOrder ?? 'asc', keyword: q.keyword?.trim() || undefined,
        pageNo: q.pageNo ?? 1, pageSize: q.pageSize ?? 20, marksOf: marksOf(user),
      });
      const allowed = await permissionsOfChildren(db, user, folder, ancestors, listed.rows);
      return ok({
        list: await personalise(db, user, listed.rows.map((r, i) => instanceView(r, [], allowed[i])), listed.marks),
        total: listed.total, pageNo: q.pageNo ?? 1, pageSize: q.pageSize ?? 20, nextCursor: listed.nextCursor, parentId: folder.id,
        breadcrumbs: [{ instanceId: folder.id, instanceName: folder.name }],
      });
    },

    async addOrUpdateGroupInstance(req) {
      const user = callerOf(req.user);
      const g = await roleIn(user, req.body.groupId, 'read');
      const lib = await usableLib(db, req.body.libCode || 'NetDisk', user.isAdmin);
      const root = await getOrCreateRoot(db, { kind: 'group', id: g.id }, lib.libCode, user.userId);
      return ok(await viewOf(db, root, await permissionsFor(db, user, root)));
    },

    async submitGroupHandover(req) {
      const user = callerOf(req.user);
      const b = req.body;
      const g = await roleIn(user, b.groupId, 'handover');
      const to = await memberOf(db, g.id, b.toUserId);
      if (!to || to.level !== 1 || b.toUserId === user.userId) throw validation('toUserId', 'must be another full member of the group');
      const id = await submitHandover(db, g.id, user.userId, b.toUserId);
      return ok(handoverView((await getHandover(db, id))!));
    },

    async precessGroupHandover(req) {
      const user = callerOf(req.user);
      const b = req.body;
      const h = await getHandover(db, b.handoverId);
      const g = h && (await getGroup(db, h.groupId, user.userId));
      // Only the people involved and the group's members see a handover at all.
      if (!h || !g || (g.myRole === null && !user.isAdmin && h.toUserId !== user.userId)) throw new AppError('NOT_FOUND', 'no such handover');
      if (b.action === 'cancel') {
        if (h.fromUserId !== user.userId) await roleIn(user, h.groupId, 'handover');
        await decideHandover(db, h, 'cancelled');
      } else {
        if (h.toUserId !== user.userId) throw new AppError('FORBIDDEN', 'only the receiver accepts or declines a handover');
        await decideHandover(db, h, b.action === 'accept' ? 'accepted' : 'declined');
      }
      return ok(handoverView((await getHandover(db, h.id))!));
    },

    async getHandoverInfo(req) {
      const user = callerOf(req.user);
      const groupId = req.query.groupId;
      if (groupId === undefined) return ok((await handoversOf(db, { pendingFor: user.userId })).map(handoverView));
      const g = await roleIn(user, groupId, 'read');
      return ok((await handoversOf(db, { groupId: g.id })).map(handoverView));
    },

    async dissolveGroup(req) {
      const user = callerOf(req.user);
      const g = await roleIn(user, req.body.groupId, 'dissolve');
      const recycled = await transaction(db, async (trx) => {
        await markDissolved(trx, g.id);
        const tops = await topLevelItems(trx, g.id);
        // Deleted by the dissolver, then at once in the administrators' second-level bin: the group's bytes are
        // released and nobody but administrators can bring them back.
        for (const id of tops) await moveToSecondLevel(trx, (await deleteToRecycle(trx, id, user.userId)).recycleId);
        // An upload in flight into the group ends here: it can no longer be signed or saved, and the janitor removes
        // whatever it stored once its signed requests have expired.
        for (const id of await openUploadsIn(trx, g.id)) await endSession(trx, id, { filed: false, stored: true });
        return tops.length;
      });
      return ok({ groupId: g.id, recycled });
    },

    async addUserForLarge(req) {
      const user = callerOf(req.user);
      const b = req.body;
      const g = await roleIn(user, b.groupId, 'members');
      assertRoleGrantable(user, g, b.roleCode);
      const wanted = (b.userIds?.length ?? 0) + (b.deptIds?.length ?? 0);
      if (wanted === 0) throw validation('userIds', 'name users or departments');
      const before = (b.userIds ?? []).length;
      const added = await addMembers(db, g.id, b.userIds ?? [], b.deptIds ?? [], b.roleCode ?? 'groupdefaultrole');
      return ok({ added, skipped: Math.max(0, before - added) });
    },

    async quitGroup(req) {
      const user = callerOf(req.user);
      const g = await roleIn(user, req.body.groupId, 'read');
      if (g.myRole === null) throw new AppError('NOT_FOUND', 'you are not a member of the group');
      await removeMembers(db, g.id, [user.userId]);
      return done();
    },

    async searchAll(req) {
      const user = callerOf(req.user);
      const g = await roleIn(user, req.query.groupId, 'read');
      return ok(await searchCandidates(db, g.id, req.query.keyword, req.query.limit ?? 20));
    },

    async getUserCount(req) {
      const user = callerOf(req.user);
      const g = await roleIn(user, req.query.groupId, 'read');
      return ok(await memberCounts(db, g.id));
    },

    async getSecondGroupUser(req) {
      const user = callerOf(req.user);
      const g = await roleIn(user, req.query.groupId, 'read');
      const p = page(req.query.pageNo, req.query.pageSize);
      const { rows, total } = await listMembers(db, g.id, { level: 2 }, p);
      return ok({ list: rows.map(memberView), total, pageNo: p.pageNo, pageSize: p.pageSize });
    },

    async getSubDepartment(req) {
      callerOf(req.user);
      return ok(await subDepartments(db, req.query.deptId || null));
    },

    async addSecondGroupUser(req) {
      const user = callerOf(req.user);
      const b = req.body;
      const g = await roleIn(user, b.groupId, 'members');
      if (b.roleCode === 'group_administrator') throw validation('roleCode', 'second-level members administer nothing');
      const folders = await getInstanceRows(db, b.instanceIds);
      const ok_ = folders.length === b.instanceIds.length && folders.every((f) => f.spaceKind === 'group' && f.spaceId === g.id && f.isFolder && f.parentId !== null && f.deletedAt === null);
      if (!ok_) throw validation('instanceIds', 'must be live folders of this group (not its root)');
      await addSecondLevel(db, g.id, b.userIds, folders, b.roleCode ?? 'groupdefaultrole', user.userId);
      return done();
    },

    async modGroupUser(req) {
      const user = callerOf(req.user);
      const b = req.body;
      const g = await roleIn(user, b.groupId, 'roles');
      const m = await memberOf(db, g.id, b.userId);
      if (!m) throw new AppError('NOT_FOUND', 'not a member of the group');
      // A second-level member's role is the one granted on their folders: changed with those (addSecondGroupUser).
      if (m.level === 2) throw new AppError('CONFLICT', 'a second-level member: make them a full member first (updateGroupUserInfo)');
      await setRole(db, g.id, b.userId, b.roleCode);
      return done();
    },

    async deleteSecondAuth(req) {
      const user = callerOf(req.user);
      const b = req.body;
      const g = await roleIn(user, b.groupId, 'members');
      const m = await memberOf(db, g.id, b.userId);
      if (!m || m.level !== 2) throw new AppError('NOT_FOUND', 'not a second-level member of the group');
      await transaction(db, async (trx) => {
        await dropSpaceGrants(trx, g.id, [b.userId], b.instanceIds);
        await dropFolderlessSecond(trx, g.id, [b.userId]);
      });
      return done();
    },

    async deleteGroupUser(req) {
      const user = callerOf(req.user);
      const b = req.body;
      const g = await roleIn(user, b.groupId, 'members');
      if (!user.isAdmin && g.myRole !== 'group_administrator') {
        for (const id of b.userIds) {
          if ((await memberOf(db, g.id, id))?.roleCode === 'group_administrator') throw new AppError('FORBIDDEN', 'only administrators of the group remove administrators');
        }
      }
      await removeMembers(db, g.id, b.userIds);
      return done();
    },

    async updateGroupUserInfo(req) {
      const user = callerOf(req.user);
      const b = req.body;
      const g = await roleIn(user, b.groupId, 'members');
      assertRoleGrantable(user, g, b.roleCode);
      const m = await memberOf(db, g.id, b.userId);
      if (!m || m.level !== 2) throw new AppError('NOT_FOUND', 'not a second-level member of the group');
      await promote(db, g.id, b.userId, b.roleCode);
      return done();
    },

    async searchGroupUser(req) {
      const user = callerOf(req.user);
      const q = req.query;
      const g = await roleIn(user, q.groupId, 'read');
      const p = page(q.pageNo, q.pageSize);
      const { rows, total } = await listMembers(db, g.id, { keyword: q.keyword?.trim() || undefined, level: q.level }, p);
      return ok({ list: rows.map(memberView), total, pageNo: p.pageNo, pageSize: p.pageSize });
    },
  };
}
