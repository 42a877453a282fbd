// `drive agent`: the spec's local transfer plugin and desktop client, served on 127.0.0.1 only.
//  - plugin:  GET http://127.0.0.1:8756/api/isAppOnline, and the WebSocket on 127.0.0.1:8801 (see protocol.ts);
//  - desktop client: GET http://127.0.0.1:8754/isAppInstalled and /isAppOnline.
// Every HTTP request and WebSocket handshake must come from the drive's origin on a loopback Host (guard.ts), and
// every WebSocket connection must then pair with a token the drive's server issued to a signed-in user
// (session.ts) before it may start, list or control anything; it only ever sees its own user's jobs.
import { stat } from 'node:fs/promises';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocketServer, WebSocket, type RawData } from 'ws';
import type { Api } from '../api.ts';
import { guardHttp, hostAllowed, originAllowed } from './guard.ts';
import { JobManager, jobName } from './jobs.ts';
import { pick, type PickerName } from './picker.ts';
import { parseMessage, ProtocolError, reqIdOf, RESULT, type Reply, type Request } from './protocol.ts';
import { checkTypedPath } from './roots.ts';
import { AgentSession, protocolErrorOf } from './session.ts';

export const AGENT_VERSION = '0.1.0';
export const DEFAULT_PORTS = { plugin: 8756, ws: 8801, client: 8754 } as const;
const HOST = '127.0.0.1';
/** Messages are small JSON; 64 KiB holds 500 long paths. */
const MAX_MESSAGE_BYTES = 64 * 1024;
/** Refused pairings one connection may try before it is closed. */
const MAX_PAIRING_FAILURES = 5;

export interface AgentOptions {
  server: string;
  /** The drive's origins the web app may come from (allowedOrigins). */
  origins: ReadonlySet<string>;
  ports: { plugin: number; ws: number; client: number };
  stateDir: string;
  /** agent-auth.json */
  authPath: string;
  downloadDir: string;
  /** Real paths of the folders typed paths may name. */
  roots: readonly string[];
  picker: PickerName | null;
  concurrency: number;
  env: NodeJS.ProcessEnv;
  fetch?: typeof fetch;
  log(event: Record<string, unknown>): void;
}

export interface RunningAgent {
  ports: { plugin: number; ws: number; client: number };
  close(): Promise<void>;
}

interface Conn {
  ws: WebSocket;
  userId: string | null;
  userName: string;
  failures: number;
}

function listen(server: Server, port: number): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, HOST, () => {
      server.off('error', reject);
      resolve((server.address() as { port: number }).port);
    });
  });
}

function json(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'Content-Type': 'application/json; charset=utf-8' });
  res.end(JSON.stringify(body));
}

