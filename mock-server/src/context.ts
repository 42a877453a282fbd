// The services every handler may use, built once per server instance.
import type { FastifyReply, FastifyRequest, FastifyBaseLogger } from 'fastify';
import type { ServerConfig } from './config.ts';
import type { Db } from './db/database.ts';
import type { AuthService } from './auth/types.ts';
import type { ObjectStore } from './storage/object-store.ts';

export interface AppContext {
  config: ServerConfig;
  db: Db;
  auth: AuthService;
  /** Object storage (embedded or external S3), available once the server listens. */
  store: () => ObjectStore;
  log: FastifyBaseLogger;
  /** Secret for HMAC tickets (download links, cursors); persisted in the data dir. */
  secret: Buffer;
}

export type Handler = (req: FastifyRequest<any>, reply: FastifyReply) => Promise<unknown>;
export type Handlers = Record<string, Handler>;
export type HandlerModule = (ctx: AppContext) => Handlers;
