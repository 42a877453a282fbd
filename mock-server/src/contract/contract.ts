// Loads the bundled contract and turns each operation into what Fastify needs: method, URL, request
// schemas (dereferenced) and the flags the server acts on (public, CSRF, raw body).
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { operations, type Access, type OperationId } from '@hcs/openapi/operations';

type Json = Record<string, any>;

export interface ContractOperation {
  operationId: string;
  method: 'GET' | 'POST' | 'PUT' | 'DELETE' | 'PATCH';
  /** The contract path, e.g. /hcs/controller/Instances/{id}. */
  path: string;
  /** Fastify URL, e.g. /hcs/controller/Instances/:id. */
  url: string;
  tag: string;
  public: boolean;
  csrf: boolean;
  raw: boolean;
  mutating: boolean;
  access: Access;
  schema: { querystring?: Json; params?: Json; body?: Json };
}

const require = createRequire(import.meta.url);
export const contractPath: string = require.resolve('@hcs/openapi/hcs.json');

export function loadContract(): Json {
  return JSON.parse(readFileSync(contractPath, 'utf8'));
}

export function deref(doc: Json, node: any, seen: string[] = []): any {
  if (Array.isArray(node)) return node.map((n) => deref(doc, n, seen));
  if (!node || typeof node !== 'object') return node;
  if (typeof node.$ref === 'string') {
    const ref: string = node.$ref;
    if (seen.includes(ref)) return {}; // recursive shapes (menus) only appear in responses
    const target = ref
      .replace(/^#\//, '')
      .split('/')
      .reduce((acc: any, p: string) => acc?.[p.replace(/~1/g, '/').replace(/~0/g, '~')], doc);
    const { $ref: _r, ...rest } = node;
    return deref(doc, { ...target, ...rest }, [...seen, ref]);
  }
  const out: Json = {};
  for (const [k, v] of Object.entries(node)) out[k] = deref(doc, v, seen);
  return out;
}

/** JSON Schema keywords of OpenAPI that Ajv (draft-07 mode in Fastify) would reject in strict mode. */
function clean(schema: Json): Json {
  const { example: _e, examples: _x, contentMediaType: _c, ...rest } = schema;
  return rest;
}

let operations_: readonly ContractOperation[] | undefined;

/**
 * The operations of the bundled contract, read once per process: the file does not change while the server runs, and
 * a process that builds many apps (the test suites build hundreds) then hands Fastify the same schema objects each
 * time, which the shared validator compiler (app.ts) has compiled already. Nothing may change them.
 */
export function contractOperations(): readonly ContractOperation[] {
  return (operations_ ??= operationsOf(loadContract()));
}

export function operationsOf(doc: Json): ContractOperation[] {
  const ops: ContractOperation[] = [];
  for (const [path, item] of Object.entries<Json>(doc.paths)) {
    for (const method of ['get', 'post', 'put', 'delete', 'patch'] as const) {
      const op = item[method];
      if (!op) continue;
      const params = deref(doc, [...(item.parameters ?? []), ...(op.parameters ?? [])]) as Json[];
      const query = params.filter((p) => p.in === 'query');
      const pathParams = params.filter((p) => p.in === 'path');
      const schema: ContractOperation['schema'] = {};
      if (query.length) {
        schema.querystring = {
          type: 'object',
          properties: Object.fromEntries(query.map((p) => [p.name, clean(p.schema ?? {})])),
          required: query.filter((p) => p.required).map((p) => p.name),
        };
      }
      if (pathParams.length) {
        schema.params = {
          type: 'object',
          properties: Object.fromEntries(pathParams.map((p) => [p.name, clean(p.schema ?? {})])),
          required: pathParams.map((p) => p.name),
        };
      }
      const body = op.requestBody ? deref(doc, op.requestBody) : undefined;
      const bodySchema = body?.content?.['application/json']?.schema;
      if (bodySchema) schema.body = bodySchema;
      // The flags come from the one generated table of operations (openapi/gen/operations.ts), the same the clients
      // use; the bundle only gives what the table does not hold: the request schemas.
      const info = operations[op.operationId as OperationId];
      if (!info) throw new Error(`operation ${op.operationId} is not in openapi/gen/operations.ts: run npm run gen`);
      ops.push({
        operationId: op.operationId,
        method: info.method,
        path,
        url: path.replace(/\{([^}]+)\}/g, ':$1'),
        tag: info.tag,
        public: info.public,
        csrf: info.csrf,
        raw: info.raw,
        mutating: info.mutating,
        access: info.access,
        schema,
      });
    }
  }
  return ops;
}