export async function startAgent(opts: AgentOptions): Promise<RunningAgent> {
  const session = new AgentSession({ server: opts.server, path: opts.authPath, stateDir: opts.stateDir, fetch: opts.fetch });
  await session.load();
  const conns = new Set<Conn>();
  const send = (c: Conn, msg: Reply) => {
    if (c.ws.readyState === WebSocket.OPEN) c.ws.send(JSON.stringify(msg));
  };
  const toUser = (userId: string, msg: Reply) => {
    for (const c of conns) if (c.userId === userId) send(c, msg);
  };

  /** The server said the session ended: forget it and ask the user's pages for a new pairing token. */
  const sessionEnded = (userId: string, token: string) =>
    session.dropIfCurrent(token).then(() => toUser(userId, { type: 'getToken', resultCode: RESULT.OK, code: 'SESSION_ENDED', msg: 'the agent needs a new pairing token' }));

  const jobs = new JobManager({
    server: opts.server,
    stateDir: opts.stateDir,
    concurrency: opts.concurrency,
    host: {
      sessionFor: (userId) => session.sessionFor(userId),
      sessionEnded(userId, token) {
        void sessionEnded(userId, token);
      },
      changed: (job, userId) => toUser(userId, { type: 'job', resultCode: RESULT.OK, data: job }),
    },
  });
  await jobs.load();
  // Transfers that were running when the agent stopped go on with the session it kept.
  if (session.user) jobs.wake(session.user.userId);

  let picking = false;
  const chooseFiles = async (kind: 'files' | 'folder'): Promise<string[]> => {
    if (!opts.picker) throw new ProtocolError(RESULT.PICKER, 'PICKER_UNAVAILABLE', 'no native file picker on this machine: type local paths instead');
    if (picking) throw new ProtocolError(RESULT.PICKER, 'PICKER_BUSY', 'a file picker is already open');
    picking = true;
    try {
      return await pick(opts.picker, kind, opts.env);
    } finally {
      picking = false;
    }
  };

  const needToken = () => new ProtocolError(RESULT.NOT_PAIRED, 'SESSION_ENDED', 'the agent needs a new pairing token (send getToken), then the request again');

  /** Runs a server call as the user; a session that ended is dropped and the web asked for a new pairing token. */
  const asUser = async <T>(userId: string, fn: (api: Api) => Promise<T>): Promise<T> => {
    const s = session.sessionFor(userId);
    if (!s) throw needToken();
    try {
      return await fn(s.api);
    } catch (err) {
      const e = protocolErrorOf(err);
      if (e.resultCode !== RESULT.PAIRING_REFUSED) throw e;
      await sessionEnded(userId, s.token);
      throw needToken();
    }
  };

  async function handle(c: Conn, req: Request): Promise<unknown> {
    if (req.type === 'heartBeat') return { time: Date.now() };
    if (req.type === 'login' || req.type === 'getToken') {
      let paired;
      try {
        paired = await session.pair(req.token);
      } catch (err) {
        const e = protocolErrorOf(err);
        if (e.resultCode === RESULT.PAIRING_REFUSED && ++c.failures >= MAX_PAIRING_FAILURES) setImmediate(() => c.ws.close(1008, 'too many refused pairings'));
        throw e;
      }
      const { user, switched } = paired;
      if (switched) {
        // Another user signed in on the web: the previous user's connections and transfers stop until they pair again.
        for (const other of conns) if (other !== c && other.userId !== user.userId) other.userId = null;
        await jobs.suspendAllBut(user.userId);
      }
      c.userId = user.userId;
      c.userName = user.userName;
      jobs.wake(user.userId);
      opts.log({ event: 'paired', userName: user.userName });
      return {
        userId: user.userId,
        userName: user.userName,
        version: AGENT_VERSION,
        downloadDir: opts.downloadDir,
        picker: opts.picker,
        roots: opts.roots,
        jobs: jobs.list(user.userId),
      };
    }
    const userId = c.userId;
    if (!userId) throw new ProtocolError(RESULT.NOT_PAIRED, 'NOT_PAIRED', 'send login with a pairing token first');
    switch (req.type) {
      case 'jobs':
        return { jobs: jobs.list(userId) };
      case 'upload': {
        const sources = req.pick ? await chooseFiles(req.pick) : await Promise.all(req.paths!.map((p) => checkTypedPath(p, opts.roots)));
        const job = await jobs.add({
          kind: 'upload',
          userId,
          userName: c.userName,
          name: jobName(sources),
          upload: {
            sources,
            parentId: req.parentId,
            to: req.to,
            conflict: req.conflict,
            ...(req.libCode ? { libCode: req.libCode } : {}),
            ...(req.instanceType ? { instanceType: req.instanceType } : {}),
            ...(sources.length === 1 && (await stat(sources[0]!)).isDirectory() ? { folder: true } : {}),
          },
        });
        return { job };
      }
      case 'download': {
        // The first item names the job, and a wrong id is refused now rather than as a failed job.
        const first = (await asUser(userId, (api) => api.call((cl) => cl.GET('/hcs/controller/Instances/{id}', { params: { path: { id: req.instanceIds[0]! } } })))).data;
        const names = [first?.instanceName ?? req.instanceIds[0]!, ...req.instanceIds.slice(1)];
        const job = await jobs.add({ kind: 'download', userId, userName: c.userName, name: jobName(names), download: { instanceIds: req.instanceIds, out: opts.downloadDir } });
        return { job };
      }
      case 'pause':
      case 'resume':
      case 'delete': {
        const job = jobs.get(req.jobId, userId);
        if (!job) throw new ProtocolError(RESULT.NOT_FOUND, 'NOT_FOUND', 'no such transfer');
        if (req.type === 'pause') await jobs.pause(job);
        else if (req.type === 'resume') await jobs.resume(job);
        else {
          await jobs.delete(job);
          return { jobId: job.id };
        }
        return { job: jobs.view(job) };
      }
    }
  }

  const onMessage = async (c: Conn, raw: RawData, isBinary: boolean) => {
    let req: Request | undefined;
    const text = isBinary ? '' : raw.toString();
    try {
      if (isBinary) throw new ProtocolError(RESULT.BAD_MESSAGE, 'BAD_MESSAGE', 'text frames only');
      req = parseMessage(text);
      const data = await handle(c, req);
      send(c, { type: req.type, reqId: req.reqId, resultCode: RESULT.OK, data });
    } catch (err) {
      const e = err instanceof ProtocolError ? err : new ProtocolError(RESULT.INTERNAL, 'INTERNAL', 'the agent failed to handle the message');
      if (!(err instanceof ProtocolError)) opts.log({ event: 'error', message: err instanceof Error ? err.message : String(err) });
      send(c, { type: req?.type ?? 'error', reqId: req?.reqId ?? reqIdOf(text), resultCode: e.resultCode, code: e.code, msg: e.message });
    }
  };

  const wss = new WebSocketServer({ noServer: true, maxPayload: MAX_MESSAGE_BYTES });
  wss.on('connection', (ws) => {
    const c: Conn = { ws, userId: null, userName: '', failures: 0 };
    conns.add(c);
    ws.on('message', (raw, isBinary) => void onMessage(c, raw, isBinary));
    ws.on('close', () => conns.delete(c));
    ws.on('error', () => conns.delete(c));
  });

  const ports = { ...opts.ports };
  const wsServer = createServer((req, res) => {
    if (guardHttp(req, res, ports.ws, opts.origins)) json(res, 426, { resultCode: 426, code: 'UPGRADE_REQUIRED', msg: 'WebSocket only' });
  });
  wsServer.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    if (!hostAllowed(req.headers.host, ports.ws) || !originAllowed(req.headers.origin, opts.origins)) {
      opts.log({ event: 'refused', reason: 'origin', origin: String(req.headers.origin ?? '') });
      socket.end('HTTP/1.1 403 Forbidden\r\nConnection: close\r\nContent-Length: 0\r\n\r\n');
      return;
    }
    wss.handleUpgrade(req, socket, head, (ws) => wss.emit('connection', ws, req));
  });

  const online = () => ({ resultCode: RESULT.OK, msg: 'online', data: { version: AGENT_VERSION, wsPort: ports.ws } });
  const pluginServer = createServer((req, res) => {
    if (!guardHttp(req, res, ports.plugin, opts.origins)) return;
    const path = new URL(req.url ?? '/', 'http://x').pathname;
    if (path === '/api/isAppOnline') json(res, 200, online());
    else json(res, 404, { resultCode: 404, code: 'NOT_FOUND', msg: 'no such endpoint' });
  });
  const clientServer = createServer((req, res) => {
    if (!guardHttp(req, res, ports.client, opts.origins)) return;
    const path = new URL(req.url ?? '/', 'http://x').pathname.replace(/^\/api\//, '/');
    if (path === '/isAppInstalled') json(res, 200, { resultCode: RESULT.OK, msg: 'installed', data: { installed: true, version: AGENT_VERSION } });
    else if (path === '/isAppOnline') json(res, 200, online());
    else json(res, 404, { resultCode: 404, code: 'NOT_FOUND', msg: 'no such endpoint' });
  });

  const servers = [pluginServer, wsServer, clientServer];
  try {
    ports.plugin = await listen(pluginServer, opts.ports.plugin);
    ports.ws = await listen(wsServer, opts.ports.ws);
    ports.client = await listen(clientServer, opts.ports.client);
  } catch (err) {
    await Promise.all(servers.map((s) => new Promise((r) => (s.listening ? s.close(r) : r(undefined)))));
    throw err;
  }

  return {
    ports,
    async close() {
      for (const c of conns) c.ws.terminate();
      wss.close();
      // Idle keep-alive connections of the web app would otherwise hold close() open.
      await Promise.all(servers.map((s) => new Promise((r) => (s.close(r), s.closeAllConnections()))));
      await jobs.shutdown();
    },
  };
}
