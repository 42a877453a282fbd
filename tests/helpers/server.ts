// Starts the real server (SQLite, or PostgreSQL with HCS_TEST_DATABASE_URL (helpers/db.ts), and the embedded S3 in
// a temp data dir, random port) for a test file, checks every
// /hcs response against the contract (a violation fails the test it happened in, see ContractWatch), and signs
// users in the way the CLI does.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig, type ServerConfig } from '../../mock-server/src/config.ts';
import { buildApp, type BuiltApp, type BuildOptions } from '../../mock-server/src/app.ts';
import { createHcsClient, encryptPassword, unwrap, type HcsClient } from '@hcs/openapi/client';
import { watchContract, type ContractCheck, type ContractWatch } from './contract.ts';
import { databaseEnvFor, dropDatabaseOf, sqlOn, type TestSql } from './db.ts';

export const ADMIN_USER = 'admin';
export const ADMIN_PASSWORD = 'Admin#Passw0rd-for-tests';

export interface TestServer {
  baseUrl: string;
  built: BuiltApp;
  config: ServerConfig;
  dataDir: string;
  /** SQL on the server's database (SQLite or PostgreSQL), through the server's own handle. */
  sql: TestSql;
  /** Contract violations seen so far; each fails the test it happened in (checked after every test and at close). */
  violations: ContractCheck[];
  contract: ContractWatch;
  /** Raw fetch against the server with the CSRF header set. */
  call(path: string, init?: RequestInit & { token?: string }): Promise<Response>;
  login(user?: string, password?: string): Promise<{ token: string; client: HcsClient }>;
  /** Stops the server, then fails if a response since the last test broke the contract. */
  close(opts?: { keepData?: boolean }): Promise<void>;
}

/**
 * What every test server is started with unless a test says otherwise: password hashes at scrypt's cheapest allowed
 * cost (HCS_PASSWORD_SCRYPT_N). At the default cost a sign-in or a new account takes about 160 ms of CPU here, and
 * the suites make hundreds of each. The default itself is tested in passwords.spec and auth.int-spec.
 */
export const TEST_SERVER_ENV: Record<string, string> = { HCS_PASSWORD_SCRYPT_N: '1024' };

/** The client-side password encryption every client uses (RSA-OAEP SHA-256, wire Base64). */
export const encryptForServer = encryptPassword;

export async function startServer(
  opts: { env?: Record<string, string>; dataDir?: string; handlers?: BuildOptions['handlers']; instrument?: BuildOptions['instrument'] } = {},
): Promise<TestServer> {
  const dataDir = opts.dataDir ?? mkdtempSync(join(tmpdir(), 'hcs-test-'));
  const config = loadConfig({
    HCS_PORT: '0',
    HCS_HOST: '127.0.0.1',
    HCS_DATA_DIR: dataDir,
    HCS_ADMIN_PASSWORD: ADMIN_PASSWORD,
    HCS_LOG_LEVEL: 'warn',
    ...TEST_SERVER_ENV,
    ...(await databaseEnvFor(dataDir)),
    ...opts.env,
  });
  let contract!: ContractWatch;
  const built = await buildApp(config, {
    logger: false,
    ...(opts.handlers ? { handlers: opts.handlers } : {}),
    instrument(app) {
      contract = watchContract(app, `server on ${dataDir}`);
      // A suite's own hooks, e.g. holding the signing of chosen storage requests to stop a transfer at a known point.
      opts.instrument?.(app);
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
    sql: sqlOn(built.ctx.db),
    violations: contract.violations,
    contract,
    call,
    login,
    async close(o = {}) {
      try {
        await built.close();
        if (!o.keepData && !opts.dataDir) {
          await dropDatabaseOf(dataDir);
          rmSync(dataDir, { recursive: true, force: true });
        }
      } finally {
        contract.close();
      }
    },
  };
}
