// Emits gen/operations.ts: every operation's method, path and flags, keyed by operationId.
// The server builds its routes from dist/hcs.json; clients use this table for typed dispatch and tests.
import { readFileSync, writeFileSync } from 'node:fs';

const doc = JSON.parse(readFileSync(new URL('../dist/hcs.json', import.meta.url), 'utf8'));
const rows: string[] = [];
for (const [path, item] of Object.entries<any>(doc.paths)) {
  for (const method of ['get', 'post', 'put', 'delete', 'patch']) {
    const op = item[method];
    if (!op) continue;
    const isPublic = Array.isArray(op.security) && op.security.length === 0;
    rows.push(
      `  ${op.operationId}: { method: '${method.toUpperCase()}', path: '${path}', tag: '${op.tags?.[0] ?? ''}', public: ${isPublic}, csrf: ${op['x-hcs-csrf'] !== false}, raw: ${op['x-hcs-raw'] === true}, mutating: ${method !== 'get' || op['x-hcs-mutating'] === true} },`,
    );
  }
}
rows.sort();
const out = `/* eslint-disable */
// GENERATED FILE - DO NOT EDIT. Source: openapi/src (run \`npm run gen\`).
export interface OperationInfo {
  readonly method: 'GET' | 'POST' | 'PUT' | 'DELETE' | 'PATCH';
  readonly path: string;
  readonly tag: string;
  /** security: [] in the contract: callable without a session. */
  readonly public: boolean;
  /** Requires the X-Requested-With header. */
  readonly csrf: boolean;
  /** Answers a raw body (stream, file) instead of the envelope. */
  readonly raw: boolean;
  /** Changes state (every non-GET, and the GETs the spec uses for changes: x-hcs-mutating). */
  readonly mutating: boolean;
}

export const operations = {
${rows.join('\n')}
} as const satisfies Record<string, OperationInfo>;

export type OperationId = keyof typeof operations;
`;
writeFileSync(new URL('../gen/operations.ts', import.meta.url), out);
console.log(`operations: ${rows.length}`);
