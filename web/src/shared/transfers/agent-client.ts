// The web side of the local transfer plugin (`drive agent`, spec 4 "Local plugin handshake", 7 "Static and local",
// 9 constants): check the plugin is online (10 s timeout); if not, wake it through the custom protocol up to 5 times
// at 1 s intervals and give up (the caller falls back to the browser); connect the WebSocket, retrying every 2 s up to
// 60 times before logging the failure; send login (a pairing token from the signed-in session), then the operation;
// every reply carries resultCode (0 = success); a heartbeat every 40 s. The agent pushes its jobs' progress and,
// when its own server session ended, a getToken the client answers with a fresh pairing token.
// A connection that drops (or a heartbeat left unanswered until the next one) is retried on the same 2 s / 60 rule;
// the agent counts as lost once those tries are spent or as soon as its online check fails (the process is gone),
// and its unfinished jobs may then be continued in the browser. Tries go on while lost, so an agent that comes back
// in time reattaches and the lost state clears; jobs the browser took over are deleted from it then.
// Framework-free (clock, fetch, WebSocket and the wake are injected) so every interval is testable without waiting.

import type { JobState, JobView } from '@hcs/transfer-core';

export const AGENT_TIMING = {
  pluginPort: 8756,
  wsPort: 8801,
  clientPort: 8754,
  heartbeatMs: 40_000,
  onlineTimeoutMs: 10_000,
  wakeTries: 5,
  wakeIntervalMs: 1000,
  connectTries: 60,
  connectIntervalMs: 2000,
  wakeInfoMs: 4000,
} as const;

/** The custom URL scheme `drive agent install` registers (hcs-drive-agent.desktop). */
export const WAKE_URL = 'hcs-drive://wake';

/** A transfer running in the agent, as it reports it (the shared wire protocol's JobView). */
export type AgentJob = JobView;
export type AgentJobState = JobState;

export interface AgentInfo {
  userName: string;
  downloadDir: string;
  /** The agent's native file picker, or null: then the user types paths inside `roots`. */
  picker: string | null;
  roots: string[];
}

/** A refused request: the agent's resultCode and code (locale key transfer.agent.code.<code> when known). */
export class AgentError extends Error {
  readonly resultCode: number;
  readonly code: string;
  constructor(resultCode: number, code: string, message: string) {
    super(message);
    this.name = 'AgentError';
    this.resultCode = resultCode;
    this.code = code;
  }
}

export interface SocketLike {
  readonly readyState: number;
  send(data: string): void;
  close(): void;
  onopen: ((ev: unknown) => void) | null;
  onclose: ((ev: unknown) => void) | null;
  onerror: ((ev: unknown) => void) | null;
  onmessage: ((ev: { data: unknown }) => void) | null;
}

export interface AgentDeps {
  fetch: typeof fetch;
  openSocket(url: string): SocketLike;
  /** Opens the custom protocol once (a hidden frame in the browser). */
  wake(): void;
  sleep(ms: number): Promise<void>;
  setInterval(fn: () => void, ms: number): unknown;
  clearInterval(handle: unknown): void;
  /** A fresh pairing token from the signed-in session (issueAgentPairingToken). */
  pairingToken(): Promise<string>;
  /** Shows an info message for `ms` (the 'wake up plugin' info, 4 s). */
  info(key: string, ms: number): void;
  log(message: string): void;
  host?: string;
  /** The plugin's HTTP port (8756 unless this browser was told otherwise); the WebSocket's comes from its online answer. */
  pluginPort?(): number;
  /** Jobs this browser took over after losing the agent, kept across reloads. */
  takenOver?: { load(): string[]; save(ids: string[]): void };
}

/** The agent's jobs a page that lost it may continue in the browser: everything not finished. */
export function lostJobs(snap: AgentSnapshot): AgentJob[] {
  if (snap.status !== 'lost') return [];
  return snap.jobs.filter((j) => j.state !== 'done' && j.state !== 'deleted' && (j.kind === 'download' ? !!j.instanceIds?.length : !!j.parentId));
}

export type AgentStatus = 'unknown' | 'offline' | 'connecting' | 'online' | 'reconnecting' | 'lost';

