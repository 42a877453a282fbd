import { createHash } from 'node:crypto';
import { Readable } from 'node:stream';
import { crc32 } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import {
  STREAMING_SIGNED, STREAMING_SIGNED_TRAILER, STREAMING_UNSIGNED_TRAILER, UNSIGNED_PAYLOAD, credentialScope, deriveSigningKey, type VerifiedRequest,
} from '../sigv4.ts';
import { receiveBody } from './body.ts';
import { createChecksum } from './checksums.ts';

// The streaming example of https://docs.aws.amazon.com/AmazonS3/latest/API/sigv4-streaming.html:
// 66560 bytes of 'a' in chunks of 65536 and 1024, then the final empty chunk.
const seed = '4f232c4386841ef735655705268965c44a0e4690baa4adea153f7db9fa80a0a9';
const chunkSignatures = [
  'ad80c730a21e5b8d04586a2213dd63b9a0e99e0e2307b0ade35a65485a288648',
  '0055627c9e194cb4542bae2aa5492e3c1575bbb81b612b7d234b86a503ef5497',
  'b6c6ea8a5354eaf15b3cb7646744f4275b71ea724fed81ceb9323e279d449df9',
];
const signedAuth: VerifiedRequest = {
  ok: true, accessKeyId: 'AKIAIOSFODNN7EXAMPLE', presigned: false, payloadHash: STREAMING_SIGNED, signature: seed,
  signingKey: deriveSigningKey('wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY', '20130524', 'us-east-1'),
  scope: credentialScope('20130524', 'us-east-1'), amzDate: '20130524T000000Z',
};

function documentedBody(tamper?: (chunks: Buffer[]) => void): Buffer {
  const parts = [
    Buffer.from(`10000;chunk-signature=${chunkSignatures[0]}\r\n`), Buffer.alloc(65536, 'a'), Buffer.from('\r\n'),
    Buffer.from(`400;chunk-signature=${chunkSignatures[1]}\r\n`), Buffer.alloc(1024, 'a'), Buffer.from('\r\n'),
    Buffer.from(`0;chunk-signature=${chunkSignatures[2]}\r\n\r\n`),
  ];
  tamper?.(parts);
  return Buffer.concat(parts);
}

/** Feeds `body` in pieces of `size` bytes, so framing lands on every possible boundary. */
function pieces(body: Buffer, size: number): Readable {
  const out: Buffer[] = [];
  for (let i = 0; i < body.length; i += size) out.push(body.subarray(i, i + size));
  return Readable.from(out);
}

async function receive(body: Readable, headers: Record<string, string>, auth: VerifiedRequest, maxSize = 1 << 20) {
  const received: Buffer[] = [];
  const result = await receiveBody(body, (c) => { received.push(Buffer.from(c)); }, { headers, auth, maxSize });
  return { ...result, data: Buffer.concat(received) };
}

const md5 = (b: Buffer) => createHash('md5').update(b).digest('hex');

describe('aws-chunked with chunk signatures', () => {
  const headers = { 'content-encoding': 'aws-chunked', 'x-amz-decoded-content-length': '66560', 'content-length': '66824' };

  it('decodes the documented example whatever the read boundaries', async () => {
    expect(documentedBody().length).toBe(66824);
    for (const size of [1, 7, 86, 65536, 1 << 20]) {
      const got = await receive(pieces(documentedBody(), size), headers, signedAuth);
      expect(got.size).toBe(66560);
      expect(got.data.equals(Buffer.alloc(66560, 'a'))).toBe(true);
      expect(got.md5.toString('hex')).toBe(md5(Buffer.alloc(66560, 'a')));
    }
  });

  it('rejects altered data, an altered signature and a missing final chunk', async () => {
    const flipped = documentedBody((p) => { p[4] = Buffer.alloc(1024, 'b'); });
    await expect(receive(pieces(flipped, 4096), headers, signedAuth)).rejects.toMatchObject({ code: 'SignatureDoesNotMatch' });
    const forged = documentedBody((p) => { p[0] = Buffer.from(`10000;chunk-signature=${'0'.repeat(64)}\r\n`); });
    await expect(receive(pieces(forged, 4096), headers, signedAuth)).rejects.toMatchObject({ code: 'SignatureDoesNotMatch' });
    const truncated = documentedBody((p) => { p.pop(); });
    await expect(receive(pieces(truncated, 4096), headers, signedAuth)).rejects.toMatchObject({ code: 'IncompleteBody' });
  });

  it('refuses a decoded length above the limit before reading anything', async () => {
    let read = false;
    const body = new Readable({ read() { read = true; this.push(null); } });
    await expect(receive(body, headers, signedAuth, 1000)).rejects.toMatchObject({ code: 'EntityTooLarge', status: 400 });
    expect(read).toBe(false);
  });
});

