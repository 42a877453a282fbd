// Per-user labels (issue #16 item 3): a user's own names and colours, attached to any items they can see. Nobody
// else sees them, so every query is keyed by the user.
import { sql } from 'kysely';
import type { Db } from './sql/tx.ts';
import { asNameExists } from './sql/errors.ts';
import { atomically } from './sql/tx.ts';
import { newId } from '../ids.ts';
import { nameKey } from '../files/names.ts';
import { AppError } from '../http/errors.ts';
import { noteUserMarks } from './users-repo.ts';

export const MAX_LABELS_PER_USER = 200;
export const MAX_LABELS_PER_ITEM = 20;

export interface LabelRef {
  labelId: string;
  name: string;
  color: string;
}

export interface Label extends LabelRef {
  itemCount: number;
  createTime: number;
}

function notFound(): AppError {
  return new AppError('NOT_FOUND', 'no such label');
}

function nameExists(err: unknown, name: string): unknown {
  return asNameExists(err, 'label-name', `you already have a label "${name}"`, [{ field: 'name', message: 'exists' }]);
}

export async function listLabels(db: Db, userId: string): Promise<Label[]> {
  const rows = await db
    .selectFrom('labels as l')
    .select(['l.id', 'l.name', 'l.color', 'l.created_at'])
    .select((eb) => eb.selectFrom('instance_labels as il').whereRef('il.label_id', '=', 'l.id').select(eb.fn.countAll<number>().as('n')).as('item_count'))
    .where('l.user_id', '=', userId)
    .orderBy('l.name_key')
    .execute();
  return rows.map((r) => ({ labelId: r.id, name: r.name, color: r.color, createTime: r.created_at, itemCount: Number(r.item_count ?? 0) }));
}

export async function getLabel(db: Db, userId: string, id: string): Promise<Label> {
  const found = (await listLabels(db, userId)).find((l) => l.labelId === id);
  if (!found) throw notFound();
  return found;
}

export async function createLabel(db: Db, userId: string, name: string, color: string): Promise<Label> {
  return atomically(db, async (trx) => {
    const n = await trx.selectFrom('labels').select((eb) => eb.fn.countAll<number>().as('n')).where('user_id', '=', userId).executeTakeFirstOrThrow();
    if (Number(n.n) >= MAX_LABELS_PER_USER) throw new AppError('CONFLICT', `at most ${MAX_LABELS_PER_USER} labels per user`);
    const id = newId();
    const now = Date.now();
    try {
      await trx.insertInto('labels').values({ id, user_id: userId, name, name_key: nameKey(name), color, created_at: now }).execute();
    } catch (e) {
      throw nameExists(e, name);
    }
    return { labelId: id, name, color, createTime: now, itemCount: 0 };
  });
}

export async function modifyLabel(db: Db, userId: string, id: string, change: { name?: string; color?: string }): Promise<Label> {
  const set: { name?: string; name_key?: string; color?: string } = {};
  if (change.name !== undefined) Object.assign(set, { name: change.name, name_key: nameKey(change.name) });
  if (change.color !== undefined) set.color = change.color;
  if (Object.keys(set).length > 0) {
    try {
      const r = await db.updateTable('labels').set(set).where('id', '=', id).where('user_id', '=', userId).executeTakeFirst();
      if (Number(r.numUpdatedRows) !== 1) throw notFound();
    } catch (e) {
      throw nameExists(e, change.name ?? '');
    }
  }
  return getLabel(db, userId, id);
}

export async function deleteLabel(db: Db, userId: string, id: string): Promise<void> {
  await atomically(db, async (trx) => {
    const r = await trx.deleteFrom('labels').where('id', '=', id).where('user_id', '=', userId).executeTakeFirst();
    if (Number(r.numDeletedRows) !== 1) throw notFound();
    // The cascade would do this too; SQLite only cascades with foreign keys switched on for the connection.
    await trx.deleteFrom('instance_labels').where('label_id', '=', id).execute();
  });
}

/** Sets, adds or takes off the user's labels on one item; every id must be one of the user's labels. */
export async function saveItemLabels(db: Db, userId: string, instanceId: string, labelIds: readonly string[], mode: 'set' | 'add' | 'remove'): Promise<void> {
  const wanted = [...new Set(labelIds)];
  await atomically(db, async (trx) => {
    if (wanted.length > 0) {
      const own = await trx.selectFrom('labels').select('id').where('user_id', '=', userId).where('id', 'in', wanted).execute();
      if (own.length !== wanted.length) throw notFound();
    }
    const mine = trx.deleteFrom('instance_labels').where('instance_id', '=', instanceId).where('user_id', '=', userId);
    if (mode === 'set') await mine.execute();
    if (mode === 'remove') {
      if (wanted.length > 0) await mine.where('label_id', 'in', wanted).execute();
      return;
    }
    if (wanted.length > 0) {
      const now = Date.now();
      await trx
        .insertInto('instance_labels')
        .values(wanted.map((id) => ({ label_id: id, instance_id: instanceId, user_id: userId, created_at: now })))
        .onConflict((oc) => oc.columns(['label_id', 'instance_id']).doNothing())
        .execute();
      await noteUserMarks(trx, userId);
    }
    const n = await trx
      .selectFrom('instance_labels')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('instance_id', '=', instanceId)
      .where('user_id', '=', userId)
      .executeTakeFirstOrThrow();
    if (Number(n.n) > MAX_LABELS_PER_ITEM) {
      throw new AppError('VALIDATION_FAILED', `at most ${MAX_LABELS_PER_ITEM} labels on one item`, { fields: [{ field: 'labelIds', message: 'too many' }] });
    }
  });
}

/** The user's labels on each of these items, in one query (a listing page's). */
/**
 * The caller's own marks on these items, in one query (a listing pays one round trip for them, not two): their labels
 * on each, in name order, and which of them are their favourites.
 */
export async function personalMarks(db: Db, userId: string, instanceIds: readonly string[]): Promise<{ labels: Map<string, LabelRef[]>; favourites: Set<string> }> {
  const labels = new Map<string, LabelRef[]>();
  const favourites = new Set<string>();
  const wanted = [...new Set(instanceIds)];
  if (wanted.length === 0) return { labels, favourites };
  // A favourite is a row with no label; name_key orders the labels (where the database puts the favourites' nulls
  // does not matter).
  const rows = await sql<{ instance_id: string; label_id: string | null; name: string | null; color: string | null }>`
    select il.instance_id, l.id as label_id, l.name, l.color, l.name_key
      from instance_labels il join labels l on l.id = il.label_id
      where il.user_id = ${userId} and il.instance_id in (${sql.join(wanted)})
    union all
    select f.instance_id, null, null, null, null from favourites f where f.user_id = ${userId} and f.instance_id in (${sql.join(wanted)})
    order by 5`.execute(db);
  for (const r of rows.rows) {
    if (r.label_id === null) {
      favourites.add(r.instance_id);
      continue;
    }
    let list = labels.get(r.instance_id);
    if (!list) labels.set(r.instance_id, (list = []));
    list.push({ labelId: r.label_id, name: r.name!, color: r.color! });
  }
  return { labels, favourites };
}

/** The user's label of this name (case-insensitive), if any. */
export async function labelByName(db: Db, userId: string, name: string): Promise<LabelRef | undefined> {
  const r = await db.selectFrom('labels').select(['id', 'name', 'color']).where('user_id', '=', userId).where('name_key', '=', nameKey(name)).executeTakeFirst();
  return r && { labelId: r.id, name: r.name, color: r.color };
}
