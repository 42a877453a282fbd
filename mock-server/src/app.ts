// Builds the server: plugins in order (hygiene, cookies, database, storage, auth), then the contract's routes,
// then the web app. Tests build it with their own config and data dir.
import Fastify, { type FastifyInstance } from 'fastify';
import cookie from '@fastify/cookie';
import { mkdirSync, readFileSync, writeFileSync, existsSync, chmodSync, lstatSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import type { ServerConfig } from './config.ts';
import type { AppContext, Handlers } from './context.ts';
import { openDatabase } from './db/database.ts';
import { clientErrorHandler, clientTraceId, frameworkErrors, installHygiene, newId, redactUrl } from './http/hygiene.ts';
import { registerContractRoutes } from './contract/routes.ts';
import { createAuth } from './auth/index.ts';
import { allHandlers } from './handlers/index.ts';
import { registerWeb } from './web/serve.ts';
import { createStorage } from './storage/index.ts';
import type { ObjectStore } from './storage/object-store.ts';
import { seed } from './db/seed.ts';
import { startJanitor, type Janitor } from './files/janitor.ts';

export interface BuiltApp {
  app: FastifyInstance;
  ctx: AppContext;
  /** Listens and wires storage to the listening address; resolves to the base URL. */
  listen(): Promise<string>;
  /** Cleaner of expired upload sessions (runs every 15 minutes once listening). */
  janitor(): Janitor;
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

export interface BuildOptions {
  /** Extra or replacement handlers (tests). */
  handlers?: Handlers;
  logger?: boolean;
  /** Called before any route is registered, e.g. to add hooks that see every response (contract tests). */
  instrument?: (app: FastifyInstance) => void;
}

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
    routerOptions: { maxParamLength: 1024 },
    // What the router and Node's HTTP parser refuse before any route runs answers the envelope too.
    frameworkErrors,
    clientErrorHandler,
  });
  if (tightened.length) app.log.warn({ paths: tightened }, `tightened data dir permissions (only the server's user may read it): ${tightened.join(', ')}`);
  installHygiene(app);
  extra.instrument?.(app);
  await app.register(cookie);
  // Raw bodies (bulk-upload) stay unread on the request stream; the handler reads them with its own limits.
  app.addContentTypeParser('application/octet-stream', (_req, _payload, done) => done(null, undefined));

  const db = openDatabase(config.dataDir);
  const secret = loadSecret(config.dataDir);
  let store: ObjectStore | undefined;
  const ctx: AppContext = {
    config,
    db,
    secret,
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
  await seed(ctx);

  const storage = await createStorage(config, app);
  registerContractRoutes(app, ctx, { ...allHandlers(ctx), ...extra.handlers });
  await registerWeb(app, config);

  let janitor: Janitor | undefined;
  const close = async () => {
    janitor?.stop();
    // In-flight requests get a short grace period; then every socket is cut, including keep-alive and
    // aborted-upload sockets that never sent a request and would otherwise hold close() until the headers timeout.
    const force = setTimeout(() => app.server.closeAllConnections(), 2000);
    force.unref();
    try {
      await app.close();
    } finally {
      clearTimeout(force);
      db.close();
    }
  };
  const listen = async () => {
    const address = await app.listen({ port: config.port, host: config.host });
    const port = (app.server.address() as { port: number }).port;
    store = await storage.connect(`http://127.0.0.1:${port}`);
    janitor = startJanitor(ctx);
    void janitor.sweep().catch((err) => app.log.warn({ err }, 'upload janitor failed'));
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
  };
}
