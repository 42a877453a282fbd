// AWS Signature Version 4 for S3, as pure functions: the server signs requests that a browser
// then sends straight to storage, and the embedded store verifies every request it receives.
// Reference: https://docs.aws.amazon.com/AmazonS3/latest/API/sig-v4-authenticating-requests.html
import { createHash, createHmac, timingSafeEqual } from 'node:crypto';

export const ALGORITHM = 'AWS4-HMAC-SHA256';
export const UNSIGNED_PAYLOAD = 'UNSIGNED-PAYLOAD';
export const EMPTY_SHA256 = 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855';
export const STREAMING_SIGNED = 'STREAMING-AWS4-HMAC-SHA256-PAYLOAD';
export const STREAMING_SIGNED_TRAILER = 'STREAMING-AWS4-HMAC-SHA256-PAYLOAD-TRAILER';
export const STREAMING_UNSIGNED_TRAILER = 'STREAMING-UNSIGNED-PAYLOAD-TRAILER';
/** S3 accepts requests whose clock is at most this far from its own. */
export const MAX_CLOCK_SKEW_MS = 15 * 60 * 1000;
/** Longest lifetime of a presigned URL (7 days). */
export const MAX_PRESIGN_EXPIRES_S = 604800;

export interface Credentials {
  accessKeyId: string;
  secretAccessKey: string;
}

export type QueryInput = Record<string, string> | ReadonlyArray<readonly [string, string]>;
export type HeaderInput = Record<string, string | string[] | undefined>;

export function sha256Hex(data: string | Buffer): string {
  return createHash('sha256').update(data).digest('hex');
}

export function hmac(key: string | Buffer, data: string): Buffer {
  return createHmac('sha256', key).update(data, 'utf8').digest();
}

/** RFC 3986 encoding as S3 defines it: everything but A-Z a-z 0-9 - _ . ~ is %XX (UTF-8, upper hex). */
export function uriEncode(value: string, encodeSlash = true): string {
  let out = '';
  for (const byte of Buffer.from(value, 'utf8')) {
    const unreserved =
      (byte >= 0x41 && byte <= 0x5a) || (byte >= 0x61 && byte <= 0x7a) || (byte >= 0x30 && byte <= 0x39) ||
      byte === 0x2d || byte === 0x5f || byte === 0x2e || byte === 0x7e;
    if (unreserved || (byte === 0x2f && !encodeSlash)) out += String.fromCharCode(byte);
    else out += '%' + byte.toString(16).toUpperCase().padStart(2, '0');
  }
  return out;
}

/** Canonical URI of a decoded path such as `/s3/bucket/dir/a b.txt` (S3 never normalises `.`/`..`). */
export function canonicalUri(decodedPath: string): string {
  return uriEncode(decodedPath.startsWith('/') ? decodedPath : '/' + decodedPath, false);
}

/**
 * Canonical URI of a path exactly as it arrived on the wire. Clients differ in which characters
 * they escape (`!`, `'`, lower-case hex), so each segment is decoded and re-encoded; an encoded
 * slash stays encoded. Throws URIError on malformed escapes.
 */
export function canonicalUriFromRawPath(rawPath: string): string {
  return rawPath.split('/').map((segment) => uriEncode(decodeURIComponent(segment))).join('/') || '/';
}

/** Parses a raw query string into decoded pairs, keeping order and empty values (`?uploads`). */
export function parseRawQuery(raw: string): Array<[string, string]> {
  const pairs: Array<[string, string]> = [];
  if (raw === '') return pairs;
  for (const part of raw.split('&')) {
    if (part === '') continue;
    const eq = part.indexOf('=');
    const name = eq < 0 ? part : part.slice(0, eq);
    const value = eq < 0 ? '' : part.slice(eq + 1);
    pairs.push([decodeURIComponent(name), decodeURIComponent(value)]);
  }
  return pairs;
}

function queryPairs(query: QueryInput | undefined): Array<readonly [string, string]> {
  if (query === undefined) return [];
  return Array.isArray(query) ? [...query] : Object.entries(query as Record<string, string>);
}

