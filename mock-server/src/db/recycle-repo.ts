// The recycle bins. An entry (recycle_entries) is what was deleted in one go: its top instance and every row that was
// live below it, all marked with the entry's id (instances.recycle_id). Level 1 is the space's own bin; an entry
// deleted for good there (purge, empty, retention) moves to level 2, the administrators' second-level bin, and stops
// counting against the space's quota; only deleting it at level 2 removes its rows, and the stored bytes go once no
// file, version or entry references the blob any more (blob reference counts, collectBlob).
//
// Entries nest: a file deleted before its folder is an entry of its own whose top row still sits under the folder's
// (recycled) row. Each entry restores and purges on its own; when an enclosing entry's rows are removed for good, the
// nested tops are first hung under the library root so they survive, and a restore finds their place again by
// original_path, recreating the folders by name.
import { sql } from 'kysely';
import type { Db } from './sql/tx.ts';
import { atomically } from './sql/tx.ts';
import { AppError } from '../http/errors.ts';
import { dropBlobRefs, collectBlob, type BlobStorage } from './blobs-repo.ts';
import { addUsage, assertFits, type Space, type SpaceKind } from './quota.ts';
import {
  deleteToRecycle, freeName, getInstanceRow, getOrCreateRoot, insertInstance, lockFolders, nameTaken, recountChildren, type InstanceRow,
} from './instances-repo.ts';
import { nameKey } from '../files/names.ts';

export type RecycleLevel = 1 | 2;
export type RestoreConflict = 'keepBoth' | 'replace';
export type RecycleSort = 'instanceName' | 'fSize' | 'deleteTime' | 'purgeTime';

export interface RecycleEntry {
  id: string;
  instanceId: string;
  spaceKind: SpaceKind;
  spaceId: string;
  level: RecycleLevel;
  originalParentId: string | null;
  originalPath: string;
  deletedBy: string;
  deletedByName: string;
  deletedAt: number;
  purgedAt: number | null;
  totalBytes: number;
  name: string;
  isFolder: boolean;
  ext: string;
  fileType: InstanceRow['fileType'];
  libCode: string;
  instanceType: string;
  ownerName: string;
}

interface RawEntry {
  id: string;
  instance_id: string;
  space_kind: SpaceKind;
  space_id: string;
  level: number;
  original_parent_id: string | null;
  original_path: string;
  deleted_by: string;
  deleted_by_name: string | null;
  deleted_at: number;
  purged_at: number | null;
  total_bytes: number;
  name: string;
  is_folder: number;
  ext: string;
  file_type: InstanceRow['fileType'];
  lib_code: string;
  instance_type: string;
  owner_name: string | null;
}

const ENTRY_SQL = sql.raw(
  'r.id, r.instance_id, r.space_kind, r.space_id, r.level, r.original_parent_id, r.original_path, r.deleted_by, r.deleted_at, ' +
    'r.purged_at, r.total_bytes, i.name, i.is_folder, i.ext, i.file_type, i.lib_code, i.instance_type, ' +
    '(select u.user_name from users u where u.id = r.deleted_by) as deleted_by_name, ' +
    "(case r.space_kind when 'user' then (select u.user_name from users u where u.id = r.space_id) " +
    "when 'group' then (select g.name from groups g where g.id = r.space_id) " +
    'else (select d.name from departments d where d.id = r.space_id) end) as owner_name',
);

function mapEntry(r: RawEntry): RecycleEntry {
  return {
    id: r.id,
    instanceId: r.instance_id,
    spaceKind: r.space_kind,
    spaceId: r.space_id,
    level: r.level === 2 ? 2 : 1,
    originalParentId: r.original_parent_id,
    originalPath: r.original_path,
    deletedBy: r.deleted_by,
    deletedByName: r.deleted_by_name ?? '',
    deletedAt: Number(r.deleted_at),
    purgedAt: r.level === 2 ? Number(r.purged_at ?? r.deleted_at) : null,
    totalBytes: Number(r.total_bytes),
    name: r.name,
    isFolder: r.is_folder === 1,
    ext: r.ext,
    fileType: r.file_type,
    libCode: r.lib_code,
    instanceType: r.instance_type,
    ownerName: r.owner_name ?? '',
  };
}

