// Files and folders. Library roots are created lazily per space and library; every folder keeps names unique
// case-insensitively among its live entries (the unique index instances_unique_name, whatever the database);
// listing seeks by keyset so deep pages cost what page 1 costs, and its total comes from the folder's own child
// counts, never from counting its rows; deletion moves a subtree to the recycle bin (nothing vanishes); copies
// share blobs and are charged.
//
// Child counts (child_folders, child_files: the live children of a folder) are changed in the transaction of
// every change, and a change to a folder's children updates that folder's row first: on PostgreSQL this locks it,
// so concurrent changes of one folder's children queue there and each sees the names the others filed (a "name
// (1).ext" picked by one is never picked again by another). Rows are locked in one order everywhere: the space
// row (quota) before folder rows, and folder rows in id order, so two transactions never wait for each other.
//
// Subtrees and ancestors are read with one recursive query each, never one query per row or level: on PostgreSQL
// every query is a network round trip.
import { sql, type RawBuilder } from 'kysely';
import type { Db } from './sql/tx.ts';
import { atomically, dialectOf } from './sql/tx.ts';
import { asNameExists } from './sql/errors.ts';
import { shapedStatement } from './sql/shaped.ts';
import { AppError } from '../http/errors.ts';
import { addBlobRefsBulk } from './blobs-repo.ts';
import { newId } from '../ids.ts';
import { addUsage, assertFits, type Space, type SpaceKind } from './quota.ts';
import { extensionOf, fileTypeOf, filterCategory, nameKey, numberedName, type FileTypeCategory } from '../files/names.ts';

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
  fileType: FileTypeCategory;
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
  /** Where the content is stored and its size (from the blob row; null when the file has no content). */
  objectKey: string | null;
  blobSize: number | null;
  /** Live child folders and files (folders only; 0 for files). */
  childFolders: number;
  childFiles: number;
}

/** An instance row as the queries below select it (snake_case: PostgreSQL folds unquoted aliases to lower case). */
interface RawRow {
  id: string;
  lib_code: string;
  instance_type: string;
  space_kind: SpaceKind;
  space_id: string;
  parent_id: string | null;
  name: string;
  name_key: string;
  is_folder: number;
  size: number;
  ext: string;
  file_type: FileTypeCategory;
  filter_cat: number;
  blob_id: string | null;
  version: number;
  remark: string;
  created_by: string;
  created_by_name: string | null;
  created_at: number;
  updated_at: number;
  deleted_at: number | null;
  recycle_id: string | null;
  sha256: string | null;
  object_key: string | null;
  blob_size: number | null;
  child_folders: number;
  child_files: number;
}

const INSTANCE_COLUMNS = [
  'id', 'lib_code', 'instance_type', 'space_kind', 'space_id', 'parent_id', 'name', 'name_key', 'is_folder', 'size', 'ext', 'file_type',
  'filter_cat', 'blob_id', 'version', 'remark', 'created_by', 'created_at', 'updated_at', 'deleted_at', 'recycle_id', 'child_folders',
  'child_files',
] as const;

/**
 * The select list of a row of `instances i` with its creator's name and its content. The extras are scalar
 * subqueries on primary keys rather than joins, so a query's ORDER BY and LIMIT apply to the instances index scan
 * itself on both databases: a page reads its 51 index entries whatever the planner estimates.
 *
 * Row queries are written as SQL text rather than with the query builder: they run on every request (a listing runs
 * three), and building and compiling a builder query costs more CPU than SQLite takes to run it.
 */
const ROW_SQL = sql.raw(
  `${INSTANCE_COLUMNS.map((c) => `i.${c}`).join(', ')}, ` +
    '(select u.user_name from users u where u.id = i.created_by) as created_by_name, ' +
    '(select b.sha256 from blobs b where b.id = i.blob_id) as sha256, ' +
    '(select b.object_key from blobs b where b.id = i.blob_id) as object_key, ' +
    '(select b.size from blobs b where b.id = i.blob_id) as blob_size',
);

function mapRow(r: RawRow): InstanceRow {
  return {
    id: r.id,
    libCode: r.lib_code,
    instanceType: r.instance_type,
    spaceKind: r.space_kind,
    spaceId: r.space_id,
    parentId: r.parent_id,
    name: r.name,
    nameKey: r.name_key,
    isFolder: r.is_folder === 1,
    size: r.size,
    ext: r.ext,
    fileType: r.file_type,
    filterCat: r.filter_cat,
    blobId: r.blob_id,
    version: r.version,
    remark: r.remark,
    createdBy: r.created_by,
    createdByName: r.created_by_name ?? '',
    createdAt: r.created_at,
    updatedAt: r.updated_at,
    deletedAt: r.deleted_at,
    recycleId: r.recycle_id,
    sha256: r.sha256,
    objectKey: r.object_key,
    blobSize: r.blob_size,
    childFolders: r.child_folders,
    childFiles: r.child_files,
  };
}

async function many(q: RawBuilder<RawRow>, db: Db): Promise<InstanceRow[]> {
  return (await q.execute(db)).rows.map(mapRow);
}

export async function getInstanceRow(db: Db, id: string): Promise<InstanceRow | undefined> {
  return (await many(sql<RawRow>`select ${ROW_SQL} from instances i where i.id = ${id}`, db))[0];
}

/**
 * An instance with its ancestors from the library root down, in one query: what a listing needs to check access and
 * name the breadcrumbs. Undefined when there is no such row. (Reading the page in the same statement, as a union,
 * was measured: it cost both databases more than the separate page query it saved.)
 */
export async function getWithAncestors(db: Db, id: string): Promise<{ row: InstanceRow; ancestors: InstanceRow[] } | undefined> {
  const r = await sql<RawRow>`
    with recursive up(id, parent_id, depth) as (
      select id, parent_id, 0 from instances where id = ${id}
      union all
      select p.id, p.parent_id, up.depth + 1 from instances p join up on p.id = up.parent_id where up.depth < ${MAX_DEPTH}
    )
    select ${ROW_SQL} from up join instances i on i.id = up.id order by up.depth desc`.execute(db);
  const chain = r.rows.map(mapRow);
  const row = chain.pop();
  return row && row.id === id ? { row, ancestors: chain } : undefined;
}

/** The rows of these ids in any state (live or recycled), in one query; ids with no row are left out. */
export async function getInstanceRows(db: Db, ids: readonly string[]): Promise<InstanceRow[]> {
  if (ids.length === 0) return [];
  return many(sql<RawRow>`select ${ROW_SQL} from instances i where i.id in (${sql.join(ids)})`, db);
}

/**
 * The rows of these ids (any state) and of all their ancestors, deduplicated, in one query: what the access gate
 * needs to decide along each item's path, and what a listing needs for its breadcrumbs. Ids with no row are left
 * out; chainOf assembles one id's path from the map.
 */
export async function getInstanceChains(db: Db, ids: readonly string[]): Promise<Map<string, InstanceRow>> {
  if (ids.length === 0) return new Map();
  // Its text depends only on how many ids it names (the access gate's read before almost every call: one).
  const { rows } = await chainStatement.execute(db, String(ids.length), undefined, ...ids);
  return new Map(rows.map((r) => [r.id, mapRow(r)]));
}

const chainStatement = shapedStatement((_: undefined, ...ids: string[]) =>
  sql<RawRow>`${chainWalk(ids)} select ${ROW_SQL} from instances i where i.id in (select id from up)`);

