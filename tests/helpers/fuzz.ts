// Malformed requests generated from the contract, for the fuzz and cross-user suites. Everything is derived from
// openapi/dist/hcs.json (parameters, request bodies and their schemas), so an operation added to the contract is
// fuzzed without anyone writing a case for it. A seeded PRNG picks the cases: the same seed sends the same requests.
import { createHash, randomInt } from 'node:crypto';
import { encodeName } from '@hcs/openapi/client';
import { contract, deref, type ContractOp } from './contract.ts';

type Json = Record<string, any>;

// ---- seeded choice ----

/** mulberry32: small, fast and good enough to pick test cases reproducibly. */
export class Rng {
  #s: number;
  constructor(seed: number) {
    this.#s = seed >>> 0;
  }
  next(): number {
    let t = (this.#s = (this.#s + 0x6d2b79f5) >>> 0);
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }
  int(n: number): number {
    return Math.floor(this.next() * n);
  }
  pick<T>(items: readonly T[]): T {
    return items[this.int(items.length)]!;
  }
  shuffle<T>(items: readonly T[]): T[] {
    const out = [...items];
    for (let i = out.length - 1; i > 0; i--) {
      const j = this.int(i + 1);
      [out[i], out[j]] = [out[j]!, out[i]!];
    }
    return out;
  }
}

/** HCS_FUZZ_SEED when set (to repeat a run), else a fresh one. */
export function fuzzSeed(): number {
  const env = process.env.HCS_FUZZ_SEED;
  if (env !== undefined && env !== '') {
    const n = Number(env);
    if (!Number.isInteger(n) || n < 0 || n > 0xffffffff) throw new Error(`HCS_FUZZ_SEED must be an integer 0..4294967295, got ${env}`);
    return n;
  }
  return randomInt(0, 0xffffffff);
}

// ---- what a value means ----

/** What a parameter or body property names, so a caller's own (or another user's) objects can be put there. */
export type Kind =
  | 'instance' | 'folder' | 'file' | 'session' | 'objectKey' | 'uploadId' | 'proofId' | 'ticket' | 'userId' | 'userName'
  | 'deptId' | 'groupId' | 'share' | 'sha256' | 'name' | 'resourceUri' | 'libCode';

/** Values a caller owns (or another user's, for the cross-user suite), by kind; `name` holds plain names. */
export type Pool = Partial<Record<Kind, string[]>>;

const KINDS_BY_NAME: Record<string, Kind[]> = {
  id: ['instance'], instanceId: ['instance'], fileId: ['file'], ids: ['instance'], fileSharingId: ['share'], shareId: ['instance'],
  parentId: ['folder'], targetInstanceId: ['folder'],
  // signStorageRequest reads take the file's instanceId as fId; everything else takes the upload session's id.
  fId: ['session', 'file'],
  objectKey: ['objectKey'], uploadId: ['uploadId'], proofId: ['proofId'], ticket: ['ticket'],
  userId: ['userId'], userName: ['userName'], username: ['userName'], deptId: ['deptId'], groupId: ['groupId'],
  fMd5: ['sha256'], proof: ['sha256'], fName: ['name'], instanceName: ['name'], resourceUri: ['resourceUri'], libCode: ['libCode'],
};

export function kindsOf(name: string): Kind[] {
  return KINDS_BY_NAME[name] ?? [];
}

const isEncodedName = (s: Json) => s.pattern === '^[A-Za-z0-9_]+$' && (s.maxLength ?? 0) >= 1000;
const isNumeric = (s: Json) => [s.type].flat().some((t) => t === 'integer' || t === 'number');
const typeOf = (s: Json): string => [s.type].flat().find((t) => t !== 'null') ?? (s.properties ? 'object' : s.items ? 'array' : 'string');

/** A pool value of the slot's kinds, in the form the slot takes (names encoded where the schema wants them so). */
function fromPool(name: string, schema: Json, pool: Pool): string | undefined {
  for (const k of kindsOf(name)) {
    const v = pool[k]?.[0];
    if (v === undefined) continue;
    if (k === 'name' && isEncodedName(schema)) return encodeName(v);
    return v;
  }
  return undefined;
}

export function amzDateNow(): string {
  return new Date().toISOString().replace(/[-:]/g, '').replace(/\.\d{3}/, '');
}

/** A value the schema accepts, preferring the caller's own objects for parameters that name one. */
export function validValue(name: string, schema: Json, pool: Pool, depth = 0): unknown {
  const s = mergeAllOf(deref(schema));
  const owned = fromPool(name, s, pool);
  if (owned !== undefined && typeOf(s) === 'string') return owned;
  if ('const' in s) return s.const;
  if (Array.isArray(s.enum)) return s.enum[0];
  if ('default' in s && s.default !== null) return s.default;
  switch (typeOf(s)) {
    case 'integer':
    case 'number':
      return Math.min(Math.max(1, s.minimum ?? 1), s.maximum ?? 1);
    case 'boolean':
      return false;
    case 'array': {
      if (depth > 4) return [];
      const n = Math.max(1, s.minItems ?? 1);
      return Array.from({ length: n }, () => validValue(name, s.items ?? {}, pool, depth + 1));
    }
    case 'object':
      return depth > 4 ? {} : validObject(s, pool, depth + 1);
    default:
      if (s.pattern === '^[0-9a-f]{64}$') return pool.sha256?.[0] ?? '0'.repeat(64);
      if (s.pattern?.includes('[0-9]{8}T')) return amzDateNow();
      if (isEncodedName(s)) return encodeName('fuzz.txt');
      if (s.format === 'binary') return '';
      if (s.pattern && !new RegExp(s.pattern).test('unknownid')) return s.example ?? 'x';
      return s.example ?? 'unknownid';
  }
}

function mergeAllOf(s: Json): Json {
  if (!s.allOf) return s;
  const out: Json = { ...s, allOf: undefined, properties: { ...(s.properties ?? {}) }, required: [...(s.required ?? [])] };
  for (const part of s.allOf.map(deref).map(mergeAllOf)) {
    Object.assign(out.properties, part.properties ?? {});
    out.required.push(...(part.required ?? []));
    if (part.type && !out.type) out.type = part.type;
  }
  return out;
}

/** Required properties, and those the pool can fill (so a request reaches past the lookup of what it names). */
function validObject(schema: Json, pool: Pool, depth: number): Json {
  const s = mergeAllOf(schema);
  const out: Json = {};
  for (const [k, v] of Object.entries<Json>(s.properties ?? {})) {
    if ((s.required ?? []).includes(k) || fromPool(k, deref(v), pool) !== undefined) out[k] = validValue(k, v, pool, depth);
  }
  return out;
}

// ---- where values go ----

/** A place in a request a value can be put: a parameter, or a property of the JSON body (or a body's manifest line). */
export interface Slot {
  where: 'path' | 'query' | 'header' | 'body';
  name: string;
  /** Body: the property path, array items as 0. */
  at: (string | number)[];
  schema: Json;
  required: boolean;
}

/** Bulk-style bodies: a JSON manifest line, then the bytes the manifest declares (schema `<OperationId>Manifest`). */
export function manifestSchemaOf(o: ContractOp): Json | undefined {
  if (!o.body || o.body.mediaType !== 'application/octet-stream') return undefined;
  const name = `${o.id[0]!.toUpperCase()}${o.id.slice(1)}Manifest`;
  return contract.components?.schemas?.[name];
}

function bodySchemaOf(o: ContractOp): Json | undefined {
  if (!o.body) return undefined;
  if (o.body.mediaType === 'application/json') return o.body.schema;
  const m = manifestSchemaOf(o);
  return m ? deref(m) : undefined;
}

function bodySlots(schema: Json, at: (string | number)[], depth: number): Slot[] {
  const s = mergeAllOf(deref(schema));
  if (depth > 3) return [];
  const out: Slot[] = [];
  if (s.items) out.push(...bodySlots(s.items, [...at, 0], depth + 1));
  for (const [k, v] of Object.entries<Json>(s.properties ?? {})) {
    const d = mergeAllOf(deref(v));
    out.push({ where: 'body', name: k, at: [...at, k], schema: d, required: (s.required ?? []).includes(k) });
    if (d.properties || d.items) out.push(...bodySlots(d, [...at, k], depth + 1));
  }
  return out;
}

/** Every slot of an operation (headers: only those a client sets itself, not X-Requested-With). */
export function slotsOf(o: ContractOp): Slot[] {
  const params: Slot[] = o.params
    .filter((p) => p.in !== 'header' || p.name !== 'X-Requested-With')
    .filter((p) => p.in === 'path' || p.in === 'query' || p.in === 'header')
    .map((p) => ({ where: p.in, name: p.name, at: [], schema: mergeAllOf(deref(p.schema ?? {})), required: p.required === true || p.in === 'path' }));
  const body = bodySchemaOf(o);
  return [...params, ...(body ? bodySlots(body, [], 0) : [])];
}

// ---- requests ----

/** A value put into a URL as it is (already percent-encoded, or deliberately not). */
export class Raw {
  readonly text: string;
  constructor(text: string) {
    this.text = text;
  }
}
/** A number written into the JSON body as this literal text (JSON.parse rounds or overflows it). */
export class RawJson {
  readonly text: string;
  constructor(text: string) {
    this.text = text;
  }
}
/** Removes the slot from the request. */
export const MISSING = Symbol('missing');

export interface Draft {
  path: Record<string, unknown>;
  query: Array<[string | Raw, unknown]>;
  headers: Record<string, string>;
  /** JSON body (or manifest) as a value tree; undefined: no body. */
  body: unknown;
  /** Overrides the serialized body (non-JSON text, bytes). */
  rawBody?: string | Uint8Array;
  contentType?: string | null;
}

export interface BuiltRequest {
  method: string;
  url: string;
  headers: Record<string, string>;
  body?: string | Uint8Array;
}

/** A well-formed request for the operation, filled from the pool. */
export function baseDraft(o: ContractOp, pool: Pool, payload: Uint8Array = new TextEncoder().encode('fuzz bulk bytes\n')): Draft {
  const d: Draft = { path: {}, query: [], headers: {}, body: undefined };
  for (const p of o.params) {
    const schema = mergeAllOf(deref(p.schema ?? {}));
    if (p.in === 'path') d.path[p.name] = validValue(p.name, schema, pool);
    else if (p.in === 'query' && (p.required || fromPool(p.name, schema, pool) !== undefined)) d.query.push([p.name, validValue(p.name, schema, pool)]);
  }
  if (o.body?.mediaType === 'application/json') {
    d.body = validValue('', o.body.schema, pool);
  } else if (o.body) {
    const manifest = manifestSchemaOf(o);
    if (manifest) {
      const m = validValue('', manifest, pool) as Json;
      // The manifest describes the bytes that follow it: one file of `payload`.
      for (const f of Array.isArray(m.files) ? m.files : []) {
        f.fSize = payload.length;
        f.fMd5 = createHash('sha256').update(payload).digest('hex');
        f.fName = encodeName(`fuzz-bulk-${createHash('sha256').update(payload).digest('hex').slice(0, 8)}.txt`);
        delete f.parentId;
      }
      d.body = { manifest: m, payload };
    } else {
      d.rawBody = payload;
    }
    d.contentType = o.body.mediaType;
  }
  return d;
}

function encodeUrlValue(v: unknown): string {
  if (v instanceof Raw) return v.text;
  const text = typeof v === 'string' ? v : JSON.stringify(v);
  try {
    return encodeURIComponent(text);
  } catch {
    // Lone surrogates: encodeURIComponent refuses them; send their WTF-8 bytes, as a sloppy client would.
    return [...text].map((ch) => {
      const c = ch.codePointAt(0)!;
      if (c >= 0xd800 && c <= 0xdfff) return `%${(0xe0 | (c >> 12)).toString(16)}%${(0x80 | ((c >> 6) & 0x3f)).toString(16)}%${(0x80 | (c & 0x3f)).toString(16)}`.toUpperCase();
      return encodeURIComponent(ch);
    }).join('');
  }
}

function containsRaw(v: unknown): boolean {
  if (v instanceof RawJson) return true;
  if (Array.isArray(v)) return v.some(containsRaw);
  return v !== null && typeof v === 'object' && Object.values(v).some(containsRaw);
}

function serializeJson(value: unknown): string {
  // A replacer costs a call (and a key string) per value: the 100,000-item arrays made it 3 s of a run.
  if (!containsRaw(value)) return JSON.stringify(value) ?? '';
  const raws: string[] = [];
  const text = JSON.stringify(value, (_k, v) => {
    if (v instanceof RawJson) {
      raws.push(v.text);
      return `__raw_${raws.length - 1}__`;
    }
    return v;
  });
  return text === undefined ? '' : text.replace(/"__raw_(\d+)__"/g, (_m, i: string) => raws[Number(i)]!);
}

export function build(o: ContractOp, d: Draft): BuiltRequest {
  let url = o.path.replace(/\{([^}]+)\}/g, (_m, name: string) => (d.path[name] === MISSING ? '' : encodeUrlValue(d.path[name] ?? '')));
  const q = d.query.filter(([, v]) => v !== MISSING).map(([k, v]) => `${encodeUrlValue(k)}=${encodeUrlValue(v)}`);
  if (q.length) url += `?${q.join('&')}`;
  const headers: Record<string, string> = { ...d.headers };
  let body: string | Uint8Array | undefined;
  if (d.rawBody !== undefined) body = d.rawBody;
  else if (d.body !== undefined) {
    const b = d.body as { manifest?: unknown; payload?: Uint8Array };
    if (o.body?.mediaType !== 'application/json' && b && typeof b === 'object' && 'manifest' in b) {
      body = Buffer.concat([Buffer.from(`${serializeJson(b.manifest)}\n`), Buffer.from(b.payload ?? new Uint8Array())]);
    } else body = serializeJson(d.body);
  }
  if (d.contentType === undefined) {
    if (body !== undefined) headers['content-type'] = o.body?.mediaType ?? 'application/json';
  } else if (d.contentType !== null) headers['content-type'] = d.contentType;
  // fetch cannot send a body with GET or HEAD.
  if (o.method === 'GET') body = undefined;
  return { method: o.method, url, headers, ...(body !== undefined ? { body } : {}) };
}

