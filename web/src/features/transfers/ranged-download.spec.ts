import { describe, expect, it } from 'vitest';
import { rangedDownload } from './ranged-download.ts';

async function sha256(b: Uint8Array<ArrayBuffer>): Promise<string> {
  const d = new Uint8Array(await crypto.subtle.digest('SHA-256', b));
  return Array.from(d, (x) => x.toString(16).padStart(2, '0')).join('');
}

function storage(content: Uint8Array, opts: { failFirst?: boolean } = {}) {
  let failed = false;
  const calls: string[] = [];
  const fetchImpl = (async (_url: string, init?: RequestInit) => {
    const range = new Headers(init?.headers).get('Range')!;
    calls.push(range);
    if (opts.failFirst && !failed) {
      failed = true;
      throw new TypeError('network');
    }
    const [, a, b] = /bytes=(\d+)-(\d+)/.exec(range)!;
    return new Response(content.slice(Number(a), Number(b) + 1), { status: 206 });
  }) as unknown as typeof fetch;
  return { fetchImpl, calls };
}

function sink() {
  const out = new Uint8Array(1000);
  const state = { closed: false, aborted: false, length: 0 };
  const writable = {
    write: async (c: { position: number; data: Uint8Array }) => {
      out.set(c.data, c.position);
      state.length = Math.max(state.length, c.position + c.data.length);
    },
    close: async () => void (state.closed = true),
    abort: async () => void (state.aborted = true),
  } as unknown as FileSystemWritableFileStream;
  return { writable, bytes: () => out.slice(0, state.length), state };
}

describe('rangedDownload', () => {
  const content = Uint8Array.from({ length: 950 }, (_, i) => (i * 7) % 251);

  it('fetches ranged parts, writes them in place and keeps the file when the hash matches', async () => {
    const { fetchImpl, calls } = storage(content, { failFirst: true });
    const s = sink();
    await rangedDownload({ url: 'u', size: 950, sha256: await sha256(content), writable: s.writable, signal: new AbortController().signal, fetchImpl, partSize: 100 });
    expect(s.state.closed).toBe(true);
    expect(s.bytes()).toEqual(content);
    expect(calls).toContain('bytes=900-949');
  });

  it('discards the file when the content does not match the server hash', async () => {
    const { fetchImpl } = storage(content);
    const s = sink();
    await expect(
      rangedDownload({ url: 'u', size: 950, sha256: '0'.repeat(64), writable: s.writable, signal: new AbortController().signal, fetchImpl, partSize: 100 }),
    ).rejects.toMatchObject({ code: '202' });
    expect(s.state).toMatchObject({ closed: false, aborted: true });
  });
});
