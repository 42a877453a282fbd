// Sessions and sign-in. Browsers hold an HttpOnly SameSite=Lax cookie (HCS_SESSION); the CLI sends its token
// in the `token` header and asks for that kind of session with `X-HCS-Client: cli` at sign-in. Either way the
// server keeps only the token's SHA-256, with an idle and an absolute expiry, and a revocation time.
import { hash, randomBytes } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { AppContext } from '../context.ts';
import type { AuthService, SessionUser } from './types.ts';
import { AppError } from '../http/errors.ts';
import { getPasswordHash, getUserByName, isExpired, upgradePasswordHash, userNameKey, type User } from '../db/users-repo.ts';
import {
  getSessionWithUser,
  insertSession,
  pruneSessions,
  revokeSession,
  revokeUserSessions,
  touchSession,
  type Session,
  type SessionKind,
} from '../db/sessions-repo.ts';
import { dummyPasswordHash, hashPassword, hasControlCharacters, loadPasswordKeys, passwordScryptN, scryptCostOf, verifyPassword, type PasswordKeys } from './passwords.ts';
import { createDelaySlots, createRateLimiter, throttleDelayMs, type RateLimiter } from './rate-limit.ts';
import { createCaptchas, type Captchas } from './captcha.ts';
import { ipGate } from './ip-whitelist.ts';
import { loginRate } from '../config-store.ts';
import { dialectOf } from '../db/sql/tx.ts';
import { startSessionEvents } from '../db/session-events.ts';
import { createSessionCache, type CachedSession, type SessionCache } from './session-cache.ts';

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
  captchaInvalid: 'login.captchaInvalid',
  unauthenticated: 'login.required',
} as const;

const TOKEN_RE = /^[A-Za-z0-9_-]{43}$/;
/** Expired and revoked sessions stay this long for audit, then go. */
const SESSION_KEEP_MS = 7 * 24 * 3_600_000;
const PRUNE_EVERY_MS = 3_600_000;
/** Sign-ins one address may have held back at once; more are refused (RATE_LIMITED) without being counted. */
export const DELAYED_SIGN_INS_PER_IP = 10;
/** Headers a reverse proxy adds; the server believes them only with HCS_TRUST_PROXY. */
const PROXY_HEADERS = ['x-forwarded-for', 'forwarded', 'x-real-ip'] as const;

/** A configuration problem administrators should fix (services: System/warnings). */
export interface SystemWarning {
  code: 'UNTRUSTED_PROXY';
  /** When this process first saw it (epoch ms). */
  since: number;
  /** The peer address the first such request came from. */
  peerIp: string;
}

/** What a sign-in may carry besides the password: a solved CAPTCHA skips the delay past the failure threshold. */
export interface SignInCaptcha {
  id?: string;
  answer?: string;
}

export interface SignInResult {
  /** The secret token; a cookie session gets it only as the cookie, never in a body. */
  token: string;
  session: Session;
  user: User;
}

/**
 * Sign-in hooks of company sign-in (identity/): accounts whose password lives in a directory, and the setting that
 * keeps local passwords for administrators only.
 */
export interface SignInHooks {
  /** 'local' for an account this server checks; otherwise the directory's verdict (null: refused). */
  directory(userName: string, password: string, user: User | null): Promise<User | null | 'local'>;
  /** Whether a local password may sign this account in (asked only after the password proved right). */
  localAllowed(user: User): Promise<boolean>;
}

export interface Auth extends AuthService {
  /** The RSA key pair clients encrypt passwords with. */
  keys: PasswordKeys;
  /** Login failures per account and IP; reusable with other key prefixes (share codes). */
  limiter: RateLimiter;
  /** Sign-in CAPTCHA challenges. */
  captchas: Captchas;
  /**
   * Checks the password, then opens a session (and sets the cookie for browsers). Past the failure threshold the
   * check waits out a delay first, unless a solved CAPTCHA comes along; a correct password is never refused for it.
   */
  signIn(req: FastifyRequest, reply: FastifyReply, userName: string, password: string, captcha?: SignInCaptcha): Promise<SignInResult>;
  /** Opens a session for an account that proved who it is elsewhere (single sign-on); refuses unusable ones. */
  openSessionFor(req: FastifyRequest, reply: FastifyReply, user: User): Promise<SignInResult>;
  /** Set once by the identity module. */
  hooks: SignInHooks | null;
  /** Revokes the caller's session and clears the cookie. */
  signOut(req: FastifyRequest, reply: FastifyReply): Promise<void>;
  /** Ends every session of the user but `keepSessionId` (after a password change). */
  endOtherSessions(userId: string, keepSessionId: string | null): Promise<number>;
  /**
   * Configuration problems this process has noticed, for administrators. Per node on purpose: each node sees its
   * own traffic, and a misconfigured proxy in front of one node shows there.
   */
  warnings(): SystemWarning[];
  /** Stops hearing session events (the PostgreSQL listener); the server calls it before closing the database. */
  stop(): Promise<void>;
}

