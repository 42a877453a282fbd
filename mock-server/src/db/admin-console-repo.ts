// Storage of the administration consoles (issue #18 part 1): typed configuration entries, the IP white list,
// operation-log queries and exports, and the statistics.
import { sql, type SelectQueryBuilder, type Selectable } from 'kysely';
import type { Db } from './sql/tx.ts';
import type { Schema, SysConfigTable } from './sql/schema.ts';
import { bumpVersion } from '../config-store.ts';
import type { IpRuleRow } from '../auth/ip-whitelist.ts';
import type { OpLogRow } from './oplog-repo.ts';

// ---- configuration entries ----

export interface StoredConfig {
  key: string;
  value: string;
  type: string;
  description: string;
  options: string[];
  publicRead: boolean;
  custom: boolean;
  updatedAt: number;
}

function storedOf(r: Selectable<SysConfigTable>): StoredConfig {
  return {
    key: r.config_key, value: r.config_value, type: r.config_type, description: r.description,
    options: r.options ? (JSON.parse(r.options) as string[]) : [], publicRead: Number(r.public_read) === 1, custom: Number(r.custom) === 1,
    updatedAt: Number(r.updated_at),
  };
}

/** Stored rows for these keys, and every custom entry. */
export async function storedConfigs(db: Db, keys: readonly string[]): Promise<Map<string, StoredConfig>> {
  let q = db.selectFrom('sys_config').selectAll().where('custom', '=', 1);
  if (keys.length) q = db.selectFrom('sys_config').selectAll().where((eb) => eb.or([eb('custom', '=', 1), eb('config_key', 'in', keys)]));
  const rows = await q.execute();
  return new Map(rows.map((r) => [r.config_key, storedOf(r)]));
}

export async function storedConfig(db: Db, key: string): Promise<StoredConfig | undefined> {
  const r = await db.selectFrom('sys_config').selectAll().where('config_key', '=', key).executeTakeFirst();
  return r ? storedOf(r) : undefined;
}

/** Inserts a custom entry; false when the key is taken (by any entry, internal ones included). */
export async function insertCustomConfig(
  db: Db, e: { key: string; value: string; type: string; description: string; options: string[]; publicRead: boolean }, now = Date.now(),
): Promise<boolean> {
  const res = await db
    .insertInto('sys_config')
    .values({
      config_key: e.key, config_value: e.value, updated_at: now, config_type: e.type, description: e.description,
      options: e.options.length ? JSON.stringify(e.options) : '', public_read: e.publicRead ? 1 : 0, custom: 1,
    })
    .onConflict((oc) => oc.column('config_key').doNothing())
    .executeTakeFirst();
  const inserted = Number(res.numInsertedOrUpdatedRows ?? 0n) > 0;
  if (inserted) await bumpVersion(db, 'config');
  return inserted;
}

/** Sets a value (inserting the row of a setting never set before); a description only for custom entries. */
export async function writeConfigValue(db: Db, key: string, value: string, description: string | undefined, now = Date.now()): Promise<void> {
  await db
    .insertInto('sys_config')
    .values({ config_key: key, config_value: value, updated_at: now })
    .onConflict((oc) => oc.column('config_key').doUpdateSet({ config_value: value, updated_at: now }))
    .execute();
  if (description !== undefined) {
    await db.updateTable('sys_config').set({ description }).where('config_key', '=', key).where('custom', '=', 1).execute();
  }
  await bumpVersion(db, 'config');
}

export async function deleteCustomConfigs(db: Db, keys: readonly string[]): Promise<number> {
  const res = await db.deleteFrom('sys_config').where('config_key', 'in', keys).where('custom', '=', 1).executeTakeFirst();
  await bumpVersion(db, 'config');
  return Number(res.numDeletedRows);
}

// ---- IP white list ----

export async function getIpRule(db: Db, id: string): Promise<IpRuleRow | undefined> {
  const r = await db.selectFrom('ip_whitelist').selectAll().where('id', '=', id).executeTakeFirst();
  return r
    ? {
        id: r.id, ipValue: r.ip_value, kind: r.kind, targetType: r.target_type, targetId: r.target_id, scope: r.scope,
        enabled: Number(r.enabled) === 1, remark: r.remark, updatedAt: Number(r.updated_at),
      }
    : undefined;
}

