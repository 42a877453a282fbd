import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  EMPTY_SHA256, STREAMING_SIGNED, canonicalUriFromRawPath, chunkStringToSign, credentialScope, deriveSigningKey,
  formatAmzDate, parseAmzDate, presignQuery, signRequest, signatureOf, uriEncode, verifyRequest,
  type IncomingSignedRequest,
} from './sigv4.ts';

// The worked examples of https://docs.aws.amazon.com/AmazonS3/latest/API/sig-v4-header-based-auth.html,
// sigv4-query-string-auth.html and sigv4-streaming.html.
const credentials = { accessKeyId: 'AKIAIOSFODNN7EXAMPLE', secretAccessKey: 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY' };
const amzDate = '20130524T000000Z';
const region = 'us-east-1';
const host = 'examplebucket.s3.amazonaws.com';
const exampleNow = Date.UTC(2013, 4, 24);
const lookupSecret = (id: string) => (id === credentials.accessKeyId ? credentials.secretAccessKey : undefined);

describe('signing reproduces the AWS documented vectors', () => {
  it('GET object with Range', () => {
    const signed = signRequest({
      method: 'GET', path: '/test.txt', headers: { Host: host, Range: 'bytes=0-9' }, amzDate, payloadHash: EMPTY_SHA256,
      region, credentials,
    });
    expect(signed.canonicalRequest).toBe([
      'GET', '/test.txt', '',
      `host:${host}`, 'range:bytes=0-9', `x-amz-content-sha256:${EMPTY_SHA256}`, `x-amz-date:${amzDate}`, '',
      'host;range;x-amz-content-sha256;x-amz-date', EMPTY_SHA256,
    ].join('\n'));
    expect(signed.stringToSign.split('\n')[3]).toBe('7344ae5b7ee6c3e7e6b0fe0640412a37625d1fbfff95c48bbb2dc43964946972');
    expect(signed.signature).toBe('f0e8bdb87c964420e857bd35b5d6ed310bd44f0170aba48dd91039c6036bdb41');
    expect(signed.authorization).toBe(
      'AWS4-HMAC-SHA256 Credential=AKIAIOSFODNN7EXAMPLE/20130524/us-east-1/s3/aws4_request, ' +
        'SignedHeaders=host;range;x-amz-content-sha256;x-amz-date, ' +
        'Signature=f0e8bdb87c964420e857bd35b5d6ed310bd44f0170aba48dd91039c6036bdb41',
    );
  });

  it('PUT object whose key needs encoding', () => {
    const body = 'Welcome to Amazon S3.';
    const signed = signRequest({
      method: 'PUT', path: '/test$file.text',
      headers: { host, date: 'Fri, 24 May 2013 00:00:00 GMT', 'x-amz-storage-class': 'REDUCED_REDUNDANCY' },
      amzDate, payloadHash: createHash('sha256').update(body).digest('hex'), region, credentials,
    });
    expect(signed.canonicalRequest.split('\n')[1]).toBe('/test%24file.text');
    expect(signed.signedHeaders).toBe('date;host;x-amz-content-sha256;x-amz-date;x-amz-storage-class');
    expect(signed.signature).toBe('98ad721746da40c64f1a55b78f14c238d841ea1380cd77a1b5971af0ece108bd');
  });

  it('GET bucket lifecycle (a query parameter without a value)', () => {
    const signed = signRequest({
      method: 'GET', path: '/', query: { lifecycle: '' }, headers: { host }, amzDate, payloadHash: EMPTY_SHA256, region, credentials,
    });
    expect(signed.signature).toBe('fea454ca298b7da1c68078a5d1bdbfbbe0d65c699e0f91ac7a200a0136783543');
  });

  it('GET bucket listing (query parameters sorted)', () => {
    const signed = signRequest({
      method: 'GET', path: '/', query: [['prefix', 'J'], ['max-keys', '2']], headers: { host }, amzDate,
      payloadHash: EMPTY_SHA256, region, credentials,
    });
    expect(signed.signature).toBe('34b48302e7b5fa45bde8084f4b7868a86f0a534bc59db6670ed5711ef69dc6f7');
  });

  it('presigned GET URL', () => {
    const query = presignQuery({ method: 'GET', path: '/test.txt', headers: { host }, amzDate, expiresIn: 86400, region, credentials });
    expect(query).toBe(
      'X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Credential=AKIAIOSFODNN7EXAMPLE%2F20130524%2Fus-east-1%2Fs3%2Faws4_request' +
        '&X-Amz-Date=20130524T000000Z&X-Amz-Expires=86400&X-Amz-SignedHeaders=host' +
        '&X-Amz-Signature=aeeed9bbccd4d02ee5c0109b86d86835f995330da4c265957d157751f604d404',
    );
  });

  it('aws-chunked seed and chunk signatures', () => {
    const seed = signRequest({
      method: 'PUT', path: '/examplebucket/chunkObject.txt',
      headers: {
        host: 's3.amazonaws.com', 'content-encoding': 'aws-chunked', 'content-length': '66824',
        'x-amz-decoded-content-length': '66560', 'x-amz-storage-class': 'REDUCED_REDUNDANCY',
      },
      amzDate, payloadHash: STREAMING_SIGNED, region, credentials,
    });
    expect(seed.signature).toBe('4f232c4386841ef735655705268965c44a0e4690baa4adea153f7db9fa80a0a9');
    const trailerSeed = signRequest({
      method: 'PUT', path: '/examplebucket/chunkObject.txt',
      headers: {
        host: 's3.amazonaws.com', 'content-encoding': 'aws-chunked', 'x-amz-decoded-content-length': '66560',
        'x-amz-storage-class': 'REDUCED_REDUNDANCY', 'x-amz-trailer': 'x-amz-checksum-crc32c',
      },
      amzDate, payloadHash: 'STREAMING-AWS4-HMAC-SHA256-PAYLOAD-TRAILER', region, credentials,
    });
    expect(trailerSeed.signature).toBe('106e2a8a18243abcf37539882f36619c00e2dfc72633413f02d3b74544bfeb8e');
    const key = deriveSigningKey(credentials.secretAccessKey, '20130524', region);
    const scope = credentialScope('20130524', region);
    const sha = (b: Buffer) => createHash('sha256').update(b).digest('hex');
    const c1 = signatureOf(key, chunkStringToSign(amzDate, scope, seed.signature, sha(Buffer.alloc(65536, 'a'))));
    const c2 = signatureOf(key, chunkStringToSign(amzDate, scope, c1, sha(Buffer.alloc(1024, 'a'))));
    const c3 = signatureOf(key, chunkStringToSign(amzDate, scope, c2, EMPTY_SHA256));
    expect([c1, c2, c3]).toEqual([
      'ad80c730a21e5b8d04586a2213dd63b9a0e99e0e2307b0ade35a65485a288648',
      '0055627c9e194cb4542bae2aa5492e3c1575bbb81b612b7d234b86a503ef5497',
      'b6c6ea8a5354eaf15b3cb7646744f4275b71ea724fed81ceb9323e279d449df9',
    ]);
  });
});

describe('encoding helpers', () => {
  it('encodes per S3 rules', () => {
    expect(uriEncode("a b/ü+!*'()~._-")).toBe('a%20b%2F%C3%BC%2B%21%2A%27%28%29~._-');
    expect(uriEncode('a/b', false)).toBe('a/b');
  });

  it('normalises a raw path without merging an encoded slash into a separator', () => {
    expect(canonicalUriFromRawPath("/s3/b/it's%20a%2fb!")).toBe('/s3/b/it%27s%20a%2Fb%21');
    expect(() => canonicalUriFromRawPath('/s3/b/%E0%A4%A')).toThrow(URIError);
  });

  it('round-trips amz dates and rejects impossible ones', () => {
    expect(formatAmzDate(new Date(exampleNow))).toBe(amzDate);
    expect(parseAmzDate(amzDate)).toBe(exampleNow);
    expect(parseAmzDate('20130230T000000Z')).toBeNull();
    expect(parseAmzDate('2013-05-24T00:00:00Z')).toBeNull();
  });
});

function documentedGet(overrides: Partial<Record<string, string>> = {}): IncomingSignedRequest {
  return {
    method: 'GET', rawPath: '/test.txt', rawQuery: '',
    headers: {
      host, range: 'bytes=0-9', 'x-amz-content-sha256': EMPTY_SHA256, 'x-amz-date': amzDate,
      authorization: 'AWS4-HMAC-SHA256 Credential=AKIAIOSFODNN7EXAMPLE/20130524/us-east-1/s3/aws4_request,SignedHeaders=host;range;x-amz-content-sha256;x-amz-date,Signature=f0e8bdb87c964420e857bd35b5d6ed310bd44f0170aba48dd91039c6036bdb41',
      ...overrides,
    },
  };
}

describe('verifyRequest', () => {
  const opts = { region, lookupSecret, now: exampleNow };

  it('accepts the documented GET and exposes what the body checks need', () => {
    const result = verifyRequest(documentedGet(), opts);
    expect(result).toMatchObject({ ok: true, accessKeyId: credentials.accessKeyId, presigned: false, payloadHash: EMPTY_SHA256 });
  });

  it('rejects a tampered signed header, a wrong secret and an unknown key', () => {
    expect(verifyRequest(documentedGet({ range: 'bytes=0-10' }), opts)).toMatchObject({ ok: false, code: 'SignatureDoesNotMatch' });
    expect(verifyRequest(documentedGet(), { ...opts, lookupSecret: () => 'not-the-secret' }))
      .toMatchObject({ ok: false, code: 'SignatureDoesNotMatch' });
    expect(verifyRequest(documentedGet(), { ...opts, lookupSecret: () => undefined })).toMatchObject({ ok: false, code: 'InvalidAccessKeyId' });
  });

  it('enforces the 15 minute clock skew in both directions', () => {
    const minute = 60_000;
    expect(verifyRequest(documentedGet(), { ...opts, now: exampleNow + 14 * minute }).ok).toBe(true);
    expect(verifyRequest(documentedGet(), { ...opts, now: exampleNow + 16 * minute })).toMatchObject({ code: 'RequestTimeTooSkewed' });
    expect(verifyRequest(documentedGet(), { ...opts, now: exampleNow - 16 * minute })).toMatchObject({ code: 'RequestTimeTooSkewed' });
  });

  it('requires a signature, a content hash and the configured region', () => {
    const anonymous = documentedGet();
    delete anonymous.headers.authorization;
    expect(verifyRequest(anonymous, opts)).toMatchObject({ code: 'AccessDenied' });
    const noHash = documentedGet();
    delete noHash.headers['x-amz-content-sha256'];
    expect(verifyRequest(noHash, opts)).toMatchObject({ code: 'InvalidRequest' });
    expect(verifyRequest(documentedGet(), { ...opts, region: 'eu-west-1' })).toMatchObject({ code: 'AuthorizationHeaderMalformed' });
  });

  it('accepts a key sent unencoded or encoded', () => {
    const put = (rawPath: string): IncomingSignedRequest => ({
      method: 'PUT', rawPath, rawQuery: '',
      headers: {
        host, date: 'Fri, 24 May 2013 00:00:00 GMT', 'x-amz-storage-class': 'REDUCED_REDUNDANCY', 'x-amz-date': amzDate,
        'x-amz-content-sha256': '44ce7dd67c959e0d3524ffac1771dfbba87d2b6b4b4e99e42034a8b803f8b072',
        authorization: 'AWS4-HMAC-SHA256 Credential=AKIAIOSFODNN7EXAMPLE/20130524/us-east-1/s3/aws4_request, SignedHeaders=date;host;x-amz-content-sha256;x-amz-date;x-amz-storage-class, Signature=98ad721746da40c64f1a55b78f14c238d841ea1380cd77a1b5971af0ece108bd',
      },
    });
    expect(verifyRequest(put('/test%24file.text'), opts).ok).toBe(true);
    expect(verifyRequest(put('/test$file.text'), opts).ok).toBe(true);
    expect(verifyRequest(put('/test%2524file.text'), opts)).toMatchObject({ code: 'SignatureDoesNotMatch' });
  });

  it('verifies presigned URLs and honours their expiry', () => {
    const query = presignQuery({ method: 'GET', path: '/test.txt', headers: { host }, amzDate, expiresIn: 86400, region, credentials });
    const req: IncomingSignedRequest = { method: 'GET', rawPath: '/test.txt', rawQuery: query, headers: { host } };
    expect(verifyRequest(req, opts)).toMatchObject({ ok: true, presigned: true, payloadHash: 'UNSIGNED-PAYLOAD' });
    expect(verifyRequest(req, { ...opts, now: exampleNow + 86400_000 }).ok).toBe(true);
    expect(verifyRequest(req, { ...opts, now: exampleNow + 86401_000 })).toMatchObject({ code: 'AccessDenied', message: 'Request has expired' });
    expect(verifyRequest(req, { ...opts, now: exampleNow - 3600_000 })).toMatchObject({ code: 'AccessDenied', message: 'Request is not valid yet' });
    expect(verifyRequest({ ...req, method: 'PUT' }, opts)).toMatchObject({ code: 'SignatureDoesNotMatch' });
    expect(verifyRequest({ ...req, rawQuery: query.replace('X-Amz-Expires=86400', 'X-Amz-Expires=86401') }, opts))
      .toMatchObject({ code: 'SignatureDoesNotMatch' });
    expect(verifyRequest({ ...req, rawQuery: query.replace('X-Amz-Expires=86400', 'X-Amz-Expires=604801') }, opts))
      .toMatchObject({ code: 'AuthorizationQueryParametersError' });
  });

  it('round-trips its own signatures for awkward keys and queries', () => {
    const now = Date.UTC(2026, 0, 2, 3, 4, 5);
    const path = "/s3/bucket/dir/ünï cødé 100%+(1)'!.txt";
    const query = { partNumber: '7', uploadId: 'a+b/c=d' };
    const signed = signRequest({
      method: 'PUT', path, query, headers: { host: '127.0.0.1:8080', 'content-type': 'text/plain' },
      amzDate: formatAmzDate(new Date(now)), region, credentials,
    });
    const rawPath = path.split('/').map((s) => encodeURIComponent(s)).join('/');
    const rawQuery = `uploadId=${encodeURIComponent(query.uploadId)}&partNumber=7`;
    const req: IncomingSignedRequest = { method: 'PUT', rawPath, rawQuery, headers: { ...signed.headers, authorization: signed.authorization } };
    expect(verifyRequest(req, { ...opts, now })).toMatchObject({ ok: true, payloadHash: 'UNSIGNED-PAYLOAD' });
    expect(verifyRequest({ ...req, rawQuery: 'uploadId=other&partNumber=7' }, { ...opts, now })).toMatchObject({ code: 'SignatureDoesNotMatch' });
  });
});
