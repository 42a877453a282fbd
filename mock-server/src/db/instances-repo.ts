// Files and folders. Library roots are created lazily per space and library; every folder keeps names unique
// case-insensitively among its live entries; listing seeks by keyset so deep pages cost what page 1 costs;
// deletion moves a subtree to the recycle bin (nothing vanishes); copies share blobs and are charged.
import { createHmac, timingSafeEqual } from 'node:crypto';
import type { Db } from './database.ts';
import { transaction } from './database.ts';
import { AppError } from '../http/errors.ts';
import { addBlobRefs, newId } from './blobs-repo.ts';
import { addUsage, assertFits, type Space, type SpaceKind } from './quota.ts';
import { extensionOf, fileTypeOf, filterCategory, nameKey, numberedName } from '../files/names.ts';

export interface InstanceRow {
  id: string;
  libCode: string;
  instanceType: string;
  spaceKind: SpaceKind;
  spaceId: string;
  parentId: string | null;
  name: string;
  nameKey: string;
  isFolder: boolean;
  size: number;
  ext: string;
  fileType: string;
  filterCat: number;
  blobId: string | null;
  version: number;
  remark: string;
  createdBy: string;
  createdByName: string;
  createdAt: number;
  updatedAt: number;
  deletedAt: number | null;
  recycleId: string | null;
  sha256: string | null;
}

const SELECT = `SELECT i.id, i.lib_code AS libCode, i.instance_type AS instanceType, i.space_kind AS spaceKind, i.space_id AS spaceId,
  i.parent_id AS parentId, i.name, i.name_key AS nameKey, i.is_folder AS isFolder, i.size, i.ext, i.file_type AS fileType,
  i.filter_cat AS filterCat, i.blob_id AS blobId, i.version, i.remark, i.created_by AS createdBy,
  COALESCE(u.user_name, '') AS createdByName, i.created_at AS createdAt, i.updated_at AS updatedAt,
  i.deleted_at AS deletedAt, i.recycle_id AS recycleId, b.sha256 AS sha256
  FROM instances i LEFT JOIN users u ON u.id = i.created_by LEFT JOIN blobs b ON b.id = i.blob_id`;

function mapRow(r: Record<string, unknown>): InstanceRow {
  return { ...(r as unknown as InstanceRow), isFolder: r.isFolder === 1 };
}

export function getInstanceRow(db: Db, id: string): InstanceRow | undefined {
  const r = db.prepare(`${SELECT} WHERE i.id = ?`).get(id) as Record<string, unknown> | undefined;
  return r ? mapRow(r) : undefined;
}

/** The rows of these ids in any state (live or recycled), in one query; ids with no row are left out. */
export function getInstanceRows(db: Db, ids: readonly string[]): InstanceRow[] {
  if (ids.length === 0) return [];
  const rows = db.prepare(`${SELECT} WHERE i.id IN (${ids.map(() => '?').join(', ')})`).all(...ids) as Record<string, unknown>[];
  return rows.map(mapRow);
}

/** A live (not recycled) instance, or NOT_FOUND. */
export function getLive(db: Db, id: string): InstanceRow {
  const row = getInstanceRow(db, id);
  if (!row || row.deletedAt !== null) throw new AppError('NOT_FOUND', 'no such file or folder');
  return row;
}

export function spaceOf(row: Pick<InstanceRow, 'spaceKind' | 'spaceId'>): Space {
  return { kind: row.spaceKind, id: row.spaceId };
}

const ROOT_NAMES: Record<SpaceKind, string> = { user: 'Personal File', group: 'Group File', dept: 'Department File' };
const INSTANCE_TYPE: Record<SpaceKind, string> = { user: '1', group: '2', dept: '3' };

/** The library root of a space, created on first use. */
export function getOrCreateRoot(db: Db, space: Space, libCode: string, createdBy: string): InstanceRow {
  const find = () =>
    db.prepare('SELECT id FROM instances WHERE space_kind = ? AND space_id = ? AND lib_code = ? AND parent_id IS NULL').get(
      space.kind,
      space.id,
      libCode,
    ) as { id: string } | undefined;
  let found = find();
  if (!found) {
    transaction(db, () => {
      if (find()) return;
      const now = Date.now();
      db.prepare(
        `INSERT INTO instances (id, lib_code, instance_type, space_kind, space_id, parent_id, name, name_key, is_folder, file_type,
          filter_cat, created_by, created_at, updated_at) VALUES (?, ?, ?, ?, ?, NULL, ?, ?, 1, 'Folder', 1, ?, ?, ?)`,
      ).run(newId(), libCode, INSTANCE_TYPE[space.kind], space.kind, space.id, ROOT_NAMES[space.kind], nameKey(ROOT_NAMES[space.kind]), createdBy, now, now);
    });
    found = find()!;
  }
  return getInstanceRow(db, found.id)!;
}