/** The session id a token stands for (hex SHA-256). One-shot: every signed-in request hashes its token. */
export function hashToken(token: string): string {
  return hash('sha256', token, 'hex');
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
    mustChangePassword: user.mustChangePassword,
    hasMarks: user.hasMarks,
  };
}

/**
 * What a session whose password was reset (must_change_password) may still call: change the password, sign out, and
 * read who it is (the web app's start-up reads the current user to know it must ask for a new password).
 */
const WHILE_PASSWORD_RESET: ReadonlySet<string> = new Set(['changePassword', 'logout', 'getCurrentUser', 'getCurrentUserAlias']);

/** Refusals for an account that exists and proved its identity but may not be used. */
export function assertUsable(user: User, now = Date.now()): void {
  if (!user.isEnabled) throw new AppError('ACCOUNT_FROZEN', MSG.accountFrozen);
  if (isExpired(user, now)) throw new AppError('ACCOUNT_EXPIRED', MSG.accountExpired);
}

export function createAuth(ctx: AppContext): Auth {
  const { db, config } = ctx;
  const keys = loadPasswordKeys(config.dataDir);
  const limiter = createRateLimiter(db, 'too many sign-in attempts, try again later');
  const captchas = createCaptchas(db, ctx.secret);
  const delaySlots = createDelaySlots(DELAYED_SIGN_INS_PER_IP);
  const warnings = new Map<SystemWarning['code'], SystemWarning>();
  const secureCookie = (config.publicUrl ?? '').startsWith('https:');
  let lastPrune = 0;
  // Off (every request asks the database) until the node hears session events: the SQLite triggers are in place, or
  // the PostgreSQL listener connected.
  let sessionCache: SessionCache | null = null;
  let stopping = false;
  const eventsStarted = startSessionEvents(db, dialectOf(db), config.databaseUrl ? { url: config.databaseUrl, log: ctx.log } : null).then(
    async (events) => {
      if (stopping) {
        await events.stop();
        return null;
      }
      sessionCache = createSessionCache(events);
      return events;
    },
    (err: unknown) => {
      ctx.log.warn({ err }, 'session events could not start: every request reads its session from the database');
      return null;
    },
  );

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

  /** Why a session (as read from the database or the cache) may not be used now, or null when it may. */
  function refusal(found: { session: Session; user: User | null }, kind: SessionKind, now: number): AppError | null {
    const { session, user } = found;
    // Built only on the failure paths: an Error captures a stack trace, too dear for every request.
    const invalid = () => new AppError('UNAUTHENTICATED', 'the session has ended; sign in again');
    // A token only works through the channel it was issued for, so a cookie value replayed as a header
    // (or the reverse) is refused.
    if (session.kind !== kind || session.revokedAt !== null) return invalid();
    if (now >= session.expiresAt || now - session.lastSeenAt >= session.idleMs) return invalid();
    if (!user) return invalid();
    try {
      assertUsable(user, now);
    } catch (err) {
      return err as AppError;
    }
    return null;
  }

  /**
   * The session and user for a session id: from this node's cache when it holds an answer that still accepts them
   * now, else from the database (then cached). A cached answer that would refuse is never trusted: another node may
   * have moved last_seen_at on, so the database decides.
   */
  async function lookup(id: string, kind: SessionKind, now: number): Promise<CachedSession | AppError> {
    const cache = sessionCache;
    const hit = await cache?.confirmed(id, now);
    if (hit && refusal(hit, kind, now) === null) return hit;
    const ticket = cache?.ticket();
    const found = await getSessionWithUser(db, id);
    if (!found) return new AppError('UNAUTHENTICATED', 'the session has ended; sign in again');
    const refused = refusal(found, kind, now);
    if (refused) {
      cache?.drop(id);
      return refused;
    }
    const ok = found as CachedSession;
    if (cache && ticket !== undefined) cache.put(id, ok, ticket, now);
    return ok;
  }

  /** Resolves a credential to its live session and user, or the AppError to refuse with. */
  async function resolve(req: FastifyRequest, now: number): Promise<{ user: User; session: Session } | AppError> {
    const cred = credentialOf(req);
    if (!cred) return new AppError('UNAUTHENTICATED', 'sign in first');
    if (!TOKEN_RE.test(cred.token)) return new AppError('UNAUTHENTICATED', 'the session has ended; sign in again');
    const found = await lookup(hashToken(cred.token), cred.kind, now);
    if (found instanceof AppError) return found;
    const { session, user } = found;
    if (user.mustChangePassword && !WHILE_PASSWORD_RESET.has(req.operationId ?? '')) {
      return new AppError('PASSWORD_CHANGE_REQUIRED', 'the password was reset: change it before anything else');
    }
    // Sliding idle expiry without a write per request: refresh at most once a minute (or a quarter of a
    // short idle window, so tests with seconds-long windows still slide). The cached copy is moved on before the
    // write so that concurrent requests on it do not all write; if the write fails the copy goes, and the next
    // request reads the database's value again.
    if (now - session.lastSeenAt >= Math.min(60_000, Math.floor(session.idleMs / 4))) {
      session.lastSeenAt = now;
      try {
        await touchSession(db, session.id, now);
      } catch (err) {
        sessionCache?.drop(session.id);
        throw err;
      }
    }
    return { user, session };
  }

  /**
   * Without HCS_TRUST_PROXY every client behind a reverse proxy has the proxy's address, so they share one per-IP
   * sign-in budget; say so once in the log and keep it for administrators.
   */
  function noticeProxy(req: FastifyRequest): void {
    if (config.trustProxy !== false || warnings.has('UNTRUSTED_PROXY')) return;
    if (!PROXY_HEADERS.some((h) => req.headers[h] !== undefined)) return;
    warnings.set('UNTRUSTED_PROXY', { code: 'UNTRUSTED_PROXY', since: Date.now(), peerIp: req.ip });
    ctx.log.warn(
      { peerIp: req.ip },
      'requests arrive with X-Forwarded-For/Forwarded/X-Real-IP but HCS_TRUST_PROXY is off: clients behind a proxy share its address ' +
        'for the sign-in limits. If the server runs behind a reverse proxy, set HCS_TRUST_PROXY to that proxy\'s address.',
    );
  }

  /** Waits `ms`, or less when the client hangs up first; true when the client is still there. */
  function hold(reply: FastifyReply, ms: number): Promise<boolean> {
    const res = reply.raw;
    if (res.destroyed) return Promise.resolve(false);
    return new Promise((resolve) => {
      const done = (stillThere: boolean) => {
        clearTimeout(timer);
        res.off('close', gone);
        resolve(stillThere);
      };
      const gone = () => done(false);
      // Unref'd: a held sign-in must not keep a stopping server alive.
      const timer = setTimeout(() => done(true), ms).unref();
      res.once('close', gone);
    });
  }

  async function openSession(req: FastifyRequest, reply: FastifyReply, user: User): Promise<SignInResult> {
    // Every way of signing in ends here, so the IP white list holds for all of them.
    await ipGate(ctx).assert(req, { userId: user.id, isAdmin: user.isAdmin, deptId: user.deptId }, 'drive');
    const now = Date.now();
    // A browser signing in again drops the session it had, so old cookies do not pile up alive.
    const previous = req.cookies?.[SESSION_COOKIE];
    if (previous && TOKEN_RE.test(previous)) await revokeSession(db, hashToken(previous), now);

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
    await insertSession(db, session);
    if (session.kind === 'cookie') {
      reply.setCookie(SESSION_COOKIE, token, { ...cookieOptions, maxAge: Math.floor(config.session.absoluteMs / 1000) });
    }
    maybePrune(now);
    return { token, session, user };
  }

  /** Housekeeping at most once an hour per node (each node prunes; the statements are idempotent). */
  function maybePrune(now: number): void {
    if (now - lastPrune < PRUNE_EVERY_MS) return;
    lastPrune = now;
    void (async () => {
      await pruneSessions(db, SESSION_KEEP_MS, now);
      await captchas.prune(now);
      await limiter.prune(Math.max(config.loginRate.windowMs, 3_600_000), now);
    })().catch((err: unknown) => ctx.log.warn({ err }, 'session pruning failed'));
  }

  const self: Auth = {
    keys,
    limiter,
    captchas,
    hooks: null,

    async authenticate(req, reply) {
      noticeProxy(req);
      const out = await resolve(req, Date.now());
      if (out instanceof AppError) {
        if (out.code === 'UNAUTHENTICATED' && req.cookies?.[SESSION_COOKIE]) reply.clearCookie(SESSION_COOKIE, cookieOptions);
        throw out;
      }
      return toSessionUser(out.user, out.session);
    },

    async peek(req) {
      noticeProxy(req);
      const out = await resolve(req, Date.now());
      return out instanceof AppError ? null : toSessionUser(out.user, out.session);
    },

    async signIn(req, reply, userName, password, captcha = {}) {
      const rate = await loginRate(ctx);
      const accountKey = `login:user:${userNameKey(userName)}`;
      const ipKey = `login:ip:${req.ip}`;
      const keysToCount = [
        { key: accountKey, rule: { limit: rate.perAccount, windowMs: rate.windowMs } },
        { key: ipKey, rule: { limit: rate.perIp, windowMs: rate.windowMs } },
      ];
      // A CAPTCHA that comes along is used up whatever happens next; a wrong one ends the attempt before the
      // password is looked at, so it is not a failed sign-in.
      const withCaptcha = captcha.id !== undefined || captcha.answer !== undefined;
      if (withCaptcha && !(await captchas.consume(captcha.id ?? '', captcha.answer ?? ''))) {
        throw new AppError('CAPTCHA_INVALID', MSG.captchaInvalid);
      }
      const now = Date.now();
      // Counted on arrival, in one atomic statement per key that also says how far past the budget the attempt is:
      // each of a burst of parallel guesses, on any nodes, sees the ones before it, so the burst is held back as
      // the same guesses one after another would be.
      const excess = await limiter.hit(keysToCount, now);
      const delayMs = withCaptcha ? 0 : throttleDelayMs(excess.before, { baseMs: rate.delayBaseMs, maxMs: rate.delayMaxMs });
      const release = delayMs > 0 ? delaySlots.acquire(req.ip) : () => {};
      if (!release) {
        // Refused before anything was tried: it does not count.
        await limiter.undo(keysToCount, now);
        throw new AppError('RATE_LIMITED', 'too many sign-in attempts are waiting from this address, try again later', {
          retryAfterSeconds: Math.max(1, Math.ceil(delayMs / 1000)),
        });
      }
      try {
        const pastThreshold = excess.after > 0;
        if (delayMs > 0 && !(await hold(reply, delayMs))) {
          // The client gave up before its password was checked: nothing was tried, so nothing counts.
          await limiter.undo(keysToCount, now);
          throw new AppError('BAD_REQUEST', 'the client left while its sign-in was held back');
        }

        const found = await getUserByName(db, userName);
        // A directory account proves itself by binding there; its stored hash is random and never checked.
        const external = hasControlCharacters(password) || !self.hooks ? 'local' : await self.hooks.directory(userName, password, found);
        let user: User | null;
        if (external === 'local') {
          const hash = (found && (await getPasswordHash(db, found.id))) || (await dummyPasswordHash());
          // The policy refuses control characters when a password is set. They must not sign in either: scrypt's
          // HMAC pads its key with zero bytes, so "secret\0" would hash exactly like "secret".
          const ok = !hasControlCharacters(password) && (await verifyPassword(password, hash)) && found !== null;
          user = ok ? found : null;
          // A hash made at a lower cost than the configured one (HCS_PASSWORD_SCRYPT_N raised) is made again now,
          // while the password is at hand.
          if (user && (scryptCostOf(hash) ?? 0) < passwordScryptN()) await upgradePasswordHash(db, user.id, hash, await hashPassword(password));
        } else {
          user = external;
        }
        if (!user) throw new AppError(pastThreshold ? 'CAPTCHA_REQUIRED' : 'LOGIN_FAILED', MSG.loginFailed);
        // Only failures count: a success takes its IP hit back and clears the account's count.
        await limiter.undo([keysToCount[1]!], now);
        await limiter.reset(accountKey);
        // Only after the password proved the caller knows the account, so guessing reveals nothing about its state.
        assertUsable(user, Date.now());
        if (external === 'local' && self.hooks && !(await self.hooks.localAllowed(user))) {
          throw new AppError('SSO_REQUIRED', 'local passwords sign in administrators only: use single sign-on or the directory password');
        }
        return openSession(req, reply, user);
      } finally {
        release();
      }
    },

    async openSessionFor(req, reply, user) {
      assertUsable(user, Date.now());
      return openSession(req, reply, user);
    },

    async signOut(req, reply) {
      if (req.user) {
        await revokeSession(db, req.user.sessionId);
        // This node's next request must not wait for the event to come back through the listener.
        sessionCache?.dropUser(req.user.userId);
      }
      reply.clearCookie(SESSION_COOKIE, cookieOptions);
    },

    async endOtherSessions(userId, keepSessionId) {
      const ended = await revokeUserSessions(db, userId, keepSessionId);
      sessionCache?.dropUser(userId);
      return ended;
    },

    warnings() {
      return [...warnings.values()];
    },

    async stop() {
      stopping = true;
      const events = await eventsStarted;
      sessionCache?.close();
      sessionCache = null;
      await events?.stop();
    },
  };
  return self;
}
