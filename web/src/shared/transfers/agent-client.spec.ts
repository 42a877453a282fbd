// The spec's local plugin handshake (sections 4 and 9) with every interval counted, not waited for: online check
// (10 s timeout), wake through the custom protocol 5 times at 1 s then the browser, connection retries every 2 s up
// to 60, login before the operation, heartbeat every 40 s, and the agent's pushes.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { AGENT_TIMING, AgentClient, AgentError, type AgentDeps, type SocketLike } from './agent-client.ts';

class FakeSocket implements SocketLike {
  readyState = 0;
  sent: Array<Record<string, unknown>> = [];
  onopen: ((ev: unknown) => void) | null = null;
  onclose: ((ev: unknown) => void) | null = null;
  onerror: ((ev: unknown) => void) | null = null;
  onmessage: ((ev: { data: unknown }) => void) | null = null;
  /** Answers each request; undefined = no answer. */
  answer: (m: Record<string, unknown>) => Record<string, unknown> | undefined = () => undefined;
  send(data: string): void {
    const m = JSON.parse(data) as Record<string, unknown>;
    this.sent.push(m);
    const reply = this.answer(m);
    if (reply) queueMicrotask(() => this.push({ type: m.type, reqId: m.reqId, ...reply }));
  }
  close(): void {
    this.readyState = 3;
    this.onclose?.({});
  }
  open(): void {
    this.readyState = 1;
    this.onopen?.({});
  }
  fail(): void {
    this.onerror?.({});
    this.readyState = 3;
    this.onclose?.({});
  }
  push(m: Record<string, unknown>): void {
    this.onmessage?.({ data: JSON.stringify(m) });
  }
}

const LOGIN_OK = { resultCode: 0, data: { userName: 'admin', downloadDir: '/d', picker: 'zenity', roots: [], jobs: [] } };

function harness(opts: { online?: (call: number) => boolean; socket?: (attempt: number) => FakeSocket; fetch?: typeof fetch } = {}) {
  const sleeps: number[] = [];
  const intervals: Array<{ fn: () => void; ms: number }> = [];
  const info: Array<[string, number]> = [];
  const logs: string[] = [];
  let wakes = 0;
  let onlineCalls = 0;
  let attempts = 0;
  let tokens = 0;
  const sockets: FakeSocket[] = [];
  const deps: AgentDeps = {
    fetch:
      opts.fetch ??
      ((async () => {
      const ok = opts.online?.(++onlineCalls) ?? false;
      if (!ok) throw new TypeError('Failed to fetch');
      return new Response(JSON.stringify({ resultCode: 0 }), { status: 200 });
    }) as typeof fetch),
    openSocket: () => {
      const s = opts.socket?.(++attempts) ?? new FakeSocket();
      sockets.push(s);
      return s;
    },
    wake: () => void wakes++,
    sleep: async (ms) => void sleeps.push(ms),
    setInterval: (fn, ms) => intervals.push({ fn, ms }),
    clearInterval: () => undefined,
    pairingToken: async () => `token-${++tokens}`,
    info: (key, ms) => void info.push([key, ms]),
    log: (m) => void logs.push(m),
  };
  return {
    client: new AgentClient(deps),
    sleeps,
    intervals,
    info,
    logs,
    sockets,
    get wakes() {
      return wakes;
    },
    get onlineCalls() {
      return onlineCalls;
    },
    get attempts() {
      return attempts;
    },
  };
}

/** A socket that opens at once and answers login and the operations. */
function goodSocket(answer?: FakeSocket['answer']): FakeSocket {
  const s = new FakeSocket();
  s.answer = answer ?? ((m) => (m.type === 'login' ? LOGIN_OK : { resultCode: 0, data: { ok: true } }));
  queueMicrotask(() => s.open());
  return s;
}

afterEach(() => {
  vi.useRealTimers();
});

