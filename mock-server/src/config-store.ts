// Settings an administrator changes at run time (/otherConfig), typed, for every module to read:
//
//   const quota = await configStore(ctx).get('quota.defaultGb');   // number
//
// Environment variables (config.ts) give each setting's value until an administrator sets one; the database holds
// what was set, so every node sees it. Each node keeps what it read only while the config counter in
// admin_versions stays put: a change on this node is seen at once, one on another node within VERSION_CHECK_MS.
import type { ServerConfig } from './config.ts';
import type { Db } from './db/sql/tx.ts';

const GiB = 1024 ** 3;
/** How long a node trusts its copy before it asks the database whether anything changed. */
export const VERSION_CHECK_MS = 1000;

export type SettingType = 'string' | 'integer' | 'boolean' | 'enum' | 'json';

interface SettingBase {
  description: string;
  /** Any signed-in user may read it (getByKey), e.g. for the web before its screens open. */
  publicRead?: boolean;
}
type IntegerSetting = SettingBase & { type: 'integer'; min: number; max: number; fromEnv: (c: ServerConfig) => number };
type BooleanSetting = SettingBase & { type: 'boolean'; fromEnv: (c: ServerConfig) => boolean };
type EnumSetting = SettingBase & { type: 'enum'; options: readonly string[]; fromEnv: (c: ServerConfig) => string };
export type Setting = IntegerSetting | BooleanSetting | EnumSetting;

/** The server's own settings. Keys are the wire names; other modules read them through configStore(ctx).get. */
export const SETTINGS = {
  'quota.defaultGb': {
    type: 'integer', min: 0, max: 1_048_576, description: 'Quota of new accounts in GiB; 0 = unlimited (HCS_DEFAULT_QUOTA_GB).',
    fromEnv: (c) => Math.round(c.defaultQuotaBytes / GiB),
  },
  'upload.syncSpeed': {
    type: 'integer', min: 1, max: 10 * GiB, description: 'Upload speed limit handed to clients (syncSpeed), bytes/s per upload (HCS_SYNC_SPEED).',
    fromEnv: (c) => c.syncSpeed,
  },
  'recycle.days': {
    type: 'integer', min: 1, max: 3650, description: 'Days a deleted entry stays in the user\'s recycle bin (HCS_RECYCLE_DAYS).',
    fromEnv: (c) => c.recycle.days,
  },
  'recycle.secDays': {
    type: 'integer', min: 1, max: 3650, description: 'Days an entry stays in the second-level recycle bin (HCS_SEC_RECYCLE_DAYS).',
    fromEnv: (c) => c.recycle.secDays,
  },
  'login.maxAttempts': {
    type: 'integer', min: 1, max: 1_000_000, description: 'Failed sign-ins per account per window before they are slowed down (per address 4x) (HCS_LOGIN_MAX_ATTEMPTS).',
    fromEnv: (c) => c.loginRate.perAccount,
  },
  'login.windowMinutes': {
    type: 'integer', min: 1, max: 1440, description: 'Window in minutes over which failed sign-ins count (HCS_LOGIN_WINDOW_MINUTES).',
    fromEnv: (c) => Math.round(c.loginRate.windowMs / 60_000),
  },
  language: {
    type: 'enum', options: ['zh_CN', 'en_US'], publicRead: true, description: 'Default language of the web app (HCS_DEFAULT_LANGUAGE).',
    fromEnv: (c) => c.defaultLanguage,
  },
  'log.retentionDays': {
    type: 'integer', min: 0, max: 36_500, description: 'Operation logs older than this many days are deleted by the retention job; 0 = kept.',
    fromEnv: () => 0,
  },
  hcd_able: {
    type: 'boolean', publicRead: true, description: 'The desktop client (HCD) may be used with this drive.',
    fromEnv: () => true,
  },
} as const satisfies Record<string, Setting>;

export type SettingKey = keyof typeof SETTINGS;
type ValueOf<S> = S extends { type: 'integer' } ? number : S extends { type: 'boolean' } ? boolean : string;
export type SettingValue<K extends SettingKey> = ValueOf<(typeof SETTINGS)[K]>;

export function isSettingKey(key: string): key is SettingKey {
  return Object.hasOwn(SETTINGS, key);
}

/** The problem with `raw` as a value of this type, or null when it fits. */
type Bounds = { min?: number; max?: number; options?: readonly string[] };

export function valueProblem(raw: string, type: SettingType, bounds: Bounds = {}): string | null {
  switch (type) {
    case 'integer': {
      if (!/^-?\d{1,16}$/.test(raw)) return 'not an integer';
      const n = Number(raw);
      if (!Number.isSafeInteger(n)) return 'not an integer';
      if (bounds.min !== undefined && n < bounds.min) return `at least ${bounds.min}`;
      if (bounds.max !== undefined && n > bounds.max) return `at most ${bounds.max}`;
      return null;
    }
    case 'boolean':
      return raw === 'true' || raw === 'false' ? null : 'true or false';
    case 'enum':
      return bounds.options?.includes(raw) ? null : `one of ${(bounds.options ?? []).join(', ')}`;
    case 'json':
      try {
        JSON.parse(raw);
        return null;
      } catch {
        return 'not JSON';
      }
    default:
      return null;
  }
}

