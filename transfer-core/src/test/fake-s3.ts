// An in-memory S3 speaking the subset of the REST API the engine uses, behind the Transport port.
// Faults are injected per request to test retries, timeouts and pauses.
import { createHash } from 'node:crypto';
import type { Transport, TransportRequest, TransportResponse } from '../ports/index.ts';

export type Fault = { status: number; body?: string } | { networkError: true } | { hang: true } | { stallBodyAfter: number };

interface Upload {
  key: string;
  parts: Map<number, { data: Uint8Array; etag: string }>;
}

export interface SeenRequest {
  method: string;
  path: string;
  query: URLSearchParams;
  headers: Record<string, string>;
  size: number;
}

export class FakeS3 implements Transport {
  readonly objects = new Map<string, Uint8Array>();
  readonly uploads = new Map<string, Upload>();
  readonly requests: SeenRequest[] = [];
  /** Tried in order on every request; a rule returning a Fault consumes nothing, so rules count for themselves. */
  readonly faults: Array<(r: SeenRequest) => Fault | undefined> = [];
  /** Requests currently in flight (for pause tests). */
  inFlight = 0;
  #seq = 0;

  /** Fails the next `times` requests matching pred with fault. */
  failNext(pred: (r: SeenRequest) => boolean, fault: Fault, times = 1): void {
    let left = times;
    this.faults.push((r) => (left > 0 && pred(r) ? (left--, fault) : undefined));
  }

  partRequests(): SeenRequest[] {
    return this.requests.filter((r) => r.method === 'PUT' && r.query.has('partNumber'));
  }

  async request(req: TransportRequest): Promise<TransportResponse> {
    const url = new URL(req.url);
    // A Blob body is read as a browser sends it; one that cannot be read (its file changed) fails like the network.
    const body =
      typeof req.body === 'string'
        ? new TextEncoder().encode(req.body)
        : req.body instanceof Blob
          ? new Uint8Array(
              await req.body.arrayBuffer().catch(() => {
                throw new TypeError('fetch failed');
              }),
            )
          : (req.body ?? new Uint8Array());
    const seen: SeenRequest = { method: req.method, path: decodeURIComponent(url.pathname), query: url.searchParams, headers: req.headers, size: body.byteLength };
    this.requests.push(seen);
    if (!req.headers.Authorization?.startsWith('AWS4-HMAC-SHA256') || req.headers['x-amz-content-sha256'] !== 'UNSIGNED-PAYLOAD') {
      return respond(403, xmlError('AccessDenied'));
    }
    let fault: Fault | undefined;
    for (const rule of this.faults) if ((fault = rule(seen))) break;
    this.inFlight++;
    try {
      if (fault && 'hang' in fault) return await hang(req.signal);
      if (fault && 'networkError' in fault) throw new TypeError('fetch failed');
      if (fault && 'status' in fault) return respond(fault.status, fault.body ?? xmlError('InternalError'));
      await Promise.resolve();
      req.signal?.throwIfAborted();
      const res = this.#route(req, seen, body);
      if (fault && 'stallBodyAfter' in fault) return stalled(res, fault.stallBodyAfter, req.signal);
      return res;
    } finally {
      this.inFlight--;
    }
  }

