// Server configuration, read once from the environment (HCS_*). The docker-compose test checks these names.
import { resolve } from 'node:path';
import { databaseUrlFromEnv } from './db/sql/open.ts';
import { DEFAULT_SCRYPT_N, isScryptCost, MAX_N, MIN_SCRYPT_N } from './auth/passwords.ts';

export interface ServerConfig {
  port: number;
  host: string;
  dataDir: string;
  /**
   * PostgreSQL (postgres://...) shared by every server node; undefined = SQLite in the data dir. Holds a password:
   * never logged.
   */
  databaseUrl: string | undefined;
  /** PostgreSQL connections this process keeps at most. */
  databasePoolSize: number;
  /** Origin users reach the server at (links, the storage endpoint given to clients). */
  publicUrl: string | undefined;
  logLevel: string;
  webDist: string;
  s3: {
    endpoint: string | undefined;
    /** Storage endpoint handed to browsers and the CLI when it differs from `endpoint`. */
    publicEndpoint: string | undefined;
    region: string;
    bucket: string;
    accessKeyId: string | undefined;
    secretAccessKey: string | undefined;
  };
  admin: { user: string; password: string | undefined };
  session: { idleMs: number; absoluteMs: number };
  /**
   * Sign-in failures per account and per IP within the window; past that, attempts are held back (delayBaseMs,
   * doubling per further failure, up to delayMaxMs) unless they carry a solved CAPTCHA.
   */
  loginRate: { perAccount: number; perIp: number; windowMs: number; delayBaseMs: number; delayMaxMs: number };
  /** scrypt's N for the password hashes this server writes (HCS_PASSWORD_SCRYPT_N). */
  passwordScryptN: number;
  /** Default quota for new users in bytes; 0 = unlimited. */
  defaultQuotaBytes: number;
  multipartMaxAgeMs: number;
  corsOrigins: string[];
  defaultLanguage: 'zh_CN' | 'en_US';
  /** Fastify trustProxy: false, true, or the proxies' addresses/CIDRs whose X-Forwarded-For is believed. */
  trustProxy: boolean | string[];
  /** HCS_IP_WHITELIST_OFF=1: the IP white list is not enforced (recovery after a lock-out). */
  ipWhitelistOff: boolean;
  /** Upload throttle handed to clients in file-uploadable's syncSpeed, bytes/s (spec 9: 104857600). */
  syncSpeed: number;
  /** A bulk-upload body that stops arriving ends with REQUEST_TIMEOUT, so it cannot hold its slot for ever. */
  bulkBody: { idleMs: number; totalMs: number };
  /** Unfinished uploads (upload sessions) one user may have open at a time. */
  maxUploadSessions: number;
  /** Days an entry stays in a user's recycle bin, then in the administrators' second-level bin (retention job). */
  recycle: { days: number; secDays: number };
  /** History versions a file keeps at most, and their age in days (0 = no age limit); a library may set its own. */
  versions: { maxCount: number; maxDays: number };
  /** This node's site (HCS_SITE), and how often it writes its heartbeat to the nodes table. */
  node: { site: string; heartbeatMs: number };
  /** Cross-site replication: how often a node sweeps the sync configs, and how long a purged blob's copies stay. */
  replication: { sweepMs: number; deleteDelayMs: number; partCopyBytes: number; copies: number };
  /** Servers users may pull their files from (HCS_PULL_SOURCES: origins, or * for any); empty = pull sync is off. */
  pullSources: string[];
}

