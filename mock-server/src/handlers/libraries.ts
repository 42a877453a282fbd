// Business libraries, their menus, and personal capacity (contract tags "libraries" and "capacity").
import type { FastifyRequest } from 'fastify';
import type { AppContext, Handlers } from '../context.ts';
import type { SessionUser } from '../auth/types.ts';
import { AppError } from '../http/errors.ts';
import { ok } from '../http/envelope.ts';
import { listBusinessLibs, listMenus, menuTree, usableLib, type BusinessLib, type MenuNode } from '../db/libraries-repo.ts';
import { spaceUsage, freeBytes, type Space } from '../db/quota.ts';
import { SYSCONFIG } from '../db/seed.ts';
import { isGroupMember } from '../db/groups-repo.ts';
import { managedDeptIds } from '../db/departments-repo.ts';
import type { components } from '@hcs/openapi/schema';

type Schemas = components['schemas'];

/** SysConfig entries a department manager may use (their screens scope themselves to the managed subtree). */
const MANAGER_MENUS = new Set(['departmentManage']);

const UNITS = ['B', 'KB', 'MB', 'GB', 'TB', 'PB', 'EB'];

// Not transfer-core's display formatSize ("12.00MB"): these are the capacity API's wire strings, which tests and
// clients rely on, so they keep their own shape.
/** Spec 9: 1024 steps, at most 2 decimals ("12MB", "1.5GB", "0B"). */
export function formatSize(bytes: number): string {
  let value = Math.max(0, bytes);
  let i = 0;
  while (value >= 1024 && i < UNITS.length - 1) {
    value /= 1024;
    i++;
  }
  return `${Number(value.toFixed(2))}${UNITS[i]}`;
}

function signedIn(req: FastifyRequest): SessionUser {
  if (!req.user) throw new AppError('UNAUTHENTICATED', 'login.required');
  return req.user;
}

function libView(l: BusinessLib) {
  return {
    libId: l.id,
    libCode: l.libCode,
    libName: l.libName,
    libNameEn: l.libNameEn,
    webIcon: l.webIcon,
    isShow: l.isShow ? 1 : 0,
    isHome: l.isHome ? 1 : 0,
    sort: l.sort,
  } satisfies Schemas['BusinessLib'];
}

// Annotated rather than `satisfies`: the view is recursive, so its type cannot be inferred from itself.
function menuView(m: MenuNode): Schemas['MenuItem'] {
  return {
    menuId: m.id,
    menuCode: m.menuCode,
    menuName: m.menuName,
    menuStr: m.menuStr,
    menuUrl: m.menuUrl,
    menuParentId: m.parentId,
    menuIndex: m.menuIndex,
    menuShow: m.menuShow ? 1 : 0,
    menuIcon: m.menuIcon,
    libCode: m.libCode,
    children: m.children.map(menuView),
  };
}