/**
 * `up(id)`: the ids and all their ancestors' ids. UNION (not UNION ALL) drops the ancestors that several ids share,
 * and ends the walk even on a corrupt cycle.
 */
function chainWalk(ids: readonly string[]): RawBuilder<unknown> {
  return sql`with recursive up(id) as (
      select id from instances where id in (${sql.join(ids)})
      union
      select i.parent_id from instances i join up on i.id = up.id where i.parent_id is not null
    )`;
}

/** One id's row and its ancestors from the root down, from a map of getInstanceChains; undefined if a link is missing. */
export function chainOf(rows: ReadonlyMap<string, InstanceRow>, id: string): { row: InstanceRow; ancestors: InstanceRow[] } | undefined {
  const row = rows.get(id);
  if (!row) return undefined;
  const ancestors: InstanceRow[] = [];
  for (let at = row.parentId; at !== null; ) {
    const up = rows.get(at);
    if (!up || ancestors.length > MAX_DEPTH) return undefined;
    ancestors.push(up);
    at = up.parentId;
  }
  return { row, ancestors: ancestors.reverse() };
}

/** A live (not recycled) instance, or NOT_FOUND. */
export async function getLive(db: Db, id: string): Promise<InstanceRow> {
  const row = await getInstanceRow(db, id);
  if (!row || row.deletedAt !== null) throw new AppError('NOT_FOUND', 'no such file or folder');
  return row;
}

export function spaceOf(row: Pick<InstanceRow, 'spaceKind' | 'spaceId'>): Space {
  return { kind: row.spaceKind, id: row.spaceId };
}

const ROOT_NAMES: Record<SpaceKind, string> = { user: 'Personal File', group: 'Group File', dept: 'Department File' };
const INSTANCE_TYPE: Record<SpaceKind, string> = { user: '1', group: '2', dept: '3' };

async function findRoot(db: Db, space: Space, libCode: string): Promise<InstanceRow | undefined> {
  const q = sql<RawRow>`select ${ROW_SQL} from instances i
    where i.space_kind = ${space.kind} and i.space_id = ${space.id} and i.lib_code = ${libCode} and i.parent_id is null`;
  return (await many(q, db))[0];
}

/** The library root of a space, created on first use (once, whichever node gets there first: a unique index). */
export async function getOrCreateRoot(db: Db, space: Space, libCode: string, createdBy: string): Promise<InstanceRow> {
  const found = await findRoot(db, space, libCode);
  if (found) return found;
  const now = Date.now();
  await db
    .insertInto('instances')
    .values({
      id: newId(),
      lib_code: libCode,
      instance_type: INSTANCE_TYPE[space.kind],
      space_kind: space.kind,
      space_id: space.id,
      parent_id: null,
      name: ROOT_NAMES[space.kind],
      name_key: nameKey(ROOT_NAMES[space.kind]),
      is_folder: 1,
      file_type: 'Folder',
      filter_cat: 1,
      created_by: createdBy,
      created_at: now,
      updated_at: now,
    })
    // The conflict target is the partial unique index instances_one_root.
    .onConflict((oc) => oc.columns(['space_kind', 'space_id', 'lib_code']).where('parent_id', 'is', null).doNothing())
    .execute();
  const root = await findRoot(db, space, libCode);
  if (!root) throw new Error('the library root vanished right after it was created');
  return root;
}

/** Recursion guard for the tree queries: no real tree is this deep, a corrupted one (a cycle) must not hang. */
const MAX_DEPTH = 10000;

/** Ancestors from the library root down to the parent of `id` (excluding `id`), in one query. */
export async function ancestorsOf(db: Db, id: string): Promise<InstanceRow[]> {
  // CROSS JOIN keeps the few ancestors as SQLite's outer loop; left to choose, it scanned every instance per call
  // (4 ms a call at 21,000 rows, measured by the search benchmark, where each hit's parent path is read).
  // PostgreSQL has no CROSS JOIN ... ON (a syntax error): a plain join there.
  const join = sql.raw(dialectOf(db) === 'sqlite' ? 'cross join' : 'join');
  const r = await sql<RawRow>`
    with recursive up(id, parent_id, depth) as (
      select id, parent_id, 0 from instances where id = ${id}
      union all
      select p.id, p.parent_id, up.depth + 1 from instances p join up on p.id = up.parent_id where up.depth < ${MAX_DEPTH}
    )
    select ${ROW_SQL} from up ${join} instances i on i.id = up.id
    where up.depth > 0 order by up.depth desc`.execute(db);
  return r.rows.map(mapRow);
}

/** True when `candidate` is `id` itself or lies anywhere below it (one query). */
export async function isSelfOrDescendant(db: Db, id: string, candidate: string): Promise<boolean> {
  if (id === candidate) return true;
  const r = await sql<{ hit: number }>`
    with recursive up(id, parent_id, depth) as (
      select id, parent_id, 0 from instances where id = ${candidate}
      union all
      select p.id, p.parent_id, up.depth + 1 from instances p join up on p.id = up.parent_id where up.depth < ${MAX_DEPTH}
    )
    select 1 as hit from up where id = ${id} and depth > 0`.execute(db);
  return r.rows.length > 0;
}

export async function nameTaken(db: Db, parentId: string, name: string): Promise<{ id: string; isFolder: boolean } | undefined> {
  const r = await db
    .selectFrom('instances')
    .select(['id', 'is_folder'])
    .where('parent_id', '=', parentId)
    .where('name_key', '=', nameKey(name))
    .where('deleted_at', 'is', null)
    .executeTakeFirst();
  return r ? { id: r.id, isFolder: r.is_folder === 1 } : undefined;
}

/**
 * The name itself when free, else the first free "name (n).ext". The names of that pattern already taken are
 * read in one query rather than one query per candidate; the pick is then checked (a shortened long name may fall
 * outside the pattern).
 */
export async function freeName(db: Db, parentId: string, name: string, isFolder: boolean, reserved: ReadonlySet<string> = new Set()): Promise<string> {
  if (!reserved.has(nameKey(name)) && !(await nameTaken(db, parentId, name))) return name;
  const probe = numberedName(name, 1, isFolder);
  const at = probe.lastIndexOf(' (1)');
  const pattern = `${escapeLike(nameKey(probe.slice(0, at)))} (%)${escapeLike(nameKey(probe.slice(at + 4)))}`;
  const taken = new Set(
    (
      await db
        .selectFrom('instances')
        .select('name_key')
        .where('parent_id', '=', parentId)
        .where('deleted_at', 'is', null)
        .where(sql<boolean>`name_key like ${pattern} escape '\\'`)
        .execute()
    ).map((r) => r.name_key),
  );
  for (const k of reserved) taken.add(k);
  for (let n = 1; n < 100000; n++) {
    const candidate = numberedName(name, n, isFolder);
    if (taken.has(nameKey(candidate))) continue;
    if (!(await nameTaken(db, parentId, candidate))) return candidate;
    taken.add(nameKey(candidate));
  }
  throw new AppError('CONFLICT', 'no free name left for this entry');
}

