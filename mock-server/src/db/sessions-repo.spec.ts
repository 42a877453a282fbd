import { describe, it, expect, beforeEach, afterEach } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openDatabase, type Db } from './database.ts';
import { insertSession, getSession, revokeSession, revokeUserSessions, pruneSessions, touchSession, listUserSessions } from './sessions-repo.ts';
import { createUser } from './users-repo.ts';

describe('sessions repository', () => {
  let dir: string;
  let db: Db;
  let userId: string;
  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'hcs-sess-'));
    db = openDatabase(dir);
    userId = (await createUser(db, { userName: 'sam', password: 'Sam-pass-123' })).id;
  });
  afterEach(() => {
    db.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const add = (id: string, at: number, o: { idleMs?: number; absMs?: number } = {}) =>
    insertSession(db, { id, userId, kind: 'token', createdAt: at, lastSeenAt: at, expiresAt: at + (o.absMs ?? 86_400_000), idleMs: o.idleMs ?? 3_600_000, ip: '127.0.0.1', userAgent: 'test' });

  it('revokes every session of a user but the one kept, and touch does not revive a revoked one', () => {
    const now = Date.now();
    add('a', now);
    add('b', now);
    add('c', now);
    expect(revokeUserSessions(db, userId, 'b', now)).toBe(2);
    expect(getSession(db, 'a')?.revokedAt).toBe(now);
    expect(getSession(db, 'b')?.revokedAt).toBeNull();
    touchSession(db, 'a', now + 5);
    expect(getSession(db, 'a')?.lastSeenAt).toBe(now);
    expect(revokeUserSessions(db, userId, null, now)).toBe(1);
  });

  it('prunes only sessions that are dead and older than the keep period', () => {
    const day = 86_400_000;
    const now = 100 * day;
    add('live', now - 10 * day, { absMs: 20 * day, idleMs: 20 * day });
    add('idle-long-ago', now - 30 * day, { idleMs: 1000 });
    add('expired-recently', now - 2 * day, { absMs: day });
    add('revoked-long-ago', now - 30 * day, { absMs: 60 * day, idleMs: 60 * day });
    revokeSession(db, 'revoked-long-ago', now - 20 * day);
    expect(pruneSessions(db, 7 * day, now)).toBe(2);
    // A session that ended a day ago stays for audit until the keep period has passed.
    expect(listUserSessions(db, userId).map((s) => s.id).sort()).toEqual(['expired-recently', 'live']);
    expect(pruneSessions(db, 7 * day, now + 7 * day)).toBe(1);
  });
});