function clone(d: Draft): Draft {
  const copyBody = (b: unknown): unknown => {
    if (b && typeof b === 'object' && 'manifest' in (b as Json)) {
      const m = b as { manifest: unknown; payload: Uint8Array };
      return { manifest: structuredClone(m.manifest), payload: m.payload };
    }
    return b === undefined ? undefined : structuredClone(b);
  };
  return { path: { ...d.path }, query: d.query.map(([k, v]) => [k, v]), headers: { ...d.headers }, body: copyBody(d.body), rawBody: d.rawBody, contentType: d.contentType };
}

/** Puts `value` into the slot of a copy of the draft (MISSING removes it). */
export function withSlot(o: ContractOp, d: Draft, slot: Slot, value: unknown): Draft {
  const c = clone(d);
  if (slot.where === 'path') c.path[slot.name] = value;
  else if (slot.where === 'query') {
    c.query = c.query.filter(([k]) => k !== slot.name);
    if (value !== MISSING) c.query.push([slot.name, value]);
  } else if (slot.where === 'header') {
    delete c.headers[slot.name];
    if (value !== MISSING) c.headers[slot.name] = String(value instanceof Raw ? value.text : value);
  } else {
    let root: any = c.body;
    const manifest = !!(root && typeof root === 'object' && 'manifest' in root);
    if (manifest) root = root.manifest;
    if (root === undefined || root === null || typeof root !== 'object') {
      root = typeof slot.at[0] === 'number' ? [] : {};
      if (manifest) (c.body as Json).manifest = root;
      else c.body = root;
    }
    let cur: any = root;
    for (const key of slot.at.slice(0, -1)) {
      if (cur[key] === null || typeof cur[key] !== 'object') cur[key] = typeof slot.at[slot.at.indexOf(key) + 1] === 'number' ? [] : {};
      cur = cur[key];
    }
    const last = slot.at[slot.at.length - 1]!;
    if (value === MISSING) {
      if (Array.isArray(cur) && typeof last === 'number') cur.splice(last, 1);
      else delete cur[last];
    } else cur[last] = value;
  }
  return c;
}

