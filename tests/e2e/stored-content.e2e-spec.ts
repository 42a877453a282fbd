// Issue #11, finding 1, in a real browser: an SVG and an HTML file whose script would use the signed-in viewer's
// session (GET /hcs/controller/System/CurrentUser with X-Requested-With, the probe's attack) are opened, in the
// signed-in Chromium, through every URL the server hands out for a file's bytes: presigned download and preview
// links (getS3DownloadUrl, a week long), getPreview (small files and an SVG of 15 MiB or more), and a zip. None
// of them may run the script. A control first shows that the same markup, on the drive's origin without the
// protection, does run and does reach CurrentUser with the session, so "nothing ran" is not a broken detector.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BrowserContext, Page, Request } from 'playwright-core';
import { startE2E, type E2E } from './harness.ts';
import { uploadFile } from '../helpers/upload.ts';
import { PREVIEW_INLINE_LIMIT } from '../../mock-server/src/handlers/download.ts';

let e2e: E2E;
let context: BrowserContext;
let app: Page;
let token: string;
/** Marker requests the stored scripts send the moment they run. */
const markers: string[] = [];
/** CurrentUser calls made by any document other than the web app itself. */
const stolen: string[] = [];

// Runs synchronously while the document is parsed: the marker request and the title change happen before `load`.
const script = (tag: string) =>
  `document.title='XSS-${tag}';fetch('/xss-marker/${tag}');` +
  `fetch('/hcs/controller/System/CurrentUser',{headers:{'X-Requested-With':'XMLHttpRequest'}}).then(r=>r.text()).then(t=>fetch('/xss-marker/${tag}-session?'+encodeURIComponent(t.slice(0,300))));`;
const svg = (tag: string, pad = 0) =>
  Buffer.from(`<svg xmlns="http://www.w3.org/2000/svg" width="40" height="40"><title>clean</title><script>${script(tag)}</script><!--${'x'.repeat(pad)}--><rect width="40" height="40" fill="teal"/></svg>`);
const html = (tag: string) => Buffer.from(`<!doctype html><html><head><title>clean</title></head><body><p>hello</p><script>${script(tag)}</script></body></html>`);

const ids: Record<string, string> = {};