export function canonicalQueryString(query: QueryInput | undefined): string {
  const encoded = queryPairs(query).map(([k, v]) => [uriEncode(k), uriEncode(v)] as const);
  // Byte order of the encoded forms; encoded strings are ASCII so code-unit order is byte order.
  encoded.sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : a[1] < b[1] ? -1 : a[1] > b[1] ? 1 : 0));
  return encoded.map(([k, v]) => `${k}=${v}`).join('&');
}

function headerValue(headers: HeaderInput, name: string): string | undefined {
  const lower = name.toLowerCase();
  for (const [k, v] of Object.entries(headers)) {
    if (k.toLowerCase() === lower && v !== undefined) return Array.isArray(v) ? v.join(',') : v;
  }
  return undefined;
}

/** Returns the canonical headers block (each line ends in \n) or throws if a signed header is absent. */
export function canonicalHeaders(headers: HeaderInput, signedHeaders: readonly string[]): string {
  let out = '';
  for (const name of signedHeaders) {
    const value = headerValue(headers, name);
    if (value === undefined) throw new Error(`signed header "${name}" is missing from the request`);
    out += `${name}:${value.trim().replace(/\s+/g, ' ')}\n`;
  }
  return out;
}

export interface CanonicalRequestInput {
  method: string;
  canonicalUri: string;
  query?: QueryInput;
  headers: HeaderInput;
  signedHeaders: readonly string[];
  payloadHash: string;
}

export function canonicalRequest(input: CanonicalRequestInput): string {
  return [
    input.method.toUpperCase(),
    input.canonicalUri,
    canonicalQueryString(input.query),
    canonicalHeaders(input.headers, input.signedHeaders),
    input.signedHeaders.join(';'),
    input.payloadHash,
  ].join('\n');
}

export function credentialScope(date: string, region: string, service = 's3'): string {
  return `${date}/${region}/${service}/aws4_request`;
}

export function stringToSign(amzDate: string, scope: string, canonical: string): string {
  return [ALGORITHM, amzDate, scope, sha256Hex(canonical)].join('\n');
}

// The derived key changes once a day per secret and region, but every signed and verified request needed it:
// four HMACs (and a KeyObject each) per request. A few recent ones are kept in process memory only.
const signingKeys = new Map<string, Buffer>();
const MAX_SIGNING_KEYS = 64;

export function deriveSigningKey(secretAccessKey: string, date: string, region: string, service = 's3'): Buffer {
  const id = JSON.stringify([secretAccessKey, date, region, service]);
  const cached = signingKeys.get(id);
  if (cached) return cached;
  const kDate = hmac('AWS4' + secretAccessKey, date);
  const key = hmac(hmac(hmac(kDate, region), service), 'aws4_request');
  if (signingKeys.size >= MAX_SIGNING_KEYS) signingKeys.clear();
  signingKeys.set(id, key);
  return key;
}

export function signatureOf(signingKey: Buffer, toSign: string): string {
  return createHmac('sha256', signingKey).update(toSign, 'utf8').digest('hex');
}

/** `20130524T000000Z` for a Date. */
export function formatAmzDate(date: Date): string {
  return date.toISOString().replace(/[-:]/g, '').replace(/\.\d{3}/, '');
}

/** Parses `YYYYMMDDTHHMMSSZ`; returns epoch ms or null. */
export function parseAmzDate(value: string): number | null {
  const m = /^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z$/.exec(value);
  if (!m) return null;
  const ms = Date.UTC(+m[1]!, +m[2]! - 1, +m[3]!, +m[4]!, +m[5]!, +m[6]!);
  return Number.isNaN(ms) || formatAmzDate(new Date(ms)) !== value ? null : ms;
}

export interface SignInput {
  method: string;
  /** Decoded path including any endpoint prefix, e.g. `/s3/hcs-drive/users/7/a b.bin`. */
  path: string;
  query?: QueryInput;
  /** Headers to sign; must contain `host`. Names are matched case-insensitively. */
  headers: Record<string, string>;
  amzDate: string;
  /** Hex SHA-256 of the body, `UNSIGNED-PAYLOAD` (default) or a STREAMING-* marker. */
  payloadHash?: string;
  region: string;
  service?: string;
  credentials: Credentials;
}