// ---- the malformed values ----

export type Category =
  | 'missing' | 'type' | 'number' | 'huge' | 'unicode' | 'traversal' | 'id' | 'duplicate' | 'body' | 'content-type' | 'header' | 'extra';

export interface FuzzCase {
  category: Category;
  label: string;
  draft: Draft;
}

const MiB = 1024 * 1024;

// Built once: every slot shares them.
const HUGE = { url: 'A'.repeat(5000), overHeaders: 'A'.repeat(20000), header: 'A'.repeat(8000), body: 'A'.repeat(1.5 * MiB), array: Array.from({ length: 100000 }, () => 0) };

const WRONG_TYPED_TEXT = ['', 'true', 'null', '[]', '{}', '-0', '0x1f', ' 1', '1 ', 'undefined', '[object Object]'];
const WRONG_TYPED_JSON: unknown[] = [123, -1, 1.5, true, false, null, [], {}, 'text', [1, 'a'], { a: { b: 1 } }];
const UNICODE = [
  '\u0000', 'a\u0000b', '\u202etxt.exe', '😀'.repeat(50), '\ud800', '\udfff', '\r\nX-Injected: 1', '\u200b', 'Ａ', ' ', '\t', '\u007f',
  '\u0085', '\ufeff', 'e\u0301', '\u{10ffff}', 'ﬃ', 'İ', '%', '%00', '%zz',
];
const TRAVERSAL = ['../', '../../../../etc/passwd', '..', '.', '/', '\\..\\..\\windows\\win.ini', 'a/../../b', '..%2f..%2f', '%2e%2e%2f', 'x\u0000.txt', '/etc/passwd\u0000.png'];
const BAD_NAMES = ['', '.', '..', '../x', 'a/b', 'a\\b', 'a\u0000b', 'x'.repeat(256), ' lead', 'trail ', 'a:b*c?"<>|', '\u202e', 'CON', '\u0001\u0002'];
const BAD_WIRE = ['_x_x_d', 'Zg_d_d_d', '____', 'Zm9v_', '_', 'A', 'Zm9v_q', `${'A'.repeat(1400)}`];
const BAD_IDS = ['unknownid', '0', '-1', "1' or '1'='1", 'a,b,,c', ',', ',,,,', Array.from({ length: 1001 }, (_, i) => `i${i}`).join(','), '*', '%', 'null'];