/** Which of these names are taken in the folder (by name key), in one query. */
export async function namesTaken(db: Db, parentId: string, names: string[]): Promise<Map<string, { id: string; isFolder: boolean }>> {
  const out = new Map<string, { id: string; isFolder: boolean }>();
  const keys = [...new Set(names.map(nameKey))];
  for (let i = 0; i < keys.length; i += INSERT_CHUNK) {
    const rows = await db
      .selectFrom('instances')
      .select(['id', 'is_folder', 'name_key'])
      .where('parent_id', '=', parentId)
      .where('name_key', 'in', keys.slice(i, i + INSERT_CHUNK))
      .where('deleted_at', 'is', null)
      .execute();
    for (const r of rows) out.set(r.name_key, { id: r.id, isFolder: r.is_folder === 1 });
  }
  return out;
}

/**
 * Files many new files into one live folder in a few statements (bulk-upload): the folder's counts first (its row
 * lock on PostgreSQL), each file under its name or the first free "name (n).ext" (names taken in the folder or by an
 * earlier file of the batch), multi-row inserts. The caller holds the blob references and charges the bytes. Rows
 * come back in the order of `files`.
 */
export async function insertFiles(
  db: Db, parent: InstanceRow, files: { name: string; size: number; blobId: string; createdBy: string }[],
): Promise<InstanceRow[]> {
  if (files.length === 0) return [];
  if (!parent.isFolder || parent.deletedAt !== null) throw new AppError('NOT_FOUND', 'the target folder does not exist');
  return atomically(db, async (trx) => {
    await countChildren(trx, parent.id, 0, files.length);
    const taken = await namesTaken(trx, parent.id, files.map((f) => f.name));
    const reserved = new Set<string>();
    const now = Date.now();
    const values = [];
    for (const f of files) {
      const key = nameKey(f.name);
      const name = taken.has(key) || reserved.has(key) ? await freeName(trx, parent.id, f.name, false, reserved) : f.name;
      reserved.add(nameKey(name));
      const ext = extensionOf(name);
      values.push({
        id: newId(),
        lib_code: parent.libCode,
        instance_type: parent.instanceType,
        space_kind: parent.spaceKind,
        space_id: parent.spaceId,
        parent_id: parent.id,
        name,
        name_key: nameKey(name),
        is_folder: 0 as const,
        size: f.size,
        ext,
        file_type: fileTypeOf(false, ext),
        filter_cat: filterCategory(false, ext),
        blob_id: f.blobId,
        version: 1,
        remark: '',
        created_by: f.createdBy,
        created_at: now,
        updated_at: now,
      });
    }
    try {
      for (let i = 0; i < values.length; i += INSERT_CHUNK) await trx.insertInto('instances').values(values.slice(i, i + INSERT_CHUNK)).execute();
    } catch (e) {
      throw toNameExists(e, values.map((v) => v.name).join(', '));
    }
    const ids = values.map((v) => v.id);
    const byId = new Map<string, InstanceRow>();
    for (let i = 0; i < ids.length; i += INSERT_CHUNK) {
      for (const r of await many(sql<RawRow>`select ${ROW_SQL} from instances i where i.id in (${sql.join(ids.slice(i, i + INSERT_CHUNK))})`, trx)) byId.set(r.id, r);
    }
    return ids.map((id) => byId.get(id)!);
  });
}

function nameExists(name: string): AppError {
  return new AppError('NAME_EXISTS', `"${name}" already exists in this folder`, { fields: [{ field: 'instanceName', message: 'exists' }] });
}

function toNameExists(err: unknown, name: string): unknown {
  return asNameExists(err, 'instance-name', `"${name}" already exists in this folder`, [{ field: 'instanceName', message: 'exists' }]);
}

/**
 * Adds to a folder's child counts. Called before the change it counts, so on PostgreSQL the folder's row is locked
 * for the rest of the transaction (see the file comment).
 */
async function countChildren(db: Db, folderId: string, folders: number, files: number): Promise<void> {
  await db
    .updateTable('instances')
    .set((eb) => ({ child_folders: eb('child_folders', '+', folders), child_files: eb('child_files', '+', files) }))
    .where('id', '=', folderId)
    .execute();
}

export interface NewInstance {
  parent: InstanceRow;
  name: string;
  isFolder: boolean;
  size?: number;
  blobId?: string | null;
  createdBy: string;
  remark?: string;
  /** When the name is taken: NAME_EXISTS (default), or the first free "name (n).ext". */
  conflict?: ConflictPolicy;
}

/** Inserts one entry under a live folder; NAME_EXISTS when the name is taken (unless conflict 'rename'). */
export async function insertInstance(db: Db, n: NewInstance): Promise<InstanceRow> {
  if (!n.parent.isFolder || n.parent.deletedAt !== null) throw new AppError('NOT_FOUND', 'the target folder does not exist');
  return atomically(db, async (trx) => {
    await countChildren(trx, n.parent.id, n.isFolder ? 1 : 0, n.isFolder ? 0 : 1);
    const name = n.conflict === 'rename' ? await freeName(trx, n.parent.id, n.name, n.isFolder) : n.name;
    const ext = n.isFolder ? '' : extensionOf(name);
    const id = newId();
    const now = Date.now();
    try {
      await trx
        .insertInto('instances')
        .values({
          id,
          lib_code: n.parent.libCode,
          instance_type: n.parent.instanceType,
          space_kind: n.parent.spaceKind,
          space_id: n.parent.spaceId,
          parent_id: n.parent.id,
          name,
          name_key: nameKey(name),
          is_folder: n.isFolder ? 1 : 0,
          size: n.size ?? 0,
          ext,
          file_type: fileTypeOf(n.isFolder, ext),
          filter_cat: filterCategory(n.isFolder, ext),
          blob_id: n.blobId ?? null,
          version: 1,
          remark: n.remark ?? '',
          created_by: n.createdBy,
          created_at: now,
          updated_at: now,
        })
        .execute();
    } catch (e) {
      throw toNameExists(e, name);
    }
    return (await getInstanceRow(trx, id))!;
  });
}

/** Renames in place; the extension-derived categories follow the new name. */
export async function renameInstance(db: Db, row: InstanceRow, name: string): Promise<InstanceRow> {
  if (row.parentId === null) throw new AppError('FORBIDDEN', 'a library root cannot be renamed');
  const ext = row.isFolder ? '' : extensionOf(name);
  try {
    await db
      .updateTable('instances')
      .set({ name, name_key: nameKey(name), ext, file_type: fileTypeOf(row.isFolder, ext), filter_cat: filterCategory(row.isFolder, ext), updated_at: Date.now() })
      .where('id', '=', row.id)
      .execute();
  } catch (e) {
    throw toNameExists(e, name);
  }
  return (await getInstanceRow(db, row.id))!;
}

export async function setRemark(db: Db, id: string, remark: string): Promise<void> {
  await db.updateTable('instances').set({ remark, updated_at: Date.now() }).where('id', '=', id).execute();
}

/**
 * Files new content into an existing file: its current content becomes a history version and the file moves to
 * the next version number with the new blob and size. The caller holds the references and charges the bytes.
 */
export async function addVersion(db: Db, old: InstanceRow, blobId: string, size: number): Promise<InstanceRow> {
  if (old.blobId) {
    await db
      .insertInto('file_versions')
      .values({ id: newId(), instance_id: old.id, version: old.version, blob_id: old.blobId, size: old.size, created_by: old.createdBy, created_at: old.updatedAt })
      .execute();
  }
  const ext = extensionOf(old.name);
  await db
    .updateTable('instances')
    .set((eb) => ({
      blob_id: blobId,
      size,
      version: eb('version', '+', 1),
      ext,
      file_type: fileTypeOf(false, ext),
      filter_cat: filterCategory(false, ext),
      updated_at: Date.now(),
    }))
    .where('id', '=', old.id)
    .execute();
  return (await getInstanceRow(db, old.id))!;
}