/** Every environment variable the server reads, with its meaning (README and docker-compose test use this). */
export const ENV_VARS = {
  HCS_PORT: 'HTTP port (default 8080)',
  HCS_HOST: 'Listen address (default 0.0.0.0)',
  HCS_DATA_DIR: 'Data directory: SQLite database, embedded object store, keys (default ./data)',
  HCS_DATABASE_URL: 'PostgreSQL for several server nodes, postgres://user:password@host:5432/database; unset = SQLite in the data dir',
  HCS_DATABASE_POOL_SIZE: 'PostgreSQL connections one server process keeps at most (default 10)',
  HCS_PUBLIC_URL: 'Origin users reach the server at, e.g. https://drive.example.com (default http://localhost:PORT)',
  HCS_LOG_LEVEL: 'Log level: fatal, error, warn, info, debug (default info)',
  HCS_WEB_DIST: 'Built web app to serve at /drive/ (default web/dist)',
  HCS_S3_ENDPOINT: 'S3 endpoint (MinIO, Ceph RGW, AWS); unset = embedded S3-compatible store under the data dir',
  HCS_S3_PUBLIC_ENDPOINT: 'S3 endpoint as browsers and the CLI reach it, when it differs from HCS_S3_ENDPOINT',
  HCS_S3_ACCESS_KEY: 'S3 access key (embedded store: generated when unset)',
  HCS_S3_SECRET_KEY: 'S3 secret key (embedded store: generated when unset)',
  HCS_S3_BUCKET: 'Bucket for all objects (default hcs-drive)',
  HCS_S3_REGION: 'S3 region (default us-east-1)',
  HCS_ADMIN_USER: 'Name of the administrator created on first start (default admin)',
  HCS_ADMIN_PASSWORD: 'Its password; unset = generated, printed once and written 0600 to DATA_DIR/admin-password.txt',
  HCS_SESSION_IDLE_MINUTES: 'Session idle expiry in minutes (default 120)',
  HCS_SESSION_MAX_HOURS: 'Session absolute expiry in hours (default 24)',
  HCS_LOGIN_MAX_ATTEMPTS: 'Failed sign-ins per account per window before further attempts are slowed down or need a CAPTCHA (default 5; per IP 4x that)',
  HCS_LOGIN_WINDOW_MINUTES: 'Window in minutes over which failed sign-ins are counted (default 15)',
  HCS_LOGIN_DELAY_SECONDS: 'Delay of the first sign-in past HCS_LOGIN_MAX_ATTEMPTS without a CAPTCHA; doubles with each further failure (default 1)',
  HCS_LOGIN_DELAY_MAX_SECONDS: 'Longest sign-in delay, at most 60 (default 30)',
  HCS_PASSWORD_SCRYPT_N: 'Cost of new password hashes, scrypt\'s N: a power of two from 1024 to 1048576 (default 32768, about 0.1-0.2 s of one core per sign-in); a sign-in upgrades a cheaper stored hash. Below the default only for test servers',
  HCS_DEFAULT_QUOTA_GB: 'Quota of new users in GiB; 0 = unlimited (default 10)',
  HCS_MULTIPART_MAX_AGE_HOURS: 'Abandoned multipart uploads are cleaned after this many hours (default 24)',
  HCS_CORS_ORIGINS: 'Extra web origins allowed to call storage directly, comma-separated',
  HCS_DEFAULT_LANGUAGE: 'Server default UI language: zh_CN or en_US (default zh_CN)',
  HCS_SYNC_SPEED: 'Upload speed limit handed to clients (syncSpeed), bytes/s per upload (default 104857600 = 100 MiB/s, the spec default)',
  HCS_TRUST_PROXY: 'Believe X-Forwarded-For from these proxies (comma-separated addresses/CIDRs, or true for any); default off',
  HCS_IP_WHITELIST_OFF: 'Set to 1 to stop enforcing the IP white list (recovery when it locks every administrator out; fix the list, then restart without it)',
  HCS_BULK_IDLE_SECONDS: 'A bulk-upload body that sends no bytes for this long ends with 408 REQUEST_TIMEOUT (default 30; fractions allowed)',
  HCS_BULK_BODY_SECONDS: 'A bulk-upload body not received within this long in all ends with 408 REQUEST_TIMEOUT (default 300; fractions allowed)',
  HCS_MAX_UPLOAD_SESSIONS: 'Unfinished uploads one user may have open at a time; more are refused with TOO_MANY_UPLOADS (default 200)',
  HCS_RECYCLE_DAYS: 'Days a deleted entry stays in the user\'s recycle bin before it moves to the administrators\' second-level bin (default 30)',
  HCS_SEC_RECYCLE_DAYS: 'Days an entry stays in the second-level recycle bin before it is deleted for good (default 30)',
  HCS_VERSION_MAX_COUNT: 'History versions a file keeps at most; older ones are deleted by a job (default 100; a library may set its own)',
  HCS_VERSION_MAX_DAYS: 'History versions older than this many days are deleted by a job; 0 = no age limit (default 365; a library may set its own)',
  HCS_SITE: 'Name of the site this node belongs to (matches a site of /clusterManage); default none',
  HCS_REPLICATION_SWEEP_SECONDS: 'How often sync configs are swept for files not yet at their target sites and for copies due for deletion (default 30)',
  HCS_REPLICA_DELETE_DELAY_SECONDS: 'Seconds after a file\'s content is purged before its copies at other sites are deleted (default 86400)',
  HCS_HEARTBEAT_SECONDS: 'How often a node records its heartbeat; silent for three of these it is shown down (default 10; fractions allowed)',
  HCS_MASTER_KEY: 'Master key (64 hex digits or base64 of 32 bytes) sealing storage secrets and the embedded store\'s data keys; unset = DATA_DIR/master.key (0600, generated)',
  HCS_PULL_SOURCES: 'Other drive servers users may pull their files from (/localSync, drive pull): comma-separated origins such as https://old-drive.example.com, or * for any; unset = pull sync is off',
  HCS_MASTER_KEY_PREVIOUS: 'The master key before a rotation, while what it sealed is re-wrapped under HCS_MASTER_KEY',
} as const;