/** Ancestors from the library root down to the parent of `id` (excluding `id`). */
export function ancestorsOf(db: Db, id: string): InstanceRow[] {
  const rows = db
    .prepare(
      `WITH RECURSIVE up(id, parent_id, depth) AS (
         SELECT id, parent_id, 0 FROM instances WHERE id = ?
         UNION ALL SELECT i.id, i.parent_id, up.depth + 1 FROM instances i JOIN up ON i.id = up.parent_id WHERE up.depth < 10000)
       SELECT id FROM up WHERE depth > 0 ORDER BY depth DESC`,
    )
    .all(id) as { id: string }[];
  return rows.map((r) => getInstanceRow(db, r.id)!);
}

/** True when `candidate` is `id` itself or lies anywhere below it. */
export function isSelfOrDescendant(db: Db, id: string, candidate: string): boolean {
  if (id === candidate) return true;
  return ancestorsOf(db, candidate).some((a) => a.id === id);
}

export function nameTaken(db: Db, parentId: string, name: string): { id: string; isFolder: boolean } | undefined {
  const r = db
    .prepare('SELECT id, is_folder AS f FROM instances WHERE parent_id = ? AND name_key = ? AND deleted_at IS NULL')
    .get(parentId, nameKey(name)) as { id: string; f: number } | undefined;
  return r ? { id: r.id, isFolder: r.f === 1 } : undefined;
}

/** The name itself when free, else the first free "name (n).ext". */
export function freeName(db: Db, parentId: string, name: string, isFolder: boolean): string {
  if (!nameTaken(db, parentId, name)) return name;
  for (let n = 1; n < 100000; n++) {
    const candidate = numberedName(name, n, isFolder);
    if (!nameTaken(db, parentId, candidate)) return candidate;
  }
  throw new AppError('CONFLICT', 'no free name left for this entry');
}

function isUniqueViolation(e: unknown): boolean {
  return e instanceof Error && /UNIQUE constraint failed: instances/.test(e.message);
}

function nameExists(name: string): AppError {
  return new AppError('NAME_EXISTS', `"${name}" already exists in this folder`, { fields: [{ field: 'instanceName', message: 'exists' }] });
}

export interface NewInstance {
  parent: InstanceRow;
  name: string;
  isFolder: boolean;
  size?: number;
  blobId?: string | null;
  createdBy: string;
  remark?: string;
}

/** Inserts one entry under a live folder; NAME_EXISTS when the name is taken. */
export function insertInstance(db: Db, n: NewInstance): InstanceRow {
  if (!n.parent.isFolder || n.parent.deletedAt !== null) throw new AppError('NOT_FOUND', 'the target folder does not exist');
  const ext = n.isFolder ? '' : extensionOf(n.name);
  const id = newId();
  const now = Date.now();
  try {
    db.prepare(
      `INSERT INTO instances (id, lib_code, instance_type, space_kind, space_id, parent_id, name, name_key, is_folder, size, ext,
        file_type, filter_cat, blob_id, version, remark, created_by, created_at, updated_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 1, ?, ?, ?, ?)`,
    ).run(
      id, n.parent.libCode, n.parent.instanceType, n.parent.spaceKind, n.parent.spaceId, n.parent.id, n.name, nameKey(n.name),
      n.isFolder ? 1 : 0, n.size ?? 0, ext, fileTypeOf(n.isFolder, ext), filterCategory(n.isFolder, ext), n.blobId ?? null,
      n.remark ?? '', n.createdBy, now, now,
    );
  } catch (e) {
    if (isUniqueViolation(e)) throw nameExists(n.name);
    throw e;
  }
  return getInstanceRow(db, id)!;
}