/**
 * When an entry reached the second-level bin; an entry put there without that time (a purged account's, by
 * purge-user.ts) counts from its deletion.
 */
const PURGED_AT = 'coalesce(r.purged_at, r.deleted_at)';

const SORT_COLUMN: Record<RecycleSort, string> = { instanceName: 'i.name_key', fSize: 'r.total_bytes', deleteTime: 'r.deleted_at', purgeTime: PURGED_AT };

function escapeLike(s: string): string {
  return s.replace(/[\\%_]/g, (c) => '\\' + c);
}

export interface RecycleQuery {
  /** One space's bin; undefined = every space (the second-level bin). */
  space?: Space;
  level: RecycleLevel;
  keyword?: string | undefined;
  sortField: RecycleSort;
  sortOrder: 'asc' | 'desc';
  pageNo: number;
  pageSize: number;
  /**
   * Also the entries that dissolving groups put away, for the account that dissolved them: they sit in the
   * second-level bin (dissolving deletes at or after the group's dissolved_at, the only deletions it has then).
   */
  dissolvedBy?: string;
}

/** A page of a bin with its total. Bins are paged by offset: they hold what was deleted, not a folder's millions. */
export async function listRecycle(db: Db, q: RecycleQuery): Promise<{ rows: RecycleEntry[]; total: number }> {
  const bin = q.space ? sql`r.level = ${q.level} and r.space_kind = ${q.space.kind} and r.space_id = ${q.space.id}` : sql`r.level = ${q.level}`;
  const where = [
    q.dissolvedBy === undefined
      ? bin
      : sql`((${bin}) or (r.level = 2 and r.space_kind = 'group' and r.deleted_by = ${q.dissolvedBy}
          and exists (select 1 from groups g where g.id = r.space_id and g.dissolved_at is not null and r.deleted_at >= g.dissolved_at)))`,
  ];
  if (q.keyword) where.push(sql`i.name_key like ${`%${escapeLike(nameKey(q.keyword))}%`} escape '\\'`);
  const filter = sql.join(where, sql` and `);
  // Both from fixed lists, never from the request's text.
  const col = sql.raw(SORT_COLUMN[q.sortField]);
  const dir = sql.raw(q.sortOrder === 'desc' ? 'desc' : 'asc');
  const rows = await sql<RawEntry>`select ${ENTRY_SQL} from recycle_entries r join instances i on i.id = r.instance_id
    where ${filter} order by ${col} ${dir}, r.id ${dir} limit ${q.pageSize} offset ${(q.pageNo - 1) * q.pageSize}`.execute(db);
  const count = await sql<{ c: number }>`select count(*) as c from recycle_entries r join instances i on i.id = r.instance_id where ${filter}`.execute(db);
  return { rows: rows.rows.map(mapEntry), total: Number(count.rows[0]?.c ?? 0) };
}

/** The entry whose top is this instance, at this level (undefined: not the top of such an entry). */
export async function entryOfInstance(db: Db, instanceId: string, level: RecycleLevel): Promise<RecycleEntry | undefined> {
  const r = await sql<RawEntry>`select ${ENTRY_SQL} from recycle_entries r join instances i on i.id = r.instance_id
    where r.instance_id = ${instanceId} and r.level = ${level}`.execute(db);
  const row = r.rows[0];
  return row ? mapEntry(row) : undefined;
}

/**
 * A top item that dissolving a group put away, when `userId` dissolved it: its second-level entry (issue #15: the
 * dissolver finds these in their own bin and may restore them; restoring hands them to the dissolver).
 */
export async function putAwayEntry(db: Db, instanceId: string, userId: string): Promise<RecycleEntry | undefined> {
  const r = await sql<RawEntry>`select ${ENTRY_SQL} from recycle_entries r join instances i on i.id = r.instance_id
    join groups g on g.id = r.space_id
    where r.instance_id = ${instanceId} and r.level = 2 and r.space_kind = 'group' and r.deleted_by = ${userId}
      and g.dissolved_at is not null and r.deleted_at >= g.dissolved_at`.execute(db);
  const row = r.rows[0];
  return row ? mapEntry(row) : undefined;
}

