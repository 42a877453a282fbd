import { describe, expect, it } from 'vitest';
import { FakeClock } from '../test/fake-clock.ts';
import { FakeControlPlane } from '../test/fake-control-plane.ts';
import { FakeS3 } from '../test/fake-s3.ts';
import type { ControlPlane, Transport, TransportRequest, TransportResponse } from '../ports/index.ts';
import { completeXml, encodeKey, parseListParts, resourceUri, StorageClient, xmlValue } from './s3.ts';

describe('S3 XML', () => {
  it('parses ListParts with entity-encoded ETags and the paging fields', () => {
    const xml = `<ListPartsResult><IsTruncated>true</IsTruncated><NextPartNumberMarker>2</NextPartNumberMarker>
      <Part><PartNumber>1</PartNumber><LastModified>x</LastModified><ETag>&quot;aa&quot;</ETag><Size>5</Size></Part>
      <Part><PartNumber>2</PartNumber><ETag>"bb"</ETag><Size>7</Size></Part></ListPartsResult>`;
    expect(parseListParts(xml)).toEqual({ parts: [{ partNumber: 1, etag: '"aa"', size: 5 }, { partNumber: 2, etag: '"bb"', size: 7 }], isTruncated: true, nextMarker: 2 });
  });
  it('builds CompleteMultipartUpload sorted by part number, escaping ETags', () => {
    expect(completeXml([{ partNumber: 2, etag: '"b&"' }, { partNumber: 1, etag: '"a"' }])).toBe(
      '<CompleteMultipartUpload><Part><PartNumber>1</PartNumber><ETag>"a"</ETag></Part><Part><PartNumber>2</PartNumber><ETag>"b&amp;"</ETag></Part></CompleteMultipartUpload>',
    );
  });
  it('encodes keys per RFC 3986, keeping slashes', () => {
    expect(encodeKey("a b/c+d/(x)!*'")).toBe('a%20b/c%2Bd/%28x%29%21%2A%27');
    expect(resourceUri('bkt', 'k/1', 'uploads')).toBe('/bkt/k/1?uploads');
    expect(xmlValue('<Error><Code>NoSuchUpload</Code></Error>', 'Code')).toBe('NoSuchUpload');
  });
});

describe('StorageClient.listParts', () => {
  it('follows NextPartNumberMarker across 1000-part pages', async () => {
    const s3 = new FakeS3();
    const cp = new FakeControlPlane(s3);
    const up = await cp.getFileUploadable({ fSize: 100 * 1024 * 1024 * 1024, fName: 'big', fMd5: 'a'.repeat(64) });
    if (up.uploadflag !== 3) throw new Error('expected flag 3');
    const client = new StorageClient({ controlPlane: cp, transport: s3, clock: new FakeClock(), timeoutMs: 1000 });
    const uploadId = await client.initMultipart(up.bucketName, up.objectKey, up.fId);
    const parts = s3.uploads.get(uploadId)!.parts;
    for (let n = 1; n <= 2345; n++) if (n !== 1500) parts.set(n, { data: new Uint8Array(1), etag: `"e${n}"` });
    const listed = await client.listParts(up.bucketName, up.objectKey, up.fId, uploadId);
    expect(listed).toHaveLength(2344);
    expect(listed.map((p) => p.partNumber)).not.toContain(1500);
    expect(listed[2343]).toEqual({ partNumber: 2345, etag: '"e2345"', size: 1 });
    const pages = s3.requests.filter((r) => r.method === 'GET');
    expect(pages.map((r) => r.query.get('part-number-marker'))).toEqual([null, '1000', '2001']);
  });

  it('refuses to sign for an object outside the caller session ([201])', async () => {
    const s3 = new FakeS3();
    const cp = new FakeControlPlane(s3);
    const client = new StorageClient({ controlPlane: cp, transport: s3, clock: new FakeClock(), timeoutMs: 1000 });
    await expect(client.putObject('drive', 'other', 'nope', new Uint8Array(1))).rejects.toMatchObject({ code: '201' });
    expect(s3.requests).toHaveLength(0);
  });
});

describe('StorageClient.send', () => {
  it('sends the headers the signature covers beyond the auth ones (SSE asked for by the library policy)', async () => {
    const sent: TransportRequest[] = [];
    const transport: Transport = {
      async request(req) {
        sent.push(req);
        return { status: 200, header: () => null, text: async () => '' } as unknown as TransportResponse;
      },
    };
    const sse = { 'x-amz-server-side-encryption': 'aws:kms', 'x-amz-server-side-encryption-aws-kms-key-id': 'key-1' };
    const controlPlane = {
      async signStorageRequest() {
        return { host: 's3', url: 'http://s3/b/k', authorization: 'AWS4 sig', date: '20260101T000000Z', bucketName: 'b', contentSha256: 'UNSIGNED-PAYLOAD', headers: sse };
      },
    } as unknown as ControlPlane;
    const client = new StorageClient({ controlPlane, transport, clock: new FakeClock(), timeoutMs: 1000 });
    await client.putObject('b', 'k', 'f1', new Uint8Array(1));
    expect(sent).toHaveLength(1);
    expect(sent[0]!.headers).toMatchObject({ ...sse, Authorization: 'AWS4 sig', 'x-amz-date': '20260101T000000Z' });
  });
});