/** Renames in place; the extension-derived categories follow the new name. */
export function renameInstance(db: Db, row: InstanceRow, name: string): InstanceRow {
  if (row.parentId === null) throw new AppError('FORBIDDEN', 'a library root cannot be renamed');
  const ext = row.isFolder ? '' : extensionOf(name);
  try {
    db.prepare(
      'UPDATE instances SET name = ?, name_key = ?, ext = ?, file_type = ?, filter_cat = ?, updated_at = ? WHERE id = ?',
    ).run(name, nameKey(name), ext, fileTypeOf(row.isFolder, ext), filterCategory(row.isFolder, ext), Date.now(), row.id);
  } catch (e) {
    if (isUniqueViolation(e)) throw nameExists(name);
    throw e;
  }
  return getInstanceRow(db, row.id)!;
}

export function setRemark(db: Db, id: string, remark: string): void {
  db.prepare('UPDATE instances SET remark = ?, updated_at = ? WHERE id = ?').run(remark, Date.now(), id);
}

export type ConflictPolicy = 'rename' | 'fail';

function sameSpace(a: InstanceRow, b: InstanceRow): boolean {
  return a.spaceKind === b.spaceKind && a.spaceId === b.spaceId && a.libCode === b.libCode;
}

/** Moves one entry into a folder of the same space. */
export function moveInstance(db: Db, id: string, targetId: string, conflict: ConflictPolicy): InstanceRow {
  return transaction(db, () => {
    const row = getLive(db, id);
    const target = getLive(db, targetId);
    if (row.parentId === null) throw new AppError('FORBIDDEN', 'a library root cannot be moved');
    if (!target.isFolder) throw new AppError('CONFLICT', 'the target is not a folder');
    if (!sameSpace(row, target)) throw new AppError('CONFLICT', 'moving between spaces is not supported; copy instead');
    if (row.isFolder && isSelfOrDescendant(db, row.id, target.id)) {
      throw new AppError('CONFLICT', 'a folder cannot be moved into itself or one of its sub-folders');
    }
    if (row.parentId === target.id) return row;
    let name = row.name;
    if (nameTaken(db, target.id, name)) {
      if (conflict === 'fail') throw nameExists(name);
      name = freeName(db, target.id, name, row.isFolder);
    }
    db.prepare('UPDATE instances SET parent_id = ?, name = ?, name_key = ?, updated_at = ? WHERE id = ?').run(
      target.id, name, nameKey(name), Date.now(), row.id,
    );
    return getInstanceRow(db, row.id)!;
  });
}

/** Live entries of a subtree (the root included), parents before children. */
export function liveSubtree(db: Db, id: string): { id: string; parentId: string | null; isFolder: boolean; size: number; blobId: string | null }[] {
  return db
    .prepare(
      `WITH RECURSIVE sub(id, depth) AS (
         SELECT id, 0 FROM instances WHERE id = ? AND deleted_at IS NULL
         UNION ALL SELECT i.id, sub.depth + 1 FROM instances i JOIN sub ON i.parent_id = sub.id WHERE i.deleted_at IS NULL)
       SELECT i.id, i.parent_id AS parentId, i.is_folder AS isFolder, i.size, i.blob_id AS blobId
       FROM sub JOIN instances i ON i.id = sub.id ORDER BY sub.depth`,
    )
    .all(id)
    .map((r) => {
      const x = r as { id: string; parentId: string | null; isFolder: number; size: number; blobId: string | null };
      return { ...x, isFolder: x.isFolder === 1 };
    });
}

export function subtreeStats(db: Db, id: string): { files: number; bytes: number } {
  let files = 0;
  let bytes = 0;
  for (const e of liveSubtree(db, id)) {
    if (!e.isFolder) {
      files++;
      bytes += e.size;
    }
  }
  return { files, bytes };
}

/**
 * Copies one entry (a folder with everything below it) into a folder. No bytes move: every file copy
 * references the same blob. The bytes are charged to the target space in the same transaction as the check.
 */
