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
    // normalize.ts checked the mark when bundling; here it only changes shape (one list of needs, or a level).
    const mark = op['x-hcs-access'];
    const access = typeof mark === 'string'
      ? `'${mark}'`
      : JSON.stringify([mark].flat().map((n: any) => (n.manages !== undefined ? { manages: n.manages, ids: n.ids, each: n.each === true } : { permission: n.permission, ids: n.ids, each: n.each === true })));
    rows.push(
      `  ${op.operationId}: { method: '${method.toUpperCase()}', path: '${path}', tag: '${op.tags?.[0] ?? ''}', public: ${isPublic}, csrf: ${op['x-hcs-csrf'] !== false}, raw: ${op['x-hcs-raw'] === true}, mutating: ${method !== 'get' || op['x-hcs-mutating'] === true}, access: ${access} },`,
    );
  }
}
rows.sort();
// The error codes: the contract's ErrorCode enum, with the HTTP status of each (x-hcs-status).
const errorCode = doc.components.schemas.ErrorCode;
const statusOf: Record<string, number> = errorCode?.['x-hcs-status'] ?? {};
if (!Array.isArray(errorCode?.enum) || errorCode.enum.length === 0) throw new Error('the contract has no ErrorCode enum');
for (const c of errorCode.enum) if (!Number.isInteger(statusOf[c])) throw new Error(`ErrorCode ${c} has no x-hcs-status`);
for (const c of Object.keys(statusOf)) if (!errorCode.enum.includes(c)) throw new Error(`x-hcs-status names ${c}, which ErrorCode lacks`);
const codeRows = errorCode.enum.map((c: string) => `  ${c}: ${statusOf[c]},`);
const out = `/* eslint-disable */
// GENERATED FILE - DO NOT EDIT. Source: openapi/src (run \`npm run gen\`).
/** The authority catalogue (x-hcs-permissions): what a caller may need on the instances a request names. */
export const PERMISSIONS = ${JSON.stringify(doc['x-hcs-permissions']).replace(/"/g, "'").replace(/,/g, ', ')} as const;
export type Permission = (typeof PERMISSIONS)[number];
export interface AccessNeed {
  readonly permission: Permission;
  /** Where the instance ids are: query.X, path.X or body.X (each item's X for a list body). */
  readonly ids: readonly string[];
  /** Batch calls: a refused instance fails as its own item (failed[]) instead of refusing the request. */
  readonly each: boolean;
}
/**
 * The department-manager mark: administrators, or a manager of the department each named value is (dept) or of the
 * department of each named account (user), or of a department above it. An absent dept value is the root department.
 */
export interface ManagesNeed {
  readonly manages: 'dept' | 'user';
  readonly ids: readonly string[];
  /** Batch calls: an account or department outside the caller's subtree fails as its own item. */
  readonly each: boolean;
}
/** share-visitor: no session; the request carries a public link's visitor token (shareToken header or token query). */
export type Access = 'public' | 'share-visitor' | 'signed-in' | 'admin' | readonly (AccessNeed | ManagesNeed)[];

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
  /** What the caller needs (x-hcs-access), enforced by the server's route layer. */
  readonly access: Access;
}

export const operations = {
${rows.join('\n')}
} as const satisfies Record<string, OperationInfo>;

export type OperationId = keyof typeof operations;

/** Every error code a failure envelope may carry (ErrorData.code), with the HTTP status the server answers it with. */
export const errorStatus = {
${codeRows.join('\n')}
} as const;

export type ErrorCode = keyof typeof errorStatus;

export const ERROR_CODES = Object.keys(errorStatus) as readonly ErrorCode[];

export function isErrorCode(code: unknown): code is ErrorCode {
  return typeof code === 'string' && Object.hasOwn(errorStatus, code);
}
`;
writeFileSync(new URL('../gen/operations.ts', import.meta.url), out);
console.log(`operations: ${rows.length}, error codes: ${codeRows.length}`);