function int(v: string | undefined, def: number): number {
  if (v === undefined || v === '') return def;
  const n = Number(v);
  if (!Number.isFinite(n) || n < 0) throw new Error(`invalid number: ${v}`);
  return n;
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env, cwd = process.cwd()): ServerConfig {
  const port = int(env.HCS_PORT, 8080);
  const lang = env.HCS_DEFAULT_LANGUAGE === 'en_US' ? 'en_US' : 'zh_CN';
  return {
    port,
    host: env.HCS_HOST || '0.0.0.0',
    dataDir: resolve(cwd, env.HCS_DATA_DIR || './data'),
    databaseUrl: databaseUrlFromEnv(env),
    databasePoolSize: positiveInt(env.HCS_DATABASE_POOL_SIZE, 10),
    publicUrl: env.HCS_PUBLIC_URL?.replace(/\/+$/, '') || undefined,
    logLevel: env.HCS_LOG_LEVEL || 'info',
    webDist: resolve(cwd, env.HCS_WEB_DIST || new URL('../../web/dist', import.meta.url).pathname),
    s3: {
      endpoint: env.HCS_S3_ENDPOINT || undefined,
      publicEndpoint: env.HCS_S3_PUBLIC_ENDPOINT || undefined,
      region: env.HCS_S3_REGION || 'us-east-1',
      bucket: env.HCS_S3_BUCKET || 'hcs-drive',
      accessKeyId: env.HCS_S3_ACCESS_KEY || undefined,
      secretAccessKey: env.HCS_S3_SECRET_KEY || undefined,
    },
    admin: { user: env.HCS_ADMIN_USER || 'admin', password: env.HCS_ADMIN_PASSWORD || undefined },
    session: {
      idleMs: int(env.HCS_SESSION_IDLE_MINUTES, 120) * 60_000,
      absoluteMs: int(env.HCS_SESSION_MAX_HOURS, 24) * 3_600_000,
    },
    loginRate: {
      perAccount: int(env.HCS_LOGIN_MAX_ATTEMPTS, 5),
      perIp: int(env.HCS_LOGIN_MAX_ATTEMPTS, 5) * 4,
      windowMs: int(env.HCS_LOGIN_WINDOW_MINUTES, 15) * 60_000,
      delayBaseMs: int(env.HCS_LOGIN_DELAY_SECONDS, 1) * 1000,
      delayMaxMs: loginDelayMax(env.HCS_LOGIN_DELAY_MAX_SECONDS),
    },
    passwordScryptN: scryptN(env.HCS_PASSWORD_SCRYPT_N),
    defaultQuotaBytes: int(env.HCS_DEFAULT_QUOTA_GB, 10) * 1024 ** 3,
    multipartMaxAgeMs: int(env.HCS_MULTIPART_MAX_AGE_HOURS, 24) * 3_600_000,
    corsOrigins: (env.HCS_CORS_ORIGINS || '').split(',').map((s) => s.trim()).filter(Boolean),
    defaultLanguage: lang,
    // Off by default: a forged X-Forwarded-For must not dodge the per-IP sign-in limit or spoof requestIp.
    trustProxy:
      env.HCS_TRUST_PROXY === 'true'
        ? true
        : (env.HCS_TRUST_PROXY || '').split(',').map((s) => s.trim()).filter(Boolean).length
          ? (env.HCS_TRUST_PROXY || '').split(',').map((s) => s.trim()).filter(Boolean)
          : false,
    ipWhitelistOff: env.HCS_IP_WHITELIST_OFF === '1' || env.HCS_IP_WHITELIST_OFF === 'true',
    syncSpeed: positiveInt(env.HCS_SYNC_SPEED, 104_857_600),
    bulkBody: { idleMs: positiveSeconds(env.HCS_BULK_IDLE_SECONDS, 30) * 1000, totalMs: positiveSeconds(env.HCS_BULK_BODY_SECONDS, 300) * 1000 },
    maxUploadSessions: positiveInt(env.HCS_MAX_UPLOAD_SESSIONS, 200),
    recycle: { days: positiveInt(env.HCS_RECYCLE_DAYS, 30), secDays: positiveInt(env.HCS_SEC_RECYCLE_DAYS, 30) },
    versions: { maxCount: positiveInt(env.HCS_VERSION_MAX_COUNT, 100), maxDays: int(env.HCS_VERSION_MAX_DAYS, 365) },
    node: { site: (env.HCS_SITE || '').trim(), heartbeatMs: positiveSeconds(env.HCS_HEARTBEAT_SECONDS, 10) * 1000 },
    replication: {
      sweepMs: positiveSeconds(env.HCS_REPLICATION_SWEEP_SECONDS, 30) * 1000,
      deleteDelayMs: Math.max(0, int(env.HCS_REPLICA_DELETE_DELAY_SECONDS, 86400)) * 1000,
      // Within one endpoint, larger copies are made of UploadPartCopy parts: S3 parts are 5 MiB to 5 GiB.
      partCopyBytes: Math.min(Math.max(positiveInt(env.HCS_REPLICATION_PART_COPY_BYTES, 5 * 1024 ** 3), 5 * 1024 ** 2), 5 * 1024 ** 3),
      // Copies one node runs at once (1 to 64).
      copies: Math.min(positiveInt(env.HCS_REPLICATION_COPIES, 4), 64),
    },
    pullSources: (env.HCS_PULL_SOURCES || '').split(',').map((s) => s.trim()).filter(Boolean),
  };
}

/** Seconds, fractions allowed (tests use short deadlines), never 0: a deadline that cannot be switched off. */
function positiveSeconds(v: string | undefined, def: number): number {
  const n = int(v, def);
  if (n <= 0) throw new Error(`invalid number of seconds: ${v}`);
  return n;
}

/** Clients wait 120 s for a sign-in answer, so a longer hold would turn slow sign-ins into failed ones. */
function loginDelayMax(v: string | undefined): number {
  const seconds = int(v, 30);
  if (seconds > 60) throw new Error(`HCS_LOGIN_DELAY_MAX_SECONDS must be at most 60: ${v}`);
  return seconds * 1000;
}

function scryptN(v: string | undefined): number {
  const n = int(v, DEFAULT_SCRYPT_N);
  if (!isScryptCost(n)) {
    throw new Error(`HCS_PASSWORD_SCRYPT_N must be a power of two from ${MIN_SCRYPT_N} to ${MAX_N}: ${v}`);
  }
  return n;
}

function positiveInt(v: string | undefined, def: number): number {
  const n = int(v, def);
  if (!Number.isSafeInteger(n) || n < 1) throw new Error(`invalid positive integer: ${v}`);
  return n;
}
