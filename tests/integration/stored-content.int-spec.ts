// Stored bytes never run script on the drive's origin (issue #11, finding 1). Every path that hands out or serves a
// file's bytes is checked: presigned URLs (getS3DownloadUrl, getPreview's large-file URL), the embedded store's own
// GET/HEAD, the ticket preview route and zip downloads. Types that can carry script (SVG, HTML, XML, XHTML, JS) must
// come as `attachment` with a harmless type unless they go through the sandboxed preview route, and every response
// of /s3 carries `Content-Security-Policy: sandbox` and `X-Content-Type-Options: nosniff`.
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { createHash, randomBytes } from 'node:crypto';
import { startServer, type TestServer } from '../helpers/server.ts';
import { signedStorageRequest, uploadFile } from '../helpers/upload.ts';
import { PREVIEW_INLINE_LIMIT } from '../../mock-server/src/handlers/download.ts';

const sha = (b: Buffer) => createHash('sha256').update(b).digest('hex');
type Env = { status: number; ret: number; msg: string; data: any };

let srv: TestServer;
let token: string;

async function api(path: string, query: Record<string, string | number> = {}, body?: unknown): Promise<Env> {
  const qs = new URLSearchParams(Object.entries(query).map(([k, v]): [string, string] => [k, String(v)])).toString();
  const res = await srv.call(path + (qs ? '?' + qs : ''), {
    method: body === undefined ? 'GET' : 'POST',
    token,
    headers: body === undefined ? {} : { 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: res.status, ...((await res.json()) as Omit<Env, 'status'>) };
}

const upload = (name: string, bytes: Buffer, contentType?: string) => uploadFile(api, name, bytes, contentType ? { contentType } : {});

/** GET without reading more than the headers need (some bodies are 15 MiB). */
async function headersOf(url: string, init: RequestInit = {}): Promise<Headers & { status: number }> {
  const res = await fetch(url.startsWith('/') ? srv.baseUrl + url : url, init);
  await res.body?.cancel();
  return Object.assign(res.headers, { status: res.status });
}

function expectSandboxed(h: Headers, where: string) {
  expect(h.get('content-security-policy') ?? '', `${where}: Content-Security-Policy`).toMatch(/(^|;)\s*sandbox(\s*;|$)/);
  expect(h.get('x-content-type-options'), `${where}: X-Content-Type-Options`).toBe('nosniff');
}

const marker = () => `fetch('/hcs/controller/System/CurrentUser',{headers:{'X-Requested-With':'XMLHttpRequest'}}) // ${randomBytes(8).toString('hex')}`;
const svg = (pad = 0) =>
  Buffer.from(`<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"><script>${marker()}</script><!--${'x'.repeat(pad)}--><rect width="10" height="10"/></svg>`);
const html = () => Buffer.from(`<!doctype html><html><body><script>${marker()}</script></body></html>`);

// Names whose bytes a browser would run as script (or as markup that runs script) if served inline with their type.
const ACTIVE: Record<string, () => Buffer> = {
  'pic.svg': () => svg(),
  'page.html': html,
  'page.htm': html,
  'page.xhtml': () => Buffer.from(`<html xmlns="http://www.w3.org/1999/xhtml"><body><script>${marker()}</script></body></html>`),
  'feed.xml': () => Buffer.from(`<?xml version="1.0"?><x:script xmlns:x="http://www.w3.org/1999/xhtml">${marker()}</x:script>`),
  'app.js': () => Buffer.from(marker()),
};
const ids: Record<string, string> = {};

beforeAll(async () => {
  srv = await startServer();
  token = (await srv.login()).token;
  for (const [name, bytes] of Object.entries(ACTIVE)) ids[name] = await upload(name, bytes());
  ids['photo.png'] = await upload('photo.png', randomBytes(2000));
});
afterAll(async () => {
  expect(srv.violations).toEqual([]);
  await srv.close();
});

describe('presigned URLs (getS3DownloadUrl)', () => {
  for (const name of Object.keys(ACTIVE)) {
    it(`${name}: download and preview URLs both come as attachment, octet-stream, sandboxed`, async () => {
      for (const action of ['download', 'preview']) {
        const r = await api('/hcs/controller/API/getS3DownloadUrl', { instanceId: ids[name]!, action, expiresIn: 604800 });
        expect(r.ret, JSON.stringify(r)).toBe(0);
        expect(r.data.inline, `${action}: inline`).toBe(false);
        // The overrides ride in the signed URL itself, so an external S3 (radosgw, MinIO) applies them too.
        const q = new URL(r.data.url).searchParams;
        expect(q.get('response-content-disposition'), `${action}: signed disposition`).toMatch(/^attachment;/);
        expect(q.get('response-content-type'), `${action}: signed type`).toBe('application/octet-stream');
        const h = await headersOf(r.data.url);
        expect(h.status).toBe(200);
        expect(h.get('content-disposition'), `${action}: served disposition`).toMatch(/^attachment;/);
        expect(h.get('content-type'), `${action}: served type`).toBe('application/octet-stream');
        expectSandboxed(h, `${name} ${action}`);
      }
    });
  }

  it('a harmless type still previews inline from its presigned URL, sandboxed all the same', async () => {
    const r = await api('/hcs/controller/API/getS3DownloadUrl', { instanceId: ids['photo.png']!, action: 'preview' });
    expect(r.data.inline).toBe(true);
    const h = await headersOf(r.data.url);
    expect(h.get('content-disposition')).toMatch(/^inline;/);
    expect(h.get('content-type')).toBe('image/png');
    expectSandboxed(h, 'photo.png preview');
  });
});

describe('getPreview', () => {
  it('small active files go through the sandboxed ticket route', async () => {
    for (const name of Object.keys(ACTIVE)) {
      const r = await api('/hcs/controller/API/1.0/preview', { instanceId: ids[name]! });
      expect(r.data.url, name).toMatch(/^\/hcs\/services\/API\/preview\/[A-Za-z0-9_-]+$/);
      const h = await headersOf(r.data.url);
      expect(h.status).toBe(200);
      expectSandboxed(h, `${name} ticket preview`);
      // Markup is shown as text; only SVG keeps its type here, where the sandbox stops its script.
      if (name !== 'pic.svg') expect(h.get('content-type'), name).not.toMatch(/html|xml|javascript/);
    }
  });

  it(`an SVG of ${PREVIEW_INLINE_LIMIT} bytes or more is previewed through the sandboxed route too, never a bare presigned URL`, async () => {
    const bytes = svg(PREVIEW_INLINE_LIMIT);
    const id = await upload('huge.svg', bytes);
    const r = await api('/hcs/controller/API/1.0/preview', { instanceId: id });
    expect(r.ret).toBe(0);
    expect(r.data.url).toMatch(/^\/hcs\/services\/API\/preview\//);
    const res = await fetch(srv.baseUrl + r.data.url);
    expectSandboxed(res.headers, 'huge.svg preview');
    expect(res.headers.get('content-type')).toBe('image/svg+xml');
    expect(sha(Buffer.from(await res.arrayBuffer()))).toBe(sha(bytes));
  });

  it(`a large active file shown as text (XML of ${PREVIEW_INLINE_LIMIT} bytes) gets a ranged presigned URL as attachment`, async () => {
    const bytes = Buffer.concat([ACTIVE['feed.xml']!(), Buffer.from(`<!--${'y'.repeat(PREVIEW_INLINE_LIMIT)}-->`)]);
    const id = await upload('huge.xml', bytes);
    const r = await api('/hcs/controller/API/1.0/preview', { instanceId: id });
    expect(r.data.inline).toBe(false);
    const q = new URL(r.data.url).searchParams;
    expect(q.get('response-content-disposition')).toMatch(/^attachment;/);
    const h = await headersOf(r.data.url, { headers: { range: 'bytes=0-99' } });
    expect(h.status).toBe(206);
    expect(h.get('content-disposition')).toMatch(/^attachment;/);
    expect(h.get('content-type')).not.toMatch(/html|xml|javascript|svg/);
    expectSandboxed(h, 'huge.xml ranged preview');
  });
});

describe('the embedded store itself', () => {
  it('an object stored as text/html is served as attachment, sandboxed, on GET, ranged GET and HEAD', async () => {
    const bytes = html();
    const id = await upload('note.bin', bytes, 'text/html');
    const info = (await api('/hcs/controller/API/getDownloadFileInfo', { instanceId: id })).data;
    for (const [verb, action, range] of [['GET', 'getObject', undefined], ['GET', 'getObject', 'bytes=0-9'], ['HEAD', 'headObject', undefined]] as const) {
      const res = await signedStorageRequest(api, { action, verb, fId: id, key: info.objectKey, bucket: info.bucketName, ...(range ? { range } : {}) });
      await res.body?.cancel();
      expect(res.status, `${verb} ${range ?? ''}`).toBe(range ? 206 : 200);
      expect(res.headers.get('content-disposition'), `${verb} ${range ?? ''}`).toMatch(/^attachment/);
      expectSandboxed(res.headers, `${verb} ${range ?? ''}`);
    }
  });

  it('error answers of /s3 are sandboxed as well', async () => {
    const h = await headersOf(`${srv.baseUrl}/s3/hcs/no-such-object`);
    expect(h.status).toBe(403);
    expectSandboxed(h, '/s3 error');
  });
});

describe('zip downloads', () => {
  it('come as attachment, application/zip, sandboxed', async () => {
    const r = await api('/hcs/controller/API/getZipDownloadUrl', { ids: `${ids['pic.svg']},${ids['page.html']}`, name: 'bundle' });
    expect(r.ret, JSON.stringify(r)).toBe(0);
    const h = await headersOf(r.data.url);
    expect(h.status).toBe(200);
    expect(h.get('content-type')).toBe('application/zip');
    expect(h.get('content-disposition')).toMatch(/^attachment;/);
    expectSandboxed(h, 'zip');
  });
});
