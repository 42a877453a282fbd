// Builds the server: plugins in order (hygiene, cookies, database, storage, auth), then the contract's routes,
// then the web app. Tests build it with their own config and data dir.
import Fastify, { type FastifyInstance } from 'fastify';
import cookie from '@fastify/cookie';
import { AjvCompiler } from '@fastify/ajv-compiler';
import { mkdirSync, readFileSync, writeFileSync, existsSync, chmodSync, lstatSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { hostname } from 'node:os';
import { createHash, createHmac, randomBytes } from 'node:crypto';
import type { ServerConfig } from './config.ts';
import type { AppContext } from './context.ts';
import type { RouteHandlers } from './http/typed.ts';
import { openSqlDatabase } from './db/sql/open.ts';
import { dialectOf, type Db } from './db/sql/tx.ts';
import { Worker } from './db/sql/worker.ts';
import { ensureSysConfig, getSysConfig, setSysConfig } from './db/libraries-repo.ts';
import { clientErrorHandler, clientTraceId, frameworkErrors, installHygiene, redactUrl } from './http/hygiene.ts';
import { newId } from './ids.ts';
import { registerContractRoutes } from './contract/routes.ts';
import { authOf, createAuth } from './auth/index.ts';
import { DEFAULT_SCRYPT_N, setPasswordScryptN } from './auth/passwords.ts';
import { allHandlers } from './handlers/index.ts';
import { registerWeb } from './web/serve.ts';
import { createStorage } from './storage/index.ts';
import type { ObjectStore } from './storage/object-store.ts';
import { connectionLocator } from './storage/routing.ts';
import { seed } from './db/seed.ts';
import { JANITOR_JOB, startJanitor, type Janitor } from './files/janitor.ts';
import { LDAP_SYNC_JOB, directorySyncOf } from './identity/sync.ts';
import { PULL_JOB, pullSyncOf } from './pullsync/runner.ts';
import { RETENTION_JOB, startRetention, type Retention } from './files/retention.ts';
import { COPY_JOB, SWEEP_JOB, startReplication, type Replication } from './replication/runner.ts';
import { Keyring } from './storage/master-key.ts';
import { startNodeHeartbeat, type NodeHeartbeat } from './storage/node-heartbeat.ts';

export interface BuiltApp {
  app: FastifyInstance;
  ctx: AppContext;
  /** Listens and wires storage to the listening address; resolves to the base URL. */
  listen(): Promise<string>;
  /** Cleaner of expired upload sessions (a job every 15 minutes once listening, on one node at a time). */
  janitor(): Janitor;
  /** Retention of the recycle bins and history versions (a job every hour once listening, on one node at a time). */
  retention(): Retention;
  /** This node's job-queue worker (its id names the node in the jobs and leases tables). */
  worker(): Worker;
  close(): Promise<void>;
}

/** Persistent random secret for HMAC tickets and cursors (0600 in the data dir). */
function loadSecret(dataDir: string): Buffer {
  const file = join(dataDir, 'server-secret');
  if (!existsSync(file)) {
    writeFileSync(file, randomBytes(32).toString('hex'), { mode: 0o600 });
  }
  chmodSync(file, 0o600);
  return Buffer.from(readFileSync(file, 'utf8').trim(), 'hex');
}

/**
 * The data dir holds password hashes, the server secret, storage credentials and every stored file: only the
 * server's user may read it. A directory an operator created beforehand (0755) or files an older version left
 * (0644) are tightened here, before anything is opened: the dir and its subdirectories to 0700, its files to 0600.
 * Files deeper in objects/ are not walked (there may be millions); the closed directories above them suffice.
 * Returns what was changed, for the log.
 */
export function secureDataDir(dataDir: string): string[] {
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const changed: string[] = [];
  const tighten = (path: string, mode: number) => {
    const st = lstatSync(path);
    if (st.isSymbolicLink() || (st.mode & 0o777) === mode) return;
    chmodSync(path, mode);
    changed.push(`${path} ${(st.mode & 0o777).toString(8).padStart(4, '0')} -> ${mode.toString(8).padStart(4, '0')}`);
  };
  tighten(dataDir, 0o700);
  for (const entry of readdirSync(dataDir, { withFileTypes: true })) {
    if (entry.isDirectory()) tighten(join(dataDir, entry.name), 0o700);
    else if (entry.isFile()) tighten(join(dataDir, entry.name), 0o600);
  }
  return changed;
}

const NODE_KEYS = 'nodeKeys';

/**
 * Every node on one database must use the same server secret (cursors, tickets, CAPTCHA answers) and the same
 * password key pair (a client may fetch the public key from one node and sign in on another). The first node
 * records a fingerprint of both; a PostgreSQL node whose files differ refuses to start instead of failing requests
 * at random. On SQLite the data dir holds the database too, so its files are the truth and the record follows them.
 * The fingerprint reveals neither key: an HMAC under the secret, and a hash of the public key.
 */
async function checkNodeKeys(db: Db, secret: Buffer, publicKeyPem: string, log: FastifyInstance['log']): Promise<void> {
  const mine = createHash('sha256').update(createHmac('sha256', secret).update('hcs-node-keys').digest()).update(publicKeyPem).digest('hex');
  if (await ensureSysConfig(db, NODE_KEYS, mine)) return;
  if ((await getSysConfig(db, NODE_KEYS)) === mine) return;
  if (dialectOf(db) === 'sqlite') {
    log.info('the server secret or password key pair in the data dir changed; recorded the new ones');
    await setSysConfig(db, NODE_KEYS, mine);
    return;
  }
  throw new Error(
    'this node\'s server-secret and rsa-private.pem (in HCS_DATA_DIR) differ from those of the nodes already using this database: ' +
      'copy both files from another node\'s data dir (see README, "Several server nodes")',
  );
}

export interface BuildOptions {
  /** Extra or replacement handlers (tests), untyped so that they can answer what the contract forbids. */
  handlers?: RouteHandlers;
  logger?: boolean;
  /** Called before any route is registered, e.g. to add hooks that see every response (contract tests). */
  instrument?: (app: FastifyInstance) => void;
}

/**
 * Fastify's own validator compiler, one for every app this process builds: its Ajv keeps each compiled schema by the
 * schema object, and the contract's schemas are the same objects every time (contractOperations). A server builds
 * one app; a test process builds hundreds, and compiling the contract's validators again was 165 ms of the 390 ms of
 * CPU each took to start.
 */
const validators = AjvCompiler();

export async function buildApp(config: ServerConfig, extra: BuildOptions = {}): Promise<BuiltApp> {
  const tightened = secureDataDir(config.dataDir);
  const app = Fastify({
    logger:
      extra.logger === false
        ? false
        : {
            level: config.logLevel,
            redact: {
              paths: ['req.headers.authorization', 'req.headers.cookie', 'req.headers.token', 'res.headers["set-cookie"]'],
              censor: '[redacted]',
            },
            serializers: {
              // Preview and zip tickets are bearer links, query strings carry encrypted passwords, tokens and
              // presigned signatures: their values are logged as [redacted].
              req: (req) => ({ method: req.method, url: redactUrl(req.url, (req as { routeOptions?: { url?: string } }).routeOptions?.url) }),
            },
          },
    bodyLimit: 2 * 1024 * 1024,
    trustProxy: config.trustProxy,
    // A well-formed traceId header from the client becomes the request id, so every log line of the request
    // carries it; anything else is never logged and the request gets an id of its own.
    requestIdHeader: false,
    genReqId: (req) => clientTraceId(req.headers) ?? newId(),
    ajv: { customOptions: { removeAdditional: false, coerceTypes: 'array', useDefaults: true, allErrors: true, strict: false } },
    schemaController: { compilersFactory: { buildValidator: validators } },
    routerOptions: { maxParamLength: 1024 },
    // What the router and Node's HTTP parser refuse before any route runs answers the envelope too.
    frameworkErrors,
    clientErrorHandler,
  });
  if (tightened.length) app.log.warn({ paths: tightened }, `tightened data dir permissions (only the server's user may read it): ${tightened.join(', ')}`);
  setPasswordScryptN(config.passwordScryptN);
  if (config.passwordScryptN < DEFAULT_SCRYPT_N) {
    app.log.warn(`HCS_PASSWORD_SCRYPT_N=${config.passwordScryptN} is below the default ${DEFAULT_SCRYPT_N}: new password hashes are cheaper to guess (meant for test servers)`);
  }
  installHygiene(app);
  extra.instrument?.(app);
  await app.register(cookie);
  // Raw bodies (bulk-upload) stay unread on the request stream; the handler reads them with its own limits.
  app.addContentTypeParser('application/octet-stream', (_req, _payload, done) => done(null, undefined));
  // CSV imports (Users/importUsers) arrive as text, at most 1 MiB (413 beyond).
  app.addContentTypeParser('text/csv', { parseAs: 'string', bodyLimit: 1024 * 1024 }, (_req, body, done) => done(null, body));

  const database = await openSqlDatabase({
    databaseUrl: config.databaseUrl,
    dataDir: config.dataDir,
    poolSize: config.databasePoolSize,
    onIdleError: (err) => app.log.warn({ err }, 'a database connection broke; the pool replaces it'),
  });
  const db = database.db;
  const secret = loadSecret(config.dataDir);
  let store: ObjectStore | undefined;
  const ctx: AppContext = {
    config,
    db,
    secret,
    keyring: Keyring.load(config.dataDir),
    log: app.log,
    auth: undefined as unknown as AppContext['auth'],
    store: () => {
      if (!store) throw new Error('object storage is not ready (server not listening yet)');
      return store;
    },
    storageEndpoint: (req) => {
      const s = ctx.store();
      if (config.s3.endpoint || config.s3.publicEndpoint || config.publicUrl) return s.publicEndpoint;
      return `${req.protocol}://${req.host}/s3`;
    },
  };
  ctx.auth = createAuth(ctx);
  try {
    await checkNodeKeys(db, secret, authOf(ctx).keys.publicKeyPem, app.log);
    await seed(ctx);
  } catch (err) {
    await authOf(ctx).stop();
    await database.close();
    throw err;
  }

  const storage = await createStorage(config, app, () => ctx.keyring);
  registerContractRoutes(app, ctx, allHandlers(ctx), extra.handlers);
  await registerWeb(app, config);

  let janitor: Janitor | undefined;
  let retention: Retention | undefined;
  let replication: Replication | undefined;
  let worker: Worker | undefined;
  let heartbeat: NodeHeartbeat | undefined;
  const close = async () => {
    heartbeat?.stop();
    janitor?.stop();
    directorySyncOf(ctx).stop();
    // Running pulls go back to the queue instead of holding shutdown until they finish.
    pullSyncOf(ctx).stop();
    retention?.stop();
    // Running copies go back to the queue (aborted, not waited for: one may be a large object).
    replication?.stop();
    // In-flight requests get a short grace period; then every socket is cut, including keep-alive and
    // aborted-upload sockets that never sent a request and would otherwise hold close() until the headers timeout.
    const force = setTimeout(() => app.server.closeAllConnections(), 2000);
    force.unref();
    try {
      await worker?.stop();
      await app.close();
    } finally {
      clearTimeout(force);
      await authOf(ctx).stop();
      await database.close();
    }
  };
  const listen = async () => {
    const address = await app.listen({ port: config.port, host: config.host });
    const port = (app.server.address() as { port: number }).port;
    store = await storage.connect(`http://127.0.0.1:${port}`);
    store.routeWith(connectionLocator(ctx));
    // Background work comes from the job queue in the database, shared by every node: each node runs a worker and
    // whichever claims a job runs it.
    // This node's name in the jobs and leases tables.
    const nodeId = `${hostname()}:${process.pid}:${randomBytes(4).toString('hex')}`;
    janitor = startJanitor(ctx, nodeId);
    retention = startRetention(ctx, nodeId);
    replication = startReplication(ctx);
    worker = new Worker(db, {
      workerId: nodeId,
      handlers: { [JANITOR_JOB]: janitor.handler, [RETENTION_JOB]: retention.handler, [LDAP_SYNC_JOB]: directorySyncOf(ctx).handler, [PULL_JOB]: pullSyncOf(ctx).handler,
        [SWEEP_JOB]: replication.sweep, [COPY_JOB]: replication.copy },
      // Copies to a slow or held site and long pulls from an old drive take lanes of their own: the sweeps, the
      // janitor, retention and directory sync keep running beside them.
      concurrency: 2,
      lanes: [{ kinds: [COPY_JOB], concurrency: config.replication.copies }, { kinds: [PULL_JOB], concurrency: 2 }],
      onError: (err) => app.log.warn({ err }, 'job queue: a claim or bookkeeping query failed'),
    });
    await janitor.schedule().catch((err: unknown) => app.log.warn({ err }, 'upload janitor: could not schedule a pass'));
    await retention.schedule().catch((err: unknown) => app.log.warn({ err }, 'retention: could not schedule a pass'));
    worker.start();
    await replication.start().catch((err: unknown) => app.log.warn({ err }, 'replication: could not queue a sweep'));
    directorySyncOf(ctx).start();
    heartbeat = startNodeHeartbeat(db, { id: nodeId, address: `${hostname()}:${port}`, site: config.node.site }, config.node.heartbeatMs,
      (err) => app.log.warn({ err }, 'node heartbeat: could not record this node'));
    await heartbeat.beatNow().catch((err: unknown) => app.log.warn({ err }, 'node heartbeat: could not register this node'));
    const base = config.publicUrl ?? `http://localhost:${port}`;
    app.log.debug({ address }, 'listening');
    return base;
  };
  return {
    app,
    ctx,
    listen,
    close,
    janitor: () => {
      if (!janitor) throw new Error('the janitor starts when the server listens');
      return janitor;
    },
    retention: () => {
      if (!retention) throw new Error('retention starts when the server listens');
      return retention;
    },
    worker: () => {
      if (!worker) throw new Error('the job worker starts when the server listens');
      return worker;
    },
  };
}