export function copyInstance(db: Db, id: string, targetId: string, conflict: ConflictPolicy, userId: string): InstanceRow {
  return transaction(db, () => {
    const row = getLive(db, id);
    const target = getLive(db, targetId);
    if (row.parentId === null) throw new AppError('FORBIDDEN', 'a library root cannot be copied');
    if (!target.isFolder) throw new AppError('CONFLICT', 'the target is not a folder');
    if (row.isFolder && isSelfOrDescendant(db, row.id, target.id)) {
      throw new AppError('CONFLICT', 'a folder cannot be copied into itself or one of its sub-folders');
    }
    const entries = liveSubtree(db, row.id);
    const bytes = entries.reduce((s, e) => s + (e.isFolder ? 0 : e.size), 0);
    const space = spaceOf(target);
    assertFits(db, space, bytes);
    let name = row.name;
    if (nameTaken(db, target.id, name)) {
      if (conflict === 'fail') throw nameExists(name);
      name = freeName(db, target.id, name, row.isFolder);
    }
    const now = Date.now();
    const newIds = new Map<string, string>();
    const insert = db.prepare(
      `INSERT INTO instances (id, lib_code, instance_type, space_kind, space_id, parent_id, name, name_key, is_folder, size, ext,
         file_type, filter_cat, blob_id, version, remark, created_by, created_at, updated_at)
       SELECT ?, ?, ?, ?, ?, ?, ?, ?, is_folder, size, ext, file_type, filter_cat, blob_id, 1, remark, ?, ?, ? FROM instances WHERE id = ?`,
    );
    for (const e of entries) {
      const nid = newId();
      newIds.set(e.id, nid);
      const isTop = e.id === row.id;
      const parent = isTop ? target.id : newIds.get(e.parentId!)!;
      const src = isTop ? undefined : (db.prepare('SELECT name FROM instances WHERE id = ?').get(e.id) as { name: string });
      const n = isTop ? name : src!.name;
      insert.run(nid, target.libCode, target.instanceType, target.spaceKind, target.spaceId, parent, n, nameKey(n), userId, now, now, e.id);
      if (e.blobId) addBlobRefs(db, e.blobId, 1);
    }
    addUsage(db, space, bytes);
    return getInstanceRow(db, newIds.get(row.id)!)!;
  });
}

/**
 * Moves an entry with its subtree to the recycle bin: one recycle entry for the top, every live row below
 * marked with it. The bytes keep counting (and the blobs stay referenced) until the bin is emptied.
 */
export function deleteToRecycle(db: Db, id: string, userId: string): { recycleId: string; bytes: number } {
  return transaction(db, () => {
    const row = getLive(db, id);
    if (row.parentId === null) throw new AppError('FORBIDDEN', 'a library root cannot be deleted');
    const entries = liveSubtree(db, row.id);
    const bytes = entries.reduce((s, e) => s + (e.isFolder ? 0 : e.size), 0);
    const recycleId = newId();
    const now = Date.now();
    db.prepare(
      `INSERT INTO recycle_entries (id, space_kind, space_id, instance_id, original_parent_id, level, deleted_by, deleted_at, total_bytes)
       VALUES (?, ?, ?, ?, ?, 1, ?, ?, ?)`,
    ).run(recycleId, row.spaceKind, row.spaceId, row.id, row.parentId, userId, now, bytes);
    const mark = db.prepare('UPDATE instances SET deleted_at = ?, recycle_id = ? WHERE id = ? AND deleted_at IS NULL');
    for (const e of entries) mark.run(now, recycleId, e.id);
    return { recycleId, bytes };
  });
}

// ---- listing -------------------------------------------------------------------------------------------

export type SortField = 'instanceName' | 'fSize' | 'createTime' | 'updateTime';
const SORT_COLUMN: Record<SortField, string> = { instanceName: 'name_key', fSize: 'size', createTime: 'created_at', updateTime: 'updated_at' };

export interface ListQuery {
  parentId: string;
  sortField: SortField;
  sortOrder: 'asc' | 'desc';
  fileFilter?: number | undefined;
  keyword?: string | undefined;
  pageNo: number;
  pageSize: number;
  cursor?: string | undefined;
}

export interface ListResult {
  rows: InstanceRow[];
  total: number;
  nextCursor: string | null;
}

interface Position {
  b: 0 | 1; // segment: 1 folders, 0 files
  v: string | number;
  i: string;
}

function contextOf(q: ListQuery): string {
  return JSON.stringify([q.parentId, q.sortField, q.sortOrder, q.fileFilter ?? 0, q.keyword ?? '']);
}