export type ConflictPolicy = 'rename' | 'fail';

function sameSpace(a: InstanceRow, b: InstanceRow): boolean {
  return a.spaceKind === b.spaceKind && a.spaceId === b.spaceId && a.libCode === b.libCode;
}

/** Locks folder rows in id order (PostgreSQL; SQLite serialises writers anyway), so lockers never deadlock. */
export async function lockFolders(db: Db, ids: string[]): Promise<void> {
  if (dialectOf(db) !== 'postgres' || ids.length === 0) return;
  await db.selectFrom('instances').select('id').where('id', 'in', [...new Set(ids)].sort()).orderBy('id').forUpdate().execute();
}

/** Moves one entry into a folder of the same space. */
export async function moveInstance(db: Db, id: string, targetId: string, conflict: ConflictPolicy): Promise<InstanceRow> {
  return atomically(db, async (trx) => {
    const row = await getLive(trx, id);
    const target = await getLive(trx, targetId);
    if (row.parentId === null) throw new AppError('FORBIDDEN', 'a library root cannot be moved');
    if (!target.isFolder) throw new AppError('CONFLICT', 'the target is not a folder');
    if (!sameSpace(row, target)) throw new AppError('CONFLICT', 'moving between spaces is not supported; copy instead');
    if (row.isFolder && (await isSelfOrDescendant(trx, row.id, target.id))) {
      throw new AppError('CONFLICT', 'a folder cannot be moved into itself or one of its sub-folders');
    }
    if (row.parentId === target.id) return row;
    await lockFolders(trx, [row.parentId, target.id]);
    let name = row.name;
    if (await nameTaken(trx, target.id, name)) {
      if (conflict === 'fail') throw nameExists(name);
      name = await freeName(trx, target.id, name, row.isFolder);
    }
    const [folders, files] = row.isFolder ? [1, 0] : [0, 1];
    await countChildren(trx, row.parentId, -folders, -files);
    await countChildren(trx, target.id, folders, files);
    try {
      await trx
        .updateTable('instances')
        .set({ parent_id: target.id, name, name_key: nameKey(name), updated_at: Date.now() })
        .where('id', '=', row.id)
        .execute();
    } catch (e) {
      throw toNameExists(e, name);
    }
    return (await getInstanceRow(trx, row.id))!;
  });
}

export interface SubtreeEntry {
  id: string;
  parentId: string | null;
  isFolder: boolean;
  size: number;
  blobId: string | null;
  name: string;
  remark: string;
  childFolders: number;
  childFiles: number;
}

/** The live subtree of `id` as a recursive CTE named `sub(id, depth)` (the root included, at depth 0). */
function liveSubtreeCte(id: string): RawBuilder<unknown> {
  return sql`sub(id, depth) as (
      select id, 0 from instances where id = ${id} and deleted_at is null
      union all
      select c.id, sub.depth + 1 from instances c join sub on c.parent_id = sub.id where c.deleted_at is null and sub.depth < ${MAX_DEPTH}
    )`;
}

/** Live entries of a subtree (the root included), parents before children, in one query. */
export async function liveSubtree(db: Db, id: string): Promise<SubtreeEntry[]> {
  const r = await sql<{
    id: string; parent_id: string | null; is_folder: number; size: number; blob_id: string | null; name: string; remark: string;
    child_folders: number; child_files: number;
  }>`
    with recursive ${liveSubtreeCte(id)}
    select i.id, i.parent_id, i.is_folder, i.size, i.blob_id, i.name, i.remark, i.child_folders, i.child_files
    from sub join instances i on i.id = sub.id order by sub.depth`.execute(db);
  return r.rows.map((x) => ({
    id: x.id, parentId: x.parent_id, isFolder: x.is_folder === 1, size: x.size, blobId: x.blob_id, name: x.name, remark: x.remark,
    childFolders: x.child_folders, childFiles: x.child_files,
  }));
}

/** Files and bytes below (and including) `id`, counted in the database. */
export async function subtreeStats(db: Db, id: string): Promise<{ files: number; bytes: number }> {
  const r = await sql<{ files: number | null; bytes: number | null }>`
    with recursive ${liveSubtreeCte(id)}
    select sum(case when i.is_folder = 0 then 1 else 0 end) as files, sum(case when i.is_folder = 0 then i.size else 0 end) as bytes
    from sub join instances i on i.id = sub.id`.execute(db);
  const row = r.rows[0];
  return { files: Number(row?.files ?? 0), bytes: Number(row?.bytes ?? 0) };
}

/** Rows per multi-row INSERT: 24 columns x 400 stays under SQLite's 32,766 bound parameters. */
const INSERT_CHUNK = 400;

/**
 * Copies one entry (a folder with everything below it) into a folder. No bytes move: every file copy
 * references the same blob. The bytes are charged to the target space in the same transaction as the check.
 * The subtree is read in one query and written in multi-row statements, not row by row.
 */
export async function copyInstance(db: Db, id: string, targetId: string, conflict: ConflictPolicy, userId: string): Promise<InstanceRow> {
  return atomically(db, async (trx) => {
    const row = await getLive(trx, id);
    const target = await getLive(trx, targetId);
    if (row.parentId === null) throw new AppError('FORBIDDEN', 'a library root cannot be copied');
    if (!target.isFolder) throw new AppError('CONFLICT', 'the target is not a folder');
    if (row.isFolder && (await isSelfOrDescendant(trx, row.id, target.id))) {
      throw new AppError('CONFLICT', 'a folder cannot be copied into itself or one of its sub-folders');
    }
    const entries = await liveSubtree(trx, row.id);
    const bytes = entries.reduce((s, e) => s + (e.isFolder ? 0 : e.size), 0);
    const space = spaceOf(target);
    // Space row first, then the target folder (the lock order of the file comment).
    await assertFits(trx, space, bytes);
    await countChildren(trx, target.id, row.isFolder ? 1 : 0, row.isFolder ? 0 : 1);
    let name = row.name;
    if (await nameTaken(trx, target.id, name)) {
      if (conflict === 'fail') throw nameExists(name);
      name = await freeName(trx, target.id, name, row.isFolder);
    }
    const now = Date.now();
    const newIds = new Map<string, string>();
    const values = entries.map((e) => {
      const nid = newId();
      newIds.set(e.id, nid);
      const isTop = e.id === row.id;
      const n = isTop ? name : e.name;
      const ext = e.isFolder ? '' : extensionOf(n);
      return {
        id: nid,
        lib_code: target.libCode,
        instance_type: target.instanceType,
        space_kind: target.spaceKind,
        space_id: target.spaceId,
        parent_id: isTop ? target.id : newIds.get(e.parentId!)!,
        name: n,
        name_key: nameKey(n),
        is_folder: e.isFolder ? (1 as const) : (0 as const),
        size: e.size,
        ext,
        file_type: fileTypeOf(e.isFolder, ext),
        filter_cat: filterCategory(e.isFolder, ext),
        blob_id: e.blobId,
        version: 1,
        remark: e.remark,
        created_by: userId,
        created_at: now,
        updated_at: now,
        // The copy holds every live child of each folder, so it has the source's counts.
        child_folders: e.childFolders,
        child_files: e.childFiles,
      };
    });
    try {
      for (let i = 0; i < values.length; i += INSERT_CHUNK) await trx.insertInto('instances').values(values.slice(i, i + INSERT_CHUNK)).execute();
    } catch (e) {
      throw toNameExists(e, name);
    }
    const refs = new Map<string, number>();
    for (const e of entries) if (e.blobId) refs.set(e.blobId, (refs.get(e.blobId) ?? 0) + 1);
    await addBlobRefsBulk(trx, refs);
    await addUsage(trx, space, bytes);
    return (await getInstanceRow(trx, newIds.get(row.id)!))!;
  });
}