export interface SignedRequest {
  authorization: string;
  signature: string;
  signedHeaders: string;
  /** The signed headers, lower-cased, including x-amz-date and x-amz-content-sha256. */
  headers: Record<string, string>;
  canonicalRequest: string;
  stringToSign: string;
}

/** Signs a request with an Authorization header. */
export function signRequest(input: SignInput): SignedRequest {
  if (parseAmzDate(input.amzDate) === null) throw new Error(`invalid amzDate "${input.amzDate}"`);
  const service = input.service ?? 's3';
  const payloadHash = input.payloadHash ?? UNSIGNED_PAYLOAD;
  const headers: Record<string, string> = {};
  for (const [k, v] of Object.entries(input.headers)) headers[k.toLowerCase()] = v;
  if (headers.host === undefined) throw new Error('the host header must be signed');
  headers['x-amz-date'] = input.amzDate;
  headers['x-amz-content-sha256'] = payloadHash;
  const signed = Object.keys(headers).sort();
  const canonical = canonicalRequest({
    method: input.method, canonicalUri: canonicalUri(input.path), query: input.query, headers, signedHeaders: signed, payloadHash,
  });
  const date = input.amzDate.slice(0, 8);
  const scope = credentialScope(date, input.region, service);
  const toSign = stringToSign(input.amzDate, scope, canonical);
  const signature = signatureOf(deriveSigningKey(input.credentials.secretAccessKey, date, input.region, service), toSign);
  const signedHeaders = signed.join(';');
  return {
    authorization: `${ALGORITHM} Credential=${input.credentials.accessKeyId}/${scope}, SignedHeaders=${signedHeaders}, Signature=${signature}`,
    signature, signedHeaders, headers, canonicalRequest: canonical, stringToSign: toSign,
  };
}

export interface PresignInput {
  method: string;
  path: string;
  query?: QueryInput;
  /** Host plus any other headers the holder of the URL must send verbatim. */
  headers: Record<string, string>;
  amzDate: string;
  expiresIn: number;
  region: string;
  service?: string;
  credentials: Credentials;
}

/** Returns the full query string (without `?`) of a presigned request, signature last. */
export function presignQuery(input: PresignInput): string {
  if (!Number.isInteger(input.expiresIn) || input.expiresIn < 1 || input.expiresIn > MAX_PRESIGN_EXPIRES_S) {
    throw new Error(`expiresIn must be an integer between 1 and ${MAX_PRESIGN_EXPIRES_S}`);
  }
  if (parseAmzDate(input.amzDate) === null) throw new Error(`invalid amzDate "${input.amzDate}"`);
  const service = input.service ?? 's3';
  const headers: Record<string, string> = {};
  for (const [k, v] of Object.entries(input.headers)) headers[k.toLowerCase()] = v;
  if (headers.host === undefined) throw new Error('the host header must be signed');
  const signed = Object.keys(headers).sort();
  const date = input.amzDate.slice(0, 8);
  const scope = credentialScope(date, input.region, service);
  const pairs: Array<readonly [string, string]> = [
    ...queryPairs(input.query),
    ['X-Amz-Algorithm', ALGORITHM],
    ['X-Amz-Credential', `${input.credentials.accessKeyId}/${scope}`],
    ['X-Amz-Date', input.amzDate],
    ['X-Amz-Expires', String(input.expiresIn)],
    ['X-Amz-SignedHeaders', signed.join(';')],
  ];
  const canonical = canonicalRequest({
    method: input.method, canonicalUri: canonicalUri(input.path), query: pairs, headers, signedHeaders: signed,
    payloadHash: UNSIGNED_PAYLOAD,
  });
  const signature = signatureOf(
    deriveSigningKey(input.credentials.secretAccessKey, date, input.region, service),
    stringToSign(input.amzDate, scope, canonical),
  );
  return canonicalQueryString(pairs) + '&X-Amz-Signature=' + signature;
}

/** String to sign of one aws-chunked chunk (STREAMING-AWS4-HMAC-SHA256-PAYLOAD). */
export function chunkStringToSign(amzDate: string, scope: string, previousSignature: string, chunkSha256: string): string {
  return ['AWS4-HMAC-SHA256-PAYLOAD', amzDate, scope, previousSignature, EMPTY_SHA256, chunkSha256].join('\n');
}