function mac(secret: Buffer, context: string, payload: string): Buffer {
  return createHmac('sha256', secret).update(context).update('\n').update(payload).digest().subarray(0, 16);
}

/** Opaque cursor: the last row's position, signed together with the query it belongs to. */
export function encodeCursor(secret: Buffer, q: ListQuery, row: InstanceRow): string {
  const col = SORT_COLUMN[q.sortField];
  const value = col === 'name_key' ? row.nameKey : col === 'size' ? row.size : col === 'created_at' ? row.createdAt : row.updatedAt;
  // Long names would overflow the 1024-character cursor: those positions are looked up by id instead.
  const pos: Position | { b: 0 | 1; r: string } =
    typeof value === 'string' && value.length > 150 ? { b: row.isFolder ? 1 : 0, r: row.id } : { b: row.isFolder ? 1 : 0, v: value, i: row.id };
  const payload = Buffer.from(JSON.stringify(pos)).toString('base64url');
  return `${payload}.${mac(secret, contextOf(q), payload).toString('base64url')}`;
}

function decodeCursor(db: Db, secret: Buffer, q: ListQuery, cursor: string): Position {
  const bad = () => new AppError('BAD_REQUEST', 'the cursor is invalid or belongs to another listing; start from page 1');
  const [payload, sig] = cursor.split('.');
  if (!payload || !sig) throw bad();
  const expected = mac(secret, contextOf(q), payload);
  const given = Buffer.from(sig, 'base64url');
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) throw bad();
  const pos = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as { b: 0 | 1; v?: string | number; i?: string; r?: string };
  if (pos.r !== undefined) {
    const col = SORT_COLUMN[q.sortField];
    const r = db.prepare(`SELECT ${col} AS v, id FROM instances WHERE id = ?`).get(pos.r) as { v: string | number; id: string } | undefined;
    if (!r) throw new AppError('CONFLICT', 'the listing changed under the cursor; start from page 1');
    return { b: pos.b, v: r.v, i: r.id };
  }
  if (pos.v === undefined || pos.i === undefined) throw bad();
  return { b: pos.b, v: pos.v, i: pos.i };
}

function escapeLike(s: string): string {
  return s.replace(/[\\%_]/g, (c) => '\\' + c);
}

/** Filters shared by the count and the page queries of one segment. */
function segmentWhere(q: ListQuery, isFolder: 0 | 1): { sql: string; args: (string | number)[] } | null {
  const f = q.fileFilter;
  if (f !== undefined && ((f === 1 && isFolder === 0) || (f !== 1 && isFolder === 1))) return null;
  let sql = 'i.parent_id = ? AND i.deleted_at IS NULL AND i.is_folder = ?';
  const args: (string | number)[] = [q.parentId, isFolder];
  if (f !== undefined && f !== 1) {
    sql += ' AND i.filter_cat = ?';
    args.push(f);
  }
  if (q.keyword) {
    sql += " AND i.name_key LIKE ? ESCAPE '\\'";
    args.push(`%${escapeLike(nameKey(q.keyword))}%`);
  }
  return { sql, args };
}

function segmentCount(db: Db, q: ListQuery, seg: 0 | 1): number {
  const w = segmentWhere(q, seg);
  if (!w) return 0;
  return (db.prepare(`SELECT COUNT(*) AS c FROM instances i WHERE ${w.sql}`).get(...w.args) as { c: number }).c;
}

export function countChildren(db: Db, q: ListQuery): number {
  return segmentCount(db, q, 1) + segmentCount(db, q, 0);
}

/** The SQL of one page segment; exported so tests can EXPLAIN it. */
export function segmentQuery(q: ListQuery, seg: 0 | 1, after: Position | undefined, limit: number, offset: number) {
  const w = segmentWhere(q, seg);
  if (!w) return null;
  const col = `i.${SORT_COLUMN[q.sortField]}`;
  const dir = q.sortOrder === 'desc' ? 'DESC' : 'ASC';
  let sql = w.sql;
  const args = [...w.args];
  if (after) {
    sql += ` AND (${col}, i.id) ${dir === 'ASC' ? '>' : '<'} (?, ?)`;
    args.push(after.v, after.i);
  }
  return {
    sql: `${SELECT} WHERE ${sql} ORDER BY ${col} ${dir}, i.id ${dir} LIMIT ? OFFSET ?`,
    args: [...args, limit, offset],
  };
}