describe('aws-chunked with chunk signatures and a signed trailer', () => {
  // https://docs.aws.amazon.com/AmazonS3/latest/API/sigv4-streaming-trailers.html
  const auth: VerifiedRequest = { ...signedAuth, payloadHash: STREAMING_SIGNED_TRAILER, signature: '106e2a8a18243abcf37539882f36619c00e2dfc72633413f02d3b74544bfeb8e' };
  const headers = { 'content-encoding': 'aws-chunked', 'x-amz-decoded-content-length': '66560', 'x-amz-trailer': 'x-amz-checksum-crc32c' };
  const body = (trailer: string, trailerSignature = 'd81f82fc3505edab99d459891051a732e8730629a2e4a59689829ca17fe2e435') => Buffer.concat([
    Buffer.from('10000;chunk-signature=b474d8862b1487a5145d686f57f013e54db672cee1c953b3010fb58501ef5aa2\r\n'), Buffer.alloc(65536, 'a'),
    Buffer.from('\r\n400;chunk-signature=1c1344b170168f8e65b41376b44b20fe354e373826ccbbe2c1d40a8cae51e5c7\r\n'), Buffer.alloc(1024, 'a'),
    Buffer.from(`\r\n0;chunk-signature=2ca2aba2005185cf7159c6277faf83795951dd77a3a99e6e65d5c9f85863f992\r\n${trailer}\r\nx-amz-trailer-signature:${trailerSignature}\r\n\r\n`),
  ]);

  it('decodes the documented example and checks its CRC32C trailer', async () => {
    const got = await receive(pieces(body('x-amz-checksum-crc32c:sOO8/Q=='), 1000), headers, auth);
    expect(got.size).toBe(66560);
  });

  it('rejects a changed trailer or trailer signature', async () => {
    await expect(receive(pieces(body('x-amz-checksum-crc32c:AAAAAA=='), 1000), headers, auth)).rejects.toMatchObject({ code: 'SignatureDoesNotMatch' });
    await expect(receive(pieces(body('x-amz-checksum-crc32c:sOO8/Q==', '0'.repeat(64)), 1000), headers, auth)).rejects.toMatchObject({ code: 'SignatureDoesNotMatch' });
  });
});

describe('aws-chunked with an unsigned trailer', () => {
  const data = Buffer.from('hello, trailer world');
  const crc = (b: Buffer) => { const out = Buffer.alloc(4); out.writeUInt32BE(crc32(b)); return out.toString('base64'); };
  const auth = { ...signedAuth, payloadHash: STREAMING_UNSIGNED_TRAILER };
  const headers = { 'content-encoding': 'aws-chunked', 'x-amz-decoded-content-length': String(data.length), 'x-amz-trailer': 'x-amz-checksum-crc32' };
  const framed = (checksum: string) => Buffer.concat([
    Buffer.from(`${data.length.toString(16)}\r\n`), data, Buffer.from(`\r\n0\r\nx-amz-checksum-crc32:${checksum}\r\n\r\n`),
  ]);

  it('checks the trailing checksum', async () => {
    const got = await receive(pieces(framed(crc(data)), 5), headers, auth);
    expect(got.data.toString()).toBe('hello, trailer world');
    await expect(receive(pieces(framed(crc(Buffer.from('other'))), 5), headers, auth)).rejects.toMatchObject({ code: 'BadDigest' });
  });

  it('computes crc32c like the published check value', () => {
    const c = createChecksum('crc32c');
    c.update(Buffer.from('123456789'));
    expect(Buffer.from(c.digestBase64(), 'base64').toString('hex')).toBe('e3069283');
  });
});

describe('plain bodies', () => {
  const data = Buffer.from('plain body');
  const auth = (payloadHash: string): VerifiedRequest => ({ ...signedAuth, payloadHash });

  it('verifies x-amz-content-sha256 and Content-MD5', async () => {
    const sha = createHash('sha256').update(data).digest('hex');
    const headers = { 'content-length': String(data.length) };
    expect((await receive(pieces(data, 3), headers, auth(sha))).size).toBe(data.length);
    await expect(receive(pieces(data, 3), headers, auth(createHash('sha256').update('x').digest('hex'))))
      .rejects.toMatchObject({ code: 'XAmzContentSHA256Mismatch' });
    const goodMd5 = createHash('md5').update(data).digest('base64');
    expect((await receive(pieces(data, 3), { ...headers, 'content-md5': goodMd5 }, auth(UNSIGNED_PAYLOAD))).size).toBe(10);
    await expect(receive(pieces(data, 3), { ...headers, 'content-md5': createHash('md5').update('x').digest('base64') }, auth(UNSIGNED_PAYLOAD)))
      .rejects.toMatchObject({ code: 'BadDigest' });
    await expect(receive(pieces(data, 3), { ...headers, 'content-md5': 'not-md5' }, auth(UNSIGNED_PAYLOAD)))
      .rejects.toMatchObject({ code: 'InvalidDigest' });
  });

  it('needs a length and the whole body', async () => {
    await expect(receive(pieces(data, 3), {}, auth(UNSIGNED_PAYLOAD))).rejects.toMatchObject({ code: 'MissingContentLength', status: 411 });
    await expect(receive(pieces(data, 3), { 'content-length': '11' }, auth(UNSIGNED_PAYLOAD))).rejects.toMatchObject({ code: 'IncompleteBody' });
  });
});
