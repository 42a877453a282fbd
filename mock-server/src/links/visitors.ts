// Public links as visitors meet them: the extraction code (kept as an HMAC), wrong-code lockouts, visitor share
// tokens, the link's state and the reach of a token (only the link's items and what lies below them), and the
// share log. The route layer calls authenticateVisitor for every operation marked `share-visitor`.
import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { FastifyRequest } from 'fastify';
import type { AppContext } from '../context.ts';
import type { Db } from '../db/sql/tx.ts';
import { AppError } from '../http/errors.ts';
import { getWithAncestors, type InstanceRow } from '../db/instances-repo.ts';
import { getLinkCaller } from '../db/users-repo.ts';
import { insertOpLog } from '../db/oplog-repo.ts';
import { accessible } from '../files/access.ts';
import {
  getLink, getToken, hitLockout, insertLinkLog, insertToken, linkItemIds, lockUntil, pruneLinkState, readLockouts, type LinkRow, type TokenRow,
} from '../db/links-repo.ts';

export interface Visitor {
  link: LinkRow;
  token: TokenRow;
  itemIds: string[];
}

declare module 'fastify' {
  interface FastifyRequest {
    /** The visitor of a public link (operations marked share-visitor), set by the route layer. */
    visitor?: Visitor;
  }
}

export const TOKEN_TTL_MS = 2 * 60 * 60_000;
/** Wrong codes (and code attempts refused for a missing or wrong CAPTCHA) counted within this window. */
export const FAIL_WINDOW_MS = 15 * 60_000;
export const CAPTCHA_AFTER = 3;
export const LINK_FAIL_LIMIT = 10;
export const IP_FAIL_LIMIT = 20;
const LOCK_BASE_MS = 60_000;
const LOCK_MAX_MS = 24 * 60 * 60_000;

const sha256 = (s: string) => createHash('sha256').update(s).digest('hex');

/** What the links table stores for a code: an HMAC under the server secret bound to the link (useless without both). */
export function codeHash(secret: Buffer, linkId: string, code: string): string {
  return createHmac('sha256', secret).update(`link-code:${linkId}:${code.toLowerCase()}`).digest('hex');
}

export function codeMatches(secret: Buffer, link: LinkRow, code: string | undefined): boolean {
  if (link.codeHash === null) return true;
  if (!code || !/^[A-Za-z0-9]{4,8}$/.test(code)) return false;
  return timingSafeEqual(Buffer.from(codeHash(secret, link.id, code), 'hex'), Buffer.from(link.codeHash, 'hex'));
}

// Letters and digits without look-alikes (0/o, 1/l/i), as the visitor reads the code off a message.
const CODE_ALPHABET = 'abcdefghjkmnpqrstuvwxyz23456789';
export function drawCode(length = 6): string {
  const bytes = randomBytes(length);
  return Array.from(bytes, (b) => CODE_ALPHABET[b % CODE_ALPHABET.length]).join('');
}

export const newLinkKey = (): string => randomBytes(16).toString('base64url');

/** Refuses a link visitors may not reach at all: deleted (as if unknown), cancelled, expired. */
export function assertLinkOpen(link: LinkRow | undefined, now = Date.now()): asserts link is LinkRow {
  if (!link || link.status === 'deleted') throw new AppError('SHARE_NOT_FOUND', 'no such link');
  if (link.status === 'cancelled') throw new AppError('SHARE_CANCELLED', 'the link was cancelled');
  if (link.expireAt !== null && link.expireAt <= now) throw new AppError('SHARE_EXPIRED', 'the link has expired');
}

/** Whether a new visit is refused for used-up limits. */
export function isExhausted(link: LinkRow): boolean {
  if (link.maxViews !== null && link.viewCount >= link.maxViews) return true;
  return link.shareType === 'download' && !link.previewOnly && link.maxDownloads !== null && link.downloadCount >= link.maxDownloads;
}

export function linkStatus(link: LinkRow, now = Date.now()): 'active' | 'expired' | 'cancelled' | 'exhausted' {
  if (link.status !== 'active') return 'cancelled';
  if (link.expireAt !== null && link.expireAt <= now) return 'expired';
  return isExhausted(link) ? 'exhausted' : 'active';
}

// Lockouts.
const keysOf = (linkId: string, ip: string) => ({ link: `link:${linkId}`, ip: `ip:${ip}` });

export interface AttemptState {
  linkFailures: number;
  ipFailures: number;
}

/** RATE_LIMITED while the link or the address is locked out; else the failures that decide on a CAPTCHA. */
export async function checkLockout(db: Db, linkId: string, ip: string, now = Date.now()): Promise<AttemptState> {
  const k = keysOf(linkId, ip);
  const states = await readLockouts(db, [k.link, k.ip], FAIL_WINDOW_MS, now);
  const until = Math.max(states.get(k.link)?.lockedUntil ?? 0, states.get(k.ip)?.lockedUntil ?? 0);
  if (until > now) {
    throw new AppError('RATE_LIMITED', 'too many wrong codes, try again later', { retryAfterSeconds: Math.max(1, Math.ceil((until - now) / 1000)) });
  }
  return { linkFailures: states.get(k.link)?.failures ?? 0, ipFailures: states.get(k.ip)?.failures ?? 0 };
}

