// The engine's storage transport for the page. fetch cannot tell how much of a request body has been sent, so a
// part would count only when it is done (8 MiB steps, 0% and no speed for seconds on a slow link). Requests that ask
// for upload progress therefore go through XMLHttpRequest, whose upload events report the bytes as they leave;
// everything else (downloads stream their bodies) stays on fetch.
import { createTransport } from '@hcs/transfer-core/browser';
import type { Transport, TransportRequest, TransportResponse } from '@hcs/transfer-core';

/** The part of XMLHttpRequest the transport uses (a test passes its own). */
export interface XhrLike {
  open(method: string, url: string): void;
  setRequestHeader(name: string, value: string): void;
  getResponseHeader(name: string): string | null;
  send(body?: XMLHttpRequestBodyInit | null): void;
  abort(): void;
  responseType: XMLHttpRequestResponseType;
  readonly status: number;
  readonly response: unknown;
  readonly upload: { onprogress: ((e: { loaded: number }) => void) | null };
  onload: (() => void) | null;
  onerror: (() => void) | null;
  onabort: (() => void) | null;
}

export function createProgressTransport(opts: { fallback?: Transport; xhr?: () => XhrLike } = {}): Transport {
  const fallback = opts.fallback ?? createTransport();
  const newXhr = opts.xhr ?? (typeof XMLHttpRequest === 'undefined' ? undefined : () => new XMLHttpRequest() as unknown as XhrLike);
  return {
    request(req) {
      if (!req.onUploadProgress || req.body === undefined || !newXhr) return fallback.request(req);
      return send(newXhr(), req);
    },
  };
}

function send(xhr: XhrLike, req: TransportRequest): Promise<TransportResponse> {
  return new Promise<TransportResponse>((resolve, reject) => {
    const signal = req.signal;
    if (signal?.aborted) return reject(signal.reason);
    const onAbort = () => xhr.abort();
    signal?.addEventListener('abort', onAbort, { once: true });
    const settle = () => signal?.removeEventListener('abort', onAbort);
    xhr.open(req.method, req.url);
    for (const [name, value] of Object.entries(req.headers)) xhr.setRequestHeader(name, value);
    xhr.responseType = 'arraybuffer';
    xhr.upload.onprogress = (e) => req.onUploadProgress?.(e.loaded);
    xhr.onload = () => {
      settle();
      const body = new Uint8Array((xhr.response as ArrayBuffer | null) ?? new ArrayBuffer(0));
      resolve({
        status: xhr.status,
        header: (name) => xhr.getResponseHeader(name),
        text: async () => new TextDecoder().decode(body),
        async *chunks() {
          if (body.byteLength > 0) yield body;
        },
      });
    };
    // Like fetch: a network failure is a TypeError (the engine retries it), a cancelled request rejects with the
    // signal's reason (a part timeout stays a TimeoutError, a pause an AbortError).
    xhr.onerror = () => {
      settle();
      reject(signal?.aborted ? signal.reason : new TypeError('network error'));
    };
    xhr.onabort = () => {
      settle();
      reject(signal?.aborted ? signal.reason : new DOMException('The request was aborted', 'AbortError'));
    };
    xhr.send(req.body as XMLHttpRequestBodyInit);
  });
}
