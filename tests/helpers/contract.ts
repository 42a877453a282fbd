// The bundled contract as the tests read it: its operations, its error codes, and a check of every /hcs response
// against it. A ContractWatch collects the violations one server's responses commit and fails the test they
// happened in (every watch is checked after each test), so no suite can pass with a violation unseen, whatever
// order its tests run in or which of them runs alone.
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import type { ValidateFunction } from 'ajv';
import type { FastifyInstance } from 'fastify';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { afterEach } from 'vitest';

type Json = Record<string, any>;
const require = createRequire(import.meta.url);
export const contract: Json = JSON.parse(readFileSync(require.resolve('@hcs/openapi/hcs.json'), 'utf8'));

const ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: true });
(addFormats as unknown as (a: unknown) => void)(ajv);
ajv.addSchema({ $id: 'hcs.json', components: contract.components });

/** Follows $refs within the contract (one level of node, as many hops as it takes). */
export function deref(node: Json | undefined): Json {
  let cur = node;
  while (cur && typeof cur.$ref === 'string') {
    cur = cur.$ref
      .replace(/^#\//, '')
      .split('/')
      .reduce((acc: Json, p: string) => acc?.[p.replace(/~1/g, '/').replace(/~0/g, '~')], contract);
  }
  return cur ?? {};
}

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'DELETE' | 'PATCH';

export interface ContractOp {
  id: string;
  method: HttpMethod;
  /** The contract path, e.g. /hcs/controller/Instances/{id}. */
  path: string;
  op: Json;
  /** Path-item and operation parameters, dereferenced. */
  params: Json[];
  /** The request body: its first media type and that type's schema (dereferenced at the top). */
  body?: { mediaType: string; schema: Json; required: boolean };
  /** security: [] — callable without a session. */
  public: boolean;
  /** Needs the X-Requested-With header. */
  csrf: boolean;
  /** Answers a raw body (stream, file) instead of the envelope when it succeeds. */
  raw: boolean;
  /** Changes state (every non-GET, and the GETs marked x-hcs-mutating). */
  mutating: boolean;
}

const METHODS = ['get', 'post', 'put', 'delete', 'patch'] as const;

/** Every operation of the contract, in the contract's order. */
export const contractOps: readonly ContractOp[] = Object.entries<Json>(contract.paths).flatMap(([path, item]) =>
  METHODS.filter((m) => item[m]).map((m): ContractOp => {
    const op: Json = item[m];
    const content: Json | undefined = op.requestBody ? deref(op.requestBody).content : undefined;
    const mediaType = content ? Object.keys(content)[0] : undefined;
    return {
      id: op.operationId,
      method: m.toUpperCase() as HttpMethod,
      path,
      op,
      params: [...(item.parameters ?? []), ...(op.parameters ?? [])].map(deref),
      ...(mediaType ? { body: { mediaType, schema: deref(content![mediaType].schema), required: deref(op.requestBody).required === true } } : {}),
      public: Array.isArray(op.security) && op.security.length === 0,
      csrf: op['x-hcs-csrf'] !== false,
      raw: op['x-hcs-raw'] === true,
      mutating: m !== 'get' || op['x-hcs-mutating'] === true,
    };
  }),
);

const byOperation = new Map<string, ContractOp>(contractOps.map((o) => [o.id, o]));

export function operationIds(): string[] {
  return [...byOperation.keys()];
}

/** Literal paths before templated ones, so /Instances/{id} never shadows a fixed sibling. */
const matchers = [...contractOps]
  .sort((a, b) => (a.path.match(/\{/g)?.length ?? 0) - (b.path.match(/\{/g)?.length ?? 0))
  .map((o) => ({
    o,
    re: new RegExp(`^${o.path.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\\?\{[^}]+\\?\}/g, '[^/]+')}$`),
  }));

/** The operation a request addresses (method and pathname, no query), as the server's router would pick it. */
export function operationFor(method: string, pathname: string): ContractOp | undefined {
  const m = method.toUpperCase();
  return matchers.find(({ o, re }) => o.method === m && re.test(pathname))?.o;
}

function valuesOf(schema: Json, seen = new Set<Json>()): string[] {
  const s = deref(schema);
  if (seen.has(s)) return [];
  seen.add(s);
  const out: string[] = [];
  if (Array.isArray(s.enum)) out.push(...s.enum.filter((v: unknown): v is string => typeof v === 'string'));
  if (typeof s.const === 'string') out.push(s.const);
  for (const k of ['oneOf', 'anyOf', 'allOf'] as const) for (const sub of s[k] ?? []) out.push(...valuesOf(sub, seen));
  return out;
}

/**
 * The error codes the contract allows in ErrorData.code: its enum when the contract has one (issue #13 item 4 turns
 * the list into an enum), else the list its description documents ("Known codes: A, B, ...").
 */
export function errorCodes(): string[] {
  const code = deref(deref(contract.components.schemas.ErrorData).properties?.code);
  const listed = valuesOf(code);
  if (listed.length) return listed;
  const text = String(code.description ?? '');
  const at = text.search(/known codes/i);
  const codes = at < 0 ? [] : (text.slice(at).match(/\b[A-Z][A-Z0-9_]*[A-Z0-9]\b/g) ?? []);
  if (codes.length === 0) throw new Error('the contract lists no error codes for ErrorData.code (neither an enum nor "Known codes: ...")');
  return codes;
}

const cache = new Map<string, ValidateFunction | null>();
function validatorFor(operationId: string, status: number): { key: string; fn: ValidateFunction | null } | undefined {
  const o = byOperation.get(operationId);
  if (!o) return undefined;
  const responses: Json = o.op.responses ?? {};
  const key = [String(status), `${String(status)[0]}XX`, 'default'].find((k) => k in responses);
  if (!key) return undefined;
  const id = `${operationId}:${key}`;
  if (!cache.has(id)) {
    const schema = deref(responses[key])?.content?.['application/json']?.schema;
    const fn = schema ? ajv.compile(JSON.parse(JSON.stringify(schema).replace(/"#\/components\//g, '"hcs.json#/components/'))) : null;
    cache.set(id, fn);
  }
  return { key, fn: cache.get(id) ?? null };
}

export interface ContractCheck {
  operationId: string;
  status: number;
  problem: string;
}

/** Whether checkResponse needs the body (a raw operation's success is a stream it does not read). */
export function needsBody(operationId: string, status: number): boolean {
  return !(byOperation.get(operationId)?.raw && status < 400);
}

/** Checks one response; returns a problem description or null. */
export function checkResponse(operationId: string, status: number, contentType: string, body: string): string | null {
  const o = byOperation.get(operationId);
  if (!o) return `operation ${operationId} is not in the contract`;
  const v = validatorFor(operationId, status);
  if (!v) return `status ${status} is not declared for ${operationId}`;
  if (!needsBody(operationId, status)) return null;
  if (!contentType.startsWith('application/json')) return `expected JSON, got ${contentType || 'no content type'}`;
  if (!v.fn) return null;
  let json: unknown;
  try {
    json = JSON.parse(body);
  } catch {
    return 'body is not JSON';
  }
  if (!v.fn(json)) return `${v.key}: ${ajv.errorsText(v.fn.errors)}`;
  return null;
}

/** The violations one server's responses committed; every live watch is checked after each test. */
export class ContractWatch {
  readonly label: string;
  readonly violations: ContractCheck[] = [];
  #reported = 0;
  constructor(label: string) {
    this.label = label;
    live.add(this);
  }

  record(operationId: string, status: number, contentType: string, body: string): void {
    const problem = checkResponse(operationId, status, contentType, body);
    if (problem) this.violations.push({ operationId, status, problem });
  }

  /** Throws when responses since the last check broke the contract (each violation is reported once). */
  assertClean(when = 'during this test'): void {
    const fresh = this.violations.slice(this.#reported);
    this.#reported = this.violations.length;
    if (fresh.length) {
      const lines = fresh.slice(0, 20).map((v) => `  ${v.operationId} ${v.status}: ${v.problem}`);
      if (fresh.length > 20) lines.push(`  ... and ${fresh.length - 20} more`);
      throw new Error(`${this.label}: ${fresh.length} response(s) broke the contract ${when}:\n${lines.join('\n')}`);
    }
  }

  /** Stops watching (the server is gone) and reports what is left unreported. */
  close(): void {
    live.delete(this);
    this.assertClean('before the server closed');
  }
}

const live = new Set<ContractWatch>();

// Registered once per test file (modules are evaluated per file): a violation fails the test it happened in.
afterEach(() => {
  const errors: string[] = [];
  for (const w of live) {
    try {
      w.assertClean();
    } catch (e) {
      errors.push((e as Error).message);
    }
  }
  if (errors.length) throw new Error(errors.join('\n'));
});

/** Checks every contract response an in-process server sends (add before the routes, e.g. in buildApp's instrument). */
export function watchContract(app: FastifyInstance, label = 'server'): ContractWatch {
  const watch = new ContractWatch(label);
  app.addHook('onSend', async (req, reply, payload) => {
    const operationId = req.operationId;
    if (!operationId) return payload;
    if (typeof payload === 'string' || Buffer.isBuffer(payload)) {
      watch.record(operationId, reply.statusCode, String(reply.getHeader('content-type') ?? ''), payload.toString());
    } else if (needsBody(operationId, reply.statusCode)) {
      // A stream where the contract wants the envelope: what is in it cannot be checked here, which is a violation.
      watch.violations.push({ operationId, status: reply.statusCode, problem: 'answered a stream where the contract wants a JSON envelope' });
    }
    return payload;
  });
  return watch;
}

/**
 * A fetch that checks each /hcs response against the contract on the client side, for servers whose responses
 * cannot be seen from inside (a child process). A hijacked or cut response is simply not checked.
 */
export function checkingFetch(watch: ContractWatch, inner: typeof fetch = fetch): typeof fetch {
  return async (input, init) => {
    const req = new Request(input, init);
    const res = await inner(req);
    const o = operationFor(req.method, new URL(req.url).pathname);
    if (o) {
      const body = needsBody(o.id, res.status) ? await res.clone().text().catch(() => undefined) : '';
      if (body !== undefined) watch.record(o.id, res.status, res.headers.get('content-type') ?? '', body);
    }
    return res;
  };
}
