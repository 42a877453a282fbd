// Request hygiene shared by every route: trace ids, the CSRF header, security headers, and the single
// error handler that maps any failure to the envelope without leaking internals.
import type { FastifyInstance, FastifyError, FastifyReply, FastifyServerOptions } from 'fastify';
import type { Duplex } from 'node:stream';
import { AppError } from './errors.ts';
import { newId } from '../ids.ts';

const TRACE_RE = /^[A-Za-z0-9_-]{1,64}$/;

/**
 * The client's traceId header when it is well-formed, else undefined. It becomes the request id of every log line
 * and is echoed back, so an 8,000-character value or one carrying control characters must never get that far.
 */
export function clientTraceId(headers: Record<string, string | string[] | undefined>): string | undefined {
  const t = headers['traceid'];
  return typeof t === 'string' && TRACE_RE.test(t) ? t : undefined;
}

// Names of path parameters and query parameters whose values are bearer secrets (tickets, tokens, passwords,
// presigned signatures and credentials).
const SECRET_PARAM = /pass|secret|token|ticket|signature|credential|auth/i;

/**
 * The URL as the request log shows it: values of secret query parameters, and path segments matched by a secret
 * route parameter (`routeUrl` is the route's pattern, e.g. /hcs/services/API/preview/:ticket), become [redacted].
 */
export function redactUrl(url: string, routeUrl?: string): string {
  const q = url.indexOf('?');
  let path = q < 0 ? url : url.slice(0, q);
  if (routeUrl?.includes(':')) {
    const pattern = routeUrl.split('/');
    const segments = path.split('/');
    if (pattern.length === segments.length) {
      path = segments.map((seg, i) => (pattern[i]!.startsWith(':') && SECRET_PARAM.test(pattern[i]!) ? '[redacted]' : seg)).join('/');
    }
  }
  if (q < 0) return path;
  const query = url
    .slice(q + 1)
    .split('&')
    .map((pair) => {
      const eq = pair.indexOf('=');
      if (eq < 0) return pair;
      let name = pair.slice(0, eq);
      try {
        name = decodeURIComponent(name);
      } catch {
        // a malformed name is judged as written
      }
      return SECRET_PARAM.test(name) ? `${pair.slice(0, eq)}=[redacted]` : pair;
    });
  return `${path}?${query.join('&')}`;
}

/**
 * Headers for every response that carries stored bytes (the embedded store, zip downloads): whatever a user uploaded,
 * the browser neither sniffs it into something else nor lets it run script or act with the drive's origin.
 */
export const STORED_CONTENT_HEADERS: Readonly<Record<string, string>> = {
  'Content-Security-Policy': 'sandbox',
  'X-Content-Type-Options': 'nosniff',
};

// What a browser runs script in when it shows the file as a document: markup (HTML, XHTML, SVG, any XML, which may
// carry XHTML or an XSLT stylesheet), web archives and multipart streams of it, and script itself.
const ACTIVE_EXTENSIONS = new Set(['htm', 'html', 'shtml', 'xhtml', 'xht', 'svg', 'svgz', 'xml', 'xsl', 'xslt', 'js', 'mjs', 'cjs', 'mht', 'mhtml']);
const ACTIVE_TYPE = /^(text\/html|application\/xhtml\+xml|image\/svg\+xml|text\/xml|application\/xml|text\/xsl|[a-z0-9.+-]+\/[a-z0-9.-]+\+xml|(text|application)\/(x-)?(java|ecma)script|multipart\/x-mixed-replace|multipart\/related)$/;

/**
 * Whether a file, by its name or by the Content-Type it would be served with, can run script when a browser opens
 * it. Such files are served inline only behind `Content-Security-Policy: sandbox`; anywhere else as attachment.
 */
export function isActiveContent(file: { name?: string; contentType?: string }): boolean {
  if (file.name !== undefined) {
    const dot = file.name.lastIndexOf('.');
    if (dot >= 0 && ACTIVE_EXTENSIONS.has(file.name.slice(dot + 1).toLowerCase())) return true;
  }
  const type = file.contentType?.split(';')[0]!.trim().toLowerCase();
  return !!type && ACTIVE_TYPE.test(type);
}

