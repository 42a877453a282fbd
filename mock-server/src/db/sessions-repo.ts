// Sessions. A row is keyed by the SHA-256 of the token, so a copy of the database does not let anyone sign in.
import type { Db } from './database.ts';

export type SessionKind = 'cookie' | 'token';

export interface Session {
  /** SHA-256 (hex) of the token. */
  id: string;
  userId: string;
  kind: SessionKind;
  createdAt: number;
  lastSeenAt: number;
  /** Absolute expiry, epoch ms. */
  expiresAt: number;
  idleMs: number;
  ip: string;
  userAgent: string;
  revokedAt: number | null;
}

interface Row {
  id: string;
  user_id: string;
  kind: SessionKind;
  created_at: number;
  last_seen_at: number;
  expires_at: number;
  idle_ms: number;
  ip: string;
  user_agent: string;
  revoked_at: number | null;
}

function toSession(r: Row): Session {
  return {
    id: r.id,
    userId: r.user_id,
    kind: r.kind,
    createdAt: Number(r.created_at),
    lastSeenAt: Number(r.last_seen_at),
    expiresAt: Number(r.expires_at),
    idleMs: Number(r.idle_ms),
    ip: r.ip,
    userAgent: r.user_agent,
    revokedAt: r.revoked_at === null ? null : Number(r.revoked_at),
  };
}

export function insertSession(db: Db, s: Omit<Session, 'revokedAt'>): void {
  db.prepare(
    `INSERT INTO sessions (id, user_id, kind, created_at, last_seen_at, expires_at, idle_ms, ip, user_agent)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  ).run(s.id, s.userId, s.kind, s.createdAt, s.lastSeenAt, s.expiresAt, s.idleMs, s.ip.slice(0, 64), s.userAgent.slice(0, 300));
}

export function getSession(db: Db, id: string): Session | null {
  const r = db.prepare('SELECT * FROM sessions WHERE id = ?').get(id) as Row | undefined;
  return r ? toSession(r) : null;
}

/** Records activity; the caller throttles how often. */
export function touchSession(db: Db, id: string, now = Date.now()): void {
  db.prepare('UPDATE sessions SET last_seen_at = ? WHERE id = ? AND revoked_at IS NULL').run(now, id);
}

export function revokeSession(db: Db, id: string, now = Date.now()): void {
  db.prepare('UPDATE sessions SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL').run(now, id);
}

/** Ends every live session of a user except `keepId`; returns how many ended. */
export function revokeUserSessions(db: Db, userId: string, keepId: string | null = null, now = Date.now()): number {
  const res = db
    .prepare('UPDATE sessions SET revoked_at = ? WHERE user_id = ? AND revoked_at IS NULL AND id IS NOT ?')
    .run(now, userId, keepId);
  return Number(res.changes);
}

export function listUserSessions(db: Db, userId: string): Session[] {
  return (db.prepare('SELECT * FROM sessions WHERE user_id = ? ORDER BY created_at').all(userId) as unknown as Row[]).map(toSession);
}

/**
 * Deletes sessions that can never be used again (revoked, past absolute expiry, or idle too long), older
 * than `keepMs` so recent ones stay visible for audit.
 */
export function pruneSessions(db: Db, keepMs: number, now = Date.now()): number {
  const before = now - keepMs;
  const res = db
    .prepare(
      `DELETE FROM sessions WHERE (revoked_at IS NOT NULL AND revoked_at < ?) OR expires_at < ? OR last_seen_at + idle_ms < ?`,
    )
    .run(before, before, before);
  return Number(res.changes);
}
