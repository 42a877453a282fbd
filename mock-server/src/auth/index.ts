// Sessions and sign-in. Browsers hold an HttpOnly SameSite=Lax cookie (HCS_SESSION); the CLI sends its token
// in the `token` header and asks for that kind of session with `X-HCS-Client: cli` at sign-in. Either way the
// server keeps only the token's SHA-256, with an idle and an absolute expiry, and a revocation time.
import { createHash, randomBytes } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { AppContext } from '../context.ts';
import type { AuthService, SessionUser } from './types.ts';
import { AppError } from '../http/errors.ts';
import { getPasswordHash, getUserById, getUserByName, isExpired, userNameKey, type User } from '../db/users-repo.ts';
import {
  getSession,
  insertSession,
  pruneSessions,
  revokeSession,
  revokeUserSessions,
  touchSession,
  type Session,
  type SessionKind,
} from '../db/sessions-repo.ts';
import { dummyPasswordHash, loadPasswordKeys, verifyPassword, type PasswordKeys } from './passwords.ts';
import { createRateLimiter, type RateLimiter } from './rate-limit.ts';

export const SESSION_COOKIE = 'HCS_SESSION';
/** Header the CLI sends its session token in. */
export const TOKEN_HEADER = 'token';
/** Sign-in header selecting a token session instead of a cookie (value `cli`). */
export const CLIENT_HEADER = 'x-hcs-client';

/** Message keys of the spec the web app translates. */
export const MSG = {
  accountFrozen: 'accountFrozen',
  accountExpired: 'login.userValid',
  loginFailed: 'login.userOrPasswordError',
  unauthenticated: 'login.required',
} as const;

const TOKEN_RE = /^[A-Za-z0-9_-]{43}$/;
/** Expired and revoked sessions stay this long for audit, then go. */
const SESSION_KEEP_MS = 7 * 24 * 3_600_000;
const PRUNE_EVERY_MS = 3_600_000;

export interface SignInResult {
  /** The secret token; a cookie session gets it only as the cookie, never in a body. */
  token: string;
  session: Session;
  user: User;
}

export interface Auth extends AuthService {
  /** The RSA key pair clients encrypt passwords with. */
  keys: PasswordKeys;
  /** Login failures per account and IP; reusable with other key prefixes (share codes). */
  limiter: RateLimiter;
  /** Checks the rate limits and the password, then opens a session (and sets the cookie for browsers). */
  signIn(req: FastifyRequest, reply: FastifyReply, userName: string, password: string): Promise<SignInResult>;
  /** Revokes the caller's session and clears the cookie. */
  signOut(req: FastifyRequest, reply: FastifyReply): void;
  /** Ends every session of the user but `keepSessionId` (after a password change). */
  endOtherSessions(userId: string, keepSessionId: string | null): number;
}

export function hashToken(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}

/** The Auth built by createAuth; handlers that need more than authenticate/peek use this. */
export function authOf(ctx: AppContext): Auth {
  const a = ctx.auth as Partial<Auth>;
  if (typeof a.signIn !== 'function' || !a.keys) throw new Error('ctx.auth was not built by createAuth');
  return a as Auth;
}

function sessionKindOf(req: FastifyRequest): SessionKind {
  const v = req.headers[CLIENT_HEADER];
  return typeof v === 'string' && v.trim().toLowerCase() === 'cli' ? 'token' : 'cookie';
}

function toSessionUser(user: User, session: Session): SessionUser {
  return {
    userId: user.id,
    userName: user.userName,
    realName: user.realName,
    deptId: user.deptId,
    isAdmin: user.isAdmin,
    languageId: user.languageId,
    sessionId: session.id,
    sessionKind: session.kind,
  };
}

/** Refusals for an account that exists and proved its identity but may not be used. */
export function assertUsable(user: User, now = Date.now()): void {
  if (!user.isEnabled) throw new AppError('ACCOUNT_FROZEN', MSG.accountFrozen);
  if (isExpired(user, now)) throw new AppError('ACCOUNT_EXPIRED', MSG.accountExpired);
}

