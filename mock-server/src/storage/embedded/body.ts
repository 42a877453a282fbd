// Request bodies: streamed from the socket to a sink while checking length, the declared payload
// hash, Content-MD5 and x-amz-checksum-* values, decoding aws-chunked framing when the client
// used it. Nothing here holds a whole object in memory.
import { createHash, type Hash } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { rm } from 'node:fs/promises';
import type { IncomingHttpHeaders } from 'node:http';
import type { Readable } from 'node:stream';
import { once } from 'node:events';
import {
  STREAMING_SIGNED, STREAMING_SIGNED_TRAILER, STREAMING_UNSIGNED_TRAILER, chunkStringToSign, sha256Hex,
  signatureOf, signaturesEqual, trailerStringToSign, type VerifiedRequest,
} from '../sigv4.ts';
import { createChecksum, isVerifiable, type Checksum } from './checksums.ts';
import { S3Error } from './errors.ts';

const MAX_CHUNK_HEADER = 4096;
const MAX_TRAILERS = 16;
const EMPTY = Buffer.alloc(0);

export interface ChunkSigning {
  signingKey: Buffer;
  scope: string;
  amzDate: string;
  seedSignature: string;
}

/** Decodes aws-chunked framing, verifying chunk signatures when `signing` is given. */
export class AwsChunkedDecoder {
  readonly trailers = new Map<string, string>();
  private state: 'size' | 'data' | 'data-crlf' | 'trailer' | 'done' = 'size';
  private pending = EMPTY;
  private remaining = 0;
  private chunkHash: Hash | undefined;
  private chunkSignature = '';
  private previousSignature: string;
  private trailerSignature: string | undefined;
  private trailerCanonical = '';
  private readonly signing: ChunkSigning | undefined;
  private readonly expectTrailer: boolean;

  constructor(signing: ChunkSigning | undefined, expectTrailer: boolean) {
    this.signing = signing;
    this.expectTrailer = expectTrailer;
    this.previousSignature = signing?.seedSignature ?? '';
  }

  /** Returns the payload bytes contained in `input` (slices, not copies). */
  decode(input: Buffer): Buffer[] {
    const out: Buffer[] = [];
    const data = this.pending.length > 0 ? Buffer.concat([this.pending, input]) : input;
    this.pending = EMPTY;
    let pos = 0;
    while (pos < data.length) {
      if (this.state === 'data') {
        const take = Math.min(this.remaining, data.length - pos);
        const slice = data.subarray(pos, pos + take);
        this.chunkHash?.update(slice);
        out.push(slice);
        this.remaining -= take;
        pos += take;
        if (this.remaining === 0) this.state = 'data-crlf';
        continue;
      }
      if (this.state === 'done') throw malformed('data after the final chunk');
      if (this.state === 'data-crlf') {
        if (data.length - pos < 2) break;
        if (data[pos] !== 0x0d || data[pos + 1] !== 0x0a) throw malformed('chunk not followed by CRLF');
        pos += 2;
        this.verifyChunk();
        this.state = 'size';
        continue;
      }
      const eol = data.indexOf('\r\n', pos, 'latin1');
      if (eol < 0) {
        if (data.length - pos > MAX_CHUNK_HEADER) throw malformed('chunk header too long');
        break;
      }
      const line = data.toString('utf8', pos, eol);
      pos = eol + 2;
      if (this.state === 'size') this.startChunk(line);
      else this.trailerLine(line);
    }
    if (pos < data.length) this.pending = Buffer.from(data.subarray(pos));
    return out;
  }

  /** Throws unless the framing ended cleanly. */
  end(): void {
    if (this.state !== 'done' || this.pending.length > 0) throw new S3Error('IncompleteBody');
    if (this.signing && this.expectTrailer) {
      if (this.trailerSignature === undefined) throw malformed('missing x-amz-trailer-signature');
      const s = this.signing;
      const expected = signatureOf(s.signingKey, trailerStringToSign(s.amzDate, s.scope, this.previousSignature, sha256Hex(this.trailerCanonical)));
      if (!signaturesEqual(expected, this.trailerSignature)) throw new S3Error('SignatureDoesNotMatch', 'The trailer signature does not match.');
    }
  }

