// Internal shares (issue #17 part 1, migration 009): one owner's share of one item with its recipients and their
// share roles. The access gate reads `shareFacts` (what reaches an actor on some items) and `shareFor` (whether a
// fileSharingId is the actor's); the /fileShare calls read and change the rest.
import { sql, type ExpressionBuilder } from 'kysely';
import type { Db } from './sql/tx.ts';
import { atomically } from './sql/tx.ts';
import { newId } from '../ids.ts';
import { AppError } from '../http/errors.ts';
import type { Schema, SpaceKind } from './sql/schema.ts';
import type { ShareRecipientsTable, SharesTable } from './sql/schema-shares.ts';

type RecipientsEb = ExpressionBuilder<Schema & { r: ShareRecipientsTable; s: SharesTable }, 'r' | 's'>;

export type RecipientKind = 'user' | 'dept' | 'group';

/** Who is asking, as share lookups need it: the account and its department with the ancestors. */
export interface ShareActor {
  userId: string;
  deptChain: readonly string[];
}

export interface RecipientInput {
  kind: RecipientKind;
  id: string;
  roleCode: string;
}

/**
 * The recipients an actor is among: the user, their department or one above it (a share to a department reaches
 * its whole subtree), a live group they are a member of at any level.
 */
function reaches(actor: ShareActor) {
  return (eb: RecipientsEb) => eb.or([
    eb.and([eb('r.kind', '=', 'user'), eb('r.recipient_id', '=', actor.userId)]),
    ...(actor.deptChain.length ? [eb.and([eb('r.kind', '=', 'dept'), eb('r.recipient_id', 'in', [...actor.deptChain])])] : []),
    eb.and([
      eb('r.kind', '=', 'group'),
      eb('r.recipient_id', 'in', eb.selectFrom('group_members as gm').innerJoin('groups as g', 'g.id', 'gm.group_id')
        .select('gm.group_id').where('gm.user_id', '=', actor.userId).where('g.dissolved_at', 'is', null)),
    ]),
  ]);
}

const recipientsQuery = (db: Db) => db.selectFrom('share_recipients as r').innerJoin('shares as s', 's.id', 'r.share_id');

export interface ShareFact {
  shareId: string;
  instanceId: string;
  roleCode: string;
}

/** The shares on `instanceIds` that reach the actor, one row per share and role that reaches them: one query. */
export async function shareFacts(db: Db, instanceIds: readonly string[], actor: ShareActor): Promise<ShareFact[]> {
  if (instanceIds.length === 0) return [];
  const rows = await recipientsQuery(db)
    .select(['s.id', 's.instance_id', 'r.role_id'])
    .where('s.instance_id', 'in', [...instanceIds])
    .where(reaches(actor))
    .execute();
  return rows.map((r) => ({ shareId: r.id, instanceId: r.instance_id, roleCode: r.role_id }));
}

/**
 * A share as the gate checks a fileSharingId against it: its item, and whether the actor owns it or which roles
 * reach them through it (empty: neither, the share is not theirs). Undefined for no such share.
 */
export async function shareFor(db: Db, shareId: string, actor: ShareActor): Promise<{ instanceId: string; owned: boolean; roles: string[] } | undefined> {
  const s = await db.selectFrom('shares').select(['instance_id', 'owner_id']).where('id', '=', shareId).executeTakeFirst();
  if (!s) return undefined;
  const roles = s.owner_id === actor.userId ? [] : (await recipientsQuery(db).select('r.role_id').where('s.id', '=', shareId).where(reaches(actor)).execute()).map((r) => r.role_id);
  return { instanceId: s.instance_id, owned: s.owner_id === actor.userId, roles };
}

export interface ShareRow {
  id: string;
  instanceId: string;
  ownerId: string;
  ownerName: string;
  ownerRealName: string;
  createdAt: number;
  updatedAt: number;
  name: string;
  isFolder: boolean;
  size: number;
  ext: string;
  fileType: string;
  spaceKind: SpaceKind;
  /** The roles reaching the caller (shared with me); empty for their own shares. */
  roles: string[];
}

export interface RecipientRow {
  shareId: string;
  kind: RecipientKind;
  id: string;
  name: string;
  realName: string | null;
  roleCode: string;
}

/** A keyset position in a newest-first page of shares. */
interface Cursor { t: number; id: string }

export function encodeCursor(c: Cursor): string {
  return Buffer.from(JSON.stringify([c.t, c.id])).toString('base64url');
}

function decodeCursor(s: string): Cursor {
  try {
    const [t, id] = JSON.parse(Buffer.from(s, 'base64url').toString('utf8')) as unknown[];
    if (typeof t === 'number' && typeof id === 'string') return { t, id };
  } catch { /* refused below */ }
  throw new AppError('VALIDATION_FAILED', 'cursor: not a cursor of this listing', { fields: [{ field: 'cursor', message: 'invalid' }] });
}

export interface SharePageQuery {
  keyword?: string | undefined;
  limit: number;
  offset: number;
  cursor?: string | undefined;
}

function escapeLike(s: string): string {
  return s.replace(/[\\%_]/g, (c) => `\\${c}`);
}

