import http from 'node:http';
import https from 'node:https';
import type { IncomingMessage } from 'node:http';
import type { Transport, TransportResponse } from '../ports/index.ts';

/**
 * Transport over node:http(s) with keep-alive agents, for Node. fetch (undici) copies every request body twice
 * (webidl buffer-source copy, then the stream clone) and parses responses through a wasm parser; for parts of
 * several MiB and for thousands of small files that was a large share of the CLI's CPU. Here a part's bytes go
 * to the socket as they are, and responses stream as Buffers. Same contract as the fetch transport: rejects
 * only on network failure or abort (with the signal's reason).
 */
export function createHttpTransport(): Transport {
  const agents = {
    'http:': new http.Agent({ keepAlive: true }),
    'https:': new https.Agent({ keepAlive: true }),
  };
  return {
    async request(req) {
      // Node's file sources hand out bytes, not slices; a Blob a caller gives is read first (what fetch would do).
      const given = req.body instanceof Blob ? new Uint8Array(await req.body.arrayBuffer()) : req.body;
      const body = given === undefined ? undefined : typeof given === 'string' ? Buffer.from(given, 'utf8') : Buffer.from(given.buffer, given.byteOffset, given.byteLength);
      return new Promise<TransportResponse>((resolve, reject) => {
        const signal = req.signal;
        if (signal?.aborted) {
          reject(signal.reason);
          return;
        }
        const url = new URL(req.url);
        if (url.protocol !== 'http:' && url.protocol !== 'https:') {
          reject(new TypeError(`unsupported protocol ${url.protocol}`));
          return;
        }
        const headers: Record<string, string> = { ...req.headers };
        if (body !== undefined && !Object.keys(headers).some((h) => h.toLowerCase() === 'content-length')) headers['content-length'] = String(body.byteLength);
        const mod = url.protocol === 'https:' ? https : http;
        const request = mod.request(url, { method: req.method, headers, agent: agents[url.protocol], signal }, (res) => resolve(wrap(res, signal)));
        request.on('error', (err) => reject(signal?.aborted ? signal.reason : err));
        request.end(body);
      });
    },
  };
}

function wrap(res: IncomingMessage, signal?: AbortSignal): TransportResponse {
  const rethrow = (err: unknown): never => {
    throw signal?.aborted ? signal.reason : err;
  };
  return {
    status: res.statusCode ?? 0,
    header(name) {
      const v = res.headers[name.toLowerCase()];
      return v === undefined ? null : Array.isArray(v) ? v.join(', ') : v;
    },
    async text() {
      const parts: Buffer[] = [];
      try {
        for await (const c of res) parts.push(c as Buffer);
      } catch (err) {
        rethrow(err);
      }
      return Buffer.concat(parts).toString('utf8');
    },
    async *chunks() {
      try {
        for await (const c of res) yield c as Buffer;
      } catch (err) {
        rethrow(err);
      }
      // A response cut short (server died mid-body) ends without an error event on some paths.
      if (!res.complete) rethrow(new Error('the response ended before its body was complete'));
    },
  };
}