/** Of these items, the tops of entries that dissolving a group put away and `userId` dissolved (the access gate's fact). */
export async function putAwayAmong(db: Db, instanceIds: readonly string[], userId: string): Promise<Set<string>> {
  if (instanceIds.length === 0) return new Set();
  const r = await sql<{ instance_id: string }>`select r.instance_id from recycle_entries r join groups g on g.id = r.space_id
    where r.instance_id in (${sql.join([...instanceIds])}) and r.level = 2 and r.space_kind = 'group' and r.deleted_by = ${userId}
      and g.dissolved_at is not null and r.deleted_at >= g.dissolved_at`.execute(db);
  return new Set(r.rows.map((x) => x.instance_id));
}

/** The entry a recycled row belongs to (its own, or the folder's it was deleted with). */
export async function entryOfRow(db: Db, row: Pick<InstanceRow, 'recycleId'>): Promise<RecycleEntry | undefined> {
  if (row.recycleId === null) return undefined;
  const r = await sql<RawEntry>`select ${ENTRY_SQL} from recycle_entries r join instances i on i.id = r.instance_id where r.id = ${row.recycleId}`.execute(db);
  const found = r.rows[0];
  return found ? mapEntry(found) : undefined;
}

/** Every entry of a level (one space's, or all), oldest first, at most `limit`: emptying and retention work in batches. */
export async function entriesOf(db: Db, level: RecycleLevel, opts: { space?: Space; before?: number; limit: number }): Promise<RecycleEntry[]> {
  const where = [sql`r.level = ${level}`];
  if (opts.space) where.push(sql`r.space_kind = ${opts.space.kind} and r.space_id = ${opts.space.id}`);
  const at = sql.raw(level === 1 ? 'r.deleted_at' : PURGED_AT);
  if (opts.before !== undefined) where.push(sql`${at} < ${opts.before}`);
  const r = await sql<RawEntry>`select ${ENTRY_SQL} from recycle_entries r join instances i on i.id = r.instance_id
    where ${sql.join(where, sql` and `)} order by ${at}, r.id limit ${opts.limit}`.execute(db);
  return r.rows.map(mapEntry);
}

/** Bytes an entry holds against its space's quota: its files and their history versions. */
export async function entryBytes(db: Db, entryId: string): Promise<number> {
  const r = await sql<{ b: number | null }>`select
      coalesce((select sum(size) from instances where recycle_id = ${entryId} and is_folder = 0), 0) +
      coalesce((select sum(v.size) from file_versions v join instances i on i.id = v.instance_id where i.recycle_id = ${entryId}), 0) as b`.execute(db);
  return Number(r.rows[0]?.b ?? 0);
}

/**
 * Moves a level-1 entry to the second-level bin: it leaves the space's bin and its bytes stop counting at once.
 * NOT_FOUND when it is no longer a level-1 entry (restored or purged meanwhile). Returns the bytes freed.
 */
export async function moveToSecondLevel(db: Db, entryId: string, now = Date.now()): Promise<number> {
  return atomically(db, async (trx) => {
    const r = await trx.updateTable('recycle_entries').set({ level: 2, purged_at: now }).where('id', '=', entryId).where('level', '=', 1)
      .returning(['space_kind', 'space_id']).executeTakeFirst();
    if (!r) throw new AppError('NOT_FOUND', 'not in the recycle bin');
    const bytes = await entryBytes(trx, entryId);
    await addUsage(trx, { kind: r.space_kind as SpaceKind, id: r.space_id }, -bytes);
    return bytes;
  });
}

/** The live folder an entry goes back to: where it was, or its original path recreated from the library root. */
async function restoreTarget(db: Db, e: RecycleEntry, userId: string): Promise<InstanceRow> {
  if (e.originalParentId !== null) {
    const parent = await getInstanceRow(db, e.originalParentId);
    if (parent && parent.deletedAt === null && parent.isFolder) return parent;
  }
  let at = await getOrCreateRoot(db, { kind: e.spaceKind, id: e.spaceId }, e.libCode, userId);
  for (const name of e.originalPath.split('/').filter(Boolean)) {
    const taken = await nameTaken(db, at.id, name);
    // A file now holding a folder's name keeps it; the recreated folder is "name (1)".
    at = taken?.isFolder
      ? (await getInstanceRow(db, taken.id))!
      : await insertInstance(db, { parent: at, name, isFolder: true, createdBy: userId, conflict: 'rename' });
  }
  return at;
}