export function createAuth(ctx: AppContext): Auth {
  const { db, config } = ctx;
  const keys = loadPasswordKeys(config.dataDir);
  const limiter = createRateLimiter(db, 'too many sign-in attempts, try again later');
  const secureCookie = (config.publicUrl ?? '').startsWith('https:');
  let lastPrune = 0;

  const cookieOptions = {
    path: '/',
    httpOnly: true,
    sameSite: 'lax' as const,
    secure: secureCookie,
  };

  function credentialOf(req: FastifyRequest): { token: string; kind: SessionKind } | null {
    const header = req.headers[TOKEN_HEADER];
    if (typeof header === 'string' && header !== '') return { token: header, kind: 'token' };
    const cookie = req.cookies?.[SESSION_COOKIE];
    if (typeof cookie === 'string' && cookie !== '') return { token: cookie, kind: 'cookie' };
    return null;
  }

  /** Resolves a credential to its live session and user, or the AppError to refuse with. */
  function resolve(req: FastifyRequest, now: number): { user: User; session: Session } | AppError {
    const cred = credentialOf(req);
    if (!cred) return new AppError('UNAUTHENTICATED', 'sign in first');
    // Built only on the failure paths: an Error captures a stack trace, too dear for every request.
    const invalid = () => new AppError('UNAUTHENTICATED', 'the session has ended; sign in again');
    if (!TOKEN_RE.test(cred.token)) return invalid();
    const session = getSession(db, hashToken(cred.token));
    // A token only works through the channel it was issued for, so a cookie value replayed as a header
    // (or the reverse) is refused.
    if (!session || session.kind !== cred.kind || session.revokedAt !== null) return invalid();
    if (now >= session.expiresAt || now - session.lastSeenAt >= session.idleMs) return invalid();
    const user = getUserById(db, session.userId);
    if (!user) return invalid();
    try {
      assertUsable(user, now);
    } catch (err) {
      return err as AppError;
    }
    // Sliding idle expiry without a write per request: refresh at most once a minute (or a quarter of a
    // short idle window, so tests with seconds-long windows still slide).
    if (now - session.lastSeenAt >= Math.min(60_000, Math.floor(session.idleMs / 4))) {
      touchSession(db, session.id, now);
      session.lastSeenAt = now;
    }
    return { user, session };
  }

  function maybePrune(now: number): void {
    if (now - lastPrune < PRUNE_EVERY_MS) return;
    lastPrune = now;
    try {
      pruneSessions(db, SESSION_KEEP_MS, now);
      limiter.prune(Math.max(config.loginRate.windowMs, 3_600_000), now);
    } catch (err) {
      ctx.log.warn({ err }, 'session pruning failed');
    }
  }

  return {
    keys,
    limiter,

    async authenticate(req, reply) {
      const out = resolve(req, Date.now());
      if (out instanceof AppError) {
        if (out.code === 'UNAUTHENTICATED' && req.cookies?.[SESSION_COOKIE]) reply.clearCookie(SESSION_COOKIE, cookieOptions);
        throw out;
      }
      return toSessionUser(out.user, out.session);
    },

    async peek(req) {
      const out = resolve(req, Date.now());
      return out instanceof AppError ? null : toSessionUser(out.user, out.session);
    },

    async signIn(req, reply, userName, password) {
      const now = Date.now();
      const rate = config.loginRate;
      const accountKey = `login:user:${userNameKey(userName)}`;
      const ipKey = `login:ip:${req.ip}`;
      const keysToCount = [
        { key: accountKey, rule: { limit: rate.perAccount, windowMs: rate.windowMs } },
        { key: ipKey, rule: { limit: rate.perIp, windowMs: rate.windowMs } },
      ];
      // Count the attempt before the (slow, asynchronous) password check: checking and counting with no await
      // in between means a burst of parallel guesses cannot all slip past the limit while scrypt runs.
      limiter.check(keysToCount, now);
      limiter.hit(keysToCount, now);

      const user = getUserByName(db, userName);
      const hash = (user && getPasswordHash(db, user.id)) || (await dummyPasswordHash());
      const ok = (await verifyPassword(password, hash)) && user !== null;
      if (!ok || !user) throw new AppError('LOGIN_FAILED', MSG.loginFailed);
      // Only failures count: a success takes its IP hit back and clears the account's count.
      limiter.undo([keysToCount[1]!], now);
      limiter.reset(accountKey);
      // Only after the password proved the caller knows the account, so guessing reveals nothing about its state.
      assertUsable(user, Date.now());

      // A browser signing in again drops the session it had, so old cookies do not pile up alive.
      const previous = req.cookies?.[SESSION_COOKIE];
      if (previous && TOKEN_RE.test(previous)) revokeSession(db, hashToken(previous), now);

      const token = randomBytes(32).toString('base64url');
      const session: Session = {
        id: hashToken(token),
        userId: user.id,
        kind: sessionKindOf(req),
        createdAt: now,
        lastSeenAt: now,
        expiresAt: now + config.session.absoluteMs,
        idleMs: config.session.idleMs,
        ip: req.ip,
        userAgent: String(req.headers['user-agent'] ?? ''),
        revokedAt: null,
      };
      insertSession(db, session);
      if (session.kind === 'cookie') {
        reply.setCookie(SESSION_COOKIE, token, { ...cookieOptions, maxAge: Math.floor(config.session.absoluteMs / 1000) });
      }
      maybePrune(now);
      return { token, session, user };
    },

    signOut(req, reply) {
      if (req.user) revokeSession(db, req.user.sessionId);
      reply.clearCookie(SESSION_COOKIE, cookieOptions);
    },

    endOtherSessions(userId, keepSessionId) {
      return revokeUserSessions(db, userId, keepSessionId);
    },
  };
}