/** String to sign of the trailing headers of a STREAMING-AWS4-HMAC-SHA256-PAYLOAD-TRAILER body. */
export function trailerStringToSign(amzDate: string, scope: string, previousSignature: string, trailerSha256: string): string {
  return ['AWS4-HMAC-SHA256-TRAILER', amzDate, scope, previousSignature, trailerSha256].join('\n');
}

/** Constant-time comparison of two hex signatures. */
export function signaturesEqual(a: string, b: string): boolean {
  const ba = Buffer.from(a, 'utf8');
  const bb = Buffer.from(b, 'utf8');
  return ba.length === bb.length && timingSafeEqual(ba, bb);
}

// ---------------------------------------------------------------------------------------------
// Verification (server side)

export interface IncomingSignedRequest {
  method: string;
  /** Path exactly as received, without the query string. */
  rawPath: string;
  /** Query exactly as received, without the leading `?`. */
  rawQuery: string;
  headers: HeaderInput;
}

export interface VerifyOptions {
  region: string;
  service?: string;
  lookupSecret: (accessKeyId: string) => string | undefined;
  /** Epoch ms; injectable for tests. */
  now?: number;
  maxSkewMs?: number;
}

export type SigV4ErrorCode =
  | 'AccessDenied'
  | 'AuthorizationHeaderMalformed'
  | 'AuthorizationQueryParametersError'
  | 'InvalidAccessKeyId'
  | 'InvalidArgument'
  | 'InvalidRequest'
  | 'InvalidURI'
  | 'RequestTimeTooSkewed'
  | 'SignatureDoesNotMatch';

export interface VerifiedRequest {
  ok: true;
  accessKeyId: string;
  presigned: boolean;
  /** What the client declared for the body: hex SHA-256, UNSIGNED-PAYLOAD or a STREAMING-* marker. */
  payloadHash: string;
  /** Seed for aws-chunked chunk signatures. */
  signature: string;
  signingKey: Buffer;
  scope: string;
  amzDate: string;
}

export interface VerifyFailure {
  ok: false;
  code: SigV4ErrorCode;
  message: string;
}

const fail = (code: SigV4ErrorCode, message: string): VerifyFailure => ({ ok: false, code, message });

const PAYLOAD_MARKERS = new Set([UNSIGNED_PAYLOAD, STREAMING_SIGNED, STREAMING_SIGNED_TRAILER, STREAMING_UNSIGNED_TRAILER]);

export function isValidPayloadHash(value: string): boolean {
  return PAYLOAD_MARKERS.has(value) || /^[0-9a-f]{64}$/.test(value);
}

interface ParsedCredential { accessKeyId: string; date: string; region: string; service: string }

function parseCredential(value: string): ParsedCredential | null {
  const parts = value.split('/');
  if (parts.length !== 5 || parts[4] !== 'aws4_request' || !/^\d{8}$/.test(parts[1]!) || parts[0] === '') return null;
  return { accessKeyId: parts[0]!, date: parts[1]!, region: parts[2]!, service: parts[3]! };
}

export interface ParsedAuthorization { credential: string; signedHeaders: string[]; signature: string }

/** Parses `AWS4-HMAC-SHA256 Credential=…, SignedHeaders=…, Signature=…`; null when malformed. */
export function parseAuthorization(header: string): ParsedAuthorization | null {
  if (!header.startsWith(ALGORITHM + ' ')) return null;
  const fields = new Map<string, string>();
  for (const part of header.slice(ALGORITHM.length + 1).split(',')) {
    const eq = part.indexOf('=');
    if (eq < 0) return null;
    fields.set(part.slice(0, eq).trim(), part.slice(eq + 1).trim());
  }
  const credential = fields.get('Credential');
  const signedHeaders = fields.get('SignedHeaders');
  const signature = fields.get('Signature');
  if (!credential || !signedHeaders || !signature || !/^[0-9a-f]{64}$/.test(signature)) return null;
  return { credential, signedHeaders: signedHeaders.split(';'), signature };
}

