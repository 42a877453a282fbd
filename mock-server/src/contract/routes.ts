// Registers one Fastify route per contract operation. Routes, methods and request validation come from the
// contract, so the server cannot drift from it; an operation without a handler answers 501 with the envelope.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { AppContext, Handlers } from '../context.ts';
import { routeHandlers, type RouteHandlers } from '../http/typed.ts';
import { AppError } from '../http/errors.ts';
import { insertOpLog } from '../db/oplog-repo.ts';
import { enforceAccess } from '../files/access-gate.ts';
import { listingGateReader } from '../files/access.ts';
import { dialectOf } from '../db/sql/tx.ts';
import { ipGate } from '../auth/ip-whitelist.ts';
import { decodeName } from '@hcs/openapi/client';
import { authenticateVisitor } from '../links/visitors.ts';
import { contractOperations, type ContractOperation } from './contract.ts';

/** Calls a session the IP white list no longer admits may still make. */
const IP_EXEMPT: ReadonlySet<string> = new Set(['getSsoAccess', 'logout']);

/** Operations that write their own log row with what they did, in their transaction (clearOptLog). */
const SELF_LOGGED: ReadonlySet<string> = new Set(['clearOptLog']);

/** File names travel Base64-encoded (_x/_j/_d); the log keeps them readable, or as sent when they do not decode. */
function readableName(wire: string): string {
  try {
    return decodeName(wire);
  } catch {
    return wire;
  }
}

function objectOf(req: FastifyRequest): { id: string; name: string } {
  const q = (req.query ?? {}) as Record<string, unknown>;
  const p = (req.params ?? {}) as Record<string, unknown>;
  // A list body (createInstances) names its first item, so the log's object name can be searched (/logManage).
  const item: unknown = Array.isArray(req.body) ? req.body[0] : req.body;
  const b = (item && typeof item === 'object' ? item : {}) as Record<string, unknown>;
  const id = p.id ?? q.ids ?? q.instanceId ?? b.instanceId ?? b.fId ?? b.userId ?? '';
  const wire = b.fName ?? b.instanceName;
  return { id: String(id), name: wire !== undefined ? readableName(String(wire)) : String(q.username ?? '') };
}

/** `replacements` (tests) take the place of handlers; they are not typed, so they can break the contract on purpose. */
export function registerContractRoutes(
  app: FastifyInstance, ctx: AppContext, typed: Handlers, replacements: RouteHandlers = {},
): readonly ContractOperation[] {
  const ops = contractOperations();
  const known = new Set(ops.map((o) => o.operationId));
  const handlers = { ...routeHandlers(typed), ...replacements };
  const postgres = dialectOf(ctx.db) === 'postgres';
  for (const name of Object.keys(handlers)) {
    if (!known.has(name)) throw new Error(`handler ${name} has no operation in the contract`);
  }
  for (const op of ops) {
    const handler = handlers[op.operationId];
    // Fastify answers HEAD on every GET by running the GET handler and dropping the body; on a GET the spec uses for a
    // change (delete?ids=...) that would carry the change out for anything that merely probes the URL.
    const refuseHead = op.method === 'GET' && op.mutating;
    if (refuseHead) {
      app.route({
        method: 'HEAD',
        url: op.url,
        config: { operationId: op.operationId },
        onRequest: async (req) => {
          req.operationId = op.operationId;
        },
        handler: async (_req, reply) => {
          reply.header('Allow', 'GET');
          throw new AppError('METHOD_NOT_ALLOWED', `${op.operationId} changes data and answers GET only`);
        },
      });
    }
    app.route({
      method: op.method,
      url: op.url,
      // A container of its own (Fastify marks the one it is given); the schemas in it are the shared ones.
      schema: { ...op.schema },
      exposeHeadRoute: !refuseHead,
      config: { operationId: op.operationId },
      // CSRF first, then the session, both before the body is parsed: an anonymous or forged call learns
      // nothing from validation errors and costs no body parsing.
      onRequest: async (req, reply) => {
        req.operationId = op.operationId;
        if (op.csrf && req.headers['x-requested-with'] !== 'XMLHttpRequest') {
          throw new AppError('CSRF_HEADER_MISSING', 'the X-Requested-With header is required');
        }
        req.user = op.public ? await ctx.auth.peek(req) : await ctx.auth.authenticate(req, reply);
        // A public link's visitor: the share token is the credential, and the link must still be open.
        if (op.access === 'share-visitor') req.visitor = await authenticateVisitor(ctx, req);
        // The contract's access mark: administrators' operations refuse everyone else before anything is parsed.
        if (op.access === 'admin' && !req.user?.isAdmin) throw new AppError('FORBIDDEN', `${op.operationId} is for administrators`);
        // The IP white list holds on every call of a session, not only at sign-in; the caller may still ask why
        // (getSsoAccess) and sign out.
        if (req.user && !op.public && !IP_EXEMPT.has(op.operationId)) {
          await ipGate(ctx).assert(req, req.user, op.access === 'admin' ? 'console' : 'drive');
        }
      },
      // Permission marks need the validated request (the ids it names), so they are checked once it is parsed.
      // On PostgreSQL a folder listing's gate also reads the page it will list, in the same statement
      // (listingGateReader): one round trip less.
      preHandler: typeof op.access === 'string'
        ? undefined
        : op.operationId === 'listInstances' && postgres
          ? async (req) => enforceAccess(ctx.db, req, op.access, listingGateReader(req as Parameters<typeof listingGateReader>[0]))
          : async (req) => enforceAccess(ctx.db, req, op.access),
      handler: async (req, reply) => {
        if (!handler) {
          throw new AppError('NOT_IMPLEMENTED', `${op.operationId} (${op.method} ${op.path}) is not implemented on this server yet`);
        }
        return handler(req, reply);
      },
      // Written before the answer leaves (onSend, not onResponse): a client that saw its change done can rely on the
      // operation log holding it, on any node.
      onSend: op.mutating
        ? async (req, reply, payload) => {
            // Anonymous refusals before anything ran (forbidden, rate limited: a guessing attack's bulk) are not operations.
            if (reply.statusCode === 501 || ((reply.statusCode === 403 || reply.statusCode === 429) && !req.user)) return payload;
            if (SELF_LOGGED.has(op.operationId) && reply.statusCode < 400) return payload;
            const obj = objectOf(req);
            try {
              await insertOpLog(ctx.db, {
                userId: req.user?.userId ?? null,
                userName: req.user?.userName ?? '',
                opType: op.operationId,
                opSubject: op.tag,
                objectId: obj.id,
                objectName: obj.name,
                device: String(req.headers['user-agent'] ?? ''),
                ip: req.ip,
                traceId: req.traceId,
                result: reply.statusCode < 400 ? 'success' : 'failure',
                detail: reply.statusCode < 400 ? '' : String(reply.statusCode),
              });
            } catch (err) {
              req.log.error({ err, traceId: req.traceId }, 'operation log write failed');
            }
            return payload;
          }
        : undefined,
    });
  }
  return ops;
}