export async function saveIpRule(db: Db, rule: IpRuleRow, createdBy: string, now = Date.now()): Promise<void> {
  const values = {
    ip_value: rule.ipValue, kind: rule.kind, target_type: rule.targetType, target_id: rule.targetId, scope: rule.scope,
    enabled: rule.enabled ? (1 as const) : (0 as const), remark: rule.remark, updated_at: now,
  };
  await db
    .insertInto('ip_whitelist')
    .values({ id: rule.id, ...values, created_by: createdBy, created_at: now })
    .onConflict((oc) => oc.column('id').doUpdateSet(values))
    .execute();
  await bumpVersion(db, 'ipWhitelist');
}

export async function deleteIpRules(db: Db, ids: readonly string[]): Promise<void> {
  await db.deleteFrom('ip_whitelist').where('id', 'in', ids).execute();
  await bumpVersion(db, 'ipWhitelist');
}

/** Display names of the white list's targets (departments and accounts), by id. */
export async function targetNames(db: Db, rules: readonly IpRuleRow[]): Promise<Map<string, string>> {
  const deptIds = [...new Set(rules.filter((r) => r.targetType === 'dept').map((r) => r.targetId))];
  const userIds = [...new Set(rules.filter((r) => r.targetType === 'user').map((r) => r.targetId))];
  const out = new Map<string, string>();
  if (deptIds.length) for (const d of await db.selectFrom('departments').select(['id', 'name']).where('id', 'in', deptIds).execute()) out.set(d.id, d.name);
  if (userIds.length) for (const u of await db.selectFrom('users').select(['id', 'user_name']).where('id', 'in', userIds).execute()) out.set(u.id, u.user_name);
  return out;
}

export async function targetExists(db: Db, type: 'dept' | 'user', id: string): Promise<boolean> {
  if (type === 'dept') return (await db.selectFrom('departments').select('id').where('id', '=', id).executeTakeFirst()) !== undefined;
  return (await db.selectFrom('users').select('id').where('id', '=', id).where('deleted_at', 'is', null).executeTakeFirst()) !== undefined;
}

// ---- operation logs ----

export interface OpLogFilter {
  userName?: string;
  optType?: string;
  optObj?: string;
  result?: 'success' | 'failure';
  since?: number;
  until?: number;
  keyword?: string;
}

