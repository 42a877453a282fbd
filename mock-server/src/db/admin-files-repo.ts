// The administrators' view of every file (issue #16 item 7): newest first, paged by keyset on (created_at, id)
// through instances_created_all (007_search.ts).
import { sql } from 'kysely';
import type { Db } from './sql/tx.ts';
import { dialectOf } from './sql/tx.ts';
import { nameKey } from '../files/names.ts';
import type { SpaceKind } from './quota.ts';

export interface ManagedFilter {
  keyword?: string;
  ownerId?: string;
  spaceKind?: SpaceKind;
  fileFilter?: number;
  minSize?: number;
  maxSize?: number;
  state: 'live' | 'recycled' | 'all';
}

export interface ManagedRow {
  id: string;
  name: string;
  size: number;
  ext: string;
  fileType: string;
  ownerId: string;
  ownerName: string;
  spaceKind: SpaceKind;
  spaceId: string;
  spaceName: string;
  libCode: string;
  parentId: string | null;
  createdAt: number;
  updatedAt: number;
  deletedAt: number | null;
}

function filtered(db: Db, f: ManagedFilter) {
  let base = db.selectFrom('instances as i').where('i.is_folder', '=', 0);
  if (f.state === 'live') base = base.where('i.deleted_at', 'is', null);
  if (f.state === 'recycled') base = base.where('i.deleted_at', 'is not', null);
  const key = f.keyword?.trim() ? nameKey(f.keyword.trim()) : undefined;
  if (key !== undefined) base = base.where(dialectOf(db) === 'postgres' ? sql<boolean>`strpos(i.name_key, ${key}) > 0` : sql<boolean>`instr(i.name_key, ${key}) > 0`);
  if (f.ownerId) base = base.where('i.created_by', '=', f.ownerId);
  if (f.spaceKind) base = base.where('i.space_kind', '=', f.spaceKind);
  if (f.fileFilter !== undefined) base = base.where('i.filter_cat', '=', f.fileFilter);
  if (f.minSize !== undefined) base = base.where('i.size', '>=', f.minSize);
  if (f.maxSize !== undefined) base = base.where('i.size', '<=', f.maxSize);
  return base;
}

/** A page of files after `after` (or skipping `offset`); one row more than `limit` tells a next page exists. */
export async function pageManagedFiles(
  db: Db, f: ManagedFilter, page: { after?: { createdAt: number; id: string }; offset: number; limit: number },
): Promise<ManagedRow[]> {
  let q = filtered(db, f);
  const after = page.after;
  if (after) q = q.where((eb) => eb.or([eb('i.created_at', '<', after.createdAt), eb.and([eb('i.created_at', '=', after.createdAt), eb('i.id', '<', after.id)])]));
  const rows = await q
    .select(['i.id', 'i.name', 'i.size', 'i.ext', 'i.file_type', 'i.created_by', 'i.space_kind', 'i.space_id', 'i.lib_code', 'i.parent_id', 'i.created_at', 'i.updated_at', 'i.deleted_at'])
    .select((eb) => eb.selectFrom('users as u').whereRef('u.id', '=', 'i.created_by').select('u.user_name').as('owner_name'))
    .select(sql<string | null>`case i.space_kind
      when 'user' then (select u.user_name from users u where u.id = i.space_id)
      when 'group' then (select g.name from groups g where g.id = i.space_id)
      else (select d.name from departments d where d.id = i.space_id) end`.as('space_name'))
    .orderBy('i.created_at', 'desc')
    .orderBy('i.id', 'desc')
    .limit(page.limit)
    .offset(page.offset)
    .execute();
  return rows.map((r) => ({
    id: r.id, name: r.name, size: r.size, ext: r.ext, fileType: r.file_type, ownerId: r.created_by, ownerName: r.owner_name ?? '',
    spaceKind: r.space_kind as SpaceKind, spaceId: r.space_id, spaceName: r.space_name ?? '', libCode: r.lib_code, parentId: r.parent_id,
    createdAt: r.created_at, updatedAt: r.updated_at, deletedAt: r.deleted_at,
  }));
}

export async function countManagedFiles(db: Db, f: ManagedFilter): Promise<number> {
  const r = await filtered(db, f).select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
  return Number(r.n);
}
