// Name search (issue #16 item 5), and the user and group pickers.
//
// Candidates are narrowed in SQL to the caller's spaces (their own, their groups', their department's) and to the
// filters; the access gate then decides on each candidate row (search.ts). A keyword of 3 or more characters is
// looked up in the trigram index of 007_search.ts (SQLite FTS5, a GIN over trigram arrays on PostgreSQL); trigrams
// cannot serve 1 or 2 characters, so those walk the caller's spaces in name order through instances_space_name,
// where a LIMIT stops the walk early for common characters. Either way the substring is checked on the row itself
// (instr/strpos), so what a trigram index over-selects never reaches the caller.
import { sql, type RawBuilder } from 'kysely';
import type { Db } from './sql/tx.ts';
import { dialectOf } from './sql/tx.ts';
import { nameKey } from '../files/names.ts';
import type { Space } from './quota.ts';

/**
 * Counting stops here: a search matching more should be narrowed, not paged through (clients say "more than 1,000").
 * It also tells a common keyword from a selective one (searchIds' `walk`): counting further cost a common word most
 * of its time (README, name search).
 */
export const MAX_COUNTED = 1_000;

/** Keywords this long or longer use the trigram index. */
export const TRIGRAM_MIN = 3;

export interface SearchFilters {
  keyword?: string;
  fileFilter?: number;
  minSize?: number;
  maxSize?: number;
  updateFrom?: number;
  updateTo?: number;
  /** Only items carrying this label of labelOwner's. */
  labelId?: string;
  labelOwner: string;
  ownerId?: string;
  /** Only items below this folder, at any depth. */
  underFolder?: string;
}

export interface SearchPosition {
  nameKey: string;
  id: string;
}

/**
 * The spaces a user may find something in: their own, their groups', their department chain's (`deptChain`, nearest
 * first), and every space holding a live item granted to them or to one of those departments (another user's
 * shared folder, a department they do not belong to). A space here only makes its rows candidates: the access
 * gate decides on each.
 */
export async function readableSpaces(db: Db, userId: string, deptChain: readonly string[]): Promise<Space[]> {
  const [groups, granted] = await Promise.all([
    db.selectFrom('group_members').select('group_id').where('user_id', '=', userId).execute(),
    db
      .selectFrom('grants as g')
      .innerJoin('instances as i', 'i.id', 'g.instance_id')
      .select(['i.space_kind', 'i.space_id'])
      .distinct()
      .where('i.deleted_at', 'is', null)
      .where((eb) => {
        const user = eb.and([eb('g.subject_kind', '=', 'user'), eb('g.subject_id', '=', userId)]);
        return deptChain.length ? eb.or([user, eb.and([eb('g.subject_kind', '=', 'dept'), eb('g.subject_id', 'in', [...deptChain])])]) : user;
      })
      .execute(),
  ]);
  const spaces = new Map<string, Space>();
  const add = (kind: Space['kind'], id: string) => spaces.set(`${kind}:${id}`, { kind, id });
  add('user', userId);
  for (const g of groups) add('group', g.group_id);
  for (const d of deptChain) add('dept', d);
  for (const g of granted) add(g.space_kind as Space['kind'], g.space_id);
  return [...spaces.values()];
}

function spaceClause(spaces: readonly Space[]): RawBuilder<unknown> {
  const byKind = new Map<string, string[]>();
  for (const s of spaces) byKind.set(s.kind, [...(byKind.get(s.kind) ?? []), s.id]);
  const parts = [...byKind].map(([kind, ids]) => sql`(i.space_kind = ${kind} and i.space_id in (${sql.join(ids)}))`);
  return sql`(${sql.join(parts, sql` or `)})`;
}

/** The distinct trigrams (runs of 3 code points) of a keyword, as hcs_name_trigrams (007_search.ts) makes them. */
export function trigrams(key: string): string[] {
  const chars = [...key];
  const grams = new Set<string>();
  for (let i = 0; i + TRIGRAM_MIN <= chars.length; i++) grams.add(chars.slice(i, i + TRIGRAM_MIN).join(''));
  return [...grams];
}

