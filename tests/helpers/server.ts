// Starts the real server (SQLite + embedded S3 in a temp data dir, random port) for a test file, checks every
// /hcs response against the contract, and signs users in the way the CLI does.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig, type ServerConfig } from '../../mock-server/src/config.ts';
import { buildApp, type BuiltApp } from '../../mock-server/src/app.ts';
import { createHcsClient, encryptPassword, unwrap, type HcsClient } from '@hcs/openapi/client';
import { checkResponse, type ContractCheck } from './contract.ts';

export const ADMIN_USER = 'admin';
export const ADMIN_PASSWORD = 'Admin#Passw0rd-for-tests';

export interface TestServer {
  baseUrl: string;
  built: BuiltApp;
  config: ServerConfig;
  dataDir: string;
  /** Contract violations seen so far (a test asserts this stays empty). */
  violations: ContractCheck[];
  /** Raw fetch against the server with the CSRF header set. */
  call(path: string, init?: RequestInit & { token?: string }): Promise<Response>;
  login(user?: string, password?: string): Promise<{ token: string; client: HcsClient }>;
  close(opts?: { keepData?: boolean }): Promise<void>;
}

/** The client-side password encryption every client uses (RSA-OAEP SHA-256, wire Base64). */
export const encryptForServer = encryptPassword;

export async function startServer(opts: { env?: Record<string, string>; dataDir?: string } = {}): Promise<TestServer> {
  const dataDir = opts.dataDir ?? mkdtempSync(join(tmpdir(), 'hcs-test-'));
  const config = loadConfig({
    HCS_PORT: '0',
    HCS_HOST: '127.0.0.1',
    HCS_DATA_DIR: dataDir,
    HCS_ADMIN_PASSWORD: ADMIN_PASSWORD,
    HCS_LOG_LEVEL: 'warn',
    ...opts.env,
  });
  const violations: ContractCheck[] = [];
  const built = await buildApp(config, {
    logger: false,
    instrument(app) {
      app.addHook('onSend', async (req, reply, payload) => {
        const operationId = req.operationId;
        if (!operationId) return payload;
        if (typeof payload === 'string' || Buffer.isBuffer(payload)) {
          const problem = checkResponse(operationId, reply.statusCode, String(reply.getHeader('content-type') ?? ''), payload.toString());
          if (problem) violations.push({ operationId, status: reply.statusCode, problem });
        }
        return payload;
      });
    },
  });
  await built.listen();
  const origin = `http://127.0.0.1:${(built.app.server.address() as { port: number }).port}`;
  const call = (path: string, init: RequestInit & { token?: string } = {}) => {
    const headers = new Headers(init.headers);
    if (!headers.has('X-Requested-With')) headers.set('X-Requested-With', 'XMLHttpRequest');
    if (init.token) headers.set('token', init.token);
    return fetch(origin + path, { ...init, headers });
  };
  const login = async (user = ADMIN_USER, password = ADMIN_PASSWORD) => {
    const anon = createHcsClient({ baseUrl: origin });
    const info = unwrap(await anon.GET('/hcs/services/System/platformInfo', {}));
    const res = unwrap(
      await anon.GET('/hcs/services/System/Token', {
        params: { query: { username: user, password: await encryptForServer(info.data!.publicKey, password) } },
        headers: { 'X-HCS-Client': 'cli' },
      }),
    );
    const token = res.data!.token;
    return { token, client: createHcsClient({ baseUrl: origin, token: () => token }) };
  };
  return {
    baseUrl: origin,
    built,
    config,
    dataDir,
    violations,
    call,
    login,
    async close(o = {}) {
      await built.close();
      if (!o.keepData && !opts.dataDir) rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
