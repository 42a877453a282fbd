// Roles, the authority catalogue, grants and the access explanation (contract tag "roles", issue #14). Who may call
// what is the contract's x-hcs-access, enforced before these run: administrators for role changes, `manage` on the
// item for its grants. The decision the grants feed is access-gate.ts's.
import type { AppContext, Handlers } from '../context.ts';
import { ok, done } from '../http/envelope.ts';
import { AppError } from '../http/errors.ts';
import { callerOf } from '../files/access.ts';
import { decide, permissionsFor, prepareAccess, type Actor } from '../files/access-gate.ts';
import { chainOf, getInstanceChains } from '../db/instances-repo.ts';
import { getUserById } from '../db/users-repo.ts';
import {
  addGrants, AUTHORITIES, changeGrantRole, deleteGrants, deleteRole, listGrants, listRoles, replaceGrants, saveRole,
  type GrantView, type Role, type SubjectKind,
} from '../db/roles-repo.ts';
import { PERMISSIONS } from '@hcs/openapi/operations';
import type { components } from '@hcs/openapi/schema';

type Schemas = components['schemas'];

function roleView(r: Role): Schemas['Role'] {
  return {
    roleId: r.id,
    roleCode: r.code,
    roleName: r.name,
    roleNameEn: r.nameEn,
    kind: r.kind,
    builtin: r.builtin,
    deny: r.deny,
    sort: r.sort,
    authorities: r.authorities,
    grantCount: r.grantCount,
    createTime: r.createdAt,
  };
}

function grantView(g: GrantView): Schemas['Grant'] {
  return {
    grantId: g.id,
    instanceId: g.instanceId,
    instanceName: g.instanceName,
    roleId: g.roleId,
    roleCode: g.roleCode,
    roleName: g.roleName,
    roleNameEn: g.roleNameEn,
    deny: g.deny,
    subjectKind: g.subjectKind,
    subjectId: g.subjectId,
    subjectName: g.subjectName,
    ...(g.subjectRealName !== null ? { subjectRealName: g.subjectRealName } : {}),
    createdBy: g.createdBy,
    createTime: g.createdAt,
  };
}

/** The roles offered when sharing or granting: granting at least view, neither implicit defaults nor deny roles. */
const IMPLICIT_DEFAULTS = new Set(['defaultrole', 'groupdefaultrole']);

