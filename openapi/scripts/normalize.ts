// Post-processes the bundle: drops authoring-only keys (YAML anchors' holders) and checks the rules
// redocly's built-in rules do not cover:
//  - every operation has a camelCase operationId;
//  - every 2xx/4XX/5XX JSON response is the {ret, msg, data} envelope, unless the operation is marked x-hcs-raw
//    (file streams, translation and skin files);
//  - every /hcs operation declares the X-Requested-With header unless it is marked x-hcs-csrf: false;
//  - every operation has an access mark (x-hcs-access: public | share-visitor | signed-in | admin | {permission, ids} |
//    {manages: dept | user, ids} or a list of them), `public` or `share-visitor` (a public link's visitor token)
//    exactly when it has security: [], a known permission,
//    and ids that name a declared parameter or body field;
//  - every number a client sends is bounded: numeric schemas in parameters, request bodies and input-only schemas
//    (no response uses them, e.g. the bulk-upload manifest read from a raw body) declare a minimum and a maximum
//    (or an enum). Ajv's `integer` accepts 2^53 and query strings coerce to Infinity, so only a maximum keeps such
//    values away from SQLite and arithmetic.
import { readFileSync, writeFileSync } from 'node:fs';

type Json = Record<string, any>;
const file = new URL('../dist/hcs.json', import.meta.url);
const doc: Json = JSON.parse(readFileSync(file, 'utf8'));
const problems: string[] = [];

