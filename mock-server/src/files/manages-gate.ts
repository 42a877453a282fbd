// The department-manager access mark ({ manages: dept | user, ids }): administrators, or a manager of the named
// department (or of the named account's department) or of a department above it. Checked for the whole request at
// once: the caller's managed departments, then the named departments or accounts, one query each.
import type { FastifyRequest } from 'fastify';
import type { ManagesNeed } from '@hcs/openapi/operations';
import type { Db } from '../db/sql/tx.ts';
import type { SessionUser } from '../auth/types.ts';
import { AppError } from '../http/errors.ts';
import { getDepts, managedDeptIds, manages, ROOT_DEPT_ID } from '../db/departments-repo.ts';

/** Which of the named departments or accounts the actor may not administer, each with its error. */
export async function checkManages(db: Db, actor: SessionUser, kind: ManagesNeed['manages'], ids: readonly string[]): Promise<Map<string, AppError>> {
  const refused = new Map<string, AppError>();
  if (actor.isAdmin) return refused;
  const managed = new Set(await managedDeptIds(db, actor.userId));
  // An absent value names nothing; handlers that then fall back to the root department keep that to administrators.
  const wanted = [...new Set(ids)];
  if (wanted.length === 0) return refused;
  let deptOf = new Map<string, string | null>();
  if (kind === 'user') {
    const rows = await db.selectFrom('users').select(['id', 'dept_id']).where('id', 'in', wanted).execute();
    deptOf = new Map(rows.map((r) => [r.id, r.dept_id ?? ROOT_DEPT_ID]));
  } else {
    for (const id of wanted) deptOf.set(id, id);
  }
  const depts = await getDepts(db, [...new Set([...deptOf.values()].filter((d): d is string => d !== null))]);
  for (const id of wanted) {
    const deptId = deptOf.get(id);
    const dept = deptId ? depts.get(deptId) : undefined;
    if (!dept) refused.set(id, new AppError('NOT_FOUND', kind === 'user' ? `no account ${id}` : `no department ${id}`));
    else if (!manages(managed, dept)) refused.set(id, new AppError('FORBIDDEN', kind === 'user' ? 'that account is outside the departments you manage' : 'that department is outside the departments you manage'));
  }
  return refused;
}

/** The route layer's branch for a manages need: throws the first refusal, or records them per item (each). */
export async function enforceManages(db: Db, req: FastifyRequest, need: ManagesNeed, ids: readonly string[]): Promise<void> {
  if (!req.user) throw new AppError('UNAUTHENTICATED', 'login.required');
  const refused = await checkManages(db, req.user, need.manages, ids);
  if (!need.each) {
    const [first] = refused.values();
    if (first) throw first;
    return;
  }
  req.accessRefused ??= new Map();
  for (const [id, err] of refused) if (!req.accessRefused.has(id)) req.accessRefused.set(id, err);
}
