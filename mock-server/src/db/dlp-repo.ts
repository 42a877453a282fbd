// DLP and approval (issue #17 part 4): the only SQL that reads or writes dlp_rules and dlp_checks.
// Who may see or decide a request is the handler's (handlers/dlp.ts); this module evaluates rules and keeps the
// requests' state machine (pending -> approved | rejected, decided once).
import { sql } from 'kysely';
import type { Db } from './sql/tx.ts';
import { uniqueViolation } from './sql/errors.ts';
import { AppError } from '../http/errors.ts';
import { newId } from '../ids.ts';
import { liveSubtree, type InstanceRow } from './instances-repo.ts';
import type { DlpRulesTable } from './sql/schema-dlp.ts';

export type RuleKind = DlpRulesTable['kind'];
export type CheckStatus = 'pending' | 'approved' | 'rejected';

export interface RuleRow {
  id: string;
  kind: RuleKind;
  value: string;
  enabled: boolean;
  remark: string;
  updatedAt: number;
}

export interface Hit {
  instanceId: string;
  instanceName: string;
  ruleId: string;
  kind: RuleKind;
  value: string;
}

export interface CheckRow {
  id: string;
  status: CheckStatus;
  requesterId: string;
  requesterName: string;
  deptId: string;
  deptName: string;
  deptPath: string;
  instanceIds: string[];
  items: string[];
  hits: Hit[];
  reason: string;
  comment: string;
  deciderName: string | null;
  createdAt: number;
  decidedAt: number | null;
}

/** Rules per page are few; the cap keeps every check cheap. */
export const MAX_RULES = 500;
/** Hits listed in a verdict: enough to tell the user what to take out. */
export const MAX_HITS = 50;
/** Ids per IN (...): under SQLite's bound-parameter limit. */
const CHUNK = 500;

const ruleOf = (r: { id: string; kind: RuleKind; value: string; enabled: number; remark: string; updated_at: number }): RuleRow => ({
  id: r.id, kind: r.kind, value: r.value, enabled: Number(r.enabled) === 1, remark: r.remark, updatedAt: Number(r.updated_at),
});

export async function pageRules(db: Db, limit: number, offset: number): Promise<{ rows: RuleRow[]; total: number }> {
  const rows = await db.selectFrom('dlp_rules').selectAll().orderBy('created_at').orderBy('id').limit(limit).offset(offset).execute();
  const total = await db.selectFrom('dlp_rules').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
  return { rows: rows.map(ruleOf), total: Number(total.n) };
}

export async function enabledRules(db: Db): Promise<RuleRow[]> {
  const rows = await db.selectFrom('dlp_rules').selectAll().where('enabled', '=', 1).orderBy('created_at').orderBy('id').execute();
  return rows.map(ruleOf);
}

export async function saveRule(db: Db, r: { id?: string; kind: RuleKind; value: string; enabled: boolean; remark: string }): Promise<RuleRow> {
  const now = Date.now();
  if (r.id) {
    const res = await db
      .updateTable('dlp_rules')
      .set({ kind: r.kind, value: r.value, enabled: r.enabled ? 1 : 0, remark: r.remark, updated_at: now })
      .where('id', '=', r.id)
      .executeTakeFirst();
    if (Number(res.numUpdatedRows) === 0) throw new AppError('NOT_FOUND', 'no such rule');
    return ruleOf((await db.selectFrom('dlp_rules').selectAll().where('id', '=', r.id).executeTakeFirstOrThrow()));
  }
  const n = await db.selectFrom('dlp_rules').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
  if (Number(n.n) >= MAX_RULES) throw new AppError('CONFLICT', `at most ${MAX_RULES} rules`);
  const id = newId();
  await db.insertInto('dlp_rules').values({ id, kind: r.kind, value: r.value, enabled: r.enabled ? 1 : 0, remark: r.remark, created_at: now, updated_at: now }).execute();
  return { id, kind: r.kind, value: r.value, enabled: r.enabled, remark: r.remark, updatedAt: now };
}

export async function deleteRules(db: Db, ids: readonly string[]): Promise<void> {
  await db.deleteFrom('dlp_rules').where('id', 'in', [...ids]).execute();
}

const extOf = (name: string): string => {
  const dot = name.lastIndexOf('.');
  return dot > 0 ? name.slice(dot + 1).toLowerCase() : '';
};

/** Ids of `ids` that carry a label (anyone's) whose name is one of `labelKeys`, with those labels' keys. */
async function labelled(db: Db, ids: readonly string[], labelKeys: readonly string[]): Promise<Map<string, Set<string>>> {
  const out = new Map<string, Set<string>>();
  if (labelKeys.length === 0) return out;
  for (let i = 0; i < ids.length; i += CHUNK) {
    const rows = await db
      .selectFrom('instance_labels as il')
      .innerJoin('labels as l', 'l.id', 'il.label_id')
      .select(['il.instance_id', 'l.name_key'])
      .where('il.instance_id', 'in', ids.slice(i, i + CHUNK))
      .where('l.name_key', 'in', [...labelKeys])
      .execute();
    for (const r of rows) out.set(r.instance_id, (out.get(r.instance_id) ?? new Set()).add(r.name_key));
  }
  return out;
}