  #route(req: TransportRequest, r: SeenRequest, body: Uint8Array): TransportResponse {
    const q = r.query;
    if (r.method === 'POST' && q.has('uploads')) {
      const id = `up-${++this.#seq}`;
      this.uploads.set(id, { key: r.path, parts: new Map() });
      return respond(200, `<?xml version="1.0"?><InitiateMultipartUploadResult><UploadId>${id}</UploadId></InitiateMultipartUploadResult>`);
    }
    const uploadId = q.get('uploadId');
    if (uploadId !== null) {
      const up = this.uploads.get(uploadId);
      if (!up || up.key !== r.path) return respond(404, xmlError('NoSuchUpload'));
      if (r.method === 'PUT') {
        const n = Number(q.get('partNumber'));
        const etag = `"${createHash('md5').update(body).digest('hex')}"`;
        up.parts.set(n, { data: body.slice(), etag });
        return respond(200, '', { etag });
      }
      if (r.method === 'GET') {
        const marker = Number(q.get('part-number-marker') ?? 0);
        const max = Number(q.get('max-parts') ?? 1000);
        const all = [...up.parts.keys()].sort((a, b) => a - b).filter((n) => n > marker);
        const page = all.slice(0, max);
        const truncated = all.length > max;
        const items = page.map((n) => `<Part><PartNumber>${n}</PartNumber><ETag>${up.parts.get(n)!.etag.replace(/"/g, '&quot;')}</ETag><Size>${up.parts.get(n)!.data.byteLength}</Size></Part>`);
        return respond(200, `<ListPartsResult><IsTruncated>${truncated}</IsTruncated>${truncated ? `<NextPartNumberMarker>${page[page.length - 1]}</NextPartNumberMarker>` : ''}${items.join('')}</ListPartsResult>`);
      }
      if (r.method === 'POST') {
        const xml = new TextDecoder().decode(body);
        const chunks: Uint8Array[] = [];
        for (const m of xml.matchAll(/<Part><PartNumber>(\d+)<\/PartNumber><ETag>([^<]*)<\/ETag><\/Part>/g)) {
          const p = up.parts.get(Number(m[1]));
          if (!p || p.etag !== m[2]!.replace(/&quot;/g, '"')) return respond(400, xmlError('InvalidPart'));
          chunks.push(p.data);
        }
        this.objects.set(r.path, concat(chunks));
        this.uploads.delete(uploadId);
        return respond(200, '<CompleteMultipartUploadResult><ETag>"x"</ETag></CompleteMultipartUploadResult>');
      }
      if (r.method === 'DELETE') {
        this.uploads.delete(uploadId);
        return respond(204, '');
      }
    }
    if (r.method === 'PUT') {
      this.objects.set(r.path, body.slice());
      return respond(200, '', { etag: '"put"' });
    }
    if (r.method === 'GET') {
      const obj = this.objects.get(r.path);
      if (!obj) return respond(404, xmlError('NoSuchKey'));
      const m = /^bytes=(\d+)-(\d+)$/.exec(req.headers.Range ?? '');
      if (!m) return respondBytes(200, obj);
      const a = Number(m[1]);
      const b = Math.min(Number(m[2]), obj.byteLength - 1);
      return respondBytes(206, obj.subarray(a, b + 1));
    }
    return respond(405, xmlError('MethodNotAllowed'));
  }
}

export function concat(chunks: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(chunks.reduce((s, c) => s + c.byteLength, 0));
  let o = 0;
  for (const c of chunks) {
    out.set(c, o);
    o += c.byteLength;
  }
  return out;
}

function xmlError(code: string): string {
  return `<?xml version="1.0"?><Error><Code>${code}</Code><Message>${code}</Message></Error>`;
}

function respond(status: number, text: string, headers: Record<string, string> = {}): TransportResponse {
  return respondBytes(status, new TextEncoder().encode(text), headers);
}

function respondBytes(status: number, data: Uint8Array, headers: Record<string, string> = {}): TransportResponse {
  return {
    status,
    header: (n) => headers[n.toLowerCase()] ?? null,
    text: async () => new TextDecoder().decode(data),
    async *chunks() {
      for (let i = 0; i < data.byteLength; i += 65536) yield data.slice(i, i + 65536);
    },
  };
}

function hang(signal?: AbortSignal): Promise<never> {
  return new Promise((_, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    signal?.addEventListener('abort', () => reject(signal.reason), { once: true });
  });
}

/** Delivers `after` bytes of the body, then stalls until aborted (a connection that dies mid-download). */
function stalled(res: TransportResponse, after: number, signal?: AbortSignal): TransportResponse {
  return {
    ...res,
    async *chunks() {
      let sent = 0;
      for await (const c of res.chunks()) {
        if (sent + c.byteLength > after) {
          yield c.subarray(0, after - sent);
          await hang(signal);
        }
        sent += c.byteLength;
        yield c;
      }
    },
  };
}
