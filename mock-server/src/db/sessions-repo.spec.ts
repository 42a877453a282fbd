import { describe, it, expect, beforeEach, afterEach } from 'vitest';
import { openTestDatabase, type TestDatabase } from './sql/test-databases.ts';
import type { Db } from './sql/tx.ts';
import { insertSession, getSession, revokeSession, revokeUserSessions, pruneSessions, touchSession, listUserSessions } from './sessions-repo.ts';
import { createUser } from './users-repo.ts';

describe('sessions repository', () => {
  let opened: TestDatabase;
  let db: Db;
  let userId: string;
  beforeEach(async () => {
    opened = await openTestDatabase('sqlite');
    db = opened.db;
    userId = (await createUser(db, { userName: 'sam', password: 'Sam-pass-123' })).id;
  });
  afterEach(async () => {
    await opened.dispose();
  });

  const add = (id: string, at: number, o: { idleMs?: number; absMs?: number } = {}) =>
    insertSession(db, { id, userId, kind: 'token', createdAt: at, lastSeenAt: at, expiresAt: at + (o.absMs ?? 86_400_000), idleMs: o.idleMs ?? 3_600_000, ip: '127.0.0.1', userAgent: 'test' });

  it('revokes every session of a user but the one kept, and touch does not revive a revoked one', async () => {
    const now = Date.now();
    await add('a', now);
    await add('b', now);
    await add('c', now);
    expect(await revokeUserSessions(db, userId, 'b', now)).toBe(2);
    expect((await getSession(db, 'a'))?.revokedAt).toBe(now);
    expect((await getSession(db, 'b'))?.revokedAt).toBeNull();
    await touchSession(db, 'a', now + 5);
    expect((await getSession(db, 'a'))?.lastSeenAt).toBe(now);
    expect(await revokeUserSessions(db, userId, null, now)).toBe(1);
  });

  it('prunes only sessions that are dead and older than the keep period', async () => {
    const day = 86_400_000;
    const now = 100 * day;
    await add('live', now - 10 * day, { absMs: 20 * day, idleMs: 20 * day });
    await add('idle-long-ago', now - 30 * day, { idleMs: 1000 });
    await add('expired-recently', now - 2 * day, { absMs: day });
    await add('revoked-long-ago', now - 30 * day, { absMs: 60 * day, idleMs: 60 * day });
    await revokeSession(db, 'revoked-long-ago', now - 20 * day);
    expect(await pruneSessions(db, 7 * day, now)).toBe(2);
    // A session that ended a day ago stays for audit until the keep period has passed.
    expect((await listUserSessions(db, userId)).map((s) => s.id).sort()).toEqual(['expired-recently', 'live']);
    expect(await pruneSessions(db, 7 * day, now + 7 * day)).toBe(1);
  });
});