/** Whether `r` hits the entry (`tagged`: the confidential label keys entries carry). */
function ruleHits(r: RuleRow, e: { id: string; name: string; isFolder: boolean; size: number }, tagged: ReadonlyMap<string, ReadonlySet<string>>): boolean {
  if (r.kind === 'extension') return !e.isFolder && r.value.toLowerCase().split(',').map((x) => x.trim().replace(/^\./, '')).includes(extOf(e.name));
  if (r.kind === 'maxSize') return !e.isFolder && e.size > Number(r.value);
  if (r.kind === 'label') return tagged.get(e.id)?.has(r.value.toLowerCase()) === true;
  return e.name.toLowerCase().includes(r.value.toLowerCase());
}

/** What the rules hit among `roots` and everything below the folders among them (at most MAX_HITS). */
export async function evaluate(db: Db, roots: readonly InstanceRow[], rules: readonly RuleRow[]): Promise<Hit[]> {
  if (rules.length === 0) return [];
  const entries: { id: string; name: string; isFolder: boolean; size: number }[] = [];
  for (const root of roots) {
    if (!root.isFolder) {
      entries.push({ id: root.id, name: root.name, isFolder: false, size: root.size });
      continue;
    }
    const sub = await liveSubtree(db, root.id);
    entries.push(...sub.map((e) => ({ id: e.id, name: e.name, isFolder: e.isFolder, size: e.size })));
  }
  const labelRules = rules.filter((r) => r.kind === 'label');
  const tagged = await labelled(db, entries.map((e) => e.id), [...new Set(labelRules.map((r) => r.value.toLowerCase()))]);
  const hits: Hit[] = [];
  for (const e of entries) {
    for (const r of rules) {
      if (ruleHits(r, e, tagged)) {
        hits.push({ instanceId: e.id, instanceName: e.name, ruleId: r.id, kind: r.kind, value: r.value });
        if (hits.length >= MAX_HITS) return hits;
        break;
      }
    }
  }
  return hits;
}

/** The department whose space (or whose member's, or group's) holds the item. */
async function homeDept(db: Db, row: InstanceRow): Promise<string | null> {
  if (row.spaceKind === 'dept') return row.spaceId;
  if (row.spaceKind === 'user') {
    const u = await db.selectFrom('users').select('dept_id').where('id', '=', row.spaceId).executeTakeFirst();
    return u?.dept_id ?? null;
  }
  const g = await db
    .selectFrom('groups as g')
    .innerJoin('users as u', 'u.id', 'g.owner_id')
    .select(['g.dept_id', 'u.dept_id as owner_dept'])
    .where('g.id', '=', row.spaceId)
    .executeTakeFirst();
  return g?.dept_id ?? g?.owner_dept ?? null;
}

/**
 * The approving department of the items: their home department, or the nearest one above it that has a live
 * manager. VALIDATION_FAILED when the items have different ones, DLP_NO_APPROVER when nobody up to the root manages.
 */
export async function approvingDept(db: Db, rows: readonly InstanceRow[]): Promise<string> {
  const homes = new Set<string | null>();
  for (const r of rows) homes.add(await homeDept(db, r));
  if (homes.size > 1) {
    throw new AppError('VALIDATION_FAILED', 'instanceIds: the items belong to different departments; request approval for each separately', {
      fields: [{ field: 'instanceIds', message: 'different departments' }],
    });
  }
  const home = [...homes][0];
  if (!home) throw new AppError('DLP_NO_APPROVER', 'the items belong to no department');
  const d = await db.selectFrom('departments').select('path').where('id', '=', home).executeTakeFirst();
  const chain = (d?.path ?? `/${home}/`).split('/').filter((s) => s !== '');
  const managed = await db
    .selectFrom('dept_managers as m')
    .innerJoin('users as u', 'u.id', 'm.user_id')
    .select('m.dept_id')
    .where('m.dept_id', 'in', chain)
    .where('u.deleted_at', 'is', null)
    .execute();
  const withManager = new Set(managed.map((m) => m.dept_id));
  const nearest = [...chain].reverse().find((id) => withManager.has(id));
  if (!nearest) throw new AppError('DLP_NO_APPROVER', 'no department manager above the items');
  return nearest;
}

const keyOf = (ids: readonly string[]): string => [...ids].sort().join(',');

function checkQuery(db: Db) {
  return db
    .selectFrom('dlp_checks as c')
    .innerJoin('users as r', 'r.id', 'c.requester_id')
    .innerJoin('departments as d', 'd.id', 'c.dept_id')
    .leftJoin('users as x', 'x.id', 'c.decided_by')
    .select([
      'c.id', 'c.status', 'c.requester_id', 'r.user_name as requester_name', 'c.dept_id', 'd.name as dept_name', 'd.path as dept_path',
      'c.instance_ids', 'c.items', 'c.hits', 'c.reason', 'c.comment', 'x.user_name as decider_name', 'c.created_at', 'c.decided_at',
    ]);
}

