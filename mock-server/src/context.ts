// The services every handler may use, built once per server instance.
import type { FastifyRequest, FastifyBaseLogger } from 'fastify';
import type { Handlers } from './http/typed.ts';
import type { ServerConfig } from './config.ts';
import type { Db } from './db/sql/tx.ts';
import type { AuthService } from './auth/types.ts';
import type { ObjectStore } from './storage/object-store.ts';
import type { Keyring } from './storage/master-key.ts';

export interface AppContext {
  config: ServerConfig;
  /** SQLite or PostgreSQL (config.databaseUrl): repositories take it, or a transaction on it. */
  db: Db;
  auth: AuthService;
  /** Object storage (embedded or external S3), available once the server listens. */
  store: () => ObjectStore;
  log: FastifyBaseLogger;
  /** The master key(s): storage secrets in the database and the embedded store's data keys are sealed under it. */
  keyring: Keyring;
  /** Secret for HMAC tickets (download links, cursors); persisted in the data dir. */
  secret: Buffer;
  /**
   * The storage endpoint this caller sends S3 requests to. SigV4 signs the Host, so with the embedded store and
   * no configured public URL it follows the host the caller reached the server at (localhost, 127.0.0.1, a LAN
   * name...); a configured HCS_PUBLIC_URL or S3 endpoint is used as it is.
   */
  storageEndpoint: (req: FastifyRequest) => string;
}

export type { Handler, Handlers } from './http/typed.ts';
export type HandlerModule = (ctx: AppContext) => Handlers;
