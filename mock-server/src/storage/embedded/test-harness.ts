// Test support: an embedded store on a real port in a temp dir, and raw SigV4-signed requests.
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Writable } from 'node:stream';
import Fastify, { type FastifyInstance } from 'fastify';
import { ObjectStore } from '../object-store.ts';
import { UNSIGNED_PAYLOAD, canonicalQueryString, canonicalUri, formatAmzDate, signRequest, type QueryInput } from '../sigv4.ts';
import { EmbeddedS3Control, embeddedS3, type EmbeddedS3Options } from './plugin.ts';

export interface Harness {
  app: FastifyInstance;
  root: string;
  endpoint: string;
  credentials: { accessKeyId: string; secretAccessKey: string };
  control: EmbeddedS3Control;
  store: ObjectStore;
  /** Restarts the server on the same root (a fresh process would see exactly this). */
  restart(): Promise<void>;
  close(): Promise<void>;
  /** Sends a request signed in the Authorization header. `key` '' addresses the bucket. */
  fetch(method: string, key: string, opts?: SignedFetchOptions): Promise<Response>;
}

export interface SignedFetchOptions {
  query?: QueryInput;
  headers?: Record<string, string>;
  body?: Buffer | string;
  payloadHash?: string;
  amzDate?: string;
  secretAccessKey?: string;
  bucket?: string;
}

export const BUCKET = 'unit-bucket';

export async function startHarness(
  overrides: Partial<EmbeddedS3Options> = {},
  logStream?: Writable,
  /** Runs on the server before the plugin is registered, e.g. to add hooks. */
  configure?: (app: FastifyInstance) => void,
): Promise<Harness> {
  const root = overrides.root ?? await mkdtemp(join(tmpdir(), 'hcs-embedded-'));
  const credentials = { accessKeyId: 'UNIT' + randomBytes(8).toString('hex').toUpperCase(), secretAccessKey: randomBytes(30).toString('base64') };
  const control = new EmbeddedS3Control();
  const options: EmbeddedS3Options = {
    root, region: 'us-east-1', credentials, corsOrigins: ['http://web.test'],
    limits: { maxPartSize: 16 << 20, maxObjectSize: 64 << 20, maxParts: 10000, maxSinglePut: 16 << 20, minPartSize: 1024 },
    abandonedUploadAgeMs: 3600_000, control, ...overrides,
  };
  let port = 0;
  const h = {} as Harness;
  const boot = async () => {
    const app = Fastify({ logger: logStream ? { level: 'debug', stream: logStream } : false });
    configure?.(app);
    await app.register(embeddedS3, { ...options, prefix: '/s3' });
    await app.listen({ port, host: '127.0.0.1' });
    port = (app.server.address() as { port: number }).port;
    h.app = app;
  };
  await boot();
  const endpoint = `http://127.0.0.1:${port}/s3`;
  const store = new ObjectStore({ endpoint, region: 'us-east-1', bucket: BUCKET, ...options.credentials });
  await store.ensureBucket();
  Object.assign(h, {
    root, endpoint, credentials: options.credentials, control, store,
    async restart() {
      await h.app.close();
      await boot();
    },
    async close() {
      store.destroy();
      await h.app.close();
      if (!overrides.root) await rm(root, { recursive: true, force: true });
    },
    fetch(method: string, key: string, opts: SignedFetchOptions = {}) {
      const path = `/s3/${opts.bucket ?? BUCKET}${key === '' ? '' : `/${key}`}`;
      const signed = signRequest({
        method, path, query: opts.query, headers: { host: `127.0.0.1:${port}`, ...opts.headers },
        amzDate: opts.amzDate ?? formatAmzDate(new Date()), payloadHash: opts.payloadHash ?? UNSIGNED_PAYLOAD, region: 'us-east-1',
        credentials: { ...options.credentials, ...(opts.secretAccessKey ? { secretAccessKey: opts.secretAccessKey } : {}) },
      });
      const { host: _host, ...headers } = signed.headers;
      const query = canonicalQueryString(opts.query);
      return fetch(`http://127.0.0.1:${port}${canonicalUri(path)}${query ? `?${query}` : ''}`, {
        method, headers: { ...headers, authorization: signed.authorization }, body: opts.body,
      });
    },
  });
  return h;
}
