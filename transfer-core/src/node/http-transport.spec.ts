import { createServer, type Server } from 'node:http';
import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHttpTransport } from './http-transport.ts';

let server: Server;
let base: string;
const sockets = new Set<unknown>();

beforeAll(async () => {
  server = createServer(async (req, res) => {
    sockets.add(req.socket);
    if (req.url === '/echo') {
      const h = createHash('sha256');
      let n = 0;
      for await (const c of req) {
        h.update(c as Buffer);
        n += (c as Buffer).length;
      }
      res.setHeader('etag', '"abc"');
      res.setHeader('x-len', String(n));
      res.end(h.digest('hex'));
    } else if (req.url === '/big') {
      res.setHeader('content-length', String(4 << 20));
      for (let i = 0; i < 4; i++) res.write(Buffer.alloc(1 << 20, i));
      res.end();
    } else if (req.url === '/cut') {
      res.setHeader('content-length', '1000');
      res.write(Buffer.alloc(10));
      setTimeout(() => res.destroy(), 20);
    } else if (req.url === '/hang') {
      // never answers
    } else {
      res.statusCode = 404;
      res.end('<Error><Code>NoSuchKey</Code></Error>');
    }
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  base = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((r) => server.close(r));
});

describe('node:http transport', () => {
  it('sends a Uint8Array view as is and reads headers and text, reusing the connection', async () => {
    const t = createHttpTransport();
    const backing = new Uint8Array(3000).map((_, i) => i & 0xff);
    const view = backing.subarray(100, 2100);
    sockets.clear();
    for (let i = 0; i < 3; i++) {
      const res = await t.request({ method: 'PUT', url: `${base}/echo`, headers: { 'x-amz-date': 'x' }, body: view });
      expect(res.status).toBe(200);
      expect(res.header('ETag')).toBe('"abc"');
      expect(res.header('x-len')).toBe('2000');
      expect(await res.text()).toBe(createHash('sha256').update(view).digest('hex'));
    }
    expect(sockets.size).toBe(1);
  });

  it('streams a body as chunks and reports error statuses without rejecting', async () => {
    const t = createHttpTransport();
    const res = await t.request({ method: 'GET', url: `${base}/big`, headers: {} });
    let n = 0;
    for await (const c of res.chunks()) n += c.byteLength;
    expect(n).toBe(4 << 20);
    const missing = await t.request({ method: 'GET', url: `${base}/nope`, headers: {} });
    expect(missing.status).toBe(404);
    expect(await missing.text()).toContain('NoSuchKey');
  });

  it('fails a body cut short, and rejects with the abort reason', async () => {
    const t = createHttpTransport();
    const cut = await t.request({ method: 'GET', url: `${base}/cut`, headers: {} });
    await expect((async () => {
      for await (const _ of cut.chunks()) void _;
    })()).rejects.toThrow();
    const ctrl = new AbortController();
    const pending = t.request({ method: 'GET', url: `${base}/hang`, headers: {}, signal: ctrl.signal });
    const reason = new DOMException('paused', 'AbortError');
    setTimeout(() => ctrl.abort(reason), 20);
    await expect(pending).rejects.toBe(reason);
  });
});
