// Who may touch an instance: visibility is holding `view` in the access decision (access-gate.ts decide), so a
// space's owner, granted users and departments, department members (defaultrole) and group members see it. A
// refusal reads as NOT_FOUND so ids of other people's files reveal nothing.
import type { Db } from '../db/sql/tx.ts';
import type { SessionUser } from '../auth/types.ts';
import { AppError } from '../http/errors.ts';
import { chainOf, getChainsWithPage, getInstanceChains, getInstanceRow, getOrCreateRoot, getWithAncestors, listChildren, type InstanceRow, type ListQuery, type ListResult, type PrefetchedPage } from '../db/instances-repo.ts';
import type { FastifyRequest } from 'fastify';
import type { operations } from '@hcs/openapi/schema';
import { usableLib } from '../db/libraries-repo.ts';
import type { Space } from '../db/quota.ts';
import { getDept } from '../db/departments-repo.ts';
import { LIB_SPACE } from '../db/business-libs-repo.ts';
import { isPassage, listingScope, ownsSpace, permissionsFor, permissionsOn, prepareAccess, type Actor, type ChainReader } from './access-gate.ts';

export type Mode = 'read' | 'write';

/** The caller as access checks know them; without isAdmin, not an administrator. */
export type Caller = Actor;

/**
 * Whether the caller may see the row (holds `view`). The mode is not consulted: what a caller may do beyond seeing
 * is the operation's permission mark, enforced by the gate before the handler runs.
 */
export async function canAccess(db: Db, user: Caller, row: InstanceRow, _mode: Mode): Promise<boolean> {
  return (await permissionsFor(db, user, row)).has('view');
}

/** canAccess for a row whose ancestors (root first) are at hand. */
async function visibleOnChain(db: Db, user: Caller, row: InstanceRow, ancestors: readonly InstanceRow[]): Promise<boolean> {
  if (ownsSpace(user, row)) return true;
  await prepareAccess(db, user, [...ancestors, row]);
  return permissionsOn(user, row, ancestors).has('view');
}

function notFound(): AppError {
  return new AppError('NOT_FOUND', 'no such file or folder');
}

/**
 * A live instance the caller may access in `mode`, or NOT_FOUND. `known`: rows this request has already read (the
 * access gate's, req.gateRows), so the row is not read a second time; the decision is taken here all the same.
 */
export async function accessible(db: Db, user: Caller, id: string, mode: Mode, known?: ReadonlyMap<string, InstanceRow> | null): Promise<InstanceRow> {
  const row = known?.get(id) ?? (await getInstanceRow(db, id));
  if (!row || row.deletedAt !== null || !(await canAccess(db, user, row, mode))) throw notFound();
  return row;
}

/**
 * The space an instanceType names for the caller when no folder is given: for department files (3), the department
 * `deptId` names, else the caller's own.
 */
export function defaultSpace(user: Caller, instanceType: string | undefined, deptId?: string): Space {
  if (instanceType === '3') {
    if (deptId) return { kind: 'dept', id: deptId };
    if (!user.deptId) throw new AppError('FORBIDDEN', 'you belong to no department');
    return { kind: 'dept', id: user.deptId };
  }
  if (instanceType === '2') throw new AppError('BAD_REQUEST', 'group files need the parentId of the group folder');
  return { kind: 'user', id: user.userId };
}

/**
 * The folder a request names (parentId), or the library root of the caller's space; must be a folder. Roots are
 * created on first use, so the library code (caller-supplied) must name a library the caller may use.
 */
export async function resolveFolder(
  db: Db, user: Caller & Pick<SessionUser, 'isAdmin'>, parentId: string | undefined, libCode: string | undefined, instanceType: string | undefined, mode: Mode,
  deptId?: string,
): Promise<InstanceRow> {
  if (parentId === undefined || parentId === '' || parentId === '0') {
    const { root, checked, custom } = await spaceRoot(db, user, libCode, instanceType, deptId);
    if (!checked && !(await canAccess(db, user, root, mode))) throw notFound();
    // The gate checks a folder the request names; a business library's root, named by its code alone, is shared by
    // everyone, so writing into it is checked here against the grants (an observer there uploads nothing).
    if (custom && mode === 'write') {
      const allowed = await permissionsFor(db, user, root);
      if (!allowed.has('upload') && !allowed.has('create')) throw new AppError('FORBIDDEN', 'you may not add to this library');
    }
    return root;
  }
  const row = await accessible(db, user, parentId, mode);
  if (!row.isFolder) throw new AppError('CONFLICT', 'the parent is not a folder');
  return row;
}

/**
 * The library root of the space a request names without a folder; `checked` when the caller's own space (or own
 * department's) needs no access check. Another department's space must exist.
 */