/** The trigrams of a keyword as an FTS5 query: each quoted (a 3-character string is one token, never a phrase). */
export function trigramQuery(key: string): string {
  return trigrams(key).map((g) => `"${g.replaceAll('"', '""')}"`).join(' AND ');
}

function escapeLike(s: string): string {
  return s.replace(/[\\%_]/g, (c) => `\\${c}`);
}

function whereOf(db: Db, spaces: readonly Space[], f: SearchFilters, key: string | undefined, walk = false): RawBuilder<unknown>[] {
  const pg = dialectOf(db) === 'postgres';
  const w: RawBuilder<unknown>[] = [sql`i.deleted_at is null`, sql`i.parent_id is not null`, spaceClause(spaces)];
  if (key !== undefined) {
    if (pg && !walk && [...key].length >= TRIGRAM_MIN) w.push(sql`hcs_name_trigrams(i.name_key) @> cast(${trigrams(key)} as text[])`);
    // strpos/instr are not served by the trigram index: a short keyword walks the space index instead.
    w.push(pg ? sql`strpos(i.name_key, ${key}) > 0` : sql`instr(i.name_key, ${key}) > 0`);
  }
  if (f.fileFilter !== undefined) w.push(sql`i.filter_cat = ${f.fileFilter}`);
  if (f.minSize !== undefined) w.push(sql`i.size >= ${f.minSize}`);
  if (f.maxSize !== undefined) w.push(sql`i.size <= ${f.maxSize}`);
  if (f.updateFrom !== undefined) w.push(sql`i.updated_at >= ${f.updateFrom}`);
  if (f.updateTo !== undefined) w.push(sql`i.updated_at <= ${f.updateTo}`);
  if (f.ownerId !== undefined) w.push(sql`i.created_by = ${f.ownerId}`);
  if (f.labelId !== undefined) {
    w.push(sql`exists (select 1 from instance_labels l where l.label_id = ${f.labelId} and l.instance_id = i.id and l.user_id = ${f.labelOwner})`);
  }
  if (f.underFolder !== undefined) {
    w.push(sql`i.parent_id in (with recursive sub(id) as (
      select id from instances where id = ${f.underFolder}
      union all
      select c.id from instances c join sub on c.parent_id = sub.id where c.is_folder = 1 and c.deleted_at is null
    ) select id from sub)`);
  }
  return w;
}

function fromOf(db: Db, key: string | undefined, walk = false): RawBuilder<unknown> {
  if (dialectOf(db) === 'sqlite' && !walk && key !== undefined && [...key].length >= TRIGRAM_MIN) {
    // CROSS JOIN: SQLite keeps the written order, so the trigram lookup drives and the space filter applies to its
    // matches; left to choose, the planner may walk the whole space through instances_space_name instead.
    return sql`instances_fts f cross join instances i on i.rowid = f.rowid and instances_fts match ${trigramQuery(key)}`;
  }
  return sql`instances i`;
}

/**
 * Ids of matching live items in name order (name_key, then id), after `after` or skipping `offset`; `limit` of them.
 * `walk`: the keyword is common (countMatches stopped counting), so walk the spaces' name index and test each name
 * instead of sorting every trigram match: the page fills after a few hundred names.
 */
export async function searchIds(
  db: Db, spaces: readonly Space[], f: SearchFilters, page: { after?: SearchPosition; offset: number; limit: number; walk?: boolean },
): Promise<SearchPosition[]> {
  if (spaces.length === 0) return [];
  const key = f.keyword ? nameKey(f.keyword) : undefined;
  const walks = page.walk === true || key === undefined || [...key].length < TRIGRAM_MIN;
  const select = (within: readonly Space[], limit: number, offset: number) => {
    const w = whereOf(db, within, f, key, page.walk);
    if (page.after) w.push(sql`(i.name_key > ${page.after.nameKey} or (i.name_key = ${page.after.nameKey} and i.id > ${page.after.id}))`);
    return sql<{ id: string; name_key: string }>`select i.id, i.name_key from ${fromOf(db, key, page.walk)}
      where ${sql.join(w, sql` and `)} order by i.name_key, i.id limit ${limit} offset ${offset}`;
  };
  // A walk over several spaces (the caller's own, their groups', their departments') walks each space's stretch of
  // the name index on its own and merges the heads: asked as one query, the spaces' OR made both databases read
  // every candidate and sort them (PostgreSQL: 851 ms for a common word over 1,000,000 files, against 2.6 ms for
  // one space's walk).
  const query =
    walks && spaces.length > 1
      ? sql<{ id: string; name_key: string }>`select id, name_key from (${sql.join(
          spaces.map((sp, n) => sql`select * from (${select([sp], page.offset + page.limit, 0)}) ${sql.raw(`s${n}`)}`),
          sql` union all `,
        )}) m order by name_key, id limit ${page.limit} offset ${page.offset}`
      : select(spaces, page.limit, page.offset);
  const r = await query.execute(db);
  return r.rows.map((x) => ({ id: x.id, nameKey: x.name_key }));
}