/** Counts a failed attempt against the link and the address; past a limit each further failure doubles the lockout. */
export async function recordFailure(db: Db, linkId: string, ip: string, now = Date.now()): Promise<void> {
  const k = keysOf(linkId, ip);
  for (const [key, limit] of [[k.link, LINK_FAIL_LIMIT], [k.ip, IP_FAIL_LIMIT]] as const) {
    const failures = await hitLockout(db, key, FAIL_WINDOW_MS, now);
    if (failures >= limit) await lockUntil(db, key, now + Math.min(LOCK_MAX_MS, LOCK_BASE_MS * 2 ** Math.min(20, failures - limit)));
  }
}

// Tokens.
const PRUNE_EVERY_MS = 60 * 60_000;
let lastPrune = 0;

/** Housekeeping at most once an hour per node, on the way of a new token (each node prunes; idempotent). */
function maybePrune(db: Db, now: number): void {
  if (now - lastPrune < PRUNE_EVERY_MS) return;
  lastPrune = now;
  void pruneLinkState(db, FAIL_WINDOW_MS, now).catch(() => {
    lastPrune = 0;
  });
}

export async function issueToken(db: Db, link: LinkRow, ip: string, now = Date.now()): Promise<{ token: string; expiresAt: number }> {
  maybePrune(db, now);
  const token = randomBytes(32).toString('base64url');
  const expiresAt = Math.min(now + TOKEN_TTL_MS, link.expireAt ?? Number.MAX_SAFE_INTEGER);
  await insertToken(db, { id: sha256(token), linkId: link.id, epoch: link.tokenEpoch, ip, expiresAt }, now);
  return { token, expiresAt };
}

function tokenOf(req: FastifyRequest): string | undefined {
  const h = req.headers.sharetoken;
  if (typeof h === 'string' && h) return h;
  const q = (req.query ?? {}) as Record<string, unknown>;
  return typeof q.token === 'string' && q.token ? q.token : undefined;
}

/** The visitor behind a request's share token; the link is read afresh, so a cancel or expiry applies at once. */
export async function authenticateVisitor(ctx: AppContext, req: FastifyRequest, now = Date.now()): Promise<Visitor> {
  const raw = tokenOf(req);
  const invalid = () => new AppError('SHARE_TOKEN_INVALID', 'the share token is missing, expired or revoked');
  if (!raw || raw.length > 256) throw invalid();
  const token = await getToken(ctx.db, sha256(raw));
  if (!token || token.revoked || token.expiresAt <= now) throw invalid();
  const link = await getLink(ctx.db, token.linkId);
  assertLinkOpen(link, now);
  if (token.epoch !== link.tokenEpoch) throw invalid();
  return { link, token, itemIds: await linkItemIds(ctx.db, link.id) };
}

export function visitorOf(req: FastifyRequest): Visitor {
  if (!req.visitor) throw new AppError('SHARE_TOKEN_INVALID', 'the share token is missing');
  return req.visitor;
}

export async function ownerCaller(db: Db, link: LinkRow) {
  const owner = await getLinkCaller(db, link.ownerId);
  if (!owner) throw new AppError('SHARE_NOT_FOUND', 'no such link');
  return owner;
}

/**
 * An instance the visitor's link reaches: one of its items or below one, live, and still readable by the owner
 * (a link does not outlive its owner's access). Anything else is NOT_FOUND, exactly as an id that does not exist.
 */
export async function reachable(db: Db, v: Visitor, id: string): Promise<InstanceRow> {
  const notFound = () => new AppError('NOT_FOUND', 'no such file or folder');
  const chain = await getWithAncestors(db, id);
  if (!chain) throw notFound();
  const items = new Set(v.itemIds);
  if (!items.has(chain.row.id) && !chain.ancestors.some((a) => items.has(a.id))) throw notFound();
  try {
    return await accessible(db, await ownerCaller(db, v.link), id, 'read');
  } catch {
    throw notFound();
  }
}

/** Upload links show their folder's content only with uploadAllowList. */
export function assertMayList(link: LinkRow): void {
  if (link.shareType === 'upload' && !link.uploadAllowList) throw new AppError('FORBIDDEN', 'this upload link does not let visitors list or download');
}

export type LinkEvent = 'visit' | 'codeWrong' | 'codeRight' | 'preview' | 'download' | 'upload' | 'rename';

/** One share-log row, and the same event in the operation log administrators read. */
export async function logLinkEvent(
  ctx: AppContext, req: FastifyRequest, link: LinkRow, type: LinkEvent, obj: { id: string; name: string } = { id: '', name: '' }, subject = 'visitor',
): Promise<void> {
  const device = String(req.headers['user-agent'] ?? '');
  try {
    await insertLinkLog(ctx.db, { linkId: link.id, ownerId: link.ownerId, optSubject: subject, optType: type, optObj: obj.id, optObjName: obj.name, optDevice: device, ip: req.ip });
    await insertOpLog(ctx.db, {
      userId: null, userName: subject, opType: `share.${type}`, opSubject: 'shares', objectId: obj.id || link.id, objectName: obj.name,
      device, ip: req.ip, traceId: req.traceId, result: type === 'codeWrong' ? 'failure' : 'success', detail: `link ${link.id}`,
    });
  } catch (err) {
    req.log.error({ err, traceId: req.traceId }, 'share log write failed');
  }
}