/**
 * Moves an entry with its subtree to the recycle bin: one recycle entry for the top, every live row below
 * marked with it (one statement). The bytes keep counting (and the blobs stay referenced) until the bin is
 * emptied. Folders in the bin have no live children, so their counts go to 0 (a restore recounts them).
 */
export async function deleteToRecycle(db: Db, id: string, userId: string): Promise<{ recycleId: string; bytes: number }> {
  return atomically(db, async (trx) => {
    const row = await getLive(trx, id);
    if (row.parentId === null) throw new AppError('FORBIDDEN', 'a library root cannot be deleted');
    await countChildren(trx, row.parentId, row.isFolder ? -1 : 0, row.isFolder ? 0 : -1);
    const { bytes } = await subtreeStats(trx, row.id);
    const recycleId = newId();
    const now = Date.now();
    // The path by name: its folders may be gone (even for good) when the entry is restored, which recreates them.
    const originalPath = (await ancestorsOf(trx, row.id)).filter((a) => a.parentId !== null).map((a) => a.name).join('/');
    await trx
      .insertInto('recycle_entries')
      .values({
        id: recycleId,
        space_kind: row.spaceKind,
        space_id: row.spaceId,
        instance_id: row.id,
        original_parent_id: row.parentId,
        original_path: originalPath,
        level: 1,
        deleted_by: userId,
        deleted_at: now,
        total_bytes: bytes,
      })
      .execute();
    await sql`
      with recursive ${liveSubtreeCte(row.id)}
      update instances set deleted_at = ${now}, recycle_id = ${recycleId} where id in (select id from sub)`.execute(trx);
    await trx.updateTable('instances').set({ child_folders: 0, child_files: 0 }).where('recycle_id', '=', recycleId).where('is_folder', '=', 1).execute();
    return { recycleId, bytes };
  });
}

/**
 * Sets the child counts of these folders from their rows (restoring from the recycle bin, repairs); returns the
 * folders whose stored counts were wrong. One statement.
 */
export async function recountChildren(db: Db, folderIds: string[]): Promise<number> {
  if (folderIds.length === 0) return 0;
  const r = await sql`
    update instances set
      child_folders = (select count(*) from instances c where c.parent_id = instances.id and c.deleted_at is null and c.is_folder = 1),
      child_files = (select count(*) from instances c where c.parent_id = instances.id and c.deleted_at is null and c.is_folder = 0)
    where id in (${sql.join(folderIds)}) and is_folder = 1 and (
      child_folders <> (select count(*) from instances c where c.parent_id = instances.id and c.deleted_at is null and c.is_folder = 1) or
      child_files <> (select count(*) from instances c where c.parent_id = instances.id and c.deleted_at is null and c.is_folder = 0))`.execute(db);
  return Number(r.numAffectedRows ?? 0n);
}

// ---- listing -------------------------------------------------------------------------------------------

export type SortField = 'instanceName' | 'fSize' | 'createTime' | 'updateTime';
const SORT_COLUMN = { instanceName: 'name_key', fSize: 'size', createTime: 'created_at', updateTime: 'updated_at' } as const;

export interface ListQuery {
  parentId: string;
  sortField: SortField;
  sortOrder: 'asc' | 'desc';
  fileFilter?: number | undefined;
  keyword?: string | undefined;
  pageNo: number;
  pageSize: number;
  cursor?: string | undefined;
  /**
   * Children the caller may not see, with how many of them are folders: left out in the query itself, so offset
   * pages stay full and the total (the folder's counts less these) stays right.
   */
  except?: { ids: readonly string[]; folders: number } | undefined;
  /** The only children to list (a passage's listing: those that lead on), counted like a search. */
  only?: readonly string[] | undefined;
  /**
   * The user whose own marks (favourite, any label) the page query reads along with each row: a listing then needs
   * no separate round trip for them unless some row carries labels (labels-repo's personalMarks reads those).
   */
  marksOf?: string | undefined;
}

/** A listed row's own marks for the `marksOf` user. */
export interface RowMarks {
  favourite: boolean;
  labelled: boolean;
}

export interface ListResult {
  rows: InstanceRow[];
  total: number;
  nextCursor: string | null;
  /** Present when the query asked for `marksOf`: the listed rows' marks, by id (a row with none is left out). */
  marks?: Map<string, RowMarks>;
}

interface Position {
  b: 0 | 1; // segment: 1 folders, 0 files
  v: string | number;
  i: string;
}

function contextOf(q: ListQuery): string {
  return JSON.stringify([q.parentId, q.sortField, q.sortOrder, q.fileFilter ?? 0, q.keyword ?? '']);
}

/**
 * FNV-1a (32 bits) of a string's UTF-16 code units, as 8 hex digits: a cursor's check that it was made for this
 * listing. Not a signature, and it needs none (see encodeCursor).
 */
function fingerprint(s: string): string {
  let h = 0x811c9dc5;
  for (let k = 0; k < s.length; k++) {
    h ^= s.charCodeAt(k);
    h = Math.imul(h, 0x01000193);
  }
  return (h >>> 0).toString(16).padStart(8, '0');
}

function sortValue(q: Pick<ListQuery, 'sortField'>, row: InstanceRow): string | number {
  const col = SORT_COLUMN[q.sortField];
  return col === 'name_key' ? row.nameKey : col === 'size' ? row.size : col === 'created_at' ? row.createdAt : row.updatedAt;
}

/**
 * Opaque cursor: the last row's position (Base64url JSON), then a fingerprint of the listing it belongs to (folder,
 * sort, filter, keyword) and of that position, so that a cursor passed to another listing, or damaged, is refused.
 *
 * It is not signed, because it grants nothing: the access gate has decided on the folder before the cursor is read,
 * and a position only says where in that folder's permitted rows the page starts (bound as parameters, its type
 * checked against the sort column in readCursor). The one lookup a cursor can ask for, a row by id for a name too
 * long to carry (`r`), answers only for a row the listing itself shows: a child of the same folder, not hidden from
 * the caller. (It was an HMAC: measured in the server, under the listing benchmark's load, signing a page's cursor
 * took about 28 us of CPU of the ~490 us a page cost, crypto cold in the cache at each call: 37-51 us per HMAC in a
 * loop that evicted the caches between calls, 3 us in a tight loop.)
 */
export function encodeCursor(q: ListQuery, row: InstanceRow): string {
  const value = sortValue(q, row);
  // Long names would overflow the 1024-character cursor: those positions are looked up by id instead.
  const pos: Position | { b: 0 | 1; r: string } =
    typeof value === 'string' && value.length > 150 ? { b: row.isFolder ? 1 : 0, r: row.id } : { b: row.isFolder ? 1 : 0, v: value, i: row.id };
  const payload = Buffer.from(JSON.stringify(pos)).toString('base64url');
  return `${payload}.${fingerprint(`${contextOf(q)}\n${payload}`)}`;
}