function numberCases(slot: Slot): unknown[] {
  const s = slot.schema;
  const nums = Array.isArray(s.enum) ? s.enum.filter((v: unknown): v is number => typeof v === 'number') : [];
  const min = nums.length ? Math.min(...nums) : s.minimum;
  const max = nums.length ? Math.max(...nums) : s.maximum;
  if (slot.where === 'body') {
    const out: unknown[] = [new RawJson('9007199254740992'), new RawJson('-9007199254740992'), new RawJson('9007199254740993'), new RawJson('1e400'), new RawJson('-1e400'), new RawJson('1.5'), new RawJson('-0'), 'NaN', 'Infinity'];
    if (min !== undefined) out.push(new RawJson(String(min - 1)));
    if (max !== undefined) out.push(new RawJson(String(max + 1)));
    return out;
  }
  const out: unknown[] = ['9007199254740992', '-9007199254740992', '1e400', '-1e400', 'Infinity', '-Infinity', 'NaN', '1.5', '99999999999999999999999', '0x10', '1e3'];
  if (min !== undefined) out.push(String(min - 1));
  if (max !== undefined) out.push(String(max + 1));
  return out;
}

/** How cases name a slot: `query ids`, `header traceId`, `body parts.0.size`. */
export function slotLabel(slot: Slot): string {
  return `${slot.where} ${slot.where === 'body' ? slot.at.join('.') : slot.name}`;
}

