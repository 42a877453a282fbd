// Session events: how a node hears that a session or its user changed, so its session cache (auth/session-cache.ts)
// drops what it holds. The database says so itself, from triggers, in the transaction that made the change:
// - PostgreSQL: migration 024's triggers pg_notify a channel; every node LISTENs on a connection of its own, which
//   reconnects when lost. While it is down or coming back a node cannot know what it missed, so it reports itself
//   not live and the cache serves nothing until LISTEN is confirmed again.
// - SQLite (one node): the same triggers, created TEMP on the node's one connection at start, call hcs_notify
//   (sql/sqlite-notify.ts), which tells this process at once. TEMP, so the file opened by anything else (a test's
//   own connection, the sqlite3 shell) has no trigger calling a function it lacks.
import pg from 'pg';
import { sql } from 'kysely';
import type { Db, SqlDialect } from './sql/tx.ts';
import { sqliteNotifications } from './sql/sqlite-notify.ts';
import { SESSION_COLUMNS, SESSION_EVENTS_CHANNEL } from './sql/migrations/024_session_events.ts';
import { USER_CACHED_COLUMNS } from './sql/migrations/027_user_marks.ts';

/** A user's sessions may have changed (`userId`), or anything may have (`all`: the feed was interrupted). */
export type SessionEvent = { userId: string } | { all: true };

export interface SessionEvents {
  /** Whether every change from now on will be heard; a cache holds nothing while false. */
  live(): boolean;
  /** Called for every event, and with `all` each time live() changes. Returns the unsubscribe function. */
  subscribe(fn: (e: SessionEvent) => void): () => void;
  /**
   * Resolves once every event of a change committed before the call has been delivered to subscribers; null when
   * that is already so (SQLite: the triggers call in before the writer even commits). Rejects when it cannot tell.
   */
  sync(): Promise<void> | null;
  stop(): Promise<void>;
}

export interface SessionEventsLog {
  warn(obj: object, msg: string): void;
  info(obj: object, msg: string): void;
}

/** application_name of the listening connection, with the process id so an operator (or a test) can tell nodes apart. */
export function listenerApplicationName(pid = process.pid): string {
  return `hcs-session-events:${pid}`;
}

function parse(payload: string | undefined): SessionEvent {
  return payload?.startsWith('u:') ? { userId: payload.slice(2) } : { all: true };
}

function createHub(): { emit(e: SessionEvent): void; subscribe: SessionEvents['subscribe'] } {
  const subscribers = new Set<(e: SessionEvent) => void>();
  return {
    emit(e) {
      for (const fn of subscribers) fn(e);
    },
    subscribe(fn) {
      subscribers.add(fn);
      return () => subscribers.delete(fn);
    },
  };
}

/** The SQLite triggers, the same conditions as migrations 024's and 027's: only what may change a cached answer is news. */
function sqliteTriggers(): string[] {
  const changed = (cols: readonly string[]) => cols.map((c) => `new.${c} is not old.${c}`).join(' or ');
  const notify = (expr: string) => `select hcs_notify('${SESSION_EVENTS_CHANNEL}', 'u:' || ${expr});`;
  return [
    `create temp trigger if not exists hcs_users_changed after update on main.users for each row when ${changed(USER_CACHED_COLUMNS)} begin ${notify('new.id')} end`,
    `create temp trigger if not exists hcs_users_deleted after delete on main.users for each row begin ${notify('old.id')} end`,
    `create temp trigger if not exists hcs_sessions_changed after update on main.sessions for each row when ${changed(SESSION_COLUMNS)} or new.last_seen_at < old.last_seen_at begin ${notify('old.user_id')} ${notify('new.user_id')} end`,
    `create temp trigger if not exists hcs_sessions_deleted after delete on main.sessions for each row begin ${notify('old.user_id')} end`,
  ];
}

async function sqliteEvents(db: Db): Promise<SessionEvents> {
  const hub = createHub();
  const onNotify = (payload: string) => hub.emit(parse(payload));
  for (const statement of sqliteTriggers()) await sql.raw(statement).execute(db);
  sqliteNotifications.on(SESSION_EVENTS_CHANNEL, onNotify);
  return {
    live: () => true,
    subscribe: hub.subscribe,
    sync: () => null,
    async stop() {
      sqliteNotifications.off(SESSION_EVENTS_CHANNEL, onNotify);
    },
  };
}

export interface PgListenerOptions {
  url: string;
  log: SessionEventsLog;
  /** First wait before reconnecting; it doubles up to maxRetryMs while the database stays away. */
  retryMs?: number;
  maxRetryMs?: number;
  /**
   * How often the listening connection is asked a trivial query. A connection that died without a word (a network
   * path gone, no RST) would otherwise look alive forever while notifications no longer arrive.
   */
  heartbeatMs?: number;
}