/** The headers of one kind of response: storage's bytes or not, an HTML document or not, an /hcs call or not. */
function headersOf(storage: boolean, html: boolean, api: boolean): Readonly<Record<string, string>> {
  const h: Record<string, string> = { 'X-Content-Type-Options': 'nosniff', 'Referrer-Policy': 'same-origin' };
  if (storage) {
    // Storage serves users' bytes on the drive's origin: never the app's policy (which trusts 'self' scripts).
    Object.assign(h, STORED_CONTENT_HEADERS);
  } else {
    h['X-Frame-Options'] = 'SAMEORIGIN';
    h['Cross-Origin-Opener-Policy'] = 'same-origin';
  }
  if (html && !storage) {
    h['Content-Security-Policy'] =
      "default-src 'self'; img-src 'self' data: blob: *; media-src 'self' blob: *; connect-src 'self' *; " +
      // hcs-drive: is the local agent's wake-up scheme (spec 4), opened in a hidden frame; it loads nothing.
      "style-src 'self' 'unsafe-inline'; script-src 'self' 'wasm-unsafe-eval'; worker-src 'self' blob:; frame-src 'self' blob: * hcs-drive:; object-src 'none'; base-uri 'self'";
  }
  if (api) h['Cache-Control'] = 'no-store';
  return Object.freeze(h);
}

/** Every kind's headers, made once: the set is answered on every response (index: storage * 4 + html * 2 + api). */
const HEADER_SETS = Array.from({ length: 8 }, (_, k) => headersOf((k & 4) !== 0, (k & 2) !== 0, (k & 1) !== 0));

/**
 * The headers every response gets (onSend adds them; a route that hijacks its reply to stream on its own
 * writes them itself, since hijacked replies skip onSend). Shared and frozen: spread them to add more.
 */
export function securityHeaders(url: string, contentType: string): Readonly<Record<string, string>> {
  const storage = url.startsWith('/s3');
  return HEADER_SETS[(storage ? 4 : 0) + (contentType.startsWith('text/html') ? 2 : 0) + (url.startsWith('/hcs/') ? 1 : 0)]!;
}

/**
 * Requests the router refuses before any route or hook runs (a URL that does not decode, a path parameter over
 * maxParamLength): the envelope like every other failure. Fastify's own answer carries its internal error code and
 * echoes the URL, which may hold a ticket or an encrypted password.
 */
export const frameworkErrors: NonNullable<FastifyServerOptions['frameworkErrors']> = (error, req, res) => {
  const reply = res as FastifyReply;
  const traceId = clientTraceId(req.headers) ?? newId();
  const tooLong = error.code === 'FST_ERR_MAX_PARAM_LENGTH';
  const [status, code, msg] = tooLong
    ? [414, 'PAYLOAD_TOO_LARGE', 'a path segment of the URL is too long']
    : [400, 'BAD_REQUEST', 'the URL is not correctly encoded'];
  void reply
    .code(status)
    .headers({ ...securityHeaders(req.url ?? '', 'application/json'), traceId })
    .type('application/json; charset=utf-8')
    .send(JSON.stringify({ ret: 1, msg, data: { code, traceId } }));
};

/**
 * Bytes Node's HTTP parser refuses (URL and headers over its 16 KiB, not HTTP at all, a request that never completes):
 * no request exists yet, so the envelope is written to the socket directly, as Fastify's default handler does with
 * its own JSON.
 */
