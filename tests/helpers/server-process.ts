// The real server as a child process (`node mock-server/src/start.ts`), for tests that must kill it the hard way
// (SIGKILL) and start it again on the same data dir and port, the way an operator's process manager would.
// Its responses cannot be seen from inside, so the clients it hands out check each /hcs response against the
// contract as it arrives (a violation fails the test it happened in, like with startServer).
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createHcsClient, unwrap, type HcsClient } from '@hcs/openapi/client';
import { ADMIN_PASSWORD, ADMIN_USER, encryptForServer, TEST_SERVER_ENV } from './server.ts';
import { checkingFetch, ContractWatch } from './contract.ts';
import { databaseEnvFor, dropDatabaseOf } from './db.ts';

const START = fileURLToPath(new URL('../../mock-server/src/start.ts', import.meta.url));
const READY = /HCS drive is running: (\S+)\/drive\//;

export interface ServerProcess {
  /** http://127.0.0.1:PORT */
  baseUrl: string;
  port: number;
  dataDir: string;
  child: ChildProcess;
  /** Everything the process wrote, for failure messages. */
  output(): string;
  /** Clients from login() and this fetch check every /hcs response against the contract. */
  login(user?: string, password?: string): Promise<{ token: string; client: HcsClient }>;
  fetch: typeof fetch;
  contract: ContractWatch;
  /** SIGKILL: no shutdown hook runs, exactly like a crash. Resolves once the process is gone. */
  kill9(): Promise<void>;
  /** SIGTERM and wait (the graceful path). */
  stop(): Promise<void>;
}

/** A port free right now on 127.0.0.1 (the OS picks it; we release it for the child to bind). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });
}

export async function startServerProcess(opts: { dataDir?: string; port?: number; env?: Record<string, string>; timeoutMs?: number } = {}): Promise<ServerProcess> {
  const dataDir = opts.dataDir ?? mkdtempSync(join(tmpdir(), 'hcs-proc-'));
  // A fixed port so a restart finds the same origin (the embedded store's public endpoint includes it).
  const port = opts.port ?? (await freePort());
  const baseUrl = `http://127.0.0.1:${port}`;
  const child = spawn(process.execPath, [START], {
    env: {
      PATH: process.env.PATH ?? '',
      HOME: process.env.HOME ?? '',
      HCS_PORT: String(port),
      HCS_HOST: '127.0.0.1',
      HCS_PUBLIC_URL: baseUrl,
      HCS_DATA_DIR: dataDir,
      HCS_ADMIN_PASSWORD: ADMIN_PASSWORD,
      HCS_LOG_LEVEL: 'warn',
      ...TEST_SERVER_ENV,
      ...(await databaseEnvFor(dataDir)),
      ...opts.env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout!.setEncoding('utf8').on('data', (d: string) => (out += d));
  child.stderr!.setEncoding('utf8').on('data', (d: string) => (out += d));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));

  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => fail(new Error(`server did not start within ${opts.timeoutMs ?? 30_000} ms:\n${out}`)), opts.timeoutMs ?? 30_000);
    const onData = () => {
      const m = READY.exec(out);
      if (!m) return;
      cleanup();
      if (m[1] !== baseUrl) fail(new Error(`server announced ${m[1]}, expected ${baseUrl}`));
      else resolve();
    };
    const onExit = (code: number | null, sig: string | null) => fail(new Error(`server exited (${code ?? sig}) before it was ready:\n${out}`));
    function cleanup() {
      clearTimeout(timer);
      child.stdout!.off('data', onData);
      child.stderr!.off('data', onData);
      child.off('exit', onExit);
    }
    function fail(err: Error) {
      cleanup();
      child.kill('SIGKILL');
      reject(err);
    }
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    child.once('exit', onExit);
  });

  const contract = new ContractWatch(`server process on port ${port}`);
  const checked = checkingFetch(contract);
  const login = async (user = ADMIN_USER, password = ADMIN_PASSWORD) => {
    const anon = createHcsClient({ baseUrl, fetch: checked });
    const info = unwrap(await anon.GET('/hcs/services/System/platformInfo', {}));
    const res = unwrap(
      await anon.GET('/hcs/services/System/Token', {
        params: { query: { username: user, password: await encryptForServer(info.data!.publicKey, password) } },
        headers: { 'X-HCS-Client': 'cli' },
      }),
    );
    const token = res.data!.token;
    return { token, client: createHcsClient({ baseUrl, token: () => token, fetch: checked }) };
  };

  const signal = async (sig: NodeJS.Signals) => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    child.kill(sig);
    await exited;
  };

  return {
    baseUrl,
    port,
    dataDir,
    child,
    output: () => out,
    login,
    fetch: checked,
    contract,
    kill9: () => signal('SIGKILL'),
    stop: () => signal('SIGTERM'),
  };
}

/** The embedded store's credentials, as the server generated and kept them in its data dir. */
export function embeddedCredentials(dataDir: string): { accessKeyId: string; secretAccessKey: string } {
  return JSON.parse(readFileSync(join(dataDir, 's3-credentials.json'), 'utf8')) as { accessKeyId: string; secretAccessKey: string };
}

/** Removes a data dir and its PostgreSQL database, if it has one. */
export async function removeDataDir(dataDir: string): Promise<void> {
  await dropDatabaseOf(dataDir);
  rmSync(dataDir, { recursive: true, force: true });
}