function baseShares(db: Db) {
  return db.selectFrom('shares as s')
    .innerJoin('instances as i', 'i.id', 's.instance_id')
    .innerJoin('users as o', 'o.id', 's.owner_id')
    .where('i.deleted_at', 'is', null);
}

async function pageOf(
  db: Db, q: ReturnType<typeof baseShares>, page: SharePageQuery, roles: (ids: string[]) => Promise<Map<string, string[]>>,
): Promise<{ rows: ShareRow[]; total: number; next: string | null }> {
  if (page.keyword) q = q.where(sql<boolean>`i.name_key like ${`%${escapeLike(page.keyword.toLowerCase())}%`} escape '\\'`);
  const total = Number((await q.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow()).n);
  let pq = q;
  if (page.cursor !== undefined) {
    const c = decodeCursor(page.cursor);
    pq = pq.where((eb) => eb.or([eb('s.created_at', '<', c.t), eb.and([eb('s.created_at', '=', c.t), eb('s.id', '<', c.id)])]));
  }
  const found = await pq
    .select(['s.id', 's.instance_id', 's.owner_id', 's.created_at', 's.updated_at', 'o.user_name', 'o.real_name', 'i.name', 'i.is_folder', 'i.size', 'i.ext', 'i.file_type', 'i.space_kind'])
    .orderBy('s.created_at', 'desc').orderBy('s.id', 'desc')
    .limit(page.limit).offset(page.cursor !== undefined ? 0 : page.offset)
    .execute();
  const byShare = await roles(found.map((r) => r.id));
  const rows = found.map((r): ShareRow => ({
    id: r.id, instanceId: r.instance_id, ownerId: r.owner_id, ownerName: r.user_name, ownerRealName: r.real_name, createdAt: Number(r.created_at),
    updatedAt: Number(r.updated_at), name: r.name, isFolder: Number(r.is_folder) === 1, size: Number(r.size), ext: r.ext, fileType: r.file_type,
    spaceKind: r.space_kind, roles: byShare.get(r.id) ?? [],
  }));
  const last = rows.at(-1);
  return { rows, total, next: last && rows.length === page.limit ? encodeCursor({ t: last.createdAt, id: last.id }) : null };
}

/** Shared by me: the owner's shares of live items, newest first. */
export async function pageOwnShares(db: Db, ownerId: string, page: SharePageQuery) {
  return pageOf(db, baseShares(db).where('s.owner_id', '=', ownerId), page, async () => new Map());
}

/** Shared with me: the shares of live items reaching the actor (each once), newest first, with the roles reaching them. */
export async function pageSharesWithMe(db: Db, actor: ShareActor, page: SharePageQuery) {
  const mine = recipientsQuery(db).select('r.share_id').where(reaches(actor));
  return pageOf(db, baseShares(db).where('s.owner_id', '<>', actor.userId).where('s.id', 'in', mine), page, async (ids) => {
    const out = new Map<string, string[]>();
    if (ids.length === 0) return out;
    for (const r of await recipientsQuery(db).select(['r.share_id', 'r.role_id']).where('r.share_id', 'in', ids).where(reaches(actor)).execute()) {
      out.set(r.share_id, [...(out.get(r.share_id) ?? []), r.role_id]);
    }
    return out;
  });
}

/** One share of a live item (undefined: none, or its item is recycled). */
export async function getShare(db: Db, shareId: string): Promise<Omit<ShareRow, 'roles'> | undefined> {
  const r = await baseShares(db).where('s.id', '=', shareId)
    .select(['s.id', 's.instance_id', 's.owner_id', 's.created_at', 's.updated_at', 'o.user_name', 'o.real_name', 'i.name', 'i.is_folder', 'i.size', 'i.ext', 'i.file_type', 'i.space_kind'])
    .executeTakeFirst();
  return r && {
    id: r.id, instanceId: r.instance_id, ownerId: r.owner_id, ownerName: r.user_name, ownerRealName: r.real_name, createdAt: Number(r.created_at),
    updatedAt: Number(r.updated_at), name: r.name, isFolder: Number(r.is_folder) === 1, size: Number(r.size), ext: r.ext, fileType: r.file_type, spaceKind: r.space_kind,
  };
}

/** The recipients of some shares with their names: three small queries (users, departments, groups), whatever the count. */
export async function recipientsOf(db: Db, shareIds: readonly string[]): Promise<RecipientRow[]> {
  if (shareIds.length === 0) return [];
  const rows = await db.selectFrom('share_recipients').selectAll().where('share_id', 'in', [...shareIds]).orderBy('kind').orderBy('recipient_id').execute();
  const idsOf = (k: RecipientKind) => [...new Set(rows.filter((r) => r.kind === k).map((r) => r.recipient_id))];
  const names = await namesOf(db, { user: idsOf('user'), dept: idsOf('dept'), group: idsOf('group') });
  return rows.map((r) => {
    const n = names.get(`${r.kind}:${r.recipient_id}`);
    return { shareId: r.share_id, kind: r.kind, id: r.recipient_id, name: n?.name ?? '', realName: n?.realName ?? null, roleCode: r.role_id };
  });
}