async function spaceRoot(
  db: Db, user: Caller & Pick<SessionUser, 'isAdmin'>, libCode: string | undefined, instanceType: string | undefined, deptId?: string,
): Promise<{ root: InstanceRow; checked: boolean; custom: boolean }> {
  const lib = await usableLib(db, libCode || 'NetDisk', user.isAdmin);
  // A custom business library has one root for everyone, whatever instanceType says (business-libs-repo.ts).
  const space = lib.custom ? LIB_SPACE : defaultSpace(user, instanceType, deptId);
  if (space.kind !== 'dept' || space.id === user.deptId) return { root: await getOrCreateRoot(db, space, lib.libCode, user.userId), checked: true, custom: lib.custom };
  if (!(await getDept(db, space.id))) throw notFound();
  return { root: await getOrCreateRoot(db, space, lib.libCode, user.userId), checked: false, custom: lib.custom };
}

/**
 * A listing of the folder a request names (parentId), or of the caller's library root: the folder and its ancestors
 * from the root down (one query), then the page once the caller is known to be allowed to read the folder.
 */
export async function listFolderFor(
  db: Db, user: Caller & Pick<SessionUser, 'isAdmin'>, parentId: string | undefined, libCode: string | undefined,
  instanceType: string | undefined, q: Omit<ListQuery, 'parentId'>, known?: ReadonlyMap<string, InstanceRow> | null, deptId?: string,
  prefetched?: PrefetchedPage | null,
): Promise<{ folder: InstanceRow; ancestors: InstanceRow[]; page: ListResult }> {
  let folder: InstanceRow;
  let ancestors: InstanceRow[] = [];
  let viewed: boolean;
  if (parentId === undefined || parentId === '' || parentId === '0') {
    const { root, checked } = await spaceRoot(db, user, libCode, instanceType, deptId);
    folder = root;
    viewed = checked || (await canAccess(db, user, root, 'read'));
  } else {
    // The access gate has usually read the folder and its ancestors already (its `loaded` rows).
    const found = (known && chainOf(known, parentId)) || (await getWithAncestors(db, parentId));
    if (!found || found.row.deletedAt !== null) throw notFound();
    if (!found.row.isFolder) throw new AppError('CONFLICT', 'the parent is not a folder');
    folder = found.row;
    ancestors = found.ancestors;
    viewed = await visibleOnChain(db, user, folder, ancestors);
  }
  // A folder the caller does not view is listed only as a passage to something granted below it.
  if (!viewed && !(await isPassage(db, user, folder))) throw notFound();
  const scope = await listingScope(db, user, folder, viewed);
  return { folder, ancestors, page: await listChildren(db, folder, { ...q, parentId: folder.id, ...scope }, prefetched) };
}

/** Whose marks a listing's page reads with its rows (ListQuery.marksOf): none for a caller who never marked anything. */
export function marksOf(user: Pick<SessionUser, 'userId' | 'hasMarks'>): string | undefined {
  return user.hasMarks ? user.userId : undefined;
}

/** The listing query of a listInstances request (its contract defaults applied), for the handler and the gate alike. */
export function listQueryOf(q: operations['listInstances']['parameters']['query'], user: Pick<SessionUser, 'userId' | 'hasMarks'>): Omit<ListQuery, 'parentId'> {
  return {
    sortField: q?.sortField ?? 'instanceName', sortOrder: q?.sortOrder ?? 'asc', fileFilter: q?.fileFilter,
    keyword: q?.keyword?.trim() || undefined, pageNo: q?.pageNo ?? 1, pageSize: q?.pageSize ?? 20, cursor: q?.cursor,
    marksOf: marksOf(user),
  };
}

/**
 * The gate's read for a folder listing: the folder's chain and its page in one statement (getChainsWithPage), the
 * page kept on the request for listFolderFor. Used on PostgreSQL only (contract/routes.ts decides once): SQLite has
 * no round trip to save, and there the one statement was slower than the two (listing bench, two runs each way:
 * page 1 942-1178 against 1355-1376 req/s). None for the library root (the gate reads nothing) or within a share (its
 * scope is checked on a read of its own).
 */
export function listingGateReader(req: FastifyRequest<{ Querystring: operations['listInstances']['parameters']['query'] }>): ChainReader | undefined {
  const q = req.query;
  const parentId = q?.parentId;
  if (!req.user || !parentId || parentId === '0' || q?.fileSharingId) return undefined;
  const user = req.user;
  return async (rdb, ids) => {
    if (ids.length !== 1 || ids[0] !== parentId) return getInstanceChains(rdb, ids);
    const { rows, page } = await getChainsWithPage(rdb, ids, { ...listQueryOf(q, user), parentId });
    req.listingPage = page ?? null;
    return rows;
  };
}

export function callerOf(user: SessionUser | null): SessionUser {
  if (!user) throw new AppError('UNAUTHENTICATED', 'login.required');
  return user;
}