  private startChunk(line: string): void {
    const semi = line.indexOf(';');
    const sizeHex = (semi < 0 ? line : line.slice(0, semi)).trim();
    if (!/^[0-9a-fA-F]{1,15}$/.test(sizeHex)) throw malformed('bad chunk size');
    this.remaining = parseInt(sizeHex, 16);
    if (this.signing) {
      const m = /;\s*chunk-signature=([0-9a-f]{64})\s*$/.exec(line);
      if (!m) throw malformed('missing chunk-signature');
      this.chunkSignature = m[1]!;
      this.chunkHash = createHash('sha256');
    }
    if (this.remaining > 0) {
      this.state = 'data';
      return;
    }
    this.verifyChunk();
    this.state = 'trailer';
  }

  private verifyChunk(): void {
    if (!this.signing || !this.chunkHash) return;
    const s = this.signing;
    const digest = this.chunkHash.digest('hex');
    const expected = signatureOf(s.signingKey, chunkStringToSign(s.amzDate, s.scope, this.previousSignature, digest));
    if (!signaturesEqual(expected, this.chunkSignature)) {
      throw new S3Error('SignatureDoesNotMatch', 'The chunk signature we calculated does not match the signature you provided.');
    }
    this.previousSignature = this.chunkSignature;
    this.chunkHash = undefined;
  }

  private trailerLine(line: string): void {
    if (line === '') {
      this.state = 'done';
      return;
    }
    if (!this.expectTrailer) throw malformed('unexpected trailer');
    const colon = line.indexOf(':');
    if (colon <= 0) throw malformed('bad trailer line');
    const name = line.slice(0, colon).trim().toLowerCase();
    const value = line.slice(colon + 1).trim();
    if (name === 'x-amz-trailer-signature') this.trailerSignature = value;
    else {
      if (this.trailers.size >= MAX_TRAILERS) throw malformed('too many trailers');
      this.trailers.set(name, value);
      this.trailerCanonical += `${name}:${value}\n`;
    }
  }
}

function malformed(why: string): S3Error {
  return new S3Error('InvalidRequest', `Malformed aws-chunked body: ${why}`);
}

function header(headers: IncomingHttpHeaders, name: string): string | undefined {
  const v = headers[name];
  return Array.isArray(v) ? v.join(',') : v;
}

function parseLength(value: string): number {
  if (!/^\d{1,16}$/.test(value)) throw new S3Error('InvalidArgument', 'Invalid content length');
  return Number(value);
}

export interface ReceiveOptions {
  headers: IncomingHttpHeaders;
  auth: VerifiedRequest;
  /** Largest acceptable decoded body; larger ones fail with EntityTooLarge before being read. */
  maxSize: number;
}

export interface ReceivedBody {
  size: number;
  /** Binary MD5 of the decoded body (the ETag). */
  md5: Buffer;
}

interface Expectation {
  header: string;
  checksum: Checksum;
  expected: () => string | undefined;
  code: string;
}