/** The group's name when it is dissolved; undefined for a live group. */
async function dissolvedGroupName(db: Db, groupId: string): Promise<string | undefined> {
  const g = await db.selectFrom('groups').select(['name', 'dissolved_at']).where('id', '=', groupId).executeTakeFirst();
  return g && g.dissolved_at !== null ? g.name : undefined;
}

/** The folder named after a dissolved group in the user's own files (made on first use; a file of that name keeps it). */
async function groupFolderOf(db: Db, userId: string, groupName: string): Promise<InstanceRow> {
  const root = await getOrCreateRoot(db, { kind: 'user', id: userId }, 'NetDisk', userId);
  const taken = await nameTaken(db, root.id, groupName);
  if (taken?.isFolder) return (await getInstanceRow(db, taken.id))!;
  return insertInstance(db, { parent: root, name: groupName, isFolder: true, createdBy: userId, conflict: 'rename' });
}

/** The user, group or department a space belongs to still exists. */
async function ownerExists(db: Db, space: Space): Promise<boolean> {
  const table = ({ user: 'users', group: 'groups', dept: 'departments' } as const)[space.kind];
  return (await db.selectFrom(table).select('id').where('id', '=', space.id).executeTakeFirst()) !== undefined;
}

function nameExists(name: string): AppError {
  return new AppError('NAME_EXISTS', `"${name}" already exists in the folder it is restored to`, { fields: [{ field: 'instanceName', message: 'exists' }] });
}

/**
 * Puts an entry back where it was deleted from, with every row deleted with it. A taken name fails with NAME_EXISTS
 * unless `conflict` says keep both ("name (n).ext") or replace (the holder goes to the bin). An entry of the
 * second-level bin counts against its space again (`charge`), unchecked: an administrator's restore is not refused
 * for space. Returns the restored top.
 */
export async function restoreEntry(
  db: Db, e: RecycleEntry, conflict: RestoreConflict | undefined, userId: string, opts: { checkSpace?: boolean } = {},
): Promise<InstanceRow> {
  return atomically(db, async (trx) => {
    // The entry row first: two restores of one entry queue here (PostgreSQL), and the second finds it gone.
    const still = await trx.deleteFrom('recycle_entries').where('id', '=', e.id).where('level', '=', e.level).returning('id').executeTakeFirst();
    if (!still) throw new AppError('NOT_FOUND', 'not in the recycle bin');
    // A purged account's files stay in the second-level bin until deleted there; there is no one to give them back to.
    if (!(await ownerExists(trx, { kind: e.spaceKind, id: e.spaceId }))) throw new AppError('CONFLICT', 'the owner of this entry no longer exists');
    // A dissolved group's space reaches nobody: what dissolving put away goes back to the one who dissolved it, into
    // a folder named after the group in their own files, and counts against their space from then on.
    const dissolved = e.spaceKind === 'group' ? await dissolvedGroupName(trx, e.spaceId) : undefined;
    const heir: Space | undefined = dissolved === undefined ? undefined : { kind: 'user', id: e.deletedBy };
    if (heir && !(await ownerExists(trx, heir))) throw new AppError('CONFLICT', 'the account that dissolved the group no longer exists');
    if (e.level === 2 || heir) {
      const space = heir ?? { kind: e.spaceKind, id: e.spaceId };
      const bytes = await entryBytes(trx, e.id);
      // A user taking back from their own bin what no longer counts against them needs the room for it.
      if (opts.checkSpace) await assertFits(trx, space, bytes);
      await addUsage(trx, space, bytes);
    }
    if (heir) {
      await trx.updateTable('instances').set({ space_kind: 'user', space_id: heir.id, lib_code: 'NetDisk', instance_type: '1' }).where('recycle_id', '=', e.id).execute();
    }
    const parent = heir ? await groupFolderOf(trx, heir.id, dissolved!) : await restoreTarget(trx, e, userId);
    await lockFolders(trx, [parent.id]);
    let name = e.name;
    const taken = await nameTaken(trx, parent.id, name);
    if (taken) {
      if (conflict === undefined) throw nameExists(name);
      if (conflict === 'keepBoth') name = await freeName(trx, parent.id, name, e.isFolder);
      else await deleteToRecycle(trx, taken.id, userId);
    }
    const now = Date.now();
    await trx
      .updateTable('instances')
      .set({ parent_id: parent.id, name, name_key: nameKey(name), deleted_at: null, recycle_id: null, updated_at: now })
      .where('id', '=', e.instanceId)
      .execute();
    await trx.updateTable('instances').set({ deleted_at: null, recycle_id: null }).where('recycle_id', '=', e.id).execute();
    // The restored folders' counts (0 while in the bin) and the parent's, from their rows.
    const folders = await sql<{ id: string }>`
      with recursive sub(id, depth) as (
        select id, 0 from instances where id = ${e.instanceId}
        union all
        select c.id, sub.depth + 1 from instances c join sub on c.parent_id = sub.id where c.deleted_at is null and c.is_folder = 1 and sub.depth < 10000
      )
      select id from sub`.execute(trx);
    await recountChildren(trx, [parent.id, ...folders.rows.map((f) => f.id)]);
    return (await getInstanceRow(trx, e.instanceId))!;
  });
}