export function clientErrorHandler(err: Error & { code?: string }, socket: Duplex): void {
  if (err.code === 'ECONNRESET' || socket.destroyed) return;
  const [status, reason, code, msg] =
    err.code === 'HPE_HEADER_OVERFLOW'
      ? [431, 'Request Header Fields Too Large', 'PAYLOAD_TOO_LARGE', 'the URL and headers of the request are too large']
      : err.code === 'ERR_HTTP_REQUEST_TIMEOUT'
        ? [408, 'Request Timeout', 'REQUEST_TIMEOUT', 'the request did not arrive in time']
        : [400, 'Bad Request', 'BAD_REQUEST', 'the request is not valid HTTP'];
  const traceId = newId();
  const body = JSON.stringify({ ret: 1, msg, data: { code, traceId } });
  if (socket.writable) {
    const headers = { ...securityHeaders('/hcs/', 'application/json'), 'Content-Type': 'application/json; charset=utf-8', 'Content-Length': String(Buffer.byteLength(body)), traceId, Connection: 'close' };
    socket.write(`HTTP/1.1 ${status} ${reason}\r\n${Object.entries(headers).map(([k, v]) => `${k}: ${v}`).join('\r\n')}\r\n\r\n${body}`);
  }
  socket.destroy(err);
}

export function installHygiene(app: FastifyInstance): void {
  app.decorateRequest('user', null);
  app.decorateRequest('operationId', null);
  app.decorateRequest('traceId', '');
  app.decorateRequest('accessRefused', null);
  app.decorateRequest('gateRows', null);
  app.decorateRequest('listingPage', null);

  app.addHook('onRequest', async (req, reply) => {
    // The request id is the client's traceId when well-formed (genReqId in app.ts), so the id in the envelope and
    // the header is the one every log line of the request carries.
    req.traceId = typeof req.id === 'string' && TRACE_RE.test(req.id) ? req.id : clientTraceId(req.headers) ?? newId();
    reply.header('traceId', req.traceId);
  });

  app.addHook('onSend', async (req, reply, payload) => {
    reply.headers(securityHeaders(req.url, String(reply.getHeader('content-type') ?? '')));
    return payload;
  });

  app.setErrorHandler((error: FastifyError | AppError, req, reply) => {
    const traceId = req.traceId;
    if (error instanceof AppError) {
      // An operation this server does not implement is an expected answer, not a fault: no error, no stack.
      if (error.status === 501) req.log.info({ traceId, code: error.code, operationId: req.operationId }, error.message);
      else if (error.status >= 500) req.log.error({ err: error, traceId }, 'request failed');
      if (error.retryAfterSeconds !== undefined) reply.header('Retry-After', String(error.retryAfterSeconds));
      return reply.status(error.status).send({
        ret: error.ret,
        msg: error.message,
        data: {
          code: error.code,
          traceId,
          ...(error.fields ? { fields: error.fields } : {}),
          ...(error.retryAfterSeconds !== undefined ? { retryAfterSeconds: error.retryAfterSeconds } : {}),
        },
      });
    }
    const fe = error as FastifyError;
    if (fe.validation) {
      const fields = fe.validation.map((v) => ({
        field: (v.instancePath || (v.params as { missingProperty?: string })?.missingProperty || fe.validationContext || '')
          .replace(/^\//, '')
          .replace(/\//g, '.'),
        message: v.message ?? 'invalid',
      }));
      return reply.status(422).send({
        ret: 1,
        msg: `invalid ${fe.validationContext ?? 'request'}: ${fields.map((f) => `${f.field} ${f.message}`).join('; ')}`,
        data: { code: 'VALIDATION_FAILED', traceId, fields },
      });
    }
    const status = fe.statusCode && fe.statusCode >= 400 && fe.statusCode < 500 ? fe.statusCode : 500;
    if (status === 500) {
      req.log.error({ err: error, traceId }, 'unhandled error');
      return reply.status(500).send({ ret: 1, msg: 'internal error', data: { code: 'INTERNAL', traceId } });
    }
    const code = status === 413 ? 'PAYLOAD_TOO_LARGE' : status === 429 ? 'RATE_LIMITED' : status === 404 ? 'NOT_FOUND' : 'BAD_REQUEST';
    return reply.status(status).send({ ret: 1, msg: fe.message, data: { code, traceId } });
  });
}
