// The spec's local plugin handshake (sections 4 and 9) with every interval counted, not waited for: online check
// (10 s timeout), wake through the custom protocol 5 times at 1 s then the browser, connection retries every 2 s up
// to 60, login before the operation, heartbeat every 40 s, and the agent's pushes.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { AGENT_TIMING, AgentClient, AgentError, lostJobs, type AgentDeps, type AgentJob, type SocketLike } from './agent-client.ts';

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

function harness(opts: { online?: (call: number) => boolean; socket?: (attempt: number) => FakeSocket; fetch?: typeof fetch; extra?: Partial<AgentDeps> } = {}) {
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
    ...opts.extra,
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
    await vi.waitFor(() => expect(h.client.getSnapshot()).toMatchObject({ status: 'lost', jobs: [{ id: 'j1' }] }));
  });
});

const JOB = { createdAt: 1, files: 1, done: 0, failed: 0, bytes: 100, bytesDone: 40, speed: 0, target: '/', failures: [] };
const DOWN: AgentJob = { ...JOB, id: 'd1', kind: 'download', name: 'big.bin', state: 'running', instanceIds: ['i1'] };
const UP: AgentJob = { ...JOB, id: 'u1', kind: 'upload', name: 'up.bin', state: 'paused', parentId: 'p1', conflict: 'newVersion' };
const DONE: AgentJob = { ...JOB, id: 'x1', kind: 'download', name: 'old.bin', state: 'done', instanceIds: ['i2'] };
/** A view from an agent before the continuation fields: nothing to continue it with. */
const OLD: AgentJob = { ...JOB, id: 'o1', kind: 'download', name: 'older.bin', state: 'running' };
const loginWith = (jobs: AgentJob[]) => ({ resultCode: 0, data: { ...LOGIN_OK.data, jobs } });

/** Sleeps that end when the test says so: the retry loop waits between tries until then. */
function manualSleep() {
  const waiting: Array<() => void> = [];
  return {
    sleep: (ms: number) => new Promise<void>((resolve) => waiting.push(() => resolve(void ms))),
    get waiting() {
      return waiting.length;
    },
    next() {
      waiting.shift()?.();
    },
  };
}

