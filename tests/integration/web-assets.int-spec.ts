// The web app's files go out precompressed (issue #22 defect 10): the build writes .br and .gz beside each asset
// (vite-plugin-compression2), and the server picks the variant the browser accepts, says so in Content-Encoding,
// and always answers Vary: Accept-Encoding so a shared cache never hands one client another's encoding. The test
// builds its own small web folder the way the build does, so it checks the server, not whichever build is on disk.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { brotliCompressSync, brotliDecompressSync, gunzipSync, gzipSync } from 'node:zlib';
import { startServer, type TestServer } from '../helpers/server.ts';

let s: TestServer;
let web: string;
const script = Buffer.from(`console.log(${JSON.stringify('drive '.repeat(2000))});\n`);
const index = Buffer.from(`<!doctype html><html><head><script type="module" src="/drive/assets/app-Ab12Cd34.js"></script></head><body><div id="root"></div>${' '.repeat(2000)}</body></html>`);
const plain = Buffer.from('small, not worth compressing\n');

function writeWithVariants(file: string, body: Buffer): void {
  writeFileSync(file, body);
  writeFileSync(`${file}.br`, brotliCompressSync(body));
  writeFileSync(`${file}.gz`, gzipSync(body));
}

/** Raw bytes and headers: fetch would decode the body itself and hide what went over the wire. */
function get(path: string, acceptEncoding?: string): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: Buffer }> {
  const url = new URL(path, s.baseUrl);
  return new Promise((resolve, reject) => {
    const req = request(url, { headers: acceptEncoding === undefined ? {} : { 'accept-encoding': acceptEncoding } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end();
  });
}

const varies = (h: Record<string, string | string[] | undefined>) => String(h.vary ?? '').toLowerCase().split(/\s*,\s*/).includes('accept-encoding');

beforeAll(async () => {
  web = mkdtempSync(join(tmpdir(), 'hcs-web-'));
  mkdirSync(join(web, 'assets'));
  writeWithVariants(join(web, 'index.html'), index);
  writeWithVariants(join(web, 'assets', 'app-Ab12Cd34.js'), script);
  writeFileSync(join(web, 'assets', 'tiny-Ef56Gh78.js'), plain);
  s = await startServer({ env: { HCS_WEB_DIST: web } });
});
afterAll(async () => {
  await s?.close();
  rmSync(web, { recursive: true, force: true });
});

describe('web app assets', () => {
  it('sends brotli to a browser that accepts it, with Vary, and the bytes decode to the built file', async () => {
    const res = await get('/drive/assets/app-Ab12Cd34.js', 'gzip, deflate, br, zstd');
    expect(res.status).toBe(200);
    expect(res.headers['content-encoding']).toBe('br');
    expect(varies(res.headers)).toBe(true);
    expect(res.headers['content-type']).toMatch(/^(text|application)\/javascript/);
    expect(res.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    expect(res.body.length).toBeLessThan(script.length / 10);
    expect(brotliDecompressSync(res.body).equals(script)).toBe(true);
  });

  it('sends gzip to a client that accepts only gzip', async () => {
    const res = await get('/drive/assets/app-Ab12Cd34.js', 'gzip');
    expect(res.headers['content-encoding']).toBe('gzip');
    expect(varies(res.headers)).toBe(true);
    expect(gunzipSync(res.body).equals(script)).toBe(true);
  });

  it('falls back to the plain file for a client that accepts no encoding, still with Vary', async () => {
    for (const accept of [undefined, 'identity']) {
      const res = await get('/drive/assets/app-Ab12Cd34.js', accept);
      expect(res.status).toBe(200);
      expect(res.headers['content-encoding']).toBeUndefined();
      expect(varies(res.headers)).toBe(true);
      expect(res.body.equals(script)).toBe(true);
    }
  });

  it('sends a file the build left uncompressed as it is', async () => {
    const res = await get('/drive/assets/tiny-Ef56Gh78.js', 'br, gzip');
    expect(res.status).toBe(200);
    expect(res.headers['content-encoding']).toBeUndefined();
    expect(res.body.equals(plain)).toBe(true);
  });

  it('answers app routes with index.html, compressed and always revalidated', async () => {
    for (const path of ['/drive/personalFile', '/drive/login?redirect=%2FpersonalFile']) {
      const res = await get(path, 'br');
      expect(res.status).toBe(200);
      expect(res.headers['content-type']).toMatch(/^text\/html/);
      expect(res.headers['cache-control']).toBe('no-cache');
      expect(res.headers['content-encoding']).toBe('br');
      expect(varies(res.headers)).toBe(true);
      expect(brotliDecompressSync(res.body).equals(index)).toBe(true);
    }
    const identity = await get('/drive/personalFile');
    expect(identity.headers['content-encoding']).toBeUndefined();
    expect(identity.body.equals(index)).toBe(true);
  });
});
