// A pass-through to an S3 endpoint for the replication suites: it can hold requests (a HoldGate armed with a
// predicate on method and URL) and inject 500s, every request while `failing` or every `faultEvery`th one. The Host
// header is kept: SigV4 signs it.
import { createServer, request, type Server } from 'node:http';
import { HoldGate } from './hold-gate.ts';

export interface ProxiedRequest {
  method: string;
  url: string;
}

export function storageProxy(upstream: string) {
  const gate = new HoldGate<ProxiedRequest>();
  const state = { failing: false, faultEvery: 0, seen: 0, faults: 0 };
  const up = new URL(upstream);
  const server: Server = createServer((req, res) => {
    state.seen++;
    if (state.failing || (state.faultEvery > 0 && state.seen % state.faultEvery === 0)) {
      state.faults++;
      req.resume();
      req.on('end', () => {
        res.writeHead(500, { 'content-type': 'application/xml' });
        res.end('<?xml version="1.0" encoding="UTF-8"?><Error><Code>InternalError</Code><Message>injected</Message></Error>');
      });
      return;
    }
    void gate.pass({ method: req.method ?? '', url: req.url ?? '' }).then(() => {
      const out = request({ host: up.hostname, port: up.port, method: req.method, path: req.url, headers: req.headers }, (r) => {
        res.writeHead(r.statusCode ?? 502, r.headers);
        r.pipe(res);
      });
      out.on('error', () => res.destroy());
      res.on('close', () => {
        if (!res.writableFinished) out.destroy();
      });
      req.pipe(out);
    });
  });
  return {
    gate,
    state,
    async listen(): Promise<string> {
      await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
      return `http://127.0.0.1:${(server.address() as { port: number }).port}${up.pathname.replace(/\/$/, '')}`;
    },
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}
