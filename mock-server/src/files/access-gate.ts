// The one access gate (issue #13): every operation's contract mark (x-hcs-access) is enforced here, before its
// handler runs. `public`, `signed-in` and `admin` are settled by the route layer when the session is read; a
// permission mark names where the request carries instance ids, and requireAccess checks the whole set at once.
//
// Visibility and permission are told apart on purpose: an instance the caller cannot see answers NOT_FOUND, exactly
// as an id that does not exist (ids of other people's files reveal nothing); one the caller sees but may not act on
// answers FORBIDDEN. Today a space's owner, a group's members and a department's staff hold every permission on it;
// roles and grants (the organisation issue) narrow that through `permissionsOn`, the one place that decides.
import type { FastifyRequest } from 'fastify';
import { PERMISSIONS, type Access, type Permission } from '@hcs/openapi/operations';
import type { SessionUser } from '../auth/types.ts';
import type { Db } from '../db/sql/tx.ts';
import { getInstanceChains, type InstanceRow } from '../db/instances-repo.ts';
import { AppError } from '../http/errors.ts';
import { enforceManages } from './manages-gate.ts';
import { canAccess } from './access.ts';

/** Ids this many or fewer are checked per request; the contract bounds every id list well below it. */
const MAX_IDS = 10_000;

/** What the actor may do on a row they can see. */
export function permissionsOn(_actor: SessionUser, _row: InstanceRow): ReadonlySet<Permission> {
  return new Set(PERMISSIONS);
}

/**
 * Which of `ids` the actor may not act on with `permission`, each with its error: NOT_FOUND for one that does not
 * exist or that they cannot see (recycled ones count only for `delete`, which restores and purges them), FORBIDDEN
 * for one they see without the permission. One query for the rows, whatever the number of ids.
 */
export async function checkAccess(
  db: Db, actor: SessionUser, permission: Permission, ids: readonly string[], loaded?: Map<string, InstanceRow>,
): Promise<Map<string, AppError>> {
  const refused = new Map<string, AppError>();
  const wanted = [...new Set(ids)];
  if (wanted.length === 0) return refused;
  if (wanted.length > MAX_IDS) throw new AppError('PAYLOAD_TOO_LARGE', `at most ${MAX_IDS} ids per request`);
  // The items with their ancestors (one query): handed on through `loaded`, so that a handler needing the same
  // rows (a listing's folder and breadcrumbs) does not read them again.
  const rows = await getInstanceChains(db, wanted);
  if (loaded) for (const [id, row] of rows) loaded.set(id, row);
  // Group membership is one lookup per distinct group space, not per id.
  const seen = new Map<string, boolean>();
  for (const id of wanted) {
    const row = rows.get(id);
    if (!row || (row.deletedAt !== null && permission !== 'delete')) {
      refused.set(id, notFound());
      continue;
    }
    const space = `${row.spaceKind}:${row.spaceId}`;
    let visible = seen.get(space);
    if (visible === undefined) seen.set(space, (visible = await canAccess(db, actor, row, 'read')));
    if (!visible) refused.set(id, notFound());
    else if (!permissionsOn(actor, row).has(permission)) refused.set(id, new AppError('FORBIDDEN', `you may not ${permission} this item`));
  }
  return refused;
}

/** Throws the first refusal of checkAccess: the actor must hold `permission` on every one of `ids`. */
export async function requireAccess(db: Db, actor: SessionUser, permission: Permission, ids: readonly string[]): Promise<void> {
  const [first] = (await checkAccess(db, actor, permission, ids)).values();
  if (first) throw first;
}

function notFound(): AppError {
  return new AppError('NOT_FOUND', 'no such file or folder');
}

/**
 * The instance ids a request carries where the mark says: query.X and path.X (a comma-separated value names
 * several), body.X (each item's X for a list body). Empty values and '0' name the caller's own library root.
 */
export function idsAt(req: FastifyRequest, at: readonly string[]): string[] {
  const out: string[] = [];
  const add = (v: unknown): void => {
    // A list field (body.userIds) names one id per item.
    if (Array.isArray(v)) return v.forEach(add);
    if (typeof v !== 'string') return;
    for (const id of v.split(',')) if (id !== '' && id !== '0') out.push(id);
  };
  for (const where of at) {
    const [from, name] = where.split('.') as [string, string];
    if (from === 'query') add((req.query as Record<string, unknown> | undefined)?.[name]);
    else if (from === 'path') add((req.params as Record<string, unknown> | undefined)?.[name]);
    else if (from === 'body') {
      const body = req.body;
      for (const item of Array.isArray(body) ? body : [body]) if (item && typeof item === 'object') add((item as Record<string, unknown>)[name]);
    }
  }
  return out;
}

/** Enforces an operation's permission marks on a validated request (the route layer's preHandler). */
export async function enforceAccess(db: Db, req: FastifyRequest, access: Access): Promise<void> {
  if (typeof access === 'string') return;
  if (!req.user) throw new AppError('UNAUTHENTICATED', 'login.required');
  for (const need of access) {
    if ('manages' in need) {
      await enforceManages(db, req, need, idsAt(req, need.ids));
      continue;
    }
    req.gateRows ??= new Map();
    const refused = await checkAccess(db, req.user, need.permission, idsAt(req, need.ids), req.gateRows);
    if (!need.each) {
      const [first] = refused.values();
      if (first) throw first;
      continue;
    }
    // A batch call: refused items fail on their own (the handler's batch reads this), the rest go on.
    req.accessRefused ??= new Map();
    for (const [id, err] of refused) if (!req.accessRefused.has(id)) req.accessRefused.set(id, err);
  }
}
