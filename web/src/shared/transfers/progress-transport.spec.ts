// Upload parts go through XMLHttpRequest so their bytes are reported as they leave; everything else stays on fetch.
import { describe, expect, it } from 'vitest';
import type { Transport, TransportRequest } from '@hcs/transfer-core';
import { createProgressTransport, type XhrLike } from './progress-transport.ts';

class FakeXhr implements XhrLike {
  opened: [string, string] | undefined;
  headers: Record<string, string> = {};
  sent: unknown;
  aborted = false;
  responseType: XMLHttpRequestResponseType = '';
  status = 0;
  response: unknown = null;
  responseHeaders: Record<string, string> = {};
  readonly upload: XhrLike['upload'] = { onprogress: null };
  onload: (() => void) | null = null;
  onerror: (() => void) | null = null;
  onabort: (() => void) | null = null;
  open(method: string, url: string) {
    this.opened = [method, url];
  }
  setRequestHeader(name: string, value: string) {
    this.headers[name] = value;
  }
  getResponseHeader(name: string) {
    return this.responseHeaders[name.toLowerCase()] ?? null;
  }
  send(body: unknown) {
    this.sent = body;
  }
  abort() {
    this.aborted = true;
    this.onabort?.();
  }
}

const fallback = (): Transport & { seen: TransportRequest[] } => {
  const seen: TransportRequest[] = [];
  return { seen, request: async (req) => (seen.push(req), { status: 200, header: () => null, text: async () => '', async *chunks() {} }) };
};

describe('createProgressTransport', () => {
  it('reports the bytes sent of a body while it goes, then answers like fetch', async () => {
    const xhr = new FakeXhr();
    const t = createProgressTransport({ fallback: fallback(), xhr: () => xhr });
    const sent: number[] = [];
    const body = new Uint8Array(1000);
    const res = t.request({ method: 'PUT', url: 'http://s3/b/k?partNumber=1', headers: { 'x-amz-date': 'd' }, body, onUploadProgress: (n) => sent.push(n) });
    expect(xhr.opened).toEqual(['PUT', 'http://s3/b/k?partNumber=1']);
    expect(xhr.headers).toEqual({ 'x-amz-date': 'd' });
    expect(xhr.sent).toBe(body);
    xhr.upload.onprogress!({ loaded: 400 });
    xhr.upload.onprogress!({ loaded: 1000 });
    expect(sent).toEqual([400, 1000]);
    xhr.status = 200;
    xhr.responseHeaders = { etag: '"abc"' };
    xhr.response = new TextEncoder().encode('ok').buffer;
    xhr.onload!();
    const r = await res;
    expect(r.status).toBe(200);
    expect(r.header('ETag')).toBe('"abc"');
    expect(await r.text()).toBe('ok');
  });

  it('a pause aborts the request and rejects with the signal reason; a network failure is a TypeError', async () => {
    const xhr = new FakeXhr();
    const t = createProgressTransport({ fallback: fallback(), xhr: () => xhr });
    const ctrl = new AbortController();
    const res = t.request({ method: 'PUT', url: 'u', headers: {}, body: new Uint8Array(1), signal: ctrl.signal, onUploadProgress: () => {} });
    const reason = new DOMException('paused', 'AbortError');
    ctrl.abort(reason);
    await expect(res).rejects.toBe(reason);
    expect(xhr.aborted).toBe(true);

    const broken = new FakeXhr();
    const t2 = createProgressTransport({ fallback: fallback(), xhr: () => broken });
    const res2 = t2.request({ method: 'PUT', url: 'u', headers: {}, body: new Uint8Array(1), onUploadProgress: () => {} });
    broken.onerror!();
    await expect(res2).rejects.toBeInstanceOf(TypeError);
  });

  it('requests without upload progress (downloads, listings) stay on fetch', async () => {
    const fb = fallback();
    let made = 0;
    const t = createProgressTransport({ fallback: fb, xhr: () => (made++, new FakeXhr()) });
    await t.request({ method: 'GET', url: 'u', headers: {} });
    expect(fb.seen).toHaveLength(1);
    expect(made).toBe(0);
  });
});