/** How many items match, counting no further than MAX_COUNTED (then exact is false). */
export async function countMatches(db: Db, spaces: readonly Space[], f: SearchFilters): Promise<{ total: number; exact: boolean }> {
  if (spaces.length === 0) return { total: 0, exact: true };
  const key = f.keyword ? nameKey(f.keyword) : undefined;
  const w = whereOf(db, spaces, f, key);
  const r = await sql<{ n: number | string }>`select count(*) as n from (select 1 from ${fromOf(db, key)}
    where ${sql.join(w, sql` and `)} limit ${MAX_COUNTED + 1}) m`.execute(db);
  const n = Number(r.rows[0]?.n ?? 0);
  return n > MAX_COUNTED ? { total: MAX_COUNTED, exact: false } : { total: n, exact: true };
}

export interface UserHit {
  userId: string;
  userName: string;
  userRealName: string;
  userDeptId: string | null;
}

function containsLower(col: string, keyword: string): RawBuilder<boolean> {
  return sql<boolean>`lower(${sql.ref(col)}) like ${`%${escapeLike(keyword.toLowerCase())}%`} escape '\\'`;
}

export async function searchUsers(db: Db, keyword: string, offset: number, limit: number): Promise<{ list: UserHit[]; total: number }> {
  const base = db
    .selectFrom('users')
    .where('deleted_at', 'is', null)
    .where('is_enabled', '=', 1)
    .where((eb) => eb.or([containsLower('user_name', keyword), containsLower('real_name', keyword)]));
  const [rows, count] = await Promise.all([
    base.select(['id', 'user_name', 'real_name', 'dept_id']).orderBy('user_name_key').orderBy('id').limit(limit).offset(offset).execute(),
    base.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow(),
  ]);
  return { list: rows.map((r) => ({ userId: r.id, userName: r.user_name, userRealName: r.real_name, userDeptId: r.dept_id })), total: Number(count.n) };
}

export interface GroupHit {
  groupId: string;
  groupName: string;
  ownerId: string;
  memberCount: number;
  isMember: boolean;
}

export async function searchGroups(db: Db, userId: string, keyword: string, mine: boolean, offset: number, limit: number): Promise<{ list: GroupHit[]; total: number }> {
  let base = db.selectFrom('groups as g').where('g.dissolved_at', 'is', null).where(containsLower('g.name', keyword));
  if (mine) base = base.where((eb) => eb.exists(eb.selectFrom('group_members as m').select('m.user_id').whereRef('m.group_id', '=', 'g.id').where('m.user_id', '=', userId)));
  const [rows, count] = await Promise.all([
    base
      .select(['g.id', 'g.name', 'g.owner_id'])
      .select((eb) => eb.selectFrom('group_members as m').whereRef('m.group_id', '=', 'g.id').select(eb.fn.countAll<number>().as('n')).as('members'))
      .select((eb) => eb.selectFrom('group_members as m').whereRef('m.group_id', '=', 'g.id').where('m.user_id', '=', userId).select(eb.fn.countAll<number>().as('n')).as('mine'))
      .orderBy('g.name')
      .orderBy('g.id')
      .limit(limit)
      .offset(offset)
      .execute(),
    base.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow(),
  ]);
  return {
    list: rows.map((r) => ({ groupId: r.id, groupName: r.name, ownerId: r.owner_id, memberCount: Number(r.members ?? 0), isMember: Number(r.mine ?? 0) > 0 })),
    total: Number(count.n),
  };
}
