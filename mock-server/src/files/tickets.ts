// Tickets for URLs a browser opens directly (zip downloads, previews in <img>/<iframe>): random, HMAC-tagged
// so forgeries are refused before any lookup, stored hashed, bound to the user, expiring.
import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Db } from '../db/sql/tx.ts';
import { insertTicket, redeemTicketRow, type TicketKind } from '../db/tickets-repo.ts';
import { AppError } from '../http/errors.ts';

export type { TicketKind };
export const TICKET_TTL_MS = 10 * 60 * 1000;

function tag(secret: Buffer, kind: TicketKind, nonce: string): string {
  return createHmac('sha256', secret).update(`ticket:${kind}:${nonce}`).digest().subarray(0, 16).toString('base64url');
}

const digest = (t: string) => createHash('sha256').update(t).digest('hex');

export async function issueTicket(
  db: Db, secret: Buffer, kind: TicketKind, userId: string, payload: unknown, ttlMs = TICKET_TTL_MS,
): Promise<{ ticket: string; expiresAt: number }> {
  const nonce = randomBytes(18).toString('base64url');
  const ticket = nonce + tag(secret, kind, nonce);
  const now = Date.now();
  const expiresAt = now + ttlMs;
  await insertTicket(db, { digest: digest(ticket), userId, kind, payload: JSON.stringify(payload), expiresAt }, now - TICKET_TTL_MS);
  return { ticket, expiresAt };
}

/** The ticket's user and payload; single-use tickets are spent here. */
export async function redeemTicket<T>(
  db: Db, secret: Buffer, kind: TicketKind, ticket: string, opts: { singleUse: boolean },
): Promise<{ userId: string; payload: T }> {
  const invalid = () => new AppError('NOT_FOUND', 'the link is invalid or has expired');
  if (ticket.length !== 46) throw invalid();
  const nonce = ticket.slice(0, 24);
  const given = Buffer.from(ticket.slice(24));
  const expected = Buffer.from(tag(secret, kind, nonce));
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) throw invalid();
  const row = await redeemTicketRow(db, digest(ticket), kind, opts.singleUse);
  if (!row) throw invalid();
  return { userId: row.userId, payload: JSON.parse(row.payload) as T };
}
