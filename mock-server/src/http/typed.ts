// Handler types taken from the generated contract (openapi/gen/schema.d.ts): what a handler reads is what the route
// layer validated against the same contract, and what it answers is checked by the compiler, not only at run time by
// the contract test. A parameter added to the contract reaches every handler's types with `npm run gen`.
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { operations as ContractOperations } from '@hcs/openapi/schema';
import type { OperationId } from '@hcs/openapi/operations';
import type { Envelope } from './envelope.ts';

type Op<K extends OperationId> = ContractOperations[K];
/** What the contract declares, or never where it declares nothing (openapi-typescript writes `query?: never`). */
type Declared<T> = Exclude<T, undefined>;

/** The validated query string: Fastify always hands an object once the route has a query schema. */
export type QueryOf<K extends OperationId> = Declared<Op<K>['parameters']['query']>;
export type PathOf<K extends OperationId> = Declared<Op<K>['parameters']['path']>;

type JsonOf<B> = B extends { content: { 'application/json': infer J } } ? J : unknown;
/**
 * The parsed JSON body; undefined when the contract makes the body optional (a request without one has none). A
 * body of another type (bulk-upload's octet stream) is not parsed: unknown, the handler reads req.raw.
 */
export type BodyOf<K extends OperationId> = [Declared<Op<K>['requestBody']>] extends [never]
  ? never
  : JsonOf<Declared<Op<K>['requestBody']>> | (undefined extends Op<K>['requestBody'] ? undefined : never);

/**
 * The contract's headers as Node delivers them: names in lower case, and every one optional, since no route validates
 * headers against the contract (CSRF is checked in the route layer, the session by the auth service).
 */
type ContractHeaders<H> = { [N in keyof H as Lowercase<N & string>]?: H[N] };
export type HeadersOf<K extends OperationId> = [Declared<Op<K>['parameters']['header']>] extends [never]
  ? Record<never, never>
  : ContractHeaders<Declared<Op<K>['parameters']['header']>>;

export type RequestOf<K extends OperationId> = FastifyRequest<{
  Querystring: QueryOf<K>;
  Params: PathOf<K>;
  Body: BodyOf<K>;
  Headers: HeadersOf<K>;
}>;

type Json200<K extends OperationId> = Op<K>['responses'] extends { 200: { content: { 'application/json': infer E } } } ? E : never;
/** The `data` of the operation's success envelope (JSON carries no undefined, so an optional `data` is required here). */
export type DataOf<K extends OperationId> = Json200<K> extends { data: unknown } ? Exclude<Json200<K>['data'], undefined> : never;

/**
 * What a handler answers: the envelope when the contract's success is one, else (a file, a stream, a page, the
 * translations' bare JSON) the reply it sent, or nothing when it wrote to the socket itself. Taken from the response
 * rather than x-hcs-raw, which bulk-upload carries for its raw request body while it answers an envelope.
 */
export type AnswerOf<K extends OperationId> = [Json200<K>] extends [never]
  ? FastifyReply | void
  : Json200<K> extends { ret: 0 }
    ? Envelope<DataOf<K>>
    : FastifyReply | void;

export type Handler<K extends OperationId> = (req: RequestOf<K>, reply: FastifyReply) => Promise<AnswerOf<K>>;
export type Handlers = { [K in OperationId]?: Handler<K> };

/** What the route layer calls: any request of the route. Tests also pass these to replace handlers with wrong ones. */
export type RouteHandler = (req: FastifyRequest, reply: FastifyReply) => Promise<unknown>;
export type RouteHandlers = Partial<Record<string, RouteHandler>>;

/**
 * The one place typed handlers meet Fastify's untyped request: the route layer registers each handler on its own
 * operation's route with that operation's schema from the same contract (contract/routes.ts), so the request it passes
 * has the shape RequestOf<K> states.
 */
export function routeHandlers(handlers: Handlers): RouteHandlers {
  return handlers as RouteHandlers;
}