/** Reads the request body into `sink`, verifying everything the client declared about it. */
export async function receiveBody(source: Readable, sink: (chunk: Buffer) => Promise<void> | void, opts: ReceiveOptions): Promise<ReceivedBody> {
  const { headers, auth } = opts;
  const payload = auth.payloadHash;
  const streaming = payload === STREAMING_SIGNED || payload === STREAMING_SIGNED_TRAILER || payload === STREAMING_UNSIGNED_TRAILER;
  const lengthHeader = streaming ? header(headers, 'x-amz-decoded-content-length') : header(headers, 'content-length');
  if (lengthHeader === undefined) throw new S3Error('MissingContentLength');
  const declared = parseLength(lengthHeader);
  if (declared > opts.maxSize) {
    throw new S3Error('EntityTooLarge', undefined, { detail: { ProposedSize: String(declared), MaxSizeAllowed: String(opts.maxSize) } });
  }
  const decoder = streaming
    ? new AwsChunkedDecoder(
        payload === STREAMING_UNSIGNED_TRAILER ? undefined : { signingKey: auth.signingKey, scope: auth.scope, amzDate: auth.amzDate, seedSignature: auth.signature },
        payload !== STREAMING_SIGNED,
      )
    : undefined;

  const md5 = createHash('md5');
  const expectations: Expectation[] = [];
  if (/^[0-9a-f]{64}$/.test(payload)) {
    const sha = createHash('sha256');
    expectations.push({
      header: 'x-amz-content-sha256', code: 'XAmzContentSHA256Mismatch', expected: () => Buffer.from(payload, 'hex').toString('base64'),
      checksum: { update: (c) => sha.update(c), digestBase64: () => sha.digest('base64') },
    });
  }
  const contentMd5 = header(headers, 'content-md5');
  if (contentMd5 !== undefined && Buffer.from(contentMd5, 'base64').length !== 16) throw new S3Error('InvalidDigest', 'The Content-MD5 you specified was invalid.');
  const trailerNames = (header(headers, 'x-amz-trailer') ?? '').split(',').map((s) => s.trim().toLowerCase()).filter(Boolean);
  for (const [name, value] of Object.entries(headers)) {
    const algorithm = name.startsWith('x-amz-checksum-') ? name.slice('x-amz-checksum-'.length) : '';
    if (algorithm && isVerifiable(algorithm) && typeof value === 'string') {
      expectations.push({ header: name, code: 'BadDigest', expected: () => value, checksum: createChecksum(algorithm) });
    }
  }
  for (const name of trailerNames) {
    const algorithm = name.startsWith('x-amz-checksum-') ? name.slice('x-amz-checksum-'.length) : '';
    if (decoder && algorithm && isVerifiable(algorithm)) {
      expectations.push({ header: name, code: 'BadDigest', expected: () => decoder.trailers.get(name), checksum: createChecksum(algorithm) });
    }
  }

  let size = 0;
  const take = async (piece: Buffer) => {
    size += piece.length;
    if (size > declared) throw new S3Error('InvalidRequest', 'The body is longer than its declared length.');
    md5.update(piece);
    for (const e of expectations) e.checksum.update(piece);
    await sink(piece);
  };
  // destroyOnReturn: false keeps the socket usable so an early S3 error can still be answered.
  for await (const chunk of source.iterator({ destroyOnReturn: false }) as AsyncIterable<Buffer>) {
    if (decoder) {
      for (const piece of decoder.decode(chunk)) await take(piece);
    } else {
      await take(chunk);
    }
  }
  decoder?.end();
  if (size !== declared) throw new S3Error('IncompleteBody');
  const digest = md5.digest();
  if (contentMd5 !== undefined && digest.toString('base64') !== contentMd5) {
    throw new S3Error('BadDigest', 'The Content-MD5 you specified did not match what we received.');
  }
  for (const e of expectations) {
    const expected = e.expected();
    if (expected === undefined) throw new S3Error('InvalidRequest', `The trailer ${e.header} was announced but not sent.`);
    if (e.checksum.digestBase64() !== expected) {
      throw new S3Error(e.code, e.code === 'BadDigest' ? `The ${e.header} you specified did not match the calculated checksum.` : undefined);
    }
  }
  return { size, md5: digest };
}

/** Receives a body into a new file, removing the file on any failure. The file is fsynced on close. */
export async function receiveToFile(source: Readable, path: string, opts: ReceiveOptions): Promise<ReceivedBody> {
  const out = createWriteStream(path, { flags: 'wx', flush: true, highWaterMark: 4 << 20 });
  let outError: Error | undefined;
  out.on('error', (err) => { outError = err; });
  try {
    const result = await receiveBody(source, async (chunk) => {
      if (outError) throw outError;
      if (!out.write(chunk)) await drained(out);
    }, opts);
    out.end();
    if (!out.closed) await once(out, 'close');
    if (outError) throw outError;
    return result;
  } catch (err) {
    if (!out.closed) {
      const closed = once(out, 'close').catch(() => undefined);
      out.destroy();
      await closed;
    }
    await rm(path, { force: true });
    throw err;
  }
}

/** Reads a small body (an XML request document) into memory. */
export async function receiveSmall(source: Readable, opts: ReceiveOptions): Promise<Buffer> {
  const parts: Buffer[] = [];
  await receiveBody(source, (chunk) => { parts.push(Buffer.from(chunk)); }, opts);
  return Buffer.concat(parts);
}

function drained(out: NodeJS.WritableStream & { closed: boolean }): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      out.off('drain', done);
      out.off('close', done);
      resolve();
    };
    out.on('drain', done);
    out.on('close', done);
  });
}