async function api(path: string, query: Record<string, string | number> = {}, body?: unknown): Promise<any> {
  const qs = new URLSearchParams(Object.entries(query).map(([k, v]): [string, string] => [k, String(v)])).toString();
  const res = await fetch(`${e2e.baseUrl}${path}${qs ? '?' + qs : ''}`, {
    method: body === undefined ? 'GET' : 'POST',
    headers: { 'X-Requested-With': 'XMLHttpRequest', token, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return res.json();
}

const upload = (name: string, bytes: Buffer) => uploadFile(api, name, bytes);

/** Asks for a URL the way the signed-in web app does: from its own page, with its session cookie. */
const urlFromApp = (path: string, query: Record<string, string | number>) =>
  app.evaluate(
    async ({ path, query }) => {
      const res = await fetch(`${path}?${new URLSearchParams(Object.entries(query).map(([k, v]) => [k, String(v)]))}`, { headers: { 'X-Requested-With': 'XMLHttpRequest' } });
      const body = await res.json();
      if (body.ret !== 0) throw new Error(JSON.stringify(body));
      return body.data.url as string;
    },
    { path, query },
  );

/**
 * Opens `url` as the victim would (a link in a new tab of the signed-in browser); resolves once the document has
 * loaded, or the browser has turned the navigation into a download. Returns the shown document's title, if any.
 */
async function open(url: string): Promise<{ title: string | null; download: boolean }> {
  const page = await context.newPage();
  try {
    const downloading = page.waitForEvent('download', { timeout: 60_000 }).then(() => true, () => false);
    const shown = await page.goto(new URL(url, e2e.baseUrl).href, { waitUntil: 'load', timeout: 60_000 }).then(
      () => true,
      (err: Error) => {
        // Chromium reports a navigation that became a download as aborted.
        if (/Download is starting|ERR_ABORTED/.test(err.message)) return false;
        throw err;
      },
    );
    if (!shown) {
      expect(await downloading).toBe(true);
      return { title: null, download: true };
    }
    return { title: await page.title(), download: false };
  } finally {
    await page.close();
  }
}

beforeAll(async () => {
  e2e = await startE2E();
  token = (await e2e.server.login()).token;
  ({ context, page: app } = await e2e.newPage({ locale: 'en-US' }));
  await context.route('**/xss-marker/**', (route) => {
    markers.push(new URL(route.request().url()).pathname);
    return route.fulfill({ status: 204 });
  });
  context.on('request', (req: Request) => {
    if (!req.url().includes('/System/CurrentUser')) return;
    const from = req.frame()?.url() ?? '';
    if (!from.includes('/drive/')) stolen.push(`${from} -> ${req.url()}`);
  });
  await app.goto(`${e2e.baseUrl}/drive/login`);
  await app.locator('input[autocomplete="username"], input#username, input[name="username"]').first().fill(e2e.adminUser);
  await app.locator('input[type="password"]').first().fill(e2e.adminPassword);
  await app.locator('button[type="submit"]').first().click();
  await app.waitForURL(/\/drive\/personalFile/, { timeout: 20000 });

  ids['evil.svg'] = await upload('evil.svg', svg('svg'));
  ids['evil.html'] = await upload('evil.html', html('html'));
  ids['huge.svg'] = await upload('huge.svg', svg('huge', PREVIEW_INLINE_LIMIT));
}, 180_000);
afterAll(async () => {
  await context?.close();
  await e2e?.close();
});

describe('stored script never runs on the drive origin', () => {
  it('control: the same markup on the drive origin, unprotected, runs and reaches CurrentUser with the session', async () => {
    const page = await context.newPage();
    try {
      // A JSON 404 of the drive origin carries no CSP; writing the markup into it is what an unprotected inline serve is.
      await page.goto(`${e2e.baseUrl}/xss-control`);
      await page.setContent(html('control').toString());
      await expect.poll(() => markers.includes('/xss-marker/control-session'), { timeout: 10_000 }).toBe(true);
      expect(await page.title()).toBe('XSS-control');
      expect(stolen.length).toBe(1);
    } finally {
      await page.close();
    }
    markers.length = 0;
    stolen.length = 0;
  });

  const cases: Array<[string, string, () => Promise<string>]> = [
    ['evil.svg', 'getS3DownloadUrl preview (7 days)', () => urlFromApp('/hcs/controller/API/getS3DownloadUrl', { instanceId: ids['evil.svg']!, action: 'preview', expiresIn: 604800 })],
    ['evil.svg', 'getS3DownloadUrl download', () => urlFromApp('/hcs/controller/API/getS3DownloadUrl', { instanceId: ids['evil.svg']! })],
    ['evil.svg', 'getPreview (ticket)', () => urlFromApp('/hcs/controller/API/1.0/preview', { instanceId: ids['evil.svg']! })],
    ['evil.html', 'getS3DownloadUrl preview (7 days)', () => urlFromApp('/hcs/controller/API/getS3DownloadUrl', { instanceId: ids['evil.html']!, action: 'preview', expiresIn: 604800 })],
    ['evil.html', 'getS3DownloadUrl download', () => urlFromApp('/hcs/controller/API/getS3DownloadUrl', { instanceId: ids['evil.html']! })],
    ['evil.html', 'getPreview (ticket)', () => urlFromApp('/hcs/controller/API/1.0/preview', { instanceId: ids['evil.html']! })],
    ['huge.svg', `getPreview (${PREVIEW_INLINE_LIMIT} bytes or more)`, () => urlFromApp('/hcs/controller/API/1.0/preview', { instanceId: ids['huge.svg']! })],
    ['huge.svg', 'getS3DownloadUrl preview', () => urlFromApp('/hcs/controller/API/getS3DownloadUrl', { instanceId: ids['huge.svg']!, action: 'preview' })],
    ['evil.svg + evil.html', 'zip', () => urlFromApp('/hcs/controller/API/getZipDownloadUrl', { ids: `${ids['evil.svg']},${ids['evil.html']}` })],
  ];
  for (const [file, path, urlOf] of cases) {
    it(`${file} through ${path}: no script runs`, async () => {
      markers.length = 0;
      stolen.length = 0;
      const url = await urlOf();
      const result = await open(url);
      expect(markers, `${file} via ${path} (${url}) ran its script`).toEqual([]);
      expect(stolen, `${file} via ${path} called CurrentUser`).toEqual([]);
      if (!result.download) expect(result.title ?? '', `${file} via ${path}`).not.toMatch(/XSS/);
    });
  }

  it('the SVG still shows as an image where the app previews it (sandboxed, inline)', async () => {
    markers.length = 0;
    const url = await urlFromApp('/hcs/controller/API/1.0/preview', { instanceId: ids['evil.svg']! });
    const size = await app.evaluate(async (src) => {
      const img = new Image();
      img.src = src;
      await img.decode();
      return [img.naturalWidth, img.naturalHeight];
    }, url);
    expect(size).toEqual([40, 40]);
    expect(markers).toEqual([]);
  });
});
