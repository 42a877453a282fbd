// A user's favourites (issue #16 item 2). Rows stay while their item is unreachable (recycled, or in a space the
// user left): the listing leaves those out, and they come back with the item.
import type { Db } from './sql/tx.ts';
import { atomically } from './sql/tx.ts';
import { AppError } from '../http/errors.ts';
import { noteUserMarks } from './users-repo.ts';

export const MAX_FAVOURITES = 10_000;

/** Adds favourites (an existing one keeps its time); CONFLICT past MAX_FAVOURITES. */
export async function addFavourites(db: Db, userId: string, instanceIds: readonly string[]): Promise<void> {
  if (instanceIds.length === 0) return;
  await atomically(db, async (trx) => {
    const now = Date.now();
    await trx
      .insertInto('favourites')
      .values([...new Set(instanceIds)].map((id) => ({ user_id: userId, instance_id: id, created_at: now })))
      .onConflict((oc) => oc.columns(['user_id', 'instance_id']).doNothing())
      .execute();
    const n = await trx.selectFrom('favourites').select((eb) => eb.fn.countAll<number>().as('n')).where('user_id', '=', userId).executeTakeFirstOrThrow();
    if (Number(n.n) > MAX_FAVOURITES) throw new AppError('CONFLICT', `at most ${MAX_FAVOURITES} favourites per user`);
    await noteUserMarks(trx, userId);
  });
}

export async function removeFavourites(db: Db, userId: string, instanceIds: readonly string[]): Promise<number> {
  if (instanceIds.length === 0) return 0;
  const r = await db.deleteFrom('favourites').where('user_id', '=', userId).where('instance_id', 'in', [...new Set(instanceIds)]).executeTakeFirst();
  return Number(r.numDeletedRows);
}

/** All of the user's favourites, newest first (bounded by MAX_FAVOURITES). */
export async function listFavourites(db: Db, userId: string): Promise<{ instanceId: string; createdAt: number }[]> {
  const rows = await db
    .selectFrom('favourites')
    .select(['instance_id', 'created_at'])
    .where('user_id', '=', userId)
    .orderBy('created_at', 'desc')
    .orderBy('instance_id', 'desc')
    .limit(MAX_FAVOURITES)
    .execute();
  return rows.map((r) => ({ instanceId: r.instance_id, createdAt: r.created_at }));
}