/**
 * LISTEN on a dedicated connection (not from the pool: a pooled client is handed to queries and may be closed at
 * will). Not live from the moment the connection reports an error or ends until a new one has confirmed LISTEN.
 */
function pgEvents(options: PgListenerOptions): SessionEvents {
  const { url, log } = options;
  const retryMs = options.retryMs ?? 1000;
  const maxRetryMs = options.maxRetryMs ?? 15_000;
  const heartbeatMs = options.heartbeatMs ?? 10_000;
  const hub = createHub();
  let current: pg.Client | null = null;
  let isLive = false;
  let stopped = false;
  let failures = 0;
  let retryTimer: NodeJS.Timeout | undefined;

  const setLive = (v: boolean) => {
    if (isLive === v) return;
    isLive = v;
    hub.emit({ all: true });
  };

  const lost = (client: pg.Client, err?: unknown) => {
    if (client !== current) return;
    current = null;
    setLive(false);
    client.end().catch(() => undefined);
    if (stopped) return;
    log.warn({ err }, 'the session events connection to the database was lost: the session cache is off until it is back');
    schedule();
  };

  const schedule = () => {
    if (stopped || retryTimer) return;
    const wait = Math.min(maxRetryMs, retryMs * 2 ** Math.min(failures, 16));
    retryTimer = setTimeout(() => {
      retryTimer = undefined;
      void connect();
    }, wait);
    retryTimer.unref();
  };

  async function connect(): Promise<void> {
    const client = new pg.Client({
      connectionString: url,
      application_name: listenerApplicationName(),
      keepAlive: true,
      connectionTimeoutMillis: 10_000,
      // Signed-in requests wait on this connection's pings (sync): one that hangs must fail soon, so they fall back
      // to the database and the connection is replaced, rather than stall every request.
      query_timeout: 3_000,
    });
    current = client;
    // Registered before connect(): an 'error' without a listener would end the process.
    client.on('error', (err) => lost(client, err));
    client.on('end', () => lost(client));
    client.on('notification', (m) => {
      if (client === current && m.channel === SESSION_EVENTS_CHANNEL) hub.emit(parse(m.payload));
    });
    try {
      await client.connect();
      await client.query(`listen ${SESSION_EVENTS_CHANNEL}`);
    } catch (err) {
      failures++;
      lost(client, err);
      return;
    }
    if (client !== current) return;
    if (stopped) {
      await client.end().catch(() => undefined);
      return;
    }
    if (failures > 0) log.info({}, 'the session events connection is back: the session cache is on again');
    failures = 0;
    setLive(true);
  }

  // A notification reaches the listener a moment after its transaction committed, and a client that saw the commit
  // (a sign-out's response) may be quicker to ask this node again. PostgreSQL signals the listening backends before
  // the commit returns, and a backend delivers what it was signalled for before it reads its next query, so the answer
  // to a query sent on the listening connection after a request arrived comes after every notification the request
  // could know of. One such query serves every request that arrived before it was sent.
  let pingInFlight: Promise<void> | null = null;
  let pingNext: Promise<void> | null = null;
  const startPing = (): Promise<void> => {
    pingNext = null;
    const client = current;
    const p: Promise<void> =
      client && isLive
        ? client.query('select 1').then(
            () => undefined,
            (err: unknown) => {
              lost(client, err);
              throw err;
            },
          )
        : Promise.reject(new Error('the session events listener is not connected'));
    const tracked = p.finally(() => {
      if (pingInFlight === tracked) pingInFlight = null;
    });
    pingInFlight = tracked;
    return tracked;
  };
  const sync = (): Promise<void> => {
    if (pingNext) return pingNext;
    if (!pingInFlight) return startPing();
    // The query in flight was sent before this request arrived: wait for the next one.
    pingNext = pingInFlight.then(startPing, startPing);
    return pingNext;
  };

  const heartbeat = setInterval(() => {
    const client = current;
    if (!client || !isLive) return;
    client.query('select 1').catch((err: unknown) => lost(client, err));
  }, heartbeatMs);
  heartbeat.unref();

  void connect();
  return {
    live: () => isLive,
    subscribe: hub.subscribe,
    sync,
    async stop() {
      stopped = true;
      clearInterval(heartbeat);
      clearTimeout(retryTimer);
      const client = current;
      current = null;
      setLive(false);
      await client?.end().catch(() => undefined);
    },
  };
}

/**
 * Starts hearing session events for this node. SQLite's triggers are in place when the promise resolves; the
 * PostgreSQL listener connects in the background and is not live until it has.
 */
export async function startSessionEvents(db: Db, dialect: SqlDialect, pgOptions: PgListenerOptions | null): Promise<SessionEvents> {
  if (dialect === 'sqlite') return sqliteEvents(db);
  if (!pgOptions) throw new Error('PostgreSQL session events need the database URL');
  return pgEvents(pgOptions);
}