function parse<K extends SettingKey>(key: K, raw: string | undefined, config: ServerConfig): SettingValue<K> {
  const s: Setting = SETTINGS[key];
  const fallback = s.fromEnv(config) as SettingValue<K>;
  // A value that no longer fits (a bound tightened by an upgrade) falls back to the environment's, never throws.
  if (raw === undefined || valueProblem(raw, s.type, s as Bounds) !== null) return fallback;
  if (s.type === 'integer') return Number(raw) as SettingValue<K>;
  if (s.type === 'boolean') return (raw === 'true') as SettingValue<K>;
  return raw as SettingValue<K>;
}

/** The text form of a setting's environment default (what the console shows before anything was set). */
export function envDefault(key: SettingKey, config: ServerConfig): string {
  return String((SETTINGS[key] as Setting).fromEnv(config));
}

/** Reads a change counter (config, ipWhitelist). */
export async function versionOf(db: Db, name: string): Promise<number> {
  const r = await db.selectFrom('admin_versions').select('version').where('name', '=', name).executeTakeFirst();
  return Number(r?.version ?? 0);
}

/** Moves a change counter; call it in the transaction of the change, so nodes see both together. */
export async function bumpVersion(db: Db, name: string): Promise<void> {
  await db.updateTable('admin_versions').set((eb) => ({ version: eb('version', '+', 1) })).where('name', '=', name).execute();
}

/**
 * Keeps a value computed from the database while the area's counter stays put, asking at most every
 * VERSION_CHECK_MS. `invalidate` (after a change on this node) makes the next read ask at once.
 */
export class Versioned<T> {
  #value: T | undefined;
  #version = -1;
  #checkedAt = 0;
  #loading: Promise<T> | undefined;
  private readonly db: Db;
  private readonly area: string;
  private readonly load: (db: Db) => Promise<T>;
  constructor(db: Db, area: string, load: (db: Db) => Promise<T>) {
    this.db = db;
    this.area = area;
    this.load = load;
  }

  invalidate(): void {
    this.#checkedAt = 0;
    this.#version = -1;
  }

  async get(now = Date.now()): Promise<T> {
    if (this.#value !== undefined && now - this.#checkedAt < VERSION_CHECK_MS) return this.#value;
    // Concurrent requests share one check instead of each asking the database.
    this.#loading ??= (async () => {
      try {
        const version = await versionOf(this.db, this.area);
        if (this.#value === undefined || version !== this.#version) {
          this.#value = await this.load(this.db);
          this.#version = version;
        }
        this.#checkedAt = now;
        return this.#value;
      } finally {
        this.#loading = undefined;
      }
    })();
    return this.#loading;
  }
}

export interface ConfigStore {
  get<K extends SettingKey>(key: K): Promise<SettingValue<K>>;
  /** Every stored value by key (settings and custom entries). */
  all(): Promise<ReadonlyMap<string, string>>;
  invalidate(): void;
}

const stores = new WeakMap<Db, ConfigStore>();

/** The settings of the server that `ctx` belongs to (one store per database handle). */
export function configStore(ctx: { db: Db; config: ServerConfig }): ConfigStore {
  let store = stores.get(ctx.db);
  if (store) return store;
  const cache = new Versioned(ctx.db, 'config', async (db) => {
    const rows = await db.selectFrom('sys_config').select(['config_key', 'config_value']).execute();
    return new Map(rows.map((r) => [r.config_key, r.config_value]));
  });
  store = {
    async get(key) {
      return parse(key, (await cache.get()).get(key), ctx.config);
    },
    all: () => cache.get(),
    invalidate: () => cache.invalidate(),
  };
  stores.set(ctx.db, store);
  return store;
}

/** Quota of a new account in bytes, null = unlimited (setting quota.defaultGb). */
export async function defaultQuotaBytes(ctx: { db: Db; config: ServerConfig }): Promise<number | null> {
  const store = configStore(ctx);
  // Unset, the environment's bytes as they are (a fraction of a GiB stays exact).
  if (!(await store.all()).has('quota.defaultGb')) return ctx.config.defaultQuotaBytes || null;
  return (await store.get('quota.defaultGb')) * GiB || null;
}

/** The sign-in limits with the run-time settings applied (login.maxAttempts per account, 4x per address; login.windowMinutes). */
export async function loginRate(ctx: { db: Db; config: ServerConfig }): Promise<ServerConfig['loginRate']> {
  const store = configStore(ctx);
  const set = await store.all();
  const env = ctx.config.loginRate;
  // Unset, the environment's figures as they are (tests use windows of a fraction of a minute).
  const perAccount = set.has('login.maxAttempts') ? await store.get('login.maxAttempts') : env.perAccount;
  const windowMs = set.has('login.windowMinutes') ? (await store.get('login.windowMinutes')) * 60_000 : env.windowMs;
  return { ...env, perAccount, perIp: set.has('login.maxAttempts') ? perAccount * 4 : env.perIp, windowMs };
}