/** Malformed values for one slot, by category. */
function slotCases(o: ContractOp, base: Draft, slot: Slot, pool: Pool): FuzzCase[] {
  const out: FuzzCase[] = [];
  const where = slotLabel(slot);
  const add = (category: Category, what: string, value: unknown) =>
    out.push({ category, label: `${where} ${what}`, draft: withSlot(o, base, slot, value) });
  const body = slot.where === 'body';
  add('missing', 'missing', MISSING);
  for (const v of body ? WRONG_TYPED_JSON : WRONG_TYPED_TEXT) add('type', `= ${JSON.stringify(v)}`, v);
  if (isNumeric(slot.schema) || (Array.isArray(slot.schema.enum) && slot.schema.enum.some((v: unknown) => typeof v === 'number'))) {
    for (const v of numberCases(slot)) add('number', `= ${v instanceof RawJson ? v.text : JSON.stringify(v)}`, v);
  }
  if (slot.where === 'path' || slot.where === 'query') {
    add('huge', '= 5000 chars', HUGE.url);
    // Past Node's 16 KiB header limit: the server answers before any route runs.
    add('huge', '= 20000 chars', HUGE.overHeaders);
  } else if (slot.where === 'header') {
    add('huge', '= 8000 chars', HUGE.header);
  } else {
    add('huge', '= 1.5 MiB string', HUGE.body);
    add('huge', '= 100000-item array', HUGE.array);
  }
  const encoded = isEncodedName(slot.schema);
  for (const v of UNICODE) {
    // Header values must be Latin-1 for fetch; the rest goes through as it is.
    if (slot.where === 'header') add('unicode', `= ${JSON.stringify(v)} percent-encoded`, encodeUrlValue(v));
    else add('unicode', `= ${JSON.stringify(v)}`, v);
    if (encoded) add('unicode', `= encodeName(${JSON.stringify(v)})`, encodeName(v));
  }
  for (const v of TRAVERSAL) {
    if (slot.where === 'header') add('traversal', `= ${JSON.stringify(v)} percent-encoded`, encodeUrlValue(v));
    else add('traversal', `= ${JSON.stringify(v)}`, v);
    if (slot.where === 'path') add('traversal', `= raw ${JSON.stringify(v)}`, new Raw(v.replace(/\u0000/g, '%00')));
  }
  if (encoded || kindsOf(slot.name).includes('name')) {
    for (const v of BAD_NAMES) add('traversal', `= encodeName(${JSON.stringify(v)})`, encodeName(v));
    for (const v of BAD_WIRE) add('traversal', `= malformed wire ${JSON.stringify(v.slice(0, 20))}`, v);
  }
  if (kindsOf(slot.name).length) {
    for (const v of BAD_IDS) add('id', `= ${JSON.stringify(v.slice(0, 40))}`, v);
    // The caller's own values of other kinds where this kind is wanted (a session id as an instance id, ...).
    for (const [k, vs] of Object.entries(pool)) if (!kindsOf(slot.name).includes(k as Kind)) for (const v of vs ?? []) add('id', `= own ${k}`, v);
  }
  if (slot.where === 'query') {
    const dup = clone(base);
    dup.query.push([slot.name, base.query.find(([k]) => k === slot.name)?.[1] ?? 'x'], [slot.name, 'second']);
    out.push({ category: 'duplicate', label: `query ${slot.name} twice`, draft: dup });
    const bracket = clone(base);
    bracket.query = bracket.query.filter(([k]) => k !== slot.name);
    bracket.query.push([new Raw(`${slot.name}[]`), 'x'], [new Raw(`${slot.name}[0][a]`), 'y']);
    out.push({ category: 'duplicate', label: `query ${slot.name}[] and ${slot.name}[0][a]`, draft: bracket });
  }
  return out;
}

