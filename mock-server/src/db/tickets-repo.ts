// Download tickets (files/tickets.ts): only the SHA-256 of a ticket is stored, so a copy of the database yields no
// usable links. Redeeming a single-use ticket is one statement, so two requests on any nodes cannot both use it.
import type { Db } from './sql/tx.ts';

export type TicketKind = 'zip' | 'preview';

export async function insertTicket(
  db: Db,
  t: { digest: string; userId: string; kind: TicketKind; payload: string; expiresAt: number },
  pruneBefore: number,
): Promise<void> {
  await db.deleteFrom('download_tickets').where('expires_at', '<', pruneBefore).execute();
  await db.insertInto('download_tickets').values({ id: t.digest, user_id: t.userId, kind: t.kind, payload: t.payload, expires_at: t.expiresAt }).execute();
}

/** The live ticket's user and payload; a single-use ticket is marked used in the same statement. */
export async function redeemTicketRow(
  db: Db,
  digest: string,
  kind: TicketKind,
  singleUse: boolean,
  now = Date.now(),
): Promise<{ userId: string; payload: string } | undefined> {
  if (singleUse) {
    return db
      .updateTable('download_tickets')
      .set({ used_at: now })
      .where('id', '=', digest)
      .where('kind', '=', kind)
      .where('used_at', 'is', null)
      .where('expires_at', '>=', now)
      .returning(['user_id as userId', 'payload'])
      .executeTakeFirst();
  }
  return db
    .selectFrom('download_tickets')
    .select(['user_id as userId', 'payload'])
    .where('id', '=', digest)
    .where('kind', '=', kind)
    .where('expires_at', '>=', now)
    .executeTakeFirst();
}