/** What a cursor's `i` or `r` may be: an id, bound as a parameter like any other. */
const isCursorId = (x: unknown): x is string => typeof x === 'string' && x.length > 0 && x.length <= 128;

/**
 * The position a cursor of this listing holds (or the id it names, `r`), or undefined when it is not one: another
 * listing's, damaged, or not of the shape encodeCursor makes, with a value of the sort column's type.
 */
function readCursor(q: ListQuery, cursor: string): Position | { b: 0 | 1; r: string } | undefined {
  const dot = cursor.lastIndexOf('.');
  if (dot <= 0) return undefined;
  const payload = cursor.slice(0, dot);
  if (cursor.slice(dot + 1) !== fingerprint(`${contextOf(q)}\n${payload}`)) return undefined;
  let pos: unknown;
  try {
    pos = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8'));
  } catch {
    return undefined;
  }
  if (typeof pos !== 'object' || pos === null) return undefined;
  const { b, v, i, r } = pos as Record<string, unknown>;
  if (b !== 0 && b !== 1) return undefined;
  if (r !== undefined) return isCursorId(r) && v === undefined && i === undefined ? { b, r } : undefined;
  if (!isCursorId(i)) return undefined;
  const text = SORT_COLUMN[q.sortField] === 'name_key';
  if (text ? typeof v !== 'string' || v.length > 1024 : !Number.isSafeInteger(v)) return undefined;
  return { b, v: v as string | number, i };
}

async function decodeCursor(db: Db, q: ListQuery, cursor: string): Promise<Position> {
  const pos = readCursor(q, cursor);
  if (!pos) throw new AppError('BAD_REQUEST', 'the cursor is invalid or belongs to another listing; start from page 1');
  if ('r' in pos) {
    const r = await getInstanceRow(db, pos.r);
    // Only a row this listing shows: its position tells nothing the page after it would not.
    const shown = r && r.parentId === q.parentId && r.deletedAt === null && !q.except?.ids.includes(r.id) && (!q.only || q.only.includes(r.id));
    if (!shown) throw new AppError('CONFLICT', 'the listing changed under the cursor; start from page 1');
    return { b: r.isFolder ? 1 : 0, v: sortValue(q, r), i: r.id };
  }
  return pos;
}

function escapeLike(s: string): string {
  return s.replace(/[\\%_]/g, (c) => '\\' + c);
}

/** Whether a segment (1 folders, 0 files) can hold rows matching the filter at all. */
function segmentApplies(q: ListQuery, isFolder: 0 | 1): boolean {
  const f = q.fileFilter;
  return !(f !== undefined && ((f === 1 && isFolder === 0) || (f !== 1 && isFolder === 1)));
}

/** The filters of one segment (`instances i`), shared by its page query and (for searches only) its count. */
function segmentFilter(q: ListQuery, isFolder: 0 | 1): RawBuilder<unknown> {
  const parts = [sql`i.parent_id = ${q.parentId} and i.deleted_at is null and i.is_folder = ${isFolder}`];
  if (q.fileFilter !== undefined && q.fileFilter !== 1) parts.push(sql`i.filter_cat = ${q.fileFilter}`);
  if (q.keyword) parts.push(sql`i.name_key like ${`%${escapeLike(nameKey(q.keyword))}%`} escape '\\'`);
  if (q.except?.ids.length) parts.push(sql`i.id not in (${sql.join([...q.except.ids])})`);
  if (q.only) parts.push(q.only.length ? sql`i.id in (${sql.join([...q.only])})` : sql`1 = 0`);
  return sql.join(parts, sql` and `);
}

/** A search within the folder: a keyword, or a file category (the folders category is its folder segment whole). */
function searches(q: ListQuery): boolean {
  return !!q.keyword || (q.fileFilter !== undefined && q.fileFilter !== 1);
}

/** True when the listing is the whole folder (or all its folders), so its child counts give the total. */
function countsSuffice(q: ListQuery): boolean {
  return !searches(q) && !q.only;
}

async function segmentCount(db: Db, q: ListQuery, seg: 0 | 1): Promise<number> {
  if (!segmentApplies(q, seg)) return 0;
  const r = await sql<{ c: number }>`select count(*) as c from instances i where ${segmentFilter(q, seg)}`.execute(db);
  return Number(r.rows[0]?.c ?? 0);
}

/** The query of one page segment: filters, keyset position, order and limit; exported so tests can EXPLAIN it. */
export function segmentQuery(q: ListQuery, seg: 0 | 1, after: Position | undefined, limit: number, offset: number, generic = false): RawBuilder<RawRow> | null {
  if (!segmentApplies(q, seg)) return null;
  if (!Number.isSafeInteger(limit) || limit < 1) throw new RangeError(`a page limit must be a positive integer, not ${limit}`);
  // Both from fixed lists, never from the request's text.
  const col = sql.raw(`i.${SORT_COLUMN[q.sortField]}`);
  const dir = sql.raw(q.sortOrder === 'desc' ? 'desc' : 'asc');
  // `generic`: the position as a subquery's row, which PostgreSQL's planner cannot read (an InitPlan, still an index
  // bound), so the prepared statement's generic plan costs what a custom one would and is kept instead of planning
  // each execution; and the limit as a literal, so the plan knows the page is small.
  const type = sql.raw(SORT_COLUMN[q.sortField] === 'name_key' ? 'text' : 'bigint');
  const position = generic ? sql`(select cast(${after?.v} as ${type}), cast(${after?.i} as text))` : sql`(${after?.v}, ${after?.i})`;
  const seek = after ? sql` and (${col}, i.id) ${sql.raw(q.sortOrder === 'desc' ? '<' : '>')} ${position}` : sql``;
  const skip = offset > 0 ? sql` offset ${offset}` : sql``;
  // Two index probes per listed row (favourites' primary key, instance_labels_item) instead of a query of their own.
  const marks = q.marksOf
    ? sql`, case when exists (select 1 from favourites f where f.user_id = ${q.marksOf} and f.instance_id = i.id) then 1 else 0 end as mark_fav,
      case when exists (select 1 from instance_labels il where il.user_id = ${q.marksOf} and il.instance_id = i.id) then 1 else 0 end as mark_lab`
    : sql``;
  return sql<RawRow>`select ${ROW_SQL}${marks} from instances i where ${segmentFilter(q, seg)}${seek}
    order by ${col} ${dir}, i.id ${dir} limit ${generic ? sql.lit(limit) : limit}${skip}`;
}

/**
 * One page of a folder: folders first, then files, each ordered by the sort column with the id as
 * tie-breaker. With a cursor each segment seeks through its index; without one pageNo is an offset. The total is
 * the folder's child counts; only a search (keyword, or a file category) counts its matches.
 */