const NON_JSON_BODIES: Array<[string, string]> = [
  ['truncated JSON', '{'], ['plain text', 'not json'], ['empty body', ''], ['null', 'null'], ['array', '[]'], ['object', '{}'],
  ['string', '"text"'], ['number', '123'], ['nested 5000 deep', `${'['.repeat(5000)}${']'.repeat(5000)}`],
  ['objects 3000 deep', `${'{"a":'.repeat(3000)}1${'}'.repeat(3000)}`], ['__proto__', '{"__proto__":{"polluted":1}}'],
  ['constructor.prototype', '{"constructor":{"prototype":{"polluted":1}}}'], ['BOM', '\ufeff{}'], ['duplicate keys', '{"a":1,"a":2}'],
  ['lone surrogate escape', '{"x":"\\ud800"}'], ['20000 keys', `{${Array.from({ length: 20000 }, (_, i) => `"k${i}":${i}`).join(',')}}`],
  ['NUL bytes', '\u0000\u0000'], ['3 MiB (over the body limit)', `"${'A'.repeat(3 * MiB)}"`],
];
const WRONG_CONTENT_TYPES = [
  'text/plain', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=zz', 'application/xml', 'application/octet-stream',
  'application/json; charset=utf-16', 'application/json; charset=latin1', 'APPLICATION/JSON', 'application/jsonx', 'invalid', 'application/json, text/html', '*/*',
];