/**
 * Deletes a second-level entry for good: its rows and their history versions, dropping the references they held.
 * Returns the blobs no longer referenced (collect them after the transaction commits) and the bytes it held.
 */
async function removeEntryRows(db: Db, e: RecycleEntry): Promise<{ garbage: string[]; bytes: number }> {
  return atomically(db, async (trx) => {
    const gone = await trx.deleteFrom('recycle_entries').where('id', '=', e.id).where('level', '=', 2).returning('id').executeTakeFirst();
    if (!gone) throw new AppError('NOT_FOUND', 'not in the second-level recycle bin');
    const bytes = await entryBytes(trx, e.id);
    // Entries deleted earlier from inside this one keep their rows: hung under the library root (restore finds their
    // place by original_path), so the cascade of parent_id does not take them.
    const nested = await sql<{ id: string }>`select id from instances
      where recycle_id is not null and recycle_id <> ${e.id} and parent_id in (select id from instances where recycle_id = ${e.id})`.execute(trx);
    if (nested.rows.length > 0) {
      const root = await getOrCreateRoot(trx, { kind: e.spaceKind, id: e.spaceId }, e.libCode, e.deletedBy);
      await trx.updateTable('instances').set({ parent_id: root.id }).where('id', 'in', nested.rows.map((n) => n.id)).execute();
    }
    const refs = await sql<{ blob_id: string; sha256: string; n: number }>`
      select x.blob_id, b.sha256, count(*) as n from (
        select blob_id from instances where recycle_id = ${e.id} and blob_id is not null
        union all
        select v.blob_id from file_versions v join instances i on i.id = v.instance_id where i.recycle_id = ${e.id}
      ) x join blobs b on b.id = x.blob_id group by x.blob_id, b.sha256`.execute(trx);
    await trx.deleteFrom('file_versions').where('instance_id', 'in', (eb) => eb.selectFrom('instances').select('id').where('recycle_id', '=', e.id)).execute();
    await trx.deleteFrom('instances').where('recycle_id', '=', e.id).execute();
    const garbage: string[] = [];
    for (const r of refs.rows) if ((await dropBlobRefs(trx, r.blob_id, Number(r.n))) === 0) garbage.push(r.sha256);
    return { garbage, bytes };
  });
}

/** removeEntryRows, then the stored bytes of blobs nothing references any more. */
export async function deleteEntry(db: Db, store: BlobStorage, e: RecycleEntry): Promise<number> {
  const { garbage, bytes } = await removeEntryRows(db, e);
  for (const sha of garbage) await collectBlob(db, store, sha);
  return bytes;
}