export function librariesHandlers(ctx: AppContext): Handlers {
  const { db } = ctx;

  const visibleLib = (user: SessionUser, libCode: string): Promise<BusinessLib> => usableLib(db, libCode, user.isAdmin);

  // One accounting for every space: the same spaceUsage the upload and copy paths check and charge.
  const capInfo = async (space: Space) => {
    const u = await spaceUsage(db, space);
    const used = u.usedBytes + u.reservedBytes;
    const limited = u.quotaBytes !== null;
    return {
      isLimist: limited ? ('1' as const) : ('0' as const),
      totalSize: limited ? formatSize(u.quotaBytes as number) : '',
      usedSize: formatSize(used),
      totalBytes: u.quotaBytes,
      usedBytes: used,
    } satisfies Schemas['CapacityInfo'];
  };
  const judge = async (space: Space, fSize: number) => {
    const free = freeBytes(await spaceUsage(db, space));
    return free === Infinity ? { enough: true, freeBytes: null } : { enough: fSize <= free, freeBytes: free };
  };
  const groupSpace = async (user: SessionUser, groupId: string): Promise<Space> => {
    const member = await isGroupMember(db, groupId, user.userId);
    if (!member && !user.isAdmin) throw new AppError('FORBIDDEN', 'only members of the group can read its capacity');
    return { kind: 'group', id: groupId };
  };

  return {
    async listBusinessLibs(req) {
      const user = signedIn(req);
      const q = req.query;
      const manager = !user.isAdmin && (await managedDeptIds(db, user.userId)).length > 0;
      const libs = await listBusinessLibs(db, {
        includeAdminOnly: user.isAdmin || manager,
        ...(q.isShow !== undefined ? { isShow: q.isShow === 1 } : {}),
        ...(q.isHome !== undefined ? { isHome: q.isHome === 1 } : {}),
      });
      // A manager's way in to Department management; the other administrator-only libraries stay hidden.
      return ok(libs.filter((l) => !manager || !l.adminOnly || l.libCode === SYSCONFIG).map(libView));
    },

    async getBusinessMenu(req) {
      const user = signedIn(req);
      const q = req.query;
      const lib = await visibleLib(user, q.libCode);
      // NetDisk's menu is built by the web app (spec 2), so the server holds no rows for it and answers [].
      const tree = menuTree(await listMenus(db, [lib.libCode]));
      if (q.parentId && q.parentId !== '0') {
        const parent = tree.find((m) => m.id === q.parentId);
        return ok(parent ? parent.children.map(menuView) : []);
      }
      return ok(tree.map(menuView));
    },

    async listMenus(req) {
      const user = signedIn(req);
      const codes = (await listBusinessLibs(db, { includeAdminOnly: user.isAdmin })).map((l) => l.libCode);
      return ok(menuTree(await listMenus(db, codes)).map(menuView));
    },

    // Administrators see it all; a department manager only the entries that work for a manager, so the menu
    // never leads them to a screen that would answer FORBIDDEN.
    async listSysConfigMenus(req) {
      const user = signedIn(req);
      const tree = menuTree(await listMenus(db, [SYSCONFIG]));
      if (user.isAdmin) return ok(tree.map(menuView));
      if ((await managedDeptIds(db, user.userId)).length === 0) throw new AppError('FORBIDDEN', 'the administration menu is for administrators and department managers');
      const keep = (m: MenuNode): MenuNode | null => {
        if (MANAGER_MENUS.has(m.menuCode)) return m;
        const children = m.children.map(keep).filter((c): c is MenuNode => c !== null);
        return children.length > 0 ? { ...m, children } : null;
      };
      return ok(tree.map(keep).filter((m): m is MenuNode => m !== null).map(menuView));
    },

    async getUserCapInfo(req) {
      const user = signedIn(req);
      const p = req.params;
      if (p.userId !== user.userId && !user.isAdmin) throw new AppError('FORBIDDEN', "only administrators can read another user's capacity");
      await visibleLib(user, p.libCode);
      // Quota is per user on this server, shared by every library the user stores files in.
      return ok(await capInfo({ kind: 'user', id: p.userId }));
    },

    async getGroupCapInfo(req) {
      const user = signedIn(req);
      const p = req.params;
      if (p.deptId !== user.deptId && !user.isAdmin) throw new AppError('FORBIDDEN', "only members of the department can read its capacity");
      await visibleLib(user, p.libCode);
      return ok(await capInfo({ kind: 'dept', id: p.deptId }));
    },

    async getGroupCapInfoById(req) {
      const user = signedIn(req);
      const { groupId } = req.query;
      return ok(await capInfo(await groupSpace(user, groupId)));
    },

    async judgeGroupSize(req) {
      const user = signedIn(req);
      const body = req.body;
      if (!body.groupId) throw new AppError('VALIDATION_FAILED', 'groupId is required', { fields: [{ field: 'groupId', message: 'required' }] });
      return ok(await judge(await groupSpace(user, body.groupId), body.fSize));
    },

    async judgeUserSize(req) {
      const user = signedIn(req);
      const body = req.body;
      if (body.libCode) await visibleLib(user, body.libCode);
      return ok(await judge({ kind: 'user', id: user.userId }, body.fSize));
    },
  };
}
