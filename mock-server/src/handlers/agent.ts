// Pairing the local transfer agent (`drive agent`) with a signed-in web session (contract tag "agent").
//
// The browser's session is an HttpOnly cookie its scripts cannot read, so the web app asks for a pairing token
// instead and hands it to the agent over the local WebSocket; the agent redeems it here. A pairing token is
// stateless (HMAC-tagged with the server secret, so forgeries are refused before any lookup), names one user,
// expires after PAIRING_TTL_MS and works once:
//  - redeemed for a new session, the session's token is derived from the pairing token's nonce, so a second
//    redemption would insert the same session id and is refused, on every node that shares the database;
//  - redeemed by an agent that already holds a live session of the same user (the usual case: the web sends a
//    fresh pairing token with every handshake), nothing new is opened; the nonce is remembered here until it
//    expires. A replay on another node could only reach this branch with a session of that user in hand.
// No table changes: this module uses only the session and user repositories.
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { FastifyRequest } from 'fastify';
import type { AppContext, Handlers } from '../context.ts';
import { assertUsable, hashToken } from '../auth/index.ts';
import { getSession, insertSession } from '../db/sessions-repo.ts';
import { getUserById } from '../db/users-repo.ts';
import { AppError } from '../http/errors.ts';
import { ok } from '../http/envelope.ts';
import { currentUserView } from './session.ts';

export const PAIRING_TTL_MS = 120_000;
/** Spent nonces this node remembers at most; each leaves after PAIRING_TTL_MS, so only a flood reaches it. */
const MAX_SPENT = 100_000;

interface Claims {
  /** User id. */
  u: string;
  /** Random nonce (base64url). */
  n: string;
  /** Expiry, epoch ms. */
  e: number;
}

const tag = (secret: Buffer, payload: string) => createHmac('sha256', secret).update(`agent-pair:${payload}`).digest().toString('base64url');

/** The agent session's token for a pairing nonce: unguessable without the server secret, and the same on every try. */
const sessionTokenFor = (secret: Buffer, nonce: string) => createHmac('sha256', secret).update(`agent-session:${nonce}`).digest().toString('base64url');

export function issuePairingToken(secret: Buffer, userId: string, now = Date.now()): { pairingToken: string; expiresAt: number } {
  const claims: Claims = { u: userId, n: randomBytes(18).toString('base64url'), e: now + PAIRING_TTL_MS };
  const payload = Buffer.from(JSON.stringify(claims)).toString('base64url');
  return { pairingToken: `${payload}.${tag(secret, payload)}`, expiresAt: claims.e };
}

/** The claims of a genuine, unexpired pairing token, or null (one answer for every kind of bad token). */
export function readPairingToken(secret: Buffer, token: string, now = Date.now()): Claims | null {
  const dot = token.indexOf('.');
  if (dot <= 0) return null;
  const payload = token.slice(0, dot);
  const given = Buffer.from(token.slice(dot + 1));
  const expected = Buffer.from(tag(secret, payload));
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return null;
  let claims: Claims;
  try {
    claims = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as Claims;
  } catch {
    return null;
  }
  if (typeof claims.u !== 'string' || typeof claims.n !== 'string' || typeof claims.e !== 'number' || claims.e <= now) return null;
  return claims;
}

export function agentHandlers(ctx: AppContext): Handlers {
  const { db, config, secret } = ctx;
  const spent = new Map<string, number>();
  const invalid = () => new AppError('UNAUTHENTICATED', 'the pairing token is invalid, expired or already used');

  /** Marks a nonce spent on this node; false when it already was. */
  const spend = (claims: Claims, now: number): boolean => {
    for (const [n, e] of spent) {
      if (e > now) break;
      spent.delete(n);
    }
    if (spent.has(claims.n) || spent.size >= MAX_SPENT) return false;
    spent.set(claims.n, claims.e);
    return true;
  };

  const openAgentSession = async (req: FastifyRequest, userId: string, claims: Claims, now: number) => {
    const token = sessionTokenFor(secret, claims.n);
    const id = hashToken(token);
    if (await getSession(db, id)) throw invalid();
    const session = {
      id,
      userId,
      kind: 'token' as const,
      createdAt: now,
      lastSeenAt: now,
      expiresAt: now + config.session.absoluteMs,
      idleMs: config.session.idleMs,
      ip: req.ip,
      userAgent: String(req.headers['user-agent'] ?? ''),
    };
    try {
      await insertSession(db, session);
    } catch (err) {
      // Two redemptions racing: the loser's insert meets the winner's row.
      if (await getSession(db, id)) throw invalid();
      throw err;
    }
    return { token, session };
  };

  return {
    async issueAgentPairingToken(req) {
      const user = req.user;
      if (!user) throw new AppError('UNAUTHENTICATED', 'login.required');
      return ok(issuePairingToken(secret, user.userId));
    },

    async pairAgent(req) {
      const now = Date.now();
      const { pairingToken } = req.body;
      const claims = readPairingToken(secret, pairingToken, now);
      if (!claims) throw invalid();
      const user = await getUserById(db, claims.u);
      if (!user) throw invalid();
      assertUsable(user, now);
      if (spent.has(claims.n)) throw invalid();
      const caller = req.user;
      if (caller && caller.sessionKind === 'token' && caller.userId === user.id) {
        if (!spend(claims, now)) throw invalid();
        const current = await getSession(db, caller.sessionId);
        return ok({ token: '', expiresAt: current?.expiresAt ?? now, idleTimeoutMs: current?.idleMs ?? config.session.idleMs, user: currentUserView(user) });
      }
      const { token, session } = await openAgentSession(req, user.id, claims, now);
      spend(claims, now);
      req.log.info({ traceId: req.traceId, userId: user.id }, 'local agent paired');
      return ok({ token, expiresAt: session.expiresAt, idleTimeoutMs: session.idleMs, user: currentUserView(user) });
    },
  };
}
