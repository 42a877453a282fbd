// Post-processes the bundle: drops authoring-only keys (YAML anchors' holders) and checks the rules
// redocly's built-in rules do not cover:
//  - every operation has a camelCase operationId;
//  - every 2xx/4XX/5XX JSON response is the {ret, msg, data} envelope, unless the operation is marked x-hcs-raw
//    (file streams, translation and skin files);
//  - every /hcs operation declares the X-Requested-With header unless it is marked x-hcs-csrf: false.
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

const METHODS = ['get', 'put', 'post', 'delete', 'patch', 'head', 'options'];
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
    if (op['x-hcs-raw']) continue;
    for (const [status, resp] of Object.entries<Json>(op.responses ?? {})) {
      const r = deref(resp);
      const schema = r?.content?.['application/json']?.schema;
      if (!schema) problems.push(`${where} ${status}: JSON response required`);
      else if (!isEnvelope(schema)) problems.push(`${where} ${status}: response is not the {ret, msg, data} envelope`);
    }
  }
}
delete doc['x-headers'];
if (problems.length) {
  console.error(problems.join('\n'));
  process.exit(1);
}
writeFileSync(file, JSON.stringify(doc, null, 2) + '\n');
console.log(`contract ok: ${Object.keys(doc.paths).length} paths checked`);