export async function listChildren(db: Db, folder: InstanceRow, q: ListQuery, prefetched?: PrefetchedPage | null): Promise<ListResult> {
  const want = q.pageSize + 1;
  const out: InstanceRow[] = [];
  // The page the access gate read in its own statement (getChainsWithPage) is this page when the query is the same
  // and nothing is hidden from the caller (no except/only, which the gate could not know yet).
  const early = prefetched && !q.except && !q.only && prefetched.key === pageKey(q) ? prefetched.rows : undefined;
  const after: Position | undefined = q.cursor && !early ? await decodeCursor(db, q, q.cursor) : undefined;
  const whole = countsSuffice(q);
  const hiddenFolders = q.except?.folders ?? 0;
  const hiddenFiles = (q.except?.ids.length ?? 0) - hiddenFolders;
  let folderCount: number | undefined = whole ? folder.childFolders - hiddenFolders : undefined;
  let offset = after ? 0 : (q.pageNo - 1) * q.pageSize;
  const marks = q.marksOf ? new Map<string, RowMarks>() : undefined;
  const take = (rows: readonly MarkedRow[]): void => {
    for (const r of rows) {
      const row = mapRow(r);
      out.push(row);
      // Only marked rows are kept: most rows of most pages carry no mark, and a row absent here has none.
      if (marks && (Number(r.mark_fav) === 1 || Number(r.mark_lab) === 1)) marks.set(row.id, { favourite: Number(r.mark_fav) === 1, labelled: Number(r.mark_lab) === 1 });
    }
  };
  if (early) take(early);
  for (const seg of [1, 0] as const) {
    if (early || out.length >= want) break;
    if (after && seg === 1 && after.b === 0) continue; // the cursor is already in the files segment
    // The maintained counts say the segment is empty: no query (a folder of folders lists in one).
    if ((seg === 1 ? folder.childFolders : folder.childFiles) === 0) continue;
    const segAfter = after && after.b === seg ? after : undefined;
    if (!segAfter && offset > 0 && seg === 1) {
      folderCount ??= await segmentCount(db, q, 1);
      if (offset >= folderCount) {
        offset -= folderCount;
        continue;
      }
    }
    const rows = await segmentRows(db, q, seg, segAfter, want - out.length, segAfter ? 0 : offset);
    offset = 0;
    take(rows);
  }
  const more = out.length > q.pageSize;
  if (more) out.length = q.pageSize;
  const last = out[out.length - 1];
  let total: number;
  if (whole) total = folderCount! + (q.fileFilter === 1 ? 0 : folder.childFiles - hiddenFiles);
  else total = (folderCount ?? (await segmentCount(db, q, 1))) + (await segmentCount(db, q, 0));
  return { rows: out, total, nextCursor: more && last ? encodeCursor(q, last) : null, ...(marks && { marks }) };
}

/** What a plain listing's segment statement is built from: everything but its bound values (see segmentRows). */
interface SegmentShape {
  q: ListQuery;
  seg: 0 | 1;
  after: Position | undefined;
  limit: number;
}

const plainSegment = shapedStatement((c: SegmentShape, parentId: string, marksOf: string, v: unknown, i: unknown) =>
  segmentQuery({ ...c.q, parentId, marksOf: c.q.marksOf === undefined ? undefined : marksOf }, c.seg, c.after && { b: c.after.b, v: v as string, i: i as string }, c.limit, 0)!);

/**
 * The rows of one page segment (segmentQuery). A plain listing's statement (the whole folder or its folders, from
 * its start or a cursor: every listing but a search, a category, a passage, one hiding rows or an offset page) is
 * compiled once per shape: its text then depends on the sort, the segment, the cursor's segment, the marks and the
 * limit only.
 */
async function segmentRows(db: Db, q: ListQuery, seg: 0 | 1, after: Position | undefined, limit: number, offset: number): Promise<MarkedRow[]> {
  if (offset > 0 || searches(q) || q.except || q.only) {
    const sq = segmentQuery(q, seg, after, limit, offset);
    return sq ? ((await sq.execute(db)).rows as MarkedRow[]) : [];
  }
  if (!segmentApplies(q, seg)) return [];
  if (!Number.isSafeInteger(limit) || limit < 1) throw new RangeError(`a page limit must be a positive integer, not ${limit}`);
  const shape = `${q.sortField} ${q.sortOrder} ${seg} ${after ? after.b : '-'} ${q.marksOf === undefined ? '-' : 'm'} ${limit}`;
  const { rows } = await plainSegment.execute(db, shape, { q, seg, after, limit }, q.parentId, q.marksOf ?? '', after?.v, after?.i);
  return rows as MarkedRow[];
}

/** A page row with the caller's marks (segmentQuery with `marksOf`). */
type MarkedRow = RawRow & { mark_fav?: number | string | null; mark_lab?: number | string | null };

/** A listing page read ahead of its handler (getChainsWithPage): its rows, and which query they answer. */
export interface PrefetchedPage {
  key: string;
  rows: MarkedRow[];
}

/** What identifies a page: the listing (contextOf), its position (page number or cursor), size and marks. */
function pageKey(q: ListQuery): string {
  return JSON.stringify([contextOf(q), q.pageNo, q.pageSize, q.cursor ?? '', q.marksOf ?? '']);
}

/** getChainsWithPage's statement: the rows of `ids` and their ancestors (hcs_part 0), then the page's folders (1) and files (2). */
function chainsWithPageSql(ids: readonly string[], q: ListQuery, after: Position | undefined, want: number, generic: boolean): RawBuilder<MarkedRow & { hcs_part: number }> {
  const segments: RawBuilder<unknown>[] = [];
  for (const seg of [1, 0] as const) {
    if (after && seg === 1 && after.b === 0) continue;
    const sq = segmentQuery(q, seg, after && after.b === seg ? after : undefined, want, 0, generic);
    if (sq) segments.push(sql`select ${seg === 1 ? sql`1` : sql`2`} as hcs_part, s${sql.raw(String(seg))}.* from (${sq}) s${sql.raw(String(seg))}`);
  }
  const none = q.marksOf ? sql`, null as mark_fav, null as mark_lab` : sql``;
  // The segments in order (folders, then files), cut at one page: PostgreSQL's Append reads its inputs one after
  // the other and the Limit above stops it, so the files are not read when the folders fill the page.
  // Planned once per connection (segmentQuery's `generic`): with the limit a parameter, PostgreSQL's generic plan
  // costs the page as a tenth of the folder and the statement was planned afresh (or JIT-compiled) on every run.
  const page = segments.length ? sql` union all select * from (select * from (${sql.join(segments, sql` union all `)}) p limit ${sql.lit(want)}) pp` : sql``;
  return sql<MarkedRow & { hcs_part: number }>`${chainWalk(ids)}
    select 0 as hcs_part, ${ROW_SQL}${none} from instances i where i.id in (select id from up)${page}`;
}

/** chainsWithPageSql of a listing without a keyword or a category, compiled once per shape (db/sql/shaped.ts). */
const plainChainsWithPage = shapedStatement(
  (c: { q: ListQuery; after: Position | undefined; want: number; generic: boolean }, parentId: string, marksOf: string, v: unknown, i: unknown, ...ids: string[]) =>
    chainsWithPageSql(ids, { ...c.q, parentId, marksOf: c.q.marksOf === undefined ? undefined : marksOf }, c.after && { b: c.after.b, v: v as string, i: i as string }, c.want, c.generic),
);

/**
 * The access gate's read (getInstanceChains of `ids`) and, in the same statement, the page of listing `q` as
 * listChildren reads it when nothing is hidden from the caller: one round trip instead of two. On PostgreSQL each
 * round trip is a socket write and a reply to parse on the server's one thread (measured at about 130 us of its
 * CPU per query under load), the largest share of a listing. (The gate uses it on PostgreSQL only: on SQLite, with no
 * round trips, the two statements measured faster than the one; see files/access.ts listingGateReader.)
 * The page rows are only read here, never shown: the listing uses them after the gate has let the caller in and
 * found nothing to hide, and reads the page itself otherwise. No page is read ahead for an offset page (its start
 * depends on the folder's counts) or a cursor at a long name (looked up by id).
 */