describe('losing the agent', () => {
  it('a killed agent (socket closed, online check refused) is lost at once; its unfinished, continuable jobs are offered', async () => {
    let alive = true;
    const clock = manualSleep();
    const h = harness({
      online: () => alive,
      socket: () => goodSocket((m) => (m.type === 'login' ? loginWith([DOWN, UP, DONE, OLD]) : { resultCode: 0 })),
      extra: { sleep: clock.sleep },
    });
    await h.client.request({ type: 'jobs' });
    expect(lostJobs(h.client.getSnapshot())).toEqual([]);
    alive = false;
    h.sockets[0]!.close();
    // Lost after the first retry's online check: not after two minutes of tries.
    await vi.waitFor(() => expect(clock.waiting).toBe(1));
    expect(h.client.getSnapshot().status).toBe('lost');
    expect(lostJobs(h.client.getSnapshot()).map((j) => j.id)).toEqual(['d1', 'u1']);
  });

  it('an agent that comes back before the user chose reattaches, and the lost state clears', async () => {
    let alive = true;
    let checks = 0;
    const clock = manualSleep();
    const h = harness({
      online: () => {
        checks++;
        return alive;
      },
      socket: () => goodSocket((m) => (m.type === 'login' ? loginWith([{ ...DOWN, bytesDone: 70 }]) : { resultCode: 0 })),
      extra: { sleep: clock.sleep },
    });
    await h.client.request({ type: 'jobs' });
    alive = false;
    const before = checks;
    h.sockets[0]!.close();
    await vi.waitFor(() => expect(clock.waiting).toBe(1));
    expect(h.client.getSnapshot().status).toBe('lost');
    expect(checks).toBe(before + 1);
    alive = true;
    clock.next();
    await vi.waitFor(() => expect(h.client.getSnapshot().status).toBe('online'));
    expect(h.sockets).toHaveLength(2);
    expect(lostJobs(h.client.getSnapshot())).toEqual([]);
    expect(h.client.getSnapshot().jobs).toMatchObject([{ id: 'd1', bytesDone: 70 }]);
  });

  it('a socket that cannot be reopened while the agent still answers is lost after the 60 tries', async () => {
    const h = harness({
      online: () => true,
      socket: (n) => {
        if (n === 1) return goodSocket((m) => (m.type === 'login' ? loginWith([DOWN]) : { resultCode: 0 }));
        const s = new FakeSocket();
        queueMicrotask(() => s.fail());
        return s;
      },
    });
    await h.client.request({ type: 'jobs' });
    h.sockets[0]!.close();
    expect(h.client.getSnapshot().status).toBe('reconnecting');
    await vi.waitFor(() => expect(h.client.getSnapshot().status).toBe('lost'));
    expect(h.attempts).toBe(1 + AGENT_TIMING.connectTries);
    expect(h.logs).toEqual([`local transfer plugin: no connection after ${AGENT_TIMING.connectTries} attempts`]);
    expect(lostJobs(h.client.getSnapshot()).map((j) => j.id)).toEqual(['d1']);
  });

  it('a returning agent that refuses the pairing leaves the jobs lost, without two minutes of tries', async () => {
    const h = harness({
      online: () => true,
      socket: (n) => goodSocket((m) => (m.type !== 'login' ? { resultCode: 0 } : n === 1 ? loginWith([DOWN]) : { resultCode: 3, code: 'UNAUTHENTICATED' })),
    });
    await h.client.request({ type: 'jobs' });
    h.sockets[0]!.close();
    await vi.waitFor(() => expect(h.client.getSnapshot().status).toBe('lost'));
    expect(h.attempts).toBe(2);
    expect(h.logs).toEqual([]);
    expect(lostJobs(h.client.getSnapshot()).map((j) => j.id)).toEqual(['d1']);
  });

  it('a heartbeat left unanswered for a whole interval counts as a dropped connection', async () => {
    let alive = true;
    const h = harness({
      online: () => alive,
      socket: () => goodSocket((m) => (m.type === 'login' ? loginWith([DOWN]) : m.type === 'heartBeat' ? undefined : { resultCode: 0 })),
    });
    await h.client.request({ type: 'jobs' });
    alive = false;
    h.intervals[0]!.fn();
    expect(h.client.getSnapshot().status).toBe('online');
    h.intervals[0]!.fn();
    await vi.waitFor(() => expect(h.client.getSnapshot().status).toBe('lost'));
    expect(lostJobs(h.client.getSnapshot()).map((j) => j.id)).toEqual(['d1']);
  });

  it('a failed wake while lost keeps the lost jobs offered', async () => {
    let alive = true;
    const h = harness({ online: () => alive, socket: () => goodSocket((m) => (m.type === 'login' ? loginWith([DOWN]) : { resultCode: 0 })) });
    await h.client.request({ type: 'jobs' });
    alive = false;
    h.sockets[0]!.close();
    await vi.waitFor(() => expect(h.client.getSnapshot().status).toBe('lost'));
    expect(await h.client.available()).toBe(false);
    expect(h.client.getSnapshot().status).toBe('lost');
    expect(lostJobs(h.client.getSnapshot()).map((j) => j.id)).toEqual(['d1']);
  });

  it('a job taken over by the browser leaves the list and is deleted from the agent when it comes back', async () => {
    let alive = true;
    let saved: string[] = [];
    const clock = manualSleep();
    const h = harness({
      online: () => alive,
      socket: () => goodSocket((m) => (m.type === 'login' ? loginWith([DOWN, UP]) : { resultCode: 0 })),
      extra: { sleep: clock.sleep, takenOver: { load: () => saved, save: (ids) => void (saved = ids) } },
    });
    await h.client.request({ type: 'jobs' });
    alive = false;
    h.sockets[0]!.close();
    await vi.waitFor(() => expect(clock.waiting).toBe(1));
    expect(h.client.getSnapshot().status).toBe('lost');
    h.client.takeOver('d1');
    expect(saved).toEqual(['d1']);
    expect(lostJobs(h.client.getSnapshot()).map((j) => j.id)).toEqual(['u1']);
    alive = true;
    clock.next();
    await vi.waitFor(() => expect(h.client.getSnapshot().status).toBe('online'));
    const back = h.sockets.at(-1)!;
    expect(back.sent.filter((m) => m.type === 'delete')).toMatchObject([{ jobId: 'd1' }]);
    expect(h.client.getSnapshot().jobs.map((j) => j.id)).toEqual(['u1']);
    expect(saved).toEqual([]);
  });
});

describe('agent ports', () => {
  it('checks the plugin port this browser was given and opens the WebSocket its online answer names', async () => {
    const urls: string[] = [];
    const h = harness({
      fetch: (async (url: string) => {
        urls.push(url);
        return new Response(JSON.stringify({ resultCode: 0, data: { wsPort: 18801 } }), { status: 200 });
      }) as unknown as typeof fetch,
      socket: () => goodSocket(),
      extra: { pluginPort: () => 18756, openSocket: (url) => (urls.push(url), goodSocket()) },
    });
    expect(await h.client.available()).toBe(true);
    expect(urls).toEqual(['http://127.0.0.1:18756/api/isAppOnline', 'ws://127.0.0.1:18801']);
  });

  it('keeps the spec ports by default', async () => {
    const urls: string[] = [];
    const h = harness({
      fetch: (async (url: string) => (urls.push(url), new Response(JSON.stringify({ resultCode: 0 }), { status: 200 }))) as unknown as typeof fetch,
      extra: { openSocket: (url) => (urls.push(url), goodSocket()) },
    });
    expect(await h.client.available()).toBe(true);
    expect(urls).toEqual(['http://127.0.0.1:8756/api/isAppOnline', 'ws://127.0.0.1:8801']);
  });
});