/** Malformed bodies and content types for operations that take a body (and POSTs that take none). */
function bodyCases(o: ContractOp, base: Draft): FuzzCase[] {
  if (o.method === 'GET') return [];
  const out: FuzzCase[] = [];
  const add = (category: Category, label: string, patch: Partial<Draft>) => out.push({ category, label, draft: { ...clone(base), ...patch } });
  const json = !o.body || o.body.mediaType === 'application/json';
  for (const [what, text] of NON_JSON_BODIES) add('body', `body ${what}`, json ? { rawBody: text, contentType: 'application/json' } : { rawBody: text });
  if (!json) {
    add('body', 'body random bytes', { rawBody: Uint8Array.from({ length: 4096 }, (_, i) => (i * 7919) % 256) });
    add('body', 'body manifest line without its bytes', { rawBody: `${serializeJson((base.body as Json | undefined)?.manifest ?? {})}\n` });
    add('body', 'body one 1.1 MiB line', { rawBody: 'A'.repeat(1.1 * MiB) });
    add('body', 'body manifest then extra bytes', { rawBody: Buffer.concat([Buffer.from(build(o, base).body ?? ''), Buffer.from('extra')]) });
  }
  for (const t of WRONG_CONTENT_TYPES) if (t !== o.body?.mediaType) add('content-type', `content-type ${t}`, { contentType: t });
  add('content-type', 'no content-type', { contentType: null });
  if (!json) add('content-type', 'content-type application/json', { contentType: 'application/json' });
  return out;
}

function headerCases(base: Draft): FuzzCase[] {
  const add = (label: string, headers: Record<string, string>): FuzzCase => ({ category: 'header', label, draft: { ...clone(base), headers: { ...base.headers, ...headers } } });
  return [
    add('traceId 100 chars', { traceId: 'x'.repeat(100) }),
    add('traceId with spaces and slashes', { traceId: '../ a b' }),
    add('token garbage', { token: 'garbage-token' }),
    add('token 8000 chars', { token: HUGE.header }),
    add('cookie garbage', { cookie: 'HCS_SESSION=%zz; =; a' }),
    add('X-Forwarded-For garbage', { 'x-forwarded-for': '999.1.1.1, ::ffff:zz, <script>' }),
    add('accept-language garbage', { 'accept-language': 'xx-Q;q=9, *;q=-1' }),
  ];
}

function extraCases(base: Draft): FuzzCase[] {
  const add = (label: string, extra: Array<[string | Raw, unknown]>): FuzzCase => {
    const d = clone(base);
    d.query.push(...extra);
    return { category: 'extra', label, draft: d };
  };
  return [
    add('query __proto__', [['__proto__', 'x'], ['constructor', 'y']]),
    add('query constructor[prototype][x]', [[new Raw('constructor[prototype][x]'), '1']]),
    add('query 200 unknown parameters', Array.from({ length: 200 }, (_, i): [string, unknown] => [`p${i}`, 'v'])),
    add('query raw %zz', [['a', new Raw('%zz')]]),
  ];
}

/** Every malformed case of an operation, grouped by category. */
export function casesOf(o: ContractOp, base: Draft, pool: Pool): FuzzCase[] {
  return [...slotsOf(o).flatMap((s) => slotCases(o, base, s, pool)), ...bodyCases(o, base), ...headerCases(base), ...extraCases(base)];
}

/**
 * `n` cases of an operation: every category is represented (round robin over the categories in a seeded order,
 * each category's cases shuffled), so a small budget still sends missing, wrong-typed, huge, unicode, ... cases.
 */
export function pickCases(all: FuzzCase[], n: number, rng: Rng): FuzzCase[] {
  const groups = new Map<Category, FuzzCase[]>();
  for (const c of all) groups.set(c.category, [...(groups.get(c.category) ?? []), c]);
  const queues = rng.shuffle([...groups.values()].map((g) => rng.shuffle(g)));
  const out: FuzzCase[] = [];
  while (out.length < n && queues.some((q) => q.length)) {
    for (const q of queues) {
      const c = q.shift();
      if (c && out.length < n) out.push(c);
    }
  }
  return out;
}