function checkScope(cred: ParsedCredential, amzDate: string, opts: VerifyOptions, code: SigV4ErrorCode): VerifyFailure | null {
  if (cred.date !== amzDate.slice(0, 8)) return fail(code, 'Invalid credential date. Date is not the same as X-Amz-Date.');
  if (cred.region !== opts.region) return fail(code, `The authorization region '${cred.region}' is wrong; expecting '${opts.region}'`);
  if (cred.service !== (opts.service ?? 's3')) return fail(code, `The authorization service '${cred.service}' is wrong`);
  return null;
}

function validSignedHeaders(names: string[]): boolean {
  const sorted = [...names].sort();
  return names.includes('host') && names.every((n, i) => n === n.toLowerCase() && n !== '' && n === sorted[i]);
}

/** Authenticates a request signed either in the Authorization header or in a presigned query. */
export function verifyRequest(req: IncomingSignedRequest, opts: VerifyOptions): VerifiedRequest | VerifyFailure {
  const now = opts.now ?? Date.now();
  const maxSkew = opts.maxSkewMs ?? MAX_CLOCK_SKEW_MS;
  let query: Array<[string, string]>;
  let uri: string;
  try {
    query = parseRawQuery(req.rawQuery);
    uri = canonicalUriFromRawPath(req.rawPath);
  } catch {
    return fail('InvalidURI', "Couldn't parse the specified URI.");
  }
  const q = (name: string) => query.find(([k]) => k === name)?.[1];

  if (q('X-Amz-Algorithm') !== undefined || q('X-Amz-Signature') !== undefined || q('X-Amz-Credential') !== undefined) {
    const bad = (m: string) => fail('AuthorizationQueryParametersError', m);
    if (q('X-Amz-Algorithm') !== ALGORITHM) return bad('X-Amz-Algorithm only supports "AWS4-HMAC-SHA256"');
    const credRaw = q('X-Amz-Credential');
    const amzDate = q('X-Amz-Date');
    const expiresRaw = q('X-Amz-Expires');
    const signedRaw = q('X-Amz-SignedHeaders');
    const signature = q('X-Amz-Signature');
    if (!credRaw || !amzDate || !expiresRaw || !signedRaw || !signature) {
      return bad('Query-string authentication version 4 requires the X-Amz-Algorithm, X-Amz-Credential, X-Amz-Signature, X-Amz-Date, X-Amz-SignedHeaders, and X-Amz-Expires parameters.');
    }
    const cred = parseCredential(credRaw);
    if (!cred) return bad('Error parsing the X-Amz-Credential parameter');
    const dateMs = parseAmzDate(amzDate);
    if (dateMs === null) return bad('X-Amz-Date must be in the ISO8601 Long Format "yyyyMMdd\'T\'HHmmss\'Z\'"');
    if (!/^\d+$/.test(expiresRaw)) return bad('X-Amz-Expires should be a number');
    const expires = Number(expiresRaw);
    if (expires < 1) return bad('X-Amz-Expires must be non-negative');
    if (expires > MAX_PRESIGN_EXPIRES_S) return bad('X-Amz-Expires must be less than a week (in seconds) that is 604800');
    const scopeError = checkScope(cred, amzDate, opts, 'AuthorizationQueryParametersError');
    if (scopeError) return scopeError;
    const signedHeaders = signedRaw.split(';');
    if (!validSignedHeaders(signedHeaders)) return bad('X-Amz-SignedHeaders must be sorted, lower-case and include host');
    const secret = opts.lookupSecret(cred.accessKeyId);
    if (secret === undefined) return fail('InvalidAccessKeyId', 'The AWS Access Key Id you provided does not exist in our records.');
    if (now + maxSkew < dateMs) return fail('AccessDenied', 'Request is not valid yet');
    if (now > dateMs + expires * 1000) return fail('AccessDenied', 'Request has expired');
    const headerHash = headerValue(req.headers, 'x-amz-content-sha256');
    const payloadHash = q('X-Amz-Content-Sha256') ?? headerHash ?? UNSIGNED_PAYLOAD;
    if (!isValidPayloadHash(payloadHash)) return fail('InvalidArgument', 'x-amz-content-sha256 must be UNSIGNED-PAYLOAD, STREAMING-* or a valid sha256 value.');
    return finish(req, opts, {
      uri, query: query.filter(([k]) => k !== 'X-Amz-Signature'), signedHeaders, cred, amzDate, signature,
      canonicalPayload: q('X-Amz-Content-Sha256') ?? UNSIGNED_PAYLOAD, payloadHash, secret, presigned: true,
    });
  }

  const authorization = headerValue(req.headers, 'authorization');
  if (authorization === undefined) return fail('AccessDenied', 'Access Denied');
  if (!authorization.startsWith(ALGORITHM + ' ')) {
    return fail('InvalidRequest', 'The authorization mechanism you have provided is not supported. Please use AWS4-HMAC-SHA256.');
  }
  const parsed = parseAuthorization(authorization);
  if (!parsed) return fail('AuthorizationHeaderMalformed', 'The authorization header is malformed.');
  const cred = parseCredential(parsed.credential);
  if (!cred) return fail('AuthorizationHeaderMalformed', 'The authorization header is malformed; the Credential is mal-formed.');
  if (!validSignedHeaders(parsed.signedHeaders)) {
    return fail('AuthorizationHeaderMalformed', 'The authorization header is malformed; SignedHeaders must be sorted, lower-case and include host.');
  }
  let amzDate = headerValue(req.headers, 'x-amz-date');
  if (amzDate === undefined) {
    const date = headerValue(req.headers, 'date');
    const ms = date === undefined ? NaN : Date.parse(date);
    if (!Number.isNaN(ms)) amzDate = formatAmzDate(new Date(ms));
  }
  const dateMs = amzDate === undefined ? null : parseAmzDate(amzDate);
  if (amzDate === undefined || dateMs === null) return fail('AccessDenied', 'AWS authentication requires a valid Date or x-amz-date header');
  const scopeError = checkScope(cred, amzDate, opts, 'AuthorizationHeaderMalformed');
  if (scopeError) return scopeError;
  const payloadHash = headerValue(req.headers, 'x-amz-content-sha256');
  if (payloadHash === undefined) return fail('InvalidRequest', 'Missing required header for this request: x-amz-content-sha256');
  if (!isValidPayloadHash(payloadHash)) return fail('InvalidArgument', 'x-amz-content-sha256 must be UNSIGNED-PAYLOAD, STREAMING-* or a valid sha256 value.');
  const secret = opts.lookupSecret(cred.accessKeyId);
  if (secret === undefined) return fail('InvalidAccessKeyId', 'The AWS Access Key Id you provided does not exist in our records.');
  if (Math.abs(now - dateMs) > maxSkew) {
    return fail('RequestTimeTooSkewed', 'The difference between the request time and the current time is too large.');
  }
  return finish(req, opts, {
    uri, query, signedHeaders: parsed.signedHeaders, cred, amzDate, signature: parsed.signature,
    canonicalPayload: payloadHash, payloadHash, secret, presigned: false,
  });
}

