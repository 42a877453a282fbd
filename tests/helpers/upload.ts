// Uploading a file the way a client does, for tests that need stored content of a given name and size: upload-ability,
// then the S3 requests the server signs (one PUT, or a multipart upload in the session's parts), then save-instance.
import { createHash } from 'node:crypto';
import { encodeName } from '@hcs/openapi/client';

/** A signed-in /hcs call: GET with `query`, or POST with a JSON `body`. Answers the envelope. */
export type ApiCall = (path: string, query?: Record<string, string | number>, body?: unknown) => Promise<{ ret: number; data: any }>;

const sha = (b: Buffer) => createHash('sha256').update(b).digest('hex');

function expectOk(what: string, ok: boolean, detail: unknown): void {
  if (!ok) throw new Error(`${what} failed: ${typeof detail === 'string' ? detail : JSON.stringify(detail)}`);
}

/** One S3 request signed by the server (header auth, as the transfer engine sends them). */
export async function signedStorageRequest(
  api: ApiCall,
  req: { action: string; verb: string; fId: string; key: string; bucket: string; query?: string; body?: Buffer; contentType?: string; range?: string },
): Promise<Response> {
  const resourceUri = `/${req.bucket}/${req.key.split('/').map(encodeURIComponent).join('/')}${req.query ? `?${req.query}` : ''}`;
  const s = await api('/hcs/controller/API/S3Cloud/StringToSign', {
    httpVerb: req.verb, bucketName: req.bucket, resourceUri, action: req.action, fId: req.fId, ...(req.contentType ? { contentType: req.contentType } : {}),
  });
  expectOk(`signing ${req.action}`, s.ret === 0, s);
  const headers: Record<string, string> = { authorization: s.data.authorization, 'x-amz-date': s.data.date, 'x-amz-content-sha256': s.data.contentSha256 };
  if (req.contentType) headers['content-type'] = req.contentType;
  if (req.range) headers.range = req.range;
  // A Buffer is a valid fetch body in Node; the DOM typing only lists web types.
  return fetch(s.data.url, { method: req.verb, headers, body: req.body as unknown as RequestInit['body'] });
}

/**
 * Uploads `bytes` as `name` (fresh content only); `contentType` is what a single PUT stores; `query` adds
 * file-uploadable parameters (parentId, conflict). Returns the instanceId.
 */
export async function uploadFile(
  api: ApiCall, name: string, bytes: Buffer, opts: { contentType?: string; query?: Record<string, string> } = {},
): Promise<string> {
  const u = (await api('/hcs/controller/API/file-uploadable', { fSize: bytes.length, fName: encodeName(name), fMd5: sha(bytes), ...opts.query })).data;
  expectOk('file-uploadable (fresh content)', u?.uploadflag === 3, u);
  const at = { fId: u.fId, key: u.objectKey, bucket: u.bucketName };
  if (u.partCount > 1) {
    const init = await signedStorageRequest(api, { ...at, action: 'initMultipart', verb: 'POST', query: 'uploads=' });
    const uploadId = /<UploadId>([^<]+)<\/UploadId>/.exec(await init.text())?.[1];
    expectOk('initMultipart', init.status === 200 && !!uploadId, init.status);
    const recorded = await api('/hcs/controller/API/initPartInfo', undefined, { fId: u.fId, uploadId, partSize: u.partSize, partCount: u.partCount });
    expectOk('initPartInfo', recorded.ret === 0, recorded);
    const etags: string[] = [];
    for (let n = 1; n <= u.partCount; n++) {
      const part = await signedStorageRequest(api, {
        ...at, action: 'uploadPart', verb: 'PUT', query: `partNumber=${n}&uploadId=${encodeURIComponent(uploadId!)}`, body: bytes.subarray((n - 1) * u.partSize, n * u.partSize),
      });
      expectOk(`uploadPart ${n}`, part.status === 200, await part.text());
      etags.push(part.headers.get('etag')!);
    }
    const xml = `<CompleteMultipartUpload>${etags.map((e, i) => `<Part><PartNumber>${i + 1}</PartNumber><ETag>${e}</ETag></Part>`).join('')}</CompleteMultipartUpload>`;
    const done = await signedStorageRequest(api, { ...at, action: 'completeMultipart', verb: 'POST', query: `uploadId=${encodeURIComponent(uploadId!)}`, body: Buffer.from(xml) });
    expectOk('completeMultipart', done.status === 200, await done.text());
  } else {
    const put = await signedStorageRequest(api, { ...at, action: 'putObject', verb: 'PUT', body: bytes, ...(opts.contentType ? { contentType: opts.contentType } : {}) });
    expectOk('putObject', put.status === 200, await put.text());
  }
  const saved = await api('/hcs/controller/API/save-instance', undefined, {
    fId: u.fId, fMd5: sha(bytes), fSize: bytes.length, objectKey: u.objectKey, fName: encodeName(name), bucketName: u.bucketName, classifierId: 'File',
  });
  expectOk('save-instance', saved.ret === 0, saved);
  return saved.data.instanceId as string;
}