function deref(node: Json): Json {
  let cur = node;
  while (cur && typeof cur.$ref === 'string') {
    const parts = cur.$ref.replace(/^#\//, '').split('/');
    cur = parts.reduce((acc: Json, p: string) => acc?.[p.replace(/~1/g, '/').replace(/~0/g, '~')], doc);
  }
  return cur;
}

function isEnvelope(schema: Json): boolean {
  const s = deref(schema);
  if (!s) return false;
  if (s.allOf) return s.allOf.some((x: Json) => isEnvelope(x));
  const req: string[] = s.required ?? [];
  return ['ret', 'msg', 'data'].every((k) => req.includes(k));
}

const isNumeric = (s: Json) => [s.type].flat().some((t) => t === 'integer' || t === 'number');
const bounded = (s: Json) =>
  Array.isArray(s.enum) || 'const' in s || ((s.minimum ?? s.exclusiveMinimum) !== undefined && (s.maximum ?? s.exclusiveMaximum) !== undefined);

/** Where under `node` a number is left unbounded (`where` names the root). */
function unboundedNumbers(node: Json, where: string, seen = new Set<Json>()): string[] {
  const s = deref(node);
  if (!s || typeof s !== 'object' || seen.has(s)) return [];
  seen.add(s);
  const out: string[] = [];
  if (isNumeric(s) && !bounded(s)) out.push(where);
  for (const [k, v] of Object.entries<Json>(s.properties ?? {})) out.push(...unboundedNumbers(v, `${where}.${k}`, seen));
  for (const key of ['items', 'additionalProperties', 'not'] as const) {
    if (s[key] && typeof s[key] === 'object') out.push(...unboundedNumbers(s[key], `${where}[]`, seen));
  }
  for (const key of ['allOf', 'anyOf', 'oneOf', 'prefixItems'] as const) {
    for (const sub of s[key] ?? []) out.push(...unboundedNumbers(sub, where, seen));
  }
  return out;
}

/** $refs reachable from a node (to tell input-only schemas from those a response uses). */
function refsUnder(node: unknown, acc = new Set<string>()): Set<string> {
  if (Array.isArray(node)) node.forEach((n) => refsUnder(n, acc));
  else if (node && typeof node === 'object') {
    const ref = (node as Json).$ref;
    if (typeof ref === 'string') {
      if (acc.has(ref)) return acc;
      acc.add(ref);
      refsUnder(deref(node as Json), acc);
    }
    for (const [k, v] of Object.entries(node)) if (k !== '$ref') refsUnder(v, acc);
  }
  return acc;
}

const PERMISSIONS: string[] = doc['x-hcs-permissions'] ?? [];
if (PERMISSIONS.length === 0) problems.push('the contract names no permissions (x-hcs-permissions at its root)');

/** Properties of a JSON request body (of its items, for a list body), through allOf. */
function bodyFields(op: Json): Set<string> {
  const out = new Set<string>();
  const walk = (node: Json | undefined) => {
    const s = node && deref(node);
    if (!s) return;
    if (s.items) walk(s.items);
    for (const k of Object.keys(s.properties ?? {})) out.add(k);
    for (const sub of s.allOf ?? []) walk(sub);
  };
  walk(deref(op.requestBody ?? {})?.content?.['application/json']?.schema);
  return out;
}

function accessProblems(where: string, op: Json, params: Json[]): string[] {
  const mark = op['x-hcs-access'];
  const isPublic = Array.isArray(op.security) && op.security.length === 0;
  if (mark === undefined) return [`${where}: needs an access mark (x-hcs-access)`];
  if (typeof mark === 'string') {
    if (!['public', 'share-visitor', 'signed-in', 'admin'].includes(mark)) return [`${where}: x-hcs-access ${mark} is not public, share-visitor, signed-in or admin`];
    // A link's visitor has no session: their credential is the share token, checked by the route layer instead.
    const noSession = mark === 'public' || mark === 'share-visitor';
    return noSession === isPublic ? [] : [`${where}: x-hcs-access ${mark} goes with security: [] exactly when it is public or share-visitor`];
  }
  const out: string[] = [];
  if (isPublic) out.push(`${where}: a public operation cannot require a permission`);
  const fields = bodyFields(op);
  for (const need of [mark].flat()) {
    if (need?.manages !== undefined) {
      // The department-manager mark: administrators, or a manager of the named department (or account's) or above.
      if (!['dept', 'user'].includes(need.manages)) out.push(`${where}: x-hcs-access manages ${need.manages} is not dept or user`);
      if (need.permission !== undefined) out.push(`${where}: x-hcs-access names either a permission or manages, not both`);
    } else if (!PERMISSIONS.includes(need?.permission)) {
      out.push(`${where}: x-hcs-access permission ${need?.permission} is not one of ${PERMISSIONS.join(', ')}`);
    }
    if (!Array.isArray(need?.ids) || need.ids.length === 0) out.push(`${where}: x-hcs-access needs ids (where the instance ids are)`);
    if (need?.each !== undefined && need.each !== true) out.push(`${where}: x-hcs-access each is true or absent`);
    for (const at of need?.ids ?? []) {
      const [from, name] = String(at).split('.');
      const declared = from === 'body' ? fields.has(name!) : params.some((p) => p.in === from && p.name === name);
      if (!declared || !['query', 'path', 'body'].includes(from!)) out.push(`${where}: x-hcs-access ids ${at} names no declared parameter or body field`);
    }
  }
  return out;
}

const METHODS = ['get', 'put', 'post', 'delete', 'patch', 'head', 'options'];
const inResponses = new Set<string>();
const checked = new Set<string>();
for (const [path, item] of Object.entries<Json>(doc.paths)) {
  for (const m of METHODS) {
    const op = item[m];
    if (!op) continue;
    const where = `${m.toUpperCase()} ${path}`;
    if (!/^[a-z][A-Za-z0-9]*$/.test(op.operationId ?? '')) problems.push(`${where}: operationId must be camelCase`);
    const params = [...(item.parameters ?? []), ...(op.parameters ?? [])].map(deref);
    const csrf = op['x-hcs-csrf'] !== false;
    if (path.startsWith('/hcs/') && csrf && !params.some((p) => p.in === 'header' && p.name === 'X-Requested-With' && p.required)) {
      problems.push(`${where}: must require the X-Requested-With header (or be marked x-hcs-csrf: false)`);
    }
    problems.push(...accessProblems(where, op, params));
    for (const p of params) {
      for (const at of unboundedNumbers(p.schema ?? {}, `${p.in} parameter ${p.name}`)) problems.push(`${where}: ${at} needs a minimum and a maximum`);
    }
    for (const [type, media] of Object.entries<Json>(deref(op.requestBody ?? {})?.content ?? {})) {
      for (const at of unboundedNumbers(media.schema ?? {}, `${type} body`)) problems.push(`${where}: ${at} needs a minimum and a maximum`);
    }
    refsUnder(op.responses ?? {}, inResponses);
    refsUnder([item.parameters, op.parameters, op.requestBody], checked);
    if (op['x-hcs-raw']) continue;
    for (const [status, resp] of Object.entries<Json>(op.responses ?? {})) {
      const r = deref(resp);
      const schema = r?.content?.['application/json']?.schema;
      if (!schema) problems.push(`${where} ${status}: JSON response required`);
      else if (!isEnvelope(schema)) problems.push(`${where} ${status}: response is not the {ret, msg, data} envelope`);
    }
  }
}
for (const [name, schema] of Object.entries<Json>(doc.components?.schemas ?? {})) {
  const ref = `#/components/schemas/${name}`;
  if (inResponses.has(ref) || checked.has(ref)) continue;
  for (const at of unboundedNumbers(schema, name)) problems.push(`input schema ${at} needs a minimum and a maximum`);
}
delete doc['x-headers'];
if (problems.length) {
  console.error(problems.join('\n'));
  process.exit(1);
}
writeFileSync(file, JSON.stringify(doc, null, 2) + '\n');
console.log(`contract ok: ${Object.keys(doc.paths).length} paths checked`);
