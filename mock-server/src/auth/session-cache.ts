// The node's cache of sessions it has checked: a signed-in request that finds its session here skips the database
// (the session and its user were one round trip of every request). Safe across nodes because it holds only what the
// database said was acceptable, for a few seconds at most, and drops a user's entries on every session event
// (db/session-events.ts): a sign-out, a revocation or a change to the account on any node. It holds nothing while
// those events cannot be heard (the PostgreSQL listener is down or reconnecting).
//
// A hit only ever confirms an acceptance: the caller re-checks the expiries against the clock and asks the database
// whenever the cached copy would refuse, so the cache can neither extend a session nor end one early.
import type { Session } from '../db/sessions-repo.ts';
import type { User } from '../db/users-repo.ts';
import type { SessionEvent, SessionEvents } from '../db/session-events.ts';

export interface CachedSession {
  session: Session;
  user: User;
}

interface Entry extends CachedSession {
  /** When the database said so (epoch ms): the entry is not used past cachedAt + ttlMs. */
  cachedAt: number;
}

export interface SessionCacheOptions {
  /** How long an entry is used before the database is asked again (default 5 s): the bound on any event missed. */
  ttlMs?: number;
  /** Entries held at most; the oldest go first (default 10,000). */
  maxEntries?: number;
}

/** Proof that no event arrived between asking the database and caching the answer (see put). */
export type FillTicket = number & { readonly __fillTicket: unique symbol };

export interface SessionCache {
  /** The entry for a session id (the token's SHA-256), if live and younger than the TTL. */
  get(id: string, now: number): CachedSession | undefined;
  /**
   * The entry for a session id, once every event committed before the call has arrived (SessionEvents.sync): what
   * a request should use. Undefined when there is none or the events cannot be confirmed.
   */
  confirmed(id: string, now: number): CachedSession | undefined | Promise<CachedSession | undefined>;
  /** Taken before the database read whose answer may be cached. */
  ticket(): FillTicket;
  /**
   * Caches the answer of a read that began at `ticket`, unless an event arrived since: that event may be the change
   * the read missed (read, then the change commits and its event arrives, then put), so the answer may be stale.
   */
  put(id: string, value: CachedSession, ticket: FillTicket, now: number): void;
  /** Drops a user's entries (this node's own sign-out, not waiting for its event to come back). */
  dropUser(userId: string): void;
  drop(id: string): void;
  size(): number;
  close(): void;
}

export function createSessionCache(events: SessionEvents, options: SessionCacheOptions = {}): SessionCache {
  const ttlMs = options.ttlMs ?? 5_000;
  const maxEntries = options.maxEntries ?? 10_000;
  const entries = new Map<string, Entry>();
  const byUser = new Map<string, Set<string>>();
  // Bumped by every event: a fill whose ticket is older may have read what the event announced as changed.
  let generation = 0;

  const remove = (id: string) => {
    const e = entries.get(id);
    if (!e) return;
    entries.delete(id);
    const ids = byUser.get(e.user.id);
    ids?.delete(id);
    if (ids?.size === 0) byUser.delete(e.user.id);
  };

  const dropUser = (userId: string) => {
    for (const id of byUser.get(userId) ?? []) entries.delete(id);
    byUser.delete(userId);
  };

  const onEvent = (e: SessionEvent) => {
    generation++;
    if ('userId' in e) dropUser(e.userId);
    else {
      entries.clear();
      byUser.clear();
    }
  };
  const unsubscribe = events.subscribe(onEvent);

  const get = (id: string, now: number): CachedSession | undefined => {
    if (!events.live()) return undefined;
    const e = entries.get(id);
    if (!e) return undefined;
    if (now - e.cachedAt >= ttlMs || now < e.cachedAt) {
      remove(id);
      return undefined;
    }
    return e;
  };

  return {
    get,
    confirmed(id, now) {
      if (!get(id, now)) return undefined;
      const synced = events.sync();
      if (!synced) return get(id, now);
      return synced.then(
        () => get(id, now),
        () => undefined,
      );
    },
    ticket: () => generation as FillTicket,
    put(id, value, ticket, now) {
      if (ticket !== generation || !events.live() || maxEntries <= 0) return;
      remove(id);
      if (entries.size >= maxEntries) {
        // A Map iterates in insertion order: the first key is the oldest entry.
        const oldest = entries.keys().next();
        if (!oldest.done) remove(oldest.value);
      }
      entries.set(id, { ...value, cachedAt: now });
      let ids = byUser.get(value.user.id);
      if (!ids) byUser.set(value.user.id, (ids = new Set()));
      ids.add(id);
    },
    dropUser(userId) {
      generation++;
      dropUser(userId);
    },
    drop: remove,
    size: () => entries.size,
    close() {
      unsubscribe();
      entries.clear();
      byUser.clear();
    },
  };
}
