// Request hygiene shared by every route: trace ids, the CSRF header, security headers, and the single
// error handler that maps any failure to the envelope without leaking internals.
import type { FastifyInstance, FastifyError } from 'fastify';
import { randomBytes } from 'node:crypto';
import { AppError } from './errors.ts';

const TRACE_RE = /^[A-Za-z0-9_-]{1,64}$/;

export function newId(bytes = 12): string {
  return randomBytes(bytes).toString('base64url');
}

/**
 * The headers every response gets (onSend adds them; a route that hijacks its reply to stream on its own
 * writes them itself, since hijacked replies skip onSend).
 */
export function securityHeaders(url: string, contentType: string): Record<string, string> {
  const h: Record<string, string> = { 'X-Content-Type-Options': 'nosniff', 'Referrer-Policy': 'same-origin' };
  if (!url.startsWith('/s3')) {
    h['X-Frame-Options'] = 'SAMEORIGIN';
    h['Cross-Origin-Opener-Policy'] = 'same-origin';
  }
  if (contentType.startsWith('text/html')) {
    h['Content-Security-Policy'] =
      "default-src 'self'; img-src 'self' data: blob: *; media-src 'self' blob: *; connect-src 'self' *; " +
      "style-src 'self' 'unsafe-inline'; script-src 'self' 'wasm-unsafe-eval'; worker-src 'self' blob:; frame-src 'self' blob: *; object-src 'none'; base-uri 'self'";
  }
  if (url.startsWith('/hcs/')) h['Cache-Control'] = 'no-store';
  return h;
}

export function installHygiene(app: FastifyInstance): void {
  app.decorateRequest('user', null);
  app.decorateRequest('operationId', null);
  app.decorateRequest('traceId', '');

  app.addHook('onRequest', async (req, reply) => {
    // Fastify took the traceId header as the request id (app.ts); only a well-formed one is echoed back.
    const t = req.headers['traceid'];
    req.traceId = typeof t === 'string' && TRACE_RE.test(t) ? t : newId();
    reply.header('traceId', req.traceId);
  });

  app.addHook('onSend', async (req, reply, payload) => {
    reply.headers(securityHeaders(req.url, String(reply.getHeader('content-type') ?? '')));
    return payload;
  });

  app.setErrorHandler((error: FastifyError | AppError, req, reply) => {
    const traceId = req.traceId;
    if (error instanceof AppError) {
      if (error.status >= 500) req.log.error({ err: error, traceId }, 'request failed');
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
