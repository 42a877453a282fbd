// The embedded S3-compatible store as a Fastify plugin: path-style addressing under the plugin's
// prefix (/s3/{bucket}/{key}), every request authenticated with SigV4, bodies streamed to disk.
import { randomBytes } from 'node:crypto';
import type { FastifyBaseLogger, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { parseRawQuery, verifyRequest, type Credentials } from '../sigv4.ts';
import {
  createBucket, deleteBucket, getBucketLocation, headBucket, listBuckets, listObjects,
} from './bucket-ops.ts';
import type { EmbeddedLimits, S3Context } from './context.ts';
import { DiskStore } from './disk-store.ts';
import { S3Error, isS3Error } from './errors.ts';
import { MultipartStore } from './multipart-store.ts';
import {
  abortMultipartUpload, completeMultipartUpload, createMultipartUpload, listMultipartUploads, listParts, uploadPart,
} from './multipart-ops.ts';
import { copyObject, deleteObject, deleteObjects, getObject, headObject, putObject } from './object-ops.ts';
import { el, xmlDocument } from './xml.ts';
import { redactUrl, STORED_CONTENT_HEADERS } from '../../http/hygiene.ts';
import type { Keyring } from '../master-key.ts';

export interface EmbeddedS3Options {
  /** Directory holding everything the store keeps. */
  root: string;
  region: string;
  credentials: Credentials;
  /** Origins allowed to call the store from a browser. */
  corsOrigins: string[] | '*';
  limits: EmbeddedLimits;
  /** Multipart uploads initiated longer ago than this are aborted by the sweeper. */
  abandonedUploadAgeMs: number;
  logger?: FastifyBaseLogger;
  /** Lets the owner run a sweep on demand (tests, admin tooling). */
  control?: EmbeddedS3Control;
  /** Master keys wrapping the data keys of encrypted buckets' objects (read at each use: rotation replaces them). */
  keyring?: () => Keyring;
}

export interface SweepResult {
  abortedUploads: number;
  removedTemps: number;
}

export class EmbeddedS3Control {
  private sweeper: ((now?: number) => Promise<SweepResult>) | undefined;
  private store: DiskStore | undefined;

  /** The store on disk, once the plugin has started: the server reads its own objects from it directly. */
  get disk(): DiskStore | undefined {
    return this.store;
  }

  attachStore(store: DiskStore): void {
    this.store = store;
  }

  attach(sweeper: (now?: number) => Promise<SweepResult>): void {
    this.sweeper = sweeper;
  }

  /** Aborts multipart uploads older than abandonedUploadAgeMs (as of `now`) and stale temp files. */
  sweep(now?: number): Promise<SweepResult> {
    if (!this.sweeper) return Promise.reject(new Error('the embedded S3 plugin has not started'));
    return this.sweeper(now);
  }
}

export const DEFAULT_MIN_PART_SIZE = 5 * 1024 * 1024;
const METHODS = ['GET', 'HEAD', 'PUT', 'POST', 'DELETE'];
const EXPOSE_HEADERS = [
  'ETag', 'Content-Range', 'Content-Length', 'Content-Type', 'Content-Disposition', 'Content-Encoding', 'Last-Modified',
  'Accept-Ranges', 'x-amz-request-id', 'x-amz-id-2', 'x-amz-bucket-region',
].join(', ');
const UNSUPPORTED_SUBRESOURCES = [
  'accelerate', 'acl', 'analytics', 'attributes', 'cors', 'encryption', 'intelligent-tiering', 'inventory', 'legal-hold',
  'lifecycle', 'logging', 'metrics', 'notification', 'object-lock', 'ownershipControls', 'policy', 'policyStatus',
  'publicAccessBlock', 'replication', 'requestPayment', 'restore', 'retention', 'select', 'tagging', 'torrent', 'versioning',
  'versions', 'website',
];
const MAX_KEY_BYTES = 1024;

const resources = new WeakMap<FastifyRequest, string>();

export async function embeddedS3(app: FastifyInstance, opts: EmbeddedS3Options): Promise<void> {
  const log = opts.logger ?? app.log;
  const store = await DiskStore.open(opts.root, log, opts.keyring);
  const multipart = await MultipartStore.open(store);
  await multipart.sweep(opts.abandonedUploadAgeMs);
  multipart.startSweeper(opts.abandonedUploadAgeMs);
  app.addHook('onClose', async () => multipart.stopSweeper());
  opts.control?.attach((now) => multipart.sweep(opts.abandonedUploadAgeMs, now));
  opts.control?.attachStore(store);

  const limits: Required<EmbeddedLimits> = { minPartSize: DEFAULT_MIN_PART_SIZE, ...opts.limits };
  const prefix = app.prefix;
  const { accessKeyId, secretAccessKey } = opts.credentials;
  const lookupSecret = (id: string) => (id === accessKeyId ? secretAccessKey : undefined);

  const allowedOrigin = (origin: string | undefined): string | undefined => {
    if (!origin) return undefined;
    if (opts.corsOrigins === '*') return '*';
    return opts.corsOrigins.includes(origin) ? origin : undefined;
  };

  // Bodies are object data: no parser may buffer them, whatever their Content-Type. Handlers read
  // request.raw themselves and enforce their own limits while streaming.
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', (_request, _payload, done) => done(null, undefined));

  app.addHook('onRequest', async (request, reply) => {
    reply.header('x-amz-request-id', randomBytes(8).toString('hex').toUpperCase());
    reply.header('x-amz-id-2', randomBytes(24).toString('base64'));
    // Objects are users' bytes served on whatever origin mounts the store: no script, no sniffing, ever.
    reply.headers(STORED_CONTENT_HEADERS);
    const origin = allowedOrigin(request.headers.origin);
    if (origin) {
      reply.header('access-control-allow-origin', origin);
      reply.header('access-control-expose-headers', EXPOSE_HEADERS);
      if (origin !== '*') reply.header('vary', 'Origin');
    }
  });

  app.setErrorHandler(async (error: Error & { statusCode?: number; code?: string }, request, reply) => {
    // request.raw.destroyed is no signal: a fully read request auto-destroys. The socket tells.
    const clientGone = reply.raw.destroyed || request.raw.socket?.destroyed === true || error.code === 'ECONNRESET' || error.message === 'aborted';
    if (clientGone) {
      log.info({ reqId: request.id }, 'embedded-s3: client went away mid-request; nothing was stored');
      return;
    }
    let s3: S3Error;
    if (isS3Error(error)) s3 = error;
    else if (error.statusCode !== undefined && error.statusCode >= 400 && error.statusCode < 500) s3 = new S3Error('InvalidArgument', error.message);
    else {
      log.error({ err: error, reqId: request.id }, 'embedded-s3: internal error');
      s3 = new S3Error('InternalError');
    }
    // Missing keys and failed preconditions are routine (existence checks); keep them out of info logs.
    if (s3.status === 304 || s3.status === 404 || s3.status === 412) log.debug({ reqId: request.id, code: s3.code }, 'embedded-s3: request failed');
    else log.info({ reqId: request.id, code: s3.code }, 'embedded-s3: request failed');
    // A body we did not read would otherwise be drained, possibly gigabytes of it.
    if (!request.raw.complete) reply.header('connection', 'close');
    reply.code(s3.status);
    for (const [name, value] of Object.entries(s3.headers)) reply.header(name, value);
    if (request.method === 'HEAD' || s3.status === 304) return reply.send();
    const requestId = String(reply.getHeader('x-amz-request-id') ?? '');
    const detail = Object.entries(s3.detail).map(([name, value]) => el(name, value));
    const body = xmlDocument(el('Error', el('Code', s3.code), el('Message', s3.message), ...detail,
      el('Resource', resources.get(request) ?? ''), el('RequestId', requestId)), null);
    return reply.header('content-type', 'application/xml').send(body);
  });

  const preflight = (request: FastifyRequest, reply: FastifyReply) => {
    const requestedMethod = request.headers['access-control-request-method'];
    if (!request.headers.origin || typeof requestedMethod !== 'string') {
      throw new S3Error('BadRequest', 'Insufficient information. Origin request header needed.');
    }
    const origin = allowedOrigin(request.headers.origin);
    if (!origin || !METHODS.includes(requestedMethod.toUpperCase())) {
      throw new S3Error('AccessForbidden', 'CORSResponse: This CORS request is not allowed. This is usually because the evalution of Origin, request method / Access-Control-Request-Method or Access-Control-Request-Headers are not whitelisted by the resource\'s CORS spec.');
    }
    reply.code(200)
      .header('access-control-allow-methods', METHODS.join(', '))
      .header('access-control-allow-headers', request.headers['access-control-request-headers'] ?? '')
      .header('access-control-max-age', '3600')
      .header('vary', 'Origin, Access-Control-Request-Headers, Access-Control-Request-Method')
      .send();
  };

  const handler = async (request: FastifyRequest, reply: FastifyReply) => {
    const url = request.raw.url ?? '/';
    const q = url.indexOf('?');
    const rawPath = q < 0 ? url : url.slice(0, q);
    const rawQuery = q < 0 ? '' : url.slice(q + 1);
    const rest = rawPath.startsWith(prefix) ? rawPath.slice(prefix.length) : rawPath;
    resources.set(request, rest || '/');
    // Returning the reply tells Fastify the handler answered (possibly with a stream still flowing).
    if (request.method === 'OPTIONS') {
      preflight(request, reply);
      return reply;
    }

    const auth = verifyRequest({ method: request.method, rawPath, rawQuery, headers: request.raw.headers }, { region: opts.region, lookupSecret });
    if (!auth.ok) throw new S3Error(auth.code, auth.message);

    let bucket: string;
    let key: string;
    const query = new Map<string, string>();
    try {
      const slash = rest.indexOf('/', 1);
      bucket = decodeURIComponent(slash < 0 ? rest.slice(1) : rest.slice(1, slash));
      key = slash < 0 ? '' : decodeURIComponent(rest.slice(slash + 1));
      for (const [name, value] of parseRawQuery(rawQuery)) if (!query.has(name)) query.set(name, value);
    } catch {
      throw new S3Error('InvalidURI', "Couldn't parse the specified URI.");
    }
    if (Buffer.byteLength(key) > MAX_KEY_BYTES) throw new S3Error('KeyTooLongError');
    resources.set(request, key ? `/${bucket}/${key}` : `/${bucket}`);
    const ctx: S3Context = { request, reply, store, multipart, limits, region: opts.region, auth, bucket, key, query };
    await dispatch(ctx);
    return reply;
  };

  const route = {
    method: [...METHODS, 'OPTIONS'],
    exposeHeadRoute: false,
    // The default serializer would log presigned URLs, signature and all.
    logSerializers: {
      req: (req: FastifyRequest) => ({ method: req.method, url: redactUrl(req.raw.url ?? ''), remoteAddress: req.ip }),
    },
    handler,
  };
  app.route({ ...route, url: '/' });
  app.route({ ...route, url: '/*' });
}

async function dispatch(ctx: S3Context): Promise<void> {
  const method = ctx.request.method;
  const has = (name: string) => ctx.query.has(name);
  const unsupported = UNSUPPORTED_SUBRESOURCES.find(has);
  if (unsupported) throw new S3Error('NotImplemented', `The ${unsupported} subresource is not supported by the embedded store.`);
  const versionId = ctx.query.get('versionId');
  if (versionId !== undefined && versionId !== 'null') throw new S3Error('NotImplemented', 'Versioning is not supported by the embedded store.');

  if (ctx.bucket === '') {
    if (method === 'GET') return listBuckets(ctx);
  } else if (ctx.key === '') {
    switch (method) {
      case 'PUT': return createBucket(ctx);
      case 'HEAD': return headBucket(ctx);
      case 'DELETE': return deleteBucket(ctx);
      case 'POST': if (has('delete')) return deleteObjects(ctx); break;
      case 'GET':
        if (has('location')) return getBucketLocation(ctx);
        if (has('uploads')) return listMultipartUploads(ctx);
        return listObjects(ctx, ctx.query.get('list-type') === '2' ? 2 : 1);
    }
  } else {
    const copySource = ctx.request.headers['x-amz-copy-source'];
    switch (method) {
      case 'PUT':
        if (has('uploadId') || has('partNumber')) {
          if (copySource !== undefined) throw new S3Error('NotImplemented', 'UploadPartCopy is not supported by the embedded store.');
          return uploadPart(ctx);
        }
        if (typeof copySource === 'string') return copyObject(ctx, copySource);
        return putObject(ctx);
      case 'GET': return has('uploadId') ? listParts(ctx) : getObject(ctx);
      case 'HEAD': return headObject(ctx);
      case 'DELETE': return has('uploadId') ? abortMultipartUpload(ctx) : deleteObject(ctx);
      case 'POST':
        if (has('uploads')) return createMultipartUpload(ctx);
        if (has('uploadId')) return completeMultipartUpload(ctx);
        break;
    }
  }
  throw new S3Error('MethodNotAllowed');
}
