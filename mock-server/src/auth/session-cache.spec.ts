import { describe, it, expect } from 'vitest';
import { createSessionCache } from './session-cache.ts';
import type { SessionEvent, SessionEvents } from '../db/session-events.ts';
import type { Session } from '../db/sessions-repo.ts';
import type { User } from '../db/users-repo.ts';

function fakeEvents(): SessionEvents & { emit(e: SessionEvent): void; setLive(v: boolean): void; barrier: Promise<void> | null } {
  const subs = new Set<(e: SessionEvent) => void>();
  let live = true;
  return {
    barrier: null,
    sync() {
      return this.barrier;
    },
    live: () => live,
    subscribe(fn) {
      subs.add(fn);
      return () => subs.delete(fn);
    },
    async stop() {},
    emit(e) {
      for (const fn of subs) fn(e);
    },
    setLive(v) {
      live = v;
      this.emit({ all: true });
    },
  };
}

const entry = (id: string, userId: string) => ({
  session: { id, userId, kind: 'token', createdAt: 0, lastSeenAt: 0, expiresAt: 1e15, idleMs: 1e9, ip: '', userAgent: '', revokedAt: null } as Session,
  user: { id: userId } as User,
});

describe('session cache', () => {
  it('serves an entry until its TTL, then asks again', () => {
    const cache = createSessionCache(fakeEvents(), { ttlMs: 1000 });
    cache.put('s1', entry('s1', 'u1'), cache.ticket(), 10_000);
    expect(cache.get('s1', 10_999)?.user.id).toBe('u1');
    expect(cache.get('s1', 11_000)).toBeUndefined();
    expect(cache.size()).toBe(0);
  });

  it("drops every session of a user an event names, and everything on an interruption", () => {
    const events = fakeEvents();
    const cache = createSessionCache(events);
    cache.put('a1', entry('a1', 'alice'), cache.ticket(), 1);
    cache.put('a2', entry('a2', 'alice'), cache.ticket(), 1);
    cache.put('b1', entry('b1', 'bob'), cache.ticket(), 1);
    events.emit({ userId: 'alice' });
    expect([cache.get('a1', 2), cache.get('a2', 2), cache.get('b1', 2)?.user.id]).toEqual([undefined, undefined, 'bob']);
    events.emit({ all: true });
    expect(cache.get('b1', 2)).toBeUndefined();
  });

  it('does not cache an answer read before an event that arrived while it was being read', () => {
    const events = fakeEvents();
    const cache = createSessionCache(events);
    const ticket = cache.ticket();
    events.emit({ userId: 'someone' });
    cache.put('s1', entry('s1', 'u1'), ticket, 1);
    expect(cache.get('s1', 2)).toBeUndefined();
    // This node's own sign-out counts as such an event too.
    const t2 = cache.ticket();
    cache.dropUser('u1');
    cache.put('s1', entry('s1', 'u1'), t2, 1);
    expect(cache.get('s1', 2)).toBeUndefined();
  });

  it('holds nothing and serves nothing while events cannot be heard', () => {
    const events = fakeEvents();
    const cache = createSessionCache(events);
    cache.put('s1', entry('s1', 'u1'), cache.ticket(), 1);
    events.setLive(false);
    expect(cache.get('s1', 2)).toBeUndefined();
    cache.put('s1', entry('s1', 'u1'), cache.ticket(), 2);
    expect(cache.size()).toBe(0);
    events.setLive(true);
    // Back live, the answers held before the interruption are gone: the events missed meanwhile are unknown.
    expect(cache.get('s1', 3)).toBeUndefined();
  });

  it('confirms a hit only after the events committed before it arrived: one delivered meanwhile drops it', async () => {
    const events = fakeEvents();
    const cache = createSessionCache(events);
    cache.put('s1', entry('s1', 'u1'), cache.ticket(), 1);
    expect(cache.confirmed('s1', 2)).toMatchObject({ user: { id: 'u1' } });

    let deliver!: () => void;
    events.barrier = new Promise<void>((r) => (deliver = r));
    const pending = cache.confirmed('s1', 2);
    events.emit({ userId: 'u1' });
    deliver();
    expect(await pending).toBeUndefined();

    // A barrier that cannot be confirmed (the listener broke) is no hit either.
    cache.put('s1', entry('s1', 'u1'), cache.ticket(), 3);
    events.barrier = Promise.reject(new Error('listener down'));
    expect(await cache.confirmed('s1', 4)).toBeUndefined();
  });

  it('is bounded: the oldest entry goes first', () => {
    const cache = createSessionCache(fakeEvents(), { maxEntries: 2 });
    for (const id of ['s1', 's2', 's3']) cache.put(id, entry(id, `u-${id}`), cache.ticket(), 1);
    expect(cache.size()).toBe(2);
    expect(cache.get('s1', 2)).toBeUndefined();
    expect(cache.get('s3', 2)?.user.id).toBe('u-s3');
  });
});