/**
 * One page of a folder: folders first, then files, each ordered by the sort column with the id as
 * tie-breaker. With a cursor each segment seeks through its index; without one pageNo is an offset.
 */
export function listChildren(db: Db, secret: Buffer, q: ListQuery): ListResult {
  const want = q.pageSize + 1;
  const rows: InstanceRow[] = [];
  const after: Position | undefined = q.cursor ? decodeCursor(db, secret, q, q.cursor) : undefined;
  let offset = after ? 0 : (q.pageNo - 1) * q.pageSize;
  for (const seg of [1, 0] as const) {
    if (rows.length >= want) break;
    if (after && seg === 1 && after.b === 0) continue; // the cursor is already in the files segment
    const segAfter = after && after.b === seg ? after : undefined;
    if (!segAfter && offset > 0 && seg === 1) {
      const folders = segmentCount(db, q, 1);
      if (offset >= folders) {
        offset -= folders;
        continue;
      }
    }
    const sq = segmentQuery(q, seg, segAfter, want - rows.length, segAfter ? 0 : offset);
    if (!sq) continue;
    offset = 0;
    for (const r of db.prepare(sq.sql).all(...sq.args)) rows.push(mapRow(r as Record<string, unknown>));
  }
  const more = rows.length > q.pageSize;
  if (more) rows.length = q.pageSize;
  const last = rows[rows.length - 1];
  return { rows, total: countChildren(db, q), nextCursor: more && last ? encodeCursor(secret, q, last) : null };
}

/** Sub-folders of a folder in name order (folder picker). */
export function listSubfolders(db: Db, parentId: string, limit = 5000): (InstanceRow & { hasSubfolders: boolean })[] {
  const rows = db
    .prepare(`${SELECT} WHERE i.parent_id = ? AND i.deleted_at IS NULL AND i.is_folder = 1 ORDER BY i.name_key, i.id LIMIT ?`)
    .all(parentId, limit)
    .map((r) => mapRow(r as Record<string, unknown>));
  const has = db.prepare('SELECT 1 FROM instances WHERE parent_id = ? AND deleted_at IS NULL AND is_folder = 1 LIMIT 1');
  return rows.map((r) => ({ ...r, hasSubfolders: has.get(r.id) !== undefined }));
}

/** Children after a position in walk order (folders first, then name, then id): for streaming walks. */
export function childrenAfter(db: Db, parentId: string, after: { isFolder: boolean; nameKey: string; id: string } | undefined, limit: number): InstanceRow[] {
  const q: ListQuery = { parentId, sortField: 'instanceName', sortOrder: 'asc', pageNo: 1, pageSize: limit };
  const out: InstanceRow[] = [];
  for (const seg of [1, 0] as const) {
    if (out.length >= limit) break;
    if (after && seg === 1 && !after.isFolder) continue;
    const pos = after && (after.isFolder ? 1 : 0) === seg ? { b: seg, v: after.nameKey, i: after.id } : undefined;
    const sq = segmentQuery(q, seg, pos, limit - out.length, 0)!;
    for (const r of db.prepare(sq.sql).all(...sq.args)) out.push(mapRow(r as Record<string, unknown>));
  }
  return out;
}

/** Next entry of a pre-order walk of the subtree under `rootId`, after `lastId` (undefined: the first). */
export function nextInWalk(db: Db, rootId: string, lastId: string | undefined): InstanceRow | undefined {
  if (lastId === undefined) return childrenAfter(db, rootId, undefined, 1)[0];
  const last = getInstanceRow(db, lastId);
  if (!last) throw new AppError('CONFLICT', 'the folder changed during the walk; start again');
  if (last.isFolder && last.deletedAt === null) {
    const first = childrenAfter(db, last.id, undefined, 1)[0];
    if (first) return first;
  }
  // Climb: the next sibling of the entry, else of its parent, up to the walk's root.
  let cur: InstanceRow = last;
  while (cur.parentId !== null && cur.id !== rootId) {
    const sib = childrenAfter(db, cur.parentId, { isFolder: cur.isFolder, nameKey: cur.nameKey, id: cur.id }, 1)[0];
    if (sib) return sib;
    if (cur.parentId === rootId) return undefined;
    cur = getInstanceRow(db, cur.parentId)!;
  }
  return undefined;
}