export function orgRolesHandlers(ctx: AppContext): Handlers {
  const { db } = ctx;

  const pageGrants = async (
    user: { isAdmin: boolean }, subjectKind: SubjectKind,
    q: { instanceId?: string; roleId?: string; pageNo?: number; pageSize?: number },
  ) => {
    // With an instance the gate has checked `manage` on it; across every item, only administrators may look.
    if (q.instanceId === undefined && !user.isAdmin) throw new AppError('FORBIDDEN', 'only administrators list grants across items');
    const pageNo = q.pageNo ?? 1;
    const pageSize = q.pageSize ?? 20;
    const { grants, total } = await listGrants(
      db, { instanceIds: q.instanceId !== undefined ? [q.instanceId] : undefined, roleId: q.roleId, subjectKind },
      { limit: pageSize, offset: (pageNo - 1) * pageSize },
    );
    return ok({ list: grants.map(grantView), total, pageNo, pageSize });
  };

  return {
    async getAllRoleInfo(req) {
      return ok((await listRoles(db, { kind: req.query.kind })).roles.map(roleView));
    },

    async pageRoleInfo(req) {
      const q = req.query;
      const pageNo = q.pageNo ?? 1;
      const pageSize = q.pageSize ?? 20;
      const { roles, total } = await listRoles(db, { kind: q.kind, keyword: q.keyword?.trim() || undefined }, { limit: pageSize, offset: (pageNo - 1) * pageSize });
      return ok({ list: roles.map(roleView), total, pageNo, pageSize });
    },

    async roleInfo(req) {
      const b = req.body;
      const role = await saveRole(db, {
        id: b.roleId, code: b.roleCode, name: b.roleName, nameEn: b.roleNameEn, kind: b.kind, deny: b.deny, sort: b.sort, authorities: b.authorities,
      });
      return ok(roleView(role));
    },

    async deleteRoleInfo(req) {
      await deleteRole(db, req.body.roleId);
      return done();
    },

    async fileSharingRoleList(req) {
      if (req.query.kind === 'groupShare') return ok((await listRoles(db, { kind: 'groupShare' })).roles.map(roleView));
      const { roles } = await listRoles(db, { kind: 'file' });
      return ok(roles.filter((r) => !r.deny && !IMPLICIT_DEFAULTS.has(r.code) && r.authorities.includes('view')).map(roleView));
    },

    async getAllAuth() {
      return ok(AUTHORITIES.map((a, i) => ({ ...a, sort: i + 1 })));
    },

    async pageGroupRoleList(req) {
      return pageGrants(callerOf(req.user), 'user', req.query);
    },

    async pageGroupRoleGroupList(req) {
      return pageGrants(callerOf(req.user), 'dept', req.query);
    },

    async setGroupRoleUser(req) {
      const user = callerOf(req.user);
      const b = req.body;
      return ok((await addGrants(db, b.instanceId, b.roleId, 'user', b.userIds, user.userId)).map(grantView));
    },

    async setGroupRoleGroup(req) {
      const user = callerOf(req.user);
      const b = req.body;
      return ok((await addGrants(db, b.instanceId, b.roleId, 'dept', b.deptIds, user.userId)).map(grantView));
    },

    async delGroupRoleUser(req) {
      await deleteGrants(db, req.body.instanceId, req.body.grantIds);
      return done();
    },

    async modGroupRoleUser(req) {
      const b = req.body;
      return ok([grantView(await changeGrantRole(db, b.instanceId, b.grantId, b.roleId))]);
    },

    async setGroupAuth(req) {
      const user = callerOf(req.user);
      const b = req.body;
      return ok((await replaceGrants(db, b.instanceId, b.grants, user.userId)).map(grantView));
    },

    async explainAccess(req) {
      const user = callerOf(req.user);
      const q = req.query;
      // The gate has read the item with its ancestors and checked that the caller sees it.
      const rows = req.gateRows?.has(q.instanceId) ? req.gateRows : await getInstanceChains(db, [q.instanceId]);
      const chain = chainOf(rows, q.instanceId);
      if (!chain) throw new AppError('NOT_FOUND', 'no such file or folder');
      let who: Actor = user;
      let userName = user.userName;
      if (q.userId !== undefined && q.userId !== user.userId) {
        if (!user.isAdmin && !(await permissionsFor(db, user, chain.row)).has('manage')) {
          throw new AppError('FORBIDDEN', "only administrators and managers of the item may explain another user's access");
        }
        const other = await getUserById(db, q.userId);
        if (!other) throw new AppError('NOT_FOUND', 'no such user');
        who = { userId: other.id, deptId: other.deptId, isAdmin: other.isAdmin };
        userName = other.userName;
      }
      await prepareAccess(db, who, [...chain.ancestors, chain.row]);
      const d = decide(who, chain.row, chain.ancestors);
      const ids = d.chain.flatMap((level) => level.grants.map((g) => g.grantId));
      const named = new Map((await listGrants(db, { grantIds: ids })).grants.map((g) => [g.id, g]));
      return ok({
        userId: who.userId,
        userName,
        instanceId: chain.row.id,
        allowed: PERMISSIONS.filter((p) => d.allowed.has(p)),
        denied: d.denied,
        source: d.source,
        defaultRole: d.defaultRole,
        chain: d.chain.flatMap((level) => level.grants.map((g) => {
          const n = named.get(g.grantId);
          return {
            instanceId: level.instanceId,
            instanceName: n?.instanceName ?? rows.get(level.instanceId)?.name ?? '',
            grantId: g.grantId,
            roleCode: g.roleCode,
            roleName: n?.roleName ?? g.roleCode,
            roleNameEn: n?.roleNameEn ?? g.roleCode,
            subjectKind: g.subjectKind,
            subjectId: g.subjectId,
            subjectName: n?.subjectName ?? '',
            deny: g.deny,
            decisive: level.instanceId === d.decidedAt,
          };
        })),
      });
    },
  };
}