export async function getChainsWithPage(db: Db, ids: readonly string[], q: ListQuery): Promise<{ rows: Map<string, InstanceRow>; page?: PrefetchedPage }> {
  // A cursor that is not this listing's, or that names a row by id, is left to listChildren (which refuses or looks up).
  const pos = q.cursor ? readCursor(q, q.cursor) : undefined;
  const after = pos && !('r' in pos) ? pos : undefined;
  if (ids.length === 0 || (q.cursor && !after) || (!q.cursor && q.pageNo > 1) || q.except || q.only) return { rows: await getInstanceChains(db, ids) };
  const want = q.pageSize + 1;
  const generic = dialectOf(db) === 'postgres';
  const result = searches(q)
    ? await chainsWithPageSql(ids, q, after, want, generic).execute(db)
    : await plainChainsWithPage.execute(
      db, `${ids.length} ${q.sortField} ${q.sortOrder} ${q.fileFilter ?? '-'} ${after ? after.b : '-'} ${q.marksOf === undefined ? '-' : 'm'} ${want} ${generic ? 'g' : '-'}`,
      { q, after, want, generic }, q.parentId, q.marksOf ?? '', after?.v, after?.i, ...ids,
    );
  const rows = new Map<string, InstanceRow>();
  const pageRows: MarkedRow[] = [];
  let part = 1;
  let inOrder = true;
  for (const r of result.rows) {
    const p = Number(r.hcs_part);
    if (p === 0) {
      rows.set(r.id, mapRow(r));
      continue;
    }
    // Folders before files, as each segment's own order: should a plan ever interleave the segments (a parallel
    // Append), the page is not used and the listing reads its own.
    if (p < part) inOrder = false;
    part = p;
    pageRows.push(r);
  }
  return inOrder ? { rows, page: { key: pageKey(q), rows: pageRows } } : { rows };
}

/**
 * The bare keyset query of a listing page and nothing else (no session, no total, no names): the baseline the
 * listing benchmark measures the full server against (bench/src/listing.ts).
 */
export async function keysetPage(db: Db, parentId: string, after: { isFolder: boolean; nameKey: string; id: string } | undefined, limit: number): Promise<InstanceRow[]> {
  return childrenAfter(db, parentId, after, limit);
}

/** Sub-folders of a folder in name order (folder picker); whether each has sub-folders comes from its counts. */
export async function listSubfolders(db: Db, parentId: string, limit = 5000): Promise<(InstanceRow & { hasSubfolders: boolean })[]> {
  const found = await many(
    sql<RawRow>`select ${ROW_SQL} from instances i where i.parent_id = ${parentId} and i.deleted_at is null and i.is_folder = 1
      order by i.name_key, i.id limit ${limit}`,
    db,
  );
  return found.map((r) => ({ ...r, hasSubfolders: r.childFolders > 0 }));
}

/** Children after a position in walk order (folders first, then name, then id): for streaming walks. */
export async function childrenAfter(db: Db, parentId: string, after: { isFolder: boolean; nameKey: string; id: string } | undefined, limit: number): Promise<InstanceRow[]> {
  const q: ListQuery = { parentId, sortField: 'instanceName', sortOrder: 'asc', pageNo: 1, pageSize: limit };
  const out: InstanceRow[] = [];
  for (const seg of [1, 0] as const) {
    if (out.length >= limit) break;
    if (after && seg === 1 && !after.isFolder) continue;
    const pos = after && (after.isFolder ? 1 : 0) === seg ? { b: seg, v: after.nameKey, i: after.id } : undefined;
    for (const r of await segmentRows(db, q, seg, pos, limit - out.length, 0)) out.push(mapRow(r));
  }
  return out;
}

// ---- walking a subtree -----------------------------------------------------------------------------------

export interface WalkEntry extends InstanceRow {
  /** Path from below the walk's root, e.g. "docs/2024/report.pdf". */
  path: string;
}

/**
 * A walk's order as one sortable string per entry: for each level from below the root down to the entry, the
 * folder flag ('0' folders first), the name key and the id, with separators that sort below any character a name
 * may hold (names never hold control characters). Byte order of these strings is pre-order, folders first, then
 * name, then id, exactly the order of childrenAfter at every level; both databases compare bytewise (SQLite's
 * BINARY, PostgreSQL's "C").
 */
function walkKey(alias: string): RawBuilder<string> {
  const a = sql.raw(alias);
  return sql<string>`(case when ${a}.is_folder = 1 then '0' else '1' end) || ${a}.name_key || ${'\u0001'} || ${a}.id || ${'\u0002'}`;
}

/** PostgreSQL: compare and order walk keys bytewise whatever the database's default collation. */
function bytewise(db: Db): RawBuilder<unknown> {
  return dialectOf(db) === 'postgres' ? sql` collate "C"` : sql``;
}

/**
 * One page of a pre-order walk of the live subtree under `rootId` (the root excluded), after the entry
 * `afterId` (undefined: from the start), each entry with its path: one query for the page, one to find where the
 * previous page ended. CONFLICT when `afterId` is no longer below the root.
 */
export async function walkSubtree(db: Db, rootId: string, afterId: string | undefined, limit: number): Promise<{ entries: WalkEntry[]; more: boolean }> {
  let afterKey = '';
  if (afterId !== undefined) {
    // The key of the last entry: its ancestors' elements from below the root down to it. Its rows may have gone
    // to the recycle bin meanwhile: the walk goes on after where it was.
    const r = await sql<{ id: string; elem: string }>`
      with recursive up(id, parent_id, depth, elem) as (
        select id, parent_id, 0, ${walkKey('instances')} from instances where id = ${afterId}
        union all
        select p.id, p.parent_id, up.depth + 1, ${walkKey('p')} from instances p join up on p.id = up.parent_id
        where up.id <> ${rootId} and up.depth < ${MAX_DEPTH}
      )
      select id, elem from up order by depth desc`.execute(db);
    const chain = r.rows;
    if (chain[0]?.id !== rootId) throw new AppError('CONFLICT', 'the folder changed during the walk; start again');
    afterKey = chain.slice(1).map((c) => c.elem).join('');
  }
  const c = bytewise(db);
  const r = await sql<RawRow & { walk_path: string }>`
    with recursive walk(id, path, sort_key, depth) as (
      select i.id, i.name, ${walkKey('i')}, 1 from instances i where i.parent_id = ${rootId} and i.deleted_at is null
      union all
      select i.id, w.path || '/' || i.name, w.sort_key || ${walkKey('i')}, w.depth + 1
      from instances i join walk w on i.parent_id = w.id where i.deleted_at is null and w.depth < ${MAX_DEPTH}
    )
    select ${ROW_SQL}, w.path as walk_path from walk w join instances i on i.id = w.id
    where w.sort_key${c} > ${afterKey} order by w.sort_key${c} limit ${limit + 1}`.execute(db);
  const entries = r.rows.map((x) => ({ ...mapRow(x), path: x.walk_path }));
  const more = entries.length > limit;
  if (more) entries.length = limit;
  return { entries, more };
}