export interface AgentSnapshot {
  status: AgentStatus;
  jobs: readonly AgentJob[];
  info: AgentInfo | null;
}

const OPEN = 1;

export class AgentClient {
  private readonly deps: AgentDeps;
  private readonly host: string;
  private socket: SocketLike | null = null;
  private connecting: Promise<SocketLike> | null = null;
  private heartbeat: unknown = null;
  private n = 0;
  private readonly pending = new Map<string, { resolve: (data: unknown) => void; reject: (err: Error) => void }>();
  private readonly jobs = new Map<string, AgentJob>();
  private readonly listeners = new Set<() => void>();
  private snapshot: AgentSnapshot = { status: 'unknown', jobs: [], info: null };
  private info: AgentInfo | null = null;
  private status: AgentStatus = 'unknown';
  private wsPort: number = AGENT_TIMING.wsPort;
  /** Bumped by reset(): a recovery loop of an older connection stops. */
  private epoch = 0;
  /** The heartbeat sent last is still unanswered. */
  private beatPending = false;

  constructor(deps: AgentDeps) {
    this.deps = deps;
    this.host = deps.host ?? '127.0.0.1';
  }

  subscribe = (fn: () => void): (() => void) => {
    this.listeners.add(fn);
    return () => this.listeners.delete(fn);
  };

  getSnapshot = (): AgentSnapshot => this.snapshot;

  private changed(): void {
    const jobs = [...this.jobs.values()].sort((a, b) => b.createdAt - a.createdAt);
    this.snapshot = { status: this.status, jobs, info: this.info };
    for (const l of this.listeners) l();
  }

  private setStatus(s: AgentStatus): void {
    // A failed wake or connection after the agent was lost leaves it lost: its jobs may still go on in the browser.
    if (s === 'offline' && this.status === 'lost') return;
    if (this.status === s) return;
    this.status = s;
    this.changed();
  }

