// A throwaway slapd per test file (tests/ldap/slapd.sh), and the directory administrator's client to change it.
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { fileURLToPath } from 'node:url';
import { Client } from 'ldapts';

const run = promisify(execFile);
const SCRIPT = fileURLToPath(new URL('../ldap/slapd.sh', import.meta.url));

export const SUFFIX = 'dc=example,dc=org';
export const READER_DN = `cn=reader,${SUFFIX}`;
export const READER_PASSWORD = 'reader-secret';

export interface TestDirectory {
  url: string;
  /** Runs `fn` with a client bound as the directory's administrator. */
  admin<T>(fn: (c: Client) => Promise<T>): Promise<T>;
  stop(): Promise<void>;
}

export async function startSlapd(): Promise<TestDirectory> {
  const { stdout } = await run('bash', [SCRIPT, 'start']);
  const [url, dir] = stdout.trim().split(' ') as [string, string];
  return {
    url,
    async admin(fn) {
      const c = new Client({ url });
      try {
        await c.bind(`cn=admin,${SUFFIX}`, 'admin-secret');
        return await fn(c);
      } finally {
        await c.unbind();
      }
    },
    stop: async () => {
      await run('bash', [SCRIPT, 'stop', dir]);
    },
  };
}