/** Names of live users, departments and live groups, keyed `kind:id`: what exists to be shared with. */
async function namesOf(db: Db, ids: Record<RecipientKind, string[]>): Promise<Map<string, { name: string; realName: string | null }>> {
  const out = new Map<string, { name: string; realName: string | null }>();
  if (ids.user.length) {
    for (const u of await db.selectFrom('users').select(['id', 'user_name', 'real_name']).where('id', 'in', ids.user).where('deleted_at', 'is', null).execute()) {
      out.set(`user:${u.id}`, { name: u.user_name, realName: u.real_name });
    }
  }
  if (ids.dept.length) for (const d of await db.selectFrom('departments').select(['id', 'name']).where('id', 'in', ids.dept).execute()) out.set(`dept:${d.id}`, { name: d.name, realName: null });
  if (ids.group.length) {
    for (const g of await db.selectFrom('groups').select(['id', 'name']).where('id', 'in', ids.group).where('dissolved_at', 'is', null).execute()) {
      out.set(`group:${g.id}`, { name: g.name, realName: null });
    }
  }
  return out;
}

/** Refuses recipients that do not exist (NOT_FOUND, naming the first) and repeats of one recipient (VALIDATION_FAILED). */
async function checkRecipients(db: Db, recipients: readonly RecipientInput[]): Promise<void> {
  const seen = new Set<string>();
  for (const r of recipients) {
    const key = `${r.kind}:${r.id}`;
    if (seen.has(key)) throw new AppError('VALIDATION_FAILED', `recipients: ${key} is named twice`, { fields: [{ field: 'recipients', message: 'duplicate' }] });
    seen.add(key);
  }
  const by = (k: RecipientKind) => recipients.filter((r) => r.kind === k).map((r) => r.id);
  const names = await namesOf(db, { user: by('user'), dept: by('dept'), group: by('group') });
  const missing = recipients.find((r) => !names.has(`${r.kind}:${r.id}`));
  if (missing) throw new AppError('NOT_FOUND', `no such ${missing.kind}: ${missing.id}`);
}

/**
 * Shares `instanceId` from `ownerId` with the recipients: a new share, or the owner's existing share of the item
 * with these recipients added or their roles changed. Atomic. Returns the share's id.
 */
export async function addToShare(db: Db, ownerId: string, instanceId: string, recipients: readonly RecipientInput[], now = Date.now()): Promise<string> {
  await checkRecipients(db, recipients);
  return atomically(db, async (trx) => {
    let id = (await trx.selectFrom('shares').select('id').where('instance_id', '=', instanceId).where('owner_id', '=', ownerId).executeTakeFirst())?.id;
    if (id === undefined) {
      id = `sh_${newId()}`;
      // Two first shares of one item at once: the unique index keeps one, and the other call's transaction fails.
      await trx.insertInto('shares').values({ id, instance_id: instanceId, owner_id: ownerId, created_at: now, updated_at: now }).execute();
    } else {
      await trx.updateTable('shares').set({ updated_at: now }).where('id', '=', id).execute();
      await trx.deleteFrom('share_recipients').where('share_id', '=', id)
        .where((eb) => eb.or(recipients.map((r) => eb.and([eb('kind', '=', r.kind), eb('recipient_id', '=', r.id)])))).execute();
    }
    const shareId = id;
    await trx.insertInto('share_recipients').values(recipients.map((r) => ({ share_id: shareId, kind: r.kind, recipient_id: r.id, role_id: r.roleCode }))).execute();
    return shareId;
  });
}

/** Replaces the recipients of the owner's share (atomic). NOT_FOUND when the share is not theirs. */
export async function replaceRecipients(db: Db, ownerId: string, shareId: string, recipients: readonly RecipientInput[], now = Date.now()): Promise<void> {
  await checkRecipients(db, recipients);
  await atomically(db, async (trx) => {
    const changed = await trx.updateTable('shares').set({ updated_at: now }).where('id', '=', shareId).where('owner_id', '=', ownerId).executeTakeFirst();
    if (Number(changed.numUpdatedRows) !== 1) throw new AppError('NOT_FOUND', 'no such share');
    await trx.deleteFrom('share_recipients').where('share_id', '=', shareId).execute();
    await trx.insertInto('share_recipients').values(recipients.map((r) => ({ share_id: shareId, kind: r.kind, recipient_id: r.id, role_id: r.roleCode }))).execute();
  });
}

/** Cancels the owner's shares, all or none (NOT_FOUND when one is not theirs). */
export async function cancelShares(db: Db, ownerId: string, shareIds: readonly string[]): Promise<void> {
  const ids = [...new Set(shareIds)];
  await atomically(db, async (trx) => {
    const owned = await trx.selectFrom('shares').select('id').where('id', 'in', ids).where('owner_id', '=', ownerId).execute();
    if (owned.length !== ids.length) throw new AppError('NOT_FOUND', 'no such share');
    await trx.deleteFrom('share_recipients').where('share_id', 'in', ids).execute();
    await trx.deleteFrom('shares').where('id', 'in', ids).execute();
  });
}