interface FinishInput {
  uri: string;
  query: Array<[string, string]>;
  signedHeaders: string[];
  cred: ParsedCredential;
  amzDate: string;
  signature: string;
  canonicalPayload: string;
  payloadHash: string;
  secret: string;
  presigned: boolean;
}

function finish(req: IncomingSignedRequest, opts: VerifyOptions, f: FinishInput): VerifiedRequest | VerifyFailure {
  let canonical: string;
  try {
    canonical = canonicalRequest({
      method: req.method, canonicalUri: f.uri, query: f.query, headers: req.headers, signedHeaders: f.signedHeaders,
      payloadHash: f.canonicalPayload,
    });
  } catch {
    return fail('SignatureDoesNotMatch', 'A header listed in SignedHeaders is missing from the request.');
  }
  const service = opts.service ?? 's3';
  const scope = credentialScope(f.cred.date, f.cred.region, service);
  const signingKey = deriveSigningKey(f.secret, f.cred.date, f.cred.region, service);
  const expected = signatureOf(signingKey, stringToSign(f.amzDate, scope, canonical));
  if (!signaturesEqual(expected, f.signature)) {
    return fail('SignatureDoesNotMatch', 'The request signature we calculated does not match the signature you provided. Check your key and signing method.');
  }
  return {
    ok: true, accessKeyId: f.cred.accessKeyId, presigned: f.presigned, payloadHash: f.payloadHash, signature: f.signature,
    signingKey, scope, amzDate: f.amzDate,
  };
}
