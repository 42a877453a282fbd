// Tickets for URLs a browser opens directly (zip downloads, previews in <img>/<iframe>): random, HMAC-tagged
// so forgeries are refused before any lookup, stored hashed, bound to the user, expiring.
import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Db } from '../db/database.ts';
import { transaction } from '../db/database.ts';
import { AppError } from '../http/errors.ts';

export type TicketKind = 'zip' | 'preview';
export const TICKET_TTL_MS = 10 * 60 * 1000;

function tag(secret: Buffer, kind: TicketKind, nonce: string): string {
  return createHmac('sha256', secret).update(`ticket:${kind}:${nonce}`).digest().subarray(0, 16).toString('base64url');
}

const digest = (t: string) => createHash('sha256').update(t).digest('hex');

export function issueTicket(db: Db, secret: Buffer, kind: TicketKind, userId: string, payload: unknown, ttlMs = TICKET_TTL_MS): { ticket: string; expiresAt: number } {
  const nonce = randomBytes(18).toString('base64url');
  const ticket = nonce + tag(secret, kind, nonce);
  const expiresAt = Date.now() + ttlMs;
  db.prepare('DELETE FROM download_tickets WHERE expires_at < ?').run(Date.now() - TICKET_TTL_MS);
  db.prepare('INSERT INTO download_tickets (id, user_id, kind, payload, expires_at) VALUES (?, ?, ?, ?, ?)').run(
    digest(ticket), userId, kind, JSON.stringify(payload), expiresAt,
  );
  return { ticket, expiresAt };
}

/** The ticket's user and payload; single-use tickets are spent here. */
export function redeemTicket<T>(db: Db, secret: Buffer, kind: TicketKind, ticket: string, opts: { singleUse: boolean }): { userId: string; payload: T } {
  const invalid = () => new AppError('NOT_FOUND', 'the link is invalid or has expired');
  if (ticket.length !== 46) throw invalid();
  const nonce = ticket.slice(0, 24);
  const given = Buffer.from(ticket.slice(24));
  const expected = Buffer.from(tag(secret, kind, nonce));
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) throw invalid();
  return transaction(db, () => {
    const row = db
      .prepare('SELECT user_id AS userId, payload, expires_at AS expiresAt, used_at AS usedAt FROM download_tickets WHERE id = ? AND kind = ?')
      .get(digest(ticket), kind) as { userId: string; payload: string; expiresAt: number; usedAt: number | null } | undefined;
    if (!row || row.expiresAt < Date.now() || (opts.singleUse && row.usedAt !== null)) throw invalid();
    if (opts.singleUse) db.prepare('UPDATE download_tickets SET used_at = ? WHERE id = ?').run(Date.now(), digest(ticket));
    return { userId: row.userId, payload: JSON.parse(row.payload) as T };
  });
}