describe('agent handshake', () => {
  it('uses an online agent without waking it', async () => {
    const h = harness({ online: () => true });
    expect(await h.client.ensureOnline()).toBe(true);
    expect(h.wakes).toBe(0);
    expect(h.info).toEqual([]);
  });

  it('wakes an offline agent through the custom protocol 5 times at 1 s, with the 4 s info, then falls back', async () => {
    const h = harness({ online: () => false });
    expect(await h.client.ensureOnline()).toBe(false);
    expect(h.wakes).toBe(5);
    expect(h.sleeps).toEqual([1000, 1000, 1000, 1000, 1000]);
    expect(h.onlineCalls).toBe(6);
    expect(h.info).toEqual([['transfer.agent.waking', 4000]]);
    expect(h.client.getSnapshot().status).toBe('offline');
  });

  it('stops waking as soon as the agent answers', async () => {
    const h = harness({ online: (n) => n >= 3 });
    expect(await h.client.ensureOnline()).toBe(true);
    expect(h.wakes).toBe(2);
  });

  it('gives the online check 10 s', async () => {
    vi.useFakeTimers();
    let aborted = false;
    const { client } = harness({
      fetch: ((_url: string, init: RequestInit) =>
        new Promise((_resolve, reject) => {
          init.signal!.addEventListener('abort', () => {
            aborted = true;
            reject(new DOMException('aborted', 'AbortError'));
          });
        })) as unknown as typeof fetch,
    });
    const result = client.isOnline();
    await vi.advanceTimersByTimeAsync(AGENT_TIMING.onlineTimeoutMs - 1);
    expect(aborted).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    expect(await result).toBe(false);
    expect(aborted).toBe(true);
  });

  it('retries the connection every 2 s, 60 times, then logs the failure', async () => {
    const h = harness({
      socket: () => {
        const s = new FakeSocket();
        queueMicrotask(() => s.fail());
        return s;
      },
    });
    await expect(h.client.request({ type: 'jobs' })).rejects.toMatchObject({ code: 'UNREACHABLE' });
    expect(h.attempts).toBe(60);
    expect(h.sleeps).toEqual(Array(59).fill(2000));
    expect(h.logs).toEqual(['local transfer plugin: no connection after 60 attempts']);
  });

  it('connects after a few failed attempts', async () => {
    const h = harness({
      socket: (n) => {
        if (n >= 3) return goodSocket();
        const s = new FakeSocket();
        queueMicrotask(() => s.fail());
        return s;
      },
    });
    expect(await h.client.request({ type: 'jobs' })).toEqual({ ok: true });
    expect(h.attempts).toBe(3);
    expect(h.sleeps).toEqual([2000, 2000]);
  });

  it('sends login with a pairing token, then the operation, and beats every 40 s', async () => {
    const h = harness({ socket: () => goodSocket() });
    await h.client.upload({ parentId: 'p1', to: '/docs' }, { pick: 'files' });
    const sock = h.sockets[0]!;
    expect(sock.sent.map((m) => m.type)).toEqual(['login', 'upload']);
    expect(sock.sent[0]).toMatchObject({ token: 'token-1' });
    expect(sock.sent[1]).toMatchObject({ parentId: 'p1', to: '/docs', pick: 'files' });
    expect(h.intervals.map((i) => i.ms)).toEqual([AGENT_TIMING.heartbeatMs]);
    h.intervals[0]!.fn();
    expect(sock.sent.at(-1)).toMatchObject({ type: 'heartBeat' });
    expect(h.client.getSnapshot()).toMatchObject({ status: 'online', info: { userName: 'admin', picker: 'zenity' } });
    // One connection serves the next operation: no second login.
    await h.client.download(['i1']);
    expect(sock.sent.filter((m) => m.type === 'login')).toHaveLength(1);
  });

  it('turns a refusal into an AgentError with its code', async () => {
    const h = harness({ socket: () => goodSocket((m) => (m.type === 'login' ? LOGIN_OK : { resultCode: 4, code: 'PATH_REFUSED', msg: 'outside' })) });
    const err = await h.client.upload({ parentId: 'p', to: '/' }, { paths: ['/etc/passwd'] }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(AgentError);
    expect(err).toMatchObject({ resultCode: 4, code: 'PATH_REFUSED' });
  });

  it('does not retry a refused pairing', async () => {
    const h = harness({ socket: () => goodSocket((m) => (m.type === 'login' ? { resultCode: 3, code: 'UNAUTHENTICATED' } : undefined)) });
    await expect(h.client.request({ type: 'jobs' })).rejects.toMatchObject({ resultCode: 3 });
    expect(h.attempts).toBe(1);
  });

  it('follows the pushed jobs, answers getToken with a fresh pairing token, and shows a lost connection', async () => {
    const h = harness({ socket: () => goodSocket() });
    await h.client.request({ type: 'jobs' });
    const sock = h.sockets[0]!;
    const job = { id: 'j1', kind: 'upload', name: 'big.bin', state: 'running', bytes: 100, bytesDone: 40, createdAt: 1, failures: [] };
    sock.push({ type: 'job', resultCode: 0, data: job });
    expect(h.client.getSnapshot().jobs).toMatchObject([{ id: 'j1', bytesDone: 40 }]);
    sock.push({ type: 'getToken', resultCode: 0, code: 'SESSION_ENDED' });
    await vi.waitFor(() => expect(sock.sent.at(-1)).toMatchObject({ type: 'getToken', token: 'token-2' }));
    sock.push({ type: 'job', resultCode: 0, data: { ...job, state: 'deleted' } });
    expect(h.client.getSnapshot().jobs).toEqual([]);
    sock.push({ type: 'job', resultCode: 0, data: job });
    sock.close();
    expect(h.client.getSnapshot()).toMatchObject({ status: 'lost', jobs: [{ id: 'j1' }] });
  });
});