/** LIKE pattern matching `s` literally (\ escapes), case-insensitively through lower(). */
export function likeContains(s: string): string {
  return `%${s.toLowerCase().replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}

function filtered<O>(q: SelectQueryBuilder<Schema, 'op_logs', O>, f: OpLogFilter): SelectQueryBuilder<Schema, 'op_logs', O> {
  if (f.userName) q = q.where(sql<string>`lower(user_name)`, '=', f.userName.toLowerCase());
  if (f.optType) q = q.where('op_type', '=', f.optType);
  if (f.optObj) q = q.where('object_id', '=', f.optObj);
  if (f.result) q = q.where('result', '=', f.result);
  if (f.since !== undefined) q = q.where('at', '>=', f.since);
  if (f.until !== undefined) q = q.where('at', '<', f.until);
  if (f.keyword) q = q.where(sql<string>`lower(object_name)`, 'like', sql<string>`${likeContains(f.keyword)} escape '\\'`);
  return q;
}

const OPLOG_COLUMNS = [
  'id', 'at', 'user_id as userId', 'user_name as userName', 'op_type as opType', 'op_subject as opSubject', 'object_id as objectId',
  'object_name as objectName', 'device', 'ip', 'trace_id as traceId', 'result', 'detail',
] as const;

/** Newest first: rows below `beforeId` (keyset), or `offset` rows in. */
export async function pageOpLogs(db: Db, f: OpLogFilter, o: { limit: number; beforeId?: number; offset?: number }): Promise<OpLogRow[]> {
  let q = filtered(db.selectFrom('op_logs').select(OPLOG_COLUMNS), f).orderBy('id', 'desc').limit(o.limit);
  if (o.beforeId !== undefined) q = q.where('id', '<', o.beforeId);
  if (o.offset) q = q.offset(o.offset);
  const rows = await q.execute();
  return rows.map((r) => ({ ...r, id: Number(r.id), at: Number(r.at) }));
}

/** Rows matching, counted up to `cap` (a count of millions of rows would cost more than the page). */
export async function countOpLogs(db: Db, f: OpLogFilter, cap: number): Promise<number> {
  const inner = filtered(db.selectFrom('op_logs').select('id'), f).limit(cap);
  const r = await db.selectFrom(inner.as('m')).select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
  return Number(r.n);
}

/** Every matching row, newest first, in batches by keyset: constant memory whatever the count. */
export async function* iterateOpLogs(db: Db, f: OpLogFilter, batch = 2000): AsyncGenerator<OpLogRow[]> {
  let before: number | undefined;
  for (;;) {
    const rows = await pageOpLogs(db, f, { limit: batch, beforeId: before });
    if (rows.length === 0) return;
    yield rows;
    if (rows.length < batch) return;
    before = rows[rows.length - 1]!.id;
  }
}

export async function opTypes(db: Db): Promise<string[]> {
  const rows = await db.selectFrom('op_logs').select('op_type').distinct().orderBy('op_type').execute();
  return rows.map((r) => r.op_type);
}

/** Deletes rows older than `before` (all without it); returns how many went. */
export async function clearOpLogs(db: Db, before?: number): Promise<number> {
  let q = db.deleteFrom('op_logs');
  if (before !== undefined) q = q.where('at', '<', before);
  const res = await q.executeTakeFirst();
  return Number(res.numDeletedRows);
}

// ---- statistics ----

export interface Bucket {
  key: string;
  label: string;
  bytes: number;
  count: number;
}

export async function storageBySpace(db: Db): Promise<Bucket[]> {
  const rows = await db
    .selectFrom('instances')
    .select(['space_kind', (eb) => eb.fn.sum<number>('size').as('bytes'), (eb) => eb.fn.countAll<number>().as('n')])
    .where('is_folder', '=', 0)
    .where('deleted_at', 'is', null)
    .groupBy('space_kind')
    .execute();
  return rows.map((r) => ({ key: r.space_kind, label: r.space_kind, bytes: Number(r.bytes ?? 0), count: Number(r.n) }));
}

export async function storageByType(db: Db): Promise<Bucket[]> {
  const rows = await db
    .selectFrom('instances')
    .select(['file_type', (eb) => eb.fn.sum<number>('size').as('bytes'), (eb) => eb.fn.countAll<number>().as('n')])
    .where('is_folder', '=', 0)
    .where('deleted_at', 'is', null)
    .groupBy('file_type')
    .orderBy('bytes', 'desc')
    .limit(20)
    .execute();
  return rows.map((r) => ({ key: String(r.file_type), label: String(r.file_type), bytes: Number(r.bytes ?? 0), count: Number(r.n) }));
}

/** Bytes of the members' personal files by department. */
export async function storageByDept(db: Db): Promise<Bucket[]> {
  const rows = await db
    .selectFrom('users')
    .leftJoin('departments', 'departments.id', 'users.dept_id')
    .select(['users.dept_id', 'departments.name', (eb) => eb.fn.sum<number>('users.used_bytes').as('bytes'), (eb) => eb.fn.countAll<number>().as('n')])
    .where('users.deleted_at', 'is', null)
    .groupBy(['users.dept_id', 'departments.name'])
    .orderBy('bytes', 'desc')
    .limit(20)
    .execute();
  return rows.map((r) => ({ key: r.dept_id ?? '', label: r.name ?? '', bytes: Number(r.bytes ?? 0), count: Number(r.n) }));
}

/** Folders holding the most bytes in their own files. */
export async function topFolders(db: Db, limit = 10): Promise<Bucket[]> {
  const rows = await db
    .selectFrom('instances as f')
    .innerJoin('instances as p', 'p.id', 'f.parent_id')
    .select(['p.id', 'p.name', (eb) => eb.fn.sum<number>('f.size').as('bytes'), (eb) => eb.fn.countAll<number>().as('n')])
    .where('f.is_folder', '=', 0)
    .where('f.deleted_at', 'is', null)
    .where('p.deleted_at', 'is', null)
    .groupBy(['p.id', 'p.name'])
    .orderBy('bytes', 'desc')
    .limit(limit)
    .execute();
  return rows.map((r) => ({ key: r.id, label: r.name, bytes: Number(r.bytes ?? 0), count: Number(r.n) }));
}

const DAY_MS = 86_400_000;

/** Per UTC day from `since`: rows of the upload and download types, and distinct accounts that did anything. */
export async function dailyActivity(
  db: Db, since: number, uploadTypes: readonly string[], downloadTypes: readonly string[],
): Promise<{ day: number; uploads: number; downloads: number; activeUsers: number }[]> {
  // A literal, not a parameter: PostgreSQL matches the GROUP BY to the select list by text, and two parameters differ.
  const day = sql<number>`(at / ${sql.lit(DAY_MS)})`;
  const rows = await db
    .selectFrom('op_logs')
    .select([
      day.as('day'),
      (eb) => eb.fn.sum<number>(eb.case().when('op_type', 'in', [...uploadTypes]).then(1).else(0).end()).as('uploads'),
      (eb) => eb.fn.sum<number>(eb.case().when('op_type', 'in', [...downloadTypes]).then(1).else(0).end()).as('downloads'),
      sql<number>`count(distinct user_id)`.as('users'),
    ])
    .where('at', '>=', since)
    .where('result', '=', 'success')
    .groupBy(day)
    .execute();
  return rows.map((r) => ({ day: Math.floor(Number(r.day)), uploads: Number(r.uploads ?? 0), downloads: Number(r.downloads ?? 0), activeUsers: Number(r.users) }));
}

export async function activeUsersSince(db: Db, since: number): Promise<number> {
  const r = await db.selectFrom('op_logs').select(sql<number>`count(distinct user_id)`.as('n')).where('at', '>=', since).executeTakeFirstOrThrow();
  return Number(r.n);
}

export async function totals(db: Db): Promise<{ users: number; files: number; folders: number; bytes: number }> {
  const users = await db.selectFrom('users').select((eb) => eb.fn.countAll<number>().as('n')).where('deleted_at', 'is', null).executeTakeFirstOrThrow();
  const inst = await db
    .selectFrom('instances')
    .select([
      (eb) => eb.fn.sum<number>(eb.case().when('is_folder', '=', 0).then(1).else(0).end()).as('files'),
      (eb) => eb.fn.sum<number>(eb.case().when('is_folder', '=', 1).then(1).else(0).end()).as('folders'),
      (eb) => eb.fn.sum<number>(eb.case().when('is_folder', '=', 0).then(eb.ref('size')).else(0).end()).as('bytes'),
    ])
    .where('deleted_at', 'is', null)
    .executeTakeFirstOrThrow();
  return { users: Number(users.n), files: Number(inst.files ?? 0), folders: Number(inst.folders ?? 0), bytes: Number(inst.bytes ?? 0) };
}

export interface PersonalRow {
  userId: string;
  userName: string;
  realName: string;
  deptName: string;
  usedBytes: number;
  quotaBytes: number | null;
  files: number;
  lastActive: number | null;
}

export async function personalStats(db: Db, o: { keyword?: string; limit: number; offset: number }): Promise<{ rows: PersonalRow[]; total: number }> {
  let base = db.selectFrom('users').where('users.deleted_at', 'is', null);
  if (o.keyword) {
    const like = likeContains(o.keyword);
    base = base.where((eb) =>
      eb.or([eb(sql<string>`lower(users.user_name)`, 'like', sql<string>`${like} escape '\\'`), eb(sql<string>`lower(users.real_name)`, 'like', sql<string>`${like} escape '\\'`)]),
    );
  }
  const total = await base.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
  const rows = await base
    .leftJoin('departments', 'departments.id', 'users.dept_id')
    .select([
      'users.id', 'users.user_name', 'users.real_name', 'departments.name as dept_name', 'users.used_bytes', 'users.quota_bytes',
      (eb) => eb.selectFrom('instances').select((e2) => e2.fn.countAll<number>().as('c')).where('instances.space_kind', '=', 'user')
        .whereRef('instances.space_id', '=', 'users.id').where('instances.is_folder', '=', 0).where('instances.deleted_at', 'is', null).as('files'),
      (eb) => eb.selectFrom('op_logs').select((e2) => e2.fn.max<number>('at').as('m')).whereRef('op_logs.user_id', '=', 'users.id').as('last_active'),
    ])
    .orderBy('users.used_bytes', 'desc')
    .orderBy('users.id')
    .limit(o.limit)
    .offset(o.offset)
    .execute();
  return {
    total: Number(total.n),
    rows: rows.map((r) => ({
      userId: r.id, userName: r.user_name, realName: r.real_name, deptName: r.dept_name ?? '', usedBytes: Number(r.used_bytes),
      quotaBytes: r.quota_bytes === null ? null : Number(r.quota_bytes), files: Number(r.files ?? 0),
      lastActive: r.last_active === null || r.last_active === undefined ? null : Number(r.last_active),
    })),
  };
}

/** Applied migrations with when (Kysely's own table). */
export async function appliedMigrations(db: Db): Promise<Map<string, string>> {
  const rows = await sql<{ name: string; timestamp: string }>`select name, timestamp from kysely_migration`.execute(db);
  return new Map(rows.rows.map((r) => [r.name, String(r.timestamp)]));
}
