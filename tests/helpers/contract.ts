// Validates responses against the contract: every test that starts the server through startServer() checks
// every /hcs response it receives, so the whole integration suite doubles as a contract test.
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import type { ValidateFunction } from 'ajv';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';

type Json = Record<string, any>;
const require = createRequire(import.meta.url);
export const contract: Json = JSON.parse(readFileSync(require.resolve('@hcs/openapi/hcs.json'), 'utf8'));

const ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: true });
(addFormats as unknown as (a: unknown) => void)(ajv);
ajv.addSchema({ $id: 'hcs.json', components: contract.components });

function resolve(node: Json): Json {
  let cur = node;
  while (cur && typeof cur.$ref === 'string') {
    cur = cur.$ref
      .replace(/^#\//, '')
      .split('/')
      .reduce((acc: Json, p: string) => acc?.[p.replace(/~1/g, '/').replace(/~0/g, '~')], contract);
  }
  return cur;
}

const byOperation = new Map<string, Json>();
for (const item of Object.values<Json>(contract.paths)) {
  for (const m of ['get', 'post', 'put', 'delete', 'patch']) if (item[m]) byOperation.set(item[m].operationId, item[m]);
}

const cache = new Map<string, ValidateFunction | null>();
function validatorFor(operationId: string, status: number): { key: string; fn: ValidateFunction | null } | undefined {
  const op = byOperation.get(operationId);
  if (!op) return undefined;
  const responses: Json = op.responses ?? {};
  const key = [String(status), `${String(status)[0]}XX`, 'default'].find((k) => k in responses);
  if (!key) return undefined;
  const id = `${operationId}:${key}`;
  if (!cache.has(id)) {
    const schema = resolve(responses[key])?.content?.['application/json']?.schema;
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

/** Checks one response; returns a problem description or null. */
export function checkResponse(operationId: string, status: number, contentType: string, body: string): string | null {
  const op = byOperation.get(operationId);
  if (!op) return `operation ${operationId} is not in the contract`;
  const v = validatorFor(operationId, status);
  if (!v) return `status ${status} is not declared for ${operationId}`;
  if (op['x-hcs-raw'] && status < 400) return null;
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

export function operationIds(): string[] {
  return [...byOperation.keys()];
}
