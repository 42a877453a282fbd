import type { Transport, TransportResponse } from '../ports/index.ts';

/**
 * Transport over the standard fetch (Node 18+ and browsers). A rejected request whose signal was aborted rejects
 * with the signal's reason, so a part timeout surfaces as TimeoutError and a pause as AbortError.
 */
export function createFetchTransport(fetchImpl: typeof fetch = globalThis.fetch.bind(globalThis)): Transport {
  return {
    async request(req) {
      let res: Response;
      try {
        res = await fetchImpl(req.url, {
          method: req.method,
          headers: req.headers,
          // A Uint8Array body is sent as-is (no copy); fetch computes Content-Length from it.
          body: req.body as BodyInit | undefined,
          signal: req.signal,
          credentials: 'omit',
          // Storage answers are never cacheable; a cached ListParts would make resume lie.
          cache: 'no-store',
        });
      } catch (err) {
        if (req.signal?.aborted) throw req.signal.reason;
        throw err;
      }
      return wrapResponse(res, req.signal);
    },
  };
}

function wrapResponse(res: Response, signal?: AbortSignal): TransportResponse {
  return {
    status: res.status,
    header: (name) => res.headers.get(name),
    text: () => res.text(),
    async *chunks() {
      if (!res.body) return;
      // getReader() rather than async iteration of the stream: Safari's ReadableStream is not async iterable.
      const reader = res.body.getReader();
      try {
        for (;;) {
          const { done, value } = await reader.read();
          if (done) return;
          yield value;
        }
      } catch (err) {
        if (signal?.aborted) throw signal.reason;
        throw err;
      } finally {
        reader.releaseLock();
      }
    },
  };
}
