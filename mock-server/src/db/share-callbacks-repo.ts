// Share callbacks (migration 020_share_callback): the platforms' registered URLs and each link's delivery state.
import type { Db } from './sql/tx.ts';

export interface ShareCallbackRow {
  platformId: string;
  url: string;
  keyNonce: string;
  createdAt: number;
  updatedAt: number;
}

export type DeliveryStatus = 'pending' | 'delivered' | 'failed';

const toRow = (r: { platform_id: string; url: string; key_nonce: string; created_at: number; updated_at: number }): ShareCallbackRow => ({
  platformId: r.platform_id, url: r.url, keyNonce: r.key_nonce, createdAt: Number(r.created_at), updatedAt: Number(r.updated_at),
});

export async function listCallbacks(db: Db): Promise<ShareCallbackRow[]> {
  return (await db.selectFrom('share_callbacks').selectAll().orderBy('platform_id').execute()).map(toRow);
}

export async function getCallback(db: Db, platformId: string): Promise<ShareCallbackRow | undefined> {
  const r = await db.selectFrom('share_callbacks').selectAll().where('platform_id', '=', platformId).executeTakeFirst();
  return r && toRow(r);
}

/** Registers or replaces a platform's URL with a new key nonce (the previous secret stops verifying). */
export async function upsertCallback(db: Db, platformId: string, url: string, keyNonce: string, now = Date.now()): Promise<ShareCallbackRow> {
  await db
    .insertInto('share_callbacks')
    .values({ platform_id: platformId, url, key_nonce: keyNonce, created_at: now, updated_at: now })
    .onConflict((oc) => oc.column('platform_id').doUpdateSet({ url, key_nonce: keyNonce, updated_at: now }))
    .execute();
  return (await getCallback(db, platformId))!;
}

export async function deleteCallback(db: Db, platformId: string): Promise<boolean> {
  const r = await db.deleteFrom('share_callbacks').where('platform_id', '=', platformId).executeTakeFirst();
  return Number(r.numDeletedRows) > 0;
}

export async function insertDelivery(db: Db, linkId: string, platformId: string, now = Date.now()): Promise<void> {
  await db.insertInto('share_callback_deliveries').values({ link_id: linkId, platform_id: platformId, status: 'pending', http_status: null, updated_at: now }).execute();
}

export async function recordAttempt(db: Db, linkId: string, status: DeliveryStatus, httpStatus: number | null, now = Date.now()): Promise<void> {
  await db
    .updateTable('share_callback_deliveries')
    .set((eb) => ({ status, http_status: httpStatus, attempts: eb('attempts', '+', 1), updated_at: now }))
    .where('link_id', '=', linkId)
    .execute();
}

/** Each link's delivery state, for the owner's views. */
export async function deliveryStatuses(db: Db, linkIds: readonly string[]): Promise<Map<string, DeliveryStatus>> {
  if (linkIds.length === 0) return new Map();
  const rows = await db.selectFrom('share_callback_deliveries').select(['link_id', 'status']).where('link_id', 'in', linkIds).execute();
  return new Map(rows.map((r) => [r.link_id, r.status]));
}
