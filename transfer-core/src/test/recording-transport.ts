// A real transport that records what the engine sends to storage, for tests against a real server
// (tests/integration): which S3 action, which part, which range, and a hook to act once an answer arrived.
import { createFetchTransport } from '../core/fetch-transport.ts';
import type { Transport, TransportRequest } from '../ports/index.ts';

/** Every S3 request the engine sent, classified by what it does (the URL's query names the S3 action). */
export interface SentRequest {
  method: TransportRequest['method'];
  /** Where it went (scheme://host:port), to prove which storage answered. */
  origin: string;
  kind: 'putObject' | 'uploadPart' | 'initMultipart' | 'completeMultipart' | 'listParts' | 'getObject' | 'other';
  partNumber?: number;
  range?: string;
  status?: number;
}

export function kindOf(req: TransportRequest): SentRequest['kind'] {
  const q = new URL(req.url).searchParams;
  if (req.method === 'PUT') return q.has('partNumber') ? 'uploadPart' : 'putObject';
  if (req.method === 'POST') return q.has('uploads') ? 'initMultipart' : 'completeMultipart';
  if (req.method === 'GET') return q.has('uploadId') ? 'listParts' : 'getObject';
  return 'other';
}

/**
 * A real fetch transport that records each request and lets a test act once an answer arrived (pause, kill):
 * `after` runs with the answered request before the engine sees the answer. Tests clear `sent` and replace
 * `after` between runs (the engine keeps the transport it was built with).
 */
export interface RecordingTransport extends Transport {
  sent: SentRequest[];
  after: ((r: SentRequest) => void) | undefined;
}

export function recordingTransport(after?: (r: SentRequest) => void): RecordingTransport {
  const inner = createFetchTransport();
  const t: RecordingTransport = {
    sent: [],
    after,
    async request(req) {
      const q = new URL(req.url).searchParams;
      const r: SentRequest = { method: req.method, origin: new URL(req.url).origin, kind: kindOf(req) };
      if (q.has('partNumber')) r.partNumber = Number(q.get('partNumber'));
      if (req.headers.Range) r.range = req.headers.Range;
      t.sent.push(r);
      const res = await inner.request(req);
      r.status = res.status;
      t.after?.(r);
      return res;
    },
  };
  return t;
}