type CheckRaw = Awaited<ReturnType<ReturnType<typeof checkQuery>['executeTakeFirstOrThrow']>>;

const checkOf = (r: CheckRaw): CheckRow => ({
  id: r.id, status: r.status, requesterId: r.requester_id, requesterName: r.requester_name, deptId: r.dept_id, deptName: r.dept_name,
  deptPath: r.dept_path === '' ? `/${r.dept_id}/` : r.dept_path,
  instanceIds: JSON.parse(r.instance_ids) as string[], items: JSON.parse(r.items) as string[], hits: JSON.parse(r.hits) as Hit[],
  reason: r.reason, comment: r.comment, deciderName: r.decider_name ?? null, createdAt: Number(r.created_at),
  decidedAt: r.decided_at === null ? null : Number(r.decided_at),
});

export async function getCheck(db: Db, id: string): Promise<CheckRow | undefined> {
  const r = await checkQuery(db).where('c.id', '=', id).executeTakeFirst();
  return r ? checkOf(r) : undefined;
}

async function pendingOf(db: Db, requesterId: string, itemKey: string): Promise<CheckRow | undefined> {
  const r = await checkQuery(db).where('c.requester_id', '=', requesterId).where('c.item_key', '=', itemKey).where('c.status', '=', 'pending').executeTakeFirst();
  return r ? checkOf(r) : undefined;
}

/** A pending request, or the caller's pending one for the same items (two sends at once make one request). */
export async function createCheck(
  db: Db, c: { requesterId: string; deptId: string; rows: readonly InstanceRow[]; hits: readonly Hit[]; reason: string },
): Promise<CheckRow> {
  const ids = c.rows.map((r) => r.id);
  const itemKey = keyOf(ids);
  const existing = await pendingOf(db, c.requesterId, itemKey);
  if (existing) return existing;
  const id = newId();
  try {
    await db.insertInto('dlp_checks').values({
      id, requester_id: c.requesterId, dept_id: c.deptId, instance_ids: JSON.stringify(ids), item_key: itemKey,
      items: JSON.stringify(c.rows.map((r) => r.name)), hits: JSON.stringify(c.hits), reason: c.reason, status: 'pending', decided_by: null,
      created_at: Date.now(), decided_at: null,
    }).execute();
  } catch (e) {
    if (uniqueViolation(e) === undefined) throw e;
    const raced = await pendingOf(db, c.requesterId, itemKey);
    if (raced) return raced;
    throw e;
  }
  return (await getCheck(db, id))!;
}

/** Decides a pending request; the conditional update lets exactly one of two concurrent decisions through. */
export async function decideCheck(db: Db, id: string, deciderId: string, approve: boolean, comment: string): Promise<CheckRow> {
  const res = await db
    .updateTable('dlp_checks')
    .set({ status: approve ? 'approved' : 'rejected', comment, decided_by: deciderId, decided_at: Date.now() })
    .where('id', '=', id)
    .where('status', '=', 'pending')
    .executeTakeFirst();
  if (Number(res.numUpdatedRows) === 0) throw new AppError('CONFLICT', 'the request has been decided already');
  return (await getCheck(db, id))!;
}

/**
 * A page of requests: the requester's own (`mine`), or those whose approving department is inside one of
 * `managedPaths` (`todo`; null = every request, for administrators). Newest first.
 */
export async function pageChecks(
  db: Db, q: { mineOf?: string; managedPaths?: readonly string[] | null; status?: CheckStatus; limit: number; offset: number },
): Promise<{ rows: CheckRow[]; total: number }> {
  let base = db.selectFrom('dlp_checks as c').innerJoin('departments as d', 'd.id', 'c.dept_id');
  if (q.mineOf !== undefined) base = base.where('c.requester_id', '=', q.mineOf);
  if (q.managedPaths) {
    const paths = q.managedPaths;
    if (paths.length === 0) return { rows: [], total: 0 };
    base = base.where((eb) => eb.or(paths.map((p) => eb(sql`substr(d.path, 1, ${p.length})`, '=', p))));
  }
  if (q.status) base = base.where('c.status', '=', q.status);
  const total = await base.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
  const ids = await base.select('c.id').orderBy('c.created_at', 'desc').orderBy('c.id').limit(q.limit).offset(q.offset).execute();
  const rows: CheckRow[] = [];
  for (const { id } of ids) rows.push((await getCheck(db, id))!);
  return { rows, total: Number(total.n) };
}

/** An approved request of the requester that covers every one of `ids`, if any (the newest). */
export async function approvedCovering(db: Db, requesterId: string, ids: readonly string[]): Promise<string | undefined> {
  const rows = await db
    .selectFrom('dlp_checks')
    .select(['id', 'instance_ids'])
    .where('requester_id', '=', requesterId)
    .where('status', '=', 'approved')
    .orderBy('decided_at', 'desc')
    .limit(200)
    .execute();
  return rows.find((r) => {
    const covered = new Set(JSON.parse(r.instance_ids) as string[]);
    return ids.every((id) => covered.has(id));
  })?.id;
}