  /** GET api/isAppOnline, answered within the online-check timeout. */
  async isOnline(): Promise<boolean> {
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(), AGENT_TIMING.onlineTimeoutMs);
    try {
      const port = this.deps.pluginPort?.() ?? AGENT_TIMING.pluginPort;
      const res = await this.deps.fetch(`http://${this.host}:${port}/api/isAppOnline`, { signal: controller.signal, cache: 'no-store' });
      if (!res.ok) return false;
      const body = (await res.json()) as { resultCode?: number; data?: { wsPort?: unknown } };
      const ws = body.data?.wsPort;
      if (typeof ws === 'number' && Number.isInteger(ws) && ws > 0 && ws < 65536) this.wsPort = ws;
      return body.resultCode === 0;
    } catch {
      return false;
    } finally {
      clearTimeout(timer);
    }
  }

  /** Online, or woken through the custom protocol (5 tries, 1 s apart); false means: use the browser. */
  async ensureOnline(): Promise<boolean> {
    if (this.socket?.readyState === OPEN) return true;
    if (await this.isOnline()) return true;
    this.deps.info('transfer.agent.waking', AGENT_TIMING.wakeInfoMs);
    for (let i = 0; i < AGENT_TIMING.wakeTries; i++) {
      this.deps.wake();
      await this.deps.sleep(AGENT_TIMING.wakeIntervalMs);
      if (await this.isOnline()) return true;
    }
    this.setStatus('offline');
    return false;
  }

  /** The logged-in connection: connects (2 s retries, 60 tries) and sends login first. */
  private session(): Promise<SocketLike> {
    if (this.socket?.readyState === OPEN) return Promise.resolve(this.socket);
    this.connecting ??= this.connect().finally(() => {
      this.connecting = null;
    });
    return this.connecting;
  }

  /** One connection and login; the jobs the agent lists replace the ones shown. */
  private async attach(): Promise<SocketLike> {
    const ws = await this.open();
    this.socket = ws;
    const data = (await this.send(ws, { type: 'login', token: await this.deps.pairingToken() })) as AgentInfo & { jobs: AgentJob[] };
    this.info = { userName: data.userName, downloadDir: data.downloadDir, picker: data.picker, roots: data.roots };
    this.jobs.clear();
    const taken = new Set(this.deps.takenOver?.load() ?? []);
    for (const j of data.jobs) {
      // The browser carries this one on now: the agent must not send it a second time.
      if (taken.has(j.id)) void this.send(ws, { type: 'delete', jobId: j.id }).catch(() => undefined);
      else this.jobs.set(j.id, j);
    }
    if (taken.size > 0) this.deps.takenOver?.save([]);
    this.startHeartbeat(ws);
    this.setStatus('online');
    this.changed();
    return ws;
  }

  private async connect(): Promise<SocketLike> {
    if (this.status !== 'lost') this.setStatus('connecting');
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.attach();
      } catch (err) {
        if (err instanceof AgentError) {
          this.socket?.close();
          this.socket = null;
          this.setStatus('offline');
          throw err;
        }
        if (attempt >= AGENT_TIMING.connectTries) {
          this.deps.log(`local transfer plugin: no connection after ${attempt} attempts`);
          this.setStatus('offline');
          throw new AgentError(-1, 'UNREACHABLE', 'the local transfer plugin cannot be reached');
        }
        await this.deps.sleep(AGENT_TIMING.connectIntervalMs);
      }
    }
  }

  private open(): Promise<SocketLike> {
    return new Promise((resolve, reject) => {
      const ws = this.deps.openSocket(`ws://${this.host}:${this.wsPort}`);
      ws.onopen = () => resolve(ws);
      ws.onerror = () => reject(new Error('connection failed'));
      ws.onclose = () => {
        reject(new Error('connection closed'));
        this.lost(ws);
      };
      ws.onmessage = (ev) => this.onMessage(ev.data);
    });
  }

  private startHeartbeat(ws: SocketLike): void {
    if (this.heartbeat !== null) this.deps.clearInterval(this.heartbeat);
    this.beatPending = false;
    this.heartbeat = this.deps.setInterval(() => {
      // A whole interval without an answer: the agent hangs (or the socket is dead without a close event).
      if (this.beatPending || ws.readyState !== OPEN) {
        ws.close();
        this.lost(ws);
        return;
      }
      this.beatPending = true;
      void this.send(ws, { type: 'heartBeat' }).then(
        () => void (this.beatPending = false),
        () => undefined,
      );
    }, AGENT_TIMING.heartbeatMs);
  }

  /** The connection dropped: its jobs stay listed while the connection is retried. */
  private lost(ws: SocketLike): void {
    if (this.socket !== ws) return;
    this.socket = null;
    if (this.heartbeat !== null) this.deps.clearInterval(this.heartbeat);
    this.heartbeat = null;
    for (const p of this.pending.values()) p.reject(new Error('connection closed'));
    this.pending.clear();
    // A try that fails during login is retried by the loop that made it.
    if (this.status !== 'online') return;
    this.setStatus('reconnecting');
    void this.recover(this.epoch);
  }

  /**
   * The spec's retries (every 2 s, 60 times) after a drop. An agent whose online check fails is gone (killed, or its
   * machine's ports closed): lost at once rather than after two minutes, while the tries go on to reattach it.
   */
  private async recover(epoch: number): Promise<void> {
    const stale = () => epoch !== this.epoch || this.socket !== null || this.connecting !== null;
    for (let attempt = 1; attempt <= AGENT_TIMING.connectTries; attempt++) {
      if (stale()) return;
      if (await this.isOnline()) {
        if (stale()) return;
        // Requests made meanwhile wait for this try rather than opening a second connection.
        const trying = this.attach();
        this.connecting = trying;
        try {
          await trying;
          return;
        } catch (err) {
          this.socket?.close();
          this.socket = null;
          // A refused pairing is not retried (as in connect()): the user signs in again, then reconnects.
          if (err instanceof AgentError) {
            this.setStatus('lost');
            return;
          }
        } finally {
          this.connecting = null;
        }
      } else this.setStatus('lost');
      if (attempt < AGENT_TIMING.connectTries) await this.deps.sleep(AGENT_TIMING.connectIntervalMs);
    }
    if (epoch !== this.epoch || this.socket) return;
    this.deps.log(`local transfer plugin: no connection after ${AGENT_TIMING.connectTries} attempts`);
    this.setStatus('lost');
  }

  /** The user continues this job in the browser: it leaves the list, and the agent deletes it once it is back. */
  takeOver(jobId: string): void {
    if (!this.jobs.delete(jobId)) return;
    const ids = new Set(this.deps.takenOver?.load() ?? []);
    ids.add(jobId);
    this.deps.takenOver?.save([...ids]);
    this.changed();
  }

  private send(ws: SocketLike, msg: Record<string, unknown>): Promise<unknown> {
    const reqId = `w${++this.n}`;
    return new Promise((resolve, reject) => {
      this.pending.set(reqId, { resolve, reject });
      ws.send(JSON.stringify({ ...msg, reqId }));
    });
  }

  private onMessage(raw: unknown): void {
    let m: { type?: string; reqId?: string; resultCode?: number; code?: string; msg?: string; data?: unknown };
    try {
      m = JSON.parse(String(raw)) as typeof m;
    } catch {
      return;
    }
    if (m.reqId && this.pending.has(m.reqId)) {
      const p = this.pending.get(m.reqId)!;
      this.pending.delete(m.reqId);
      if (m.resultCode === 0) p.resolve(m.data);
      else p.reject(new AgentError(m.resultCode ?? -1, m.code ?? 'ERROR', m.msg ?? ''));
      return;
    }
    if (m.type === 'job' && m.data && typeof m.data === 'object') {
      const job = m.data as AgentJob;
      if (job.state === 'deleted') this.jobs.delete(job.id);
      else this.jobs.set(job.id, job);
      this.changed();
    } else if (m.type === 'getToken' && this.socket) {
      // The agent's own session ended: a fresh pairing token lets its waiting transfers go on.
      const ws = this.socket;
      void this.deps
        .pairingToken()
        .then((token) => this.send(ws, { type: 'getToken', token }))
        .catch((err: unknown) => this.deps.log(`local transfer plugin: re-pairing failed: ${String(err)}`));
    }
  }

  /** Sends an operation after the handshake (online, login); AgentError when the agent refuses it. */
  async request<T = unknown>(msg: Record<string, unknown>): Promise<T> {
    const ws = await this.session();
    return (await this.send(ws, msg)) as T;
  }

  /** Connects if the agent is (or can be woken) online; false when the browser must do it. */
  async available(): Promise<boolean> {
    if (!(await this.ensureOnline())) return false;
    try {
      await this.session();
      return true;
    } catch {
      return false;
    }
  }

  /** Reconnects quietly when the agent is online (a reopened tab sees its transfers again); no waking. */
  async reattach(): Promise<void> {
    if (this.socket || !(await this.isOnline())) return;
    await this.session().catch(() => undefined);
  }

  get agentInfo(): AgentInfo | null {
    return this.info;
  }

  /** libCode and instanceType only come back in the job's view, for a browser that has to carry the upload on. */
  upload(target: { parentId: string; to: string; libCode?: string; instanceType?: string }, source: { pick: 'files' | 'folder' } | { paths: string[] }): Promise<{ job: AgentJob }> {
    const extra = { ...(target.libCode ? { libCode: target.libCode } : {}), ...(target.instanceType ? { instanceType: target.instanceType } : {}) };
    return this.request({ type: 'upload', parentId: target.parentId, to: target.to, ...extra, ...source });
  }

  download(instanceIds: string[]): Promise<{ job: AgentJob }> {
    return this.request({ type: 'download', instanceIds });
  }

  control(type: 'pause' | 'resume' | 'delete', jobId: string): Promise<unknown> {
    return this.request({ type, jobId });
  }

  /** Sign-out or user change: forget the connection and the jobs shown. */
  reset(): void {
    this.epoch++;
    const ws = this.socket;
    this.socket = null;
    ws?.close();
    if (this.heartbeat !== null) this.deps.clearInterval(this.heartbeat);
    this.heartbeat = null;
    this.jobs.clear();
    this.info = null;
    this.status = 'unknown';
    this.changed();
  }
}
