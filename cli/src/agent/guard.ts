// Who may talk to the agent. Browsers always send Origin on WebSocket handshakes and on cross-origin fetches, so
// only pages of the drive itself get through; the Host check stops DNS rebinding (a hostile name resolved to
// 127.0.0.1 makes the page same-origin with the agent, but its Host header still names the hostile host).
// A local process can forge both headers: it still needs a pairing token only the drive's server issues.
import type { IncomingMessage, ServerResponse } from 'node:http';

/** The origin (scheme://host[:port]) of a URL, or null for anything that is not http(s). */
export function originOf(url: string): string | null {
  try {
    const u = new URL(url);
    return u.protocol === 'http:' || u.protocol === 'https:' ? u.origin : null;
  } catch {
    return null;
  }
}

/** The drive's origins: the configured server's, and HCS_PUBLIC_URL's when the web is reached at another one. */
export function allowedOrigins(server: string, publicUrl: string | undefined): Set<string> {
  const out = new Set<string>();
  for (const u of [server, publicUrl]) {
    const o = u ? originOf(u) : null;
    if (o) out.add(o);
  }
  return out;
}

/** Only loopback names with the port the request arrived on. */
export function hostAllowed(host: string | undefined, port: number): boolean {
  if (!host) return false;
  return [`127.0.0.1:${port}`, `localhost:${port}`, `[::1]:${port}`].includes(host.toLowerCase());
}

export function originAllowed(origin: string | undefined, allowed: ReadonlySet<string>): origin is string {
  // The header is compared as it came: browsers send the serialised origin, which is what originOf produces.
  return typeof origin === 'string' && allowed.has(origin);
}

/**
 * Answers one HTTP request to a local endpoint: only GET (and its CORS preflight) from the drive's origin on a
 * loopback Host. Chrome's Private Network Access asks the preflight for Access-Control-Allow-Private-Network.
 * Returns true when the request may proceed; otherwise it has been answered.
 */
export function guardHttp(req: IncomingMessage, res: ServerResponse, port: number, allowed: ReadonlySet<string>): boolean {
  const origin = req.headers.origin;
  if (!hostAllowed(req.headers.host, port) || !originAllowed(origin, allowed)) {
    res.writeHead(403, { 'Content-Type': 'application/json', 'Cache-Control': 'no-store' });
    res.end(JSON.stringify({ resultCode: 403, code: 'FORBIDDEN', msg: 'only the drive web app may call the local agent' }));
    return false;
  }
  res.setHeader('Access-Control-Allow-Origin', origin);
  res.setHeader('Vary', 'Origin');
  res.setHeader('Cache-Control', 'no-store');
  if (req.method === 'OPTIONS') {
    res.writeHead(204, {
      'Access-Control-Allow-Methods': 'GET',
      'Access-Control-Allow-Headers': 'Content-Type',
      'Access-Control-Allow-Private-Network': 'true',
      'Access-Control-Max-Age': '600',
    });
    res.end();
    return false;
  }
  if (req.method !== 'GET') {
    res.writeHead(405, { Allow: 'GET', 'Content-Type': 'application/json' });
    res.end(JSON.stringify({ resultCode: 405, code: 'METHOD_NOT_ALLOWED', msg: 'GET only' }));
    return false;
  }
  return true;
}
