// `drive admin storage|site|node` through the built CLI against the real server (issue #20): a connection added with
// its secret piped on standard input (never echoed, sealed by the server), listed with connection zero first, a site
// naming it as default storage, the node list showing this server up; every command's --json shape; a
// non-administrator refused with exit code 5.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type TestServer } from '../helpers/server.ts';
import { cliEnv, driveRunner } from '../helpers/drive-cli.ts';
import { makeUser } from '../helpers/org.ts';

let srv: TestServer;
let work: string;
let admin: string;
const drive = driveRunner(() => cliEnv(srv, work));

describe('drive admin storage, site and node', () => {
  beforeAll(async () => {
    srv = await startServer({ env: { HCS_SITE: 'hq' } });
    work = mkdtempSync(join(tmpdir(), 'hcs-storage-cli-'));
    admin = (await srv.login()).token;
  }, 60_000);

  afterAll(async () => {
    await srv?.close();
    if (work) rmSync(work, { recursive: true, force: true });
  });

  it('adds a connection with the secret from stdin, lists it, adds a site on it and lists the nodes', async () => {
    const creds = JSON.parse(readFileSync(join(srv.dataDir, 's3-credentials.json'), 'utf8')) as { accessKeyId: string; secretAccessKey: string };
    const add = await drive(['admin', 'storage', 'add', 'Loopback', '--endpoint', `${srv.baseUrl}/s3`, '--bucket', 'hcs-drive', '--access-key', creds.accessKeyId, '--secret-key-stdin'],
      { token: admin, stdin: `${creds.secretAccessKey}\n` });
    expect(add.code, add.stderr).toBe(0);
    expect(add.stdout).not.toContain(creds.secretAccessKey);
    expect(add.json).toEqual([{
      event: 'storage-add', cloudId: expect.any(String), name: 'Loopback', endpoint: `${srv.baseUrl}/s3`, region: 'us-east-1', bucket: 'hcs-drive', embedded: false,
      hasSecret: true, accessKeyHint: creds.accessKeyId.slice(-4), sse: [],
    }]);
    const sealed = await srv.sql.get<{ secret_enc: string }>('SELECT secret_enc FROM storage_connections WHERE id = ?', add.json[0]!.cloudId);
    expect(sealed!.secret_enc).not.toContain(creds.secretAccessKey);

    const missing = await drive(['admin', 'storage', 'add', 'NoSecret', '--endpoint', 'http://127.0.0.1:9', '--bucket', 'bbb', '--access-key', 'a'], { token: admin });
    expect(missing.code).toBe(2);

    const ls = await drive(['admin', 'storage', 'ls'], { token: admin });
    expect(ls.code, ls.stderr).toBe(0);
    expect(ls.json.map((c) => [c.cloudId, c.name, c.embedded])).toEqual([['0', 'embedded', true], [add.json[0]!.cloudId, 'Loopback', false]]);
    const human = await drive(['admin', 'storage', 'ls'], { token: admin, json: false });
    expect(human.stdout).toMatch(/Loopback/);

    const site = await drive(['admin', 'site', 'add', 'hq', '--storage', 'loopback'], { token: admin });
    expect(site.code, site.stderr).toBe(0);
    expect(site.json).toEqual([{ event: 'site-add', siteId: expect.any(String), name: 'hq', region: '', cloudId: add.json[0]!.cloudId, storage: 'Loopback' }]);
    const unknown = await drive(['admin', 'site', 'add', 'elsewhere', '--storage', 'nope'], { token: admin });
    expect(unknown.code).toBe(5);
    const dup = await drive(['admin', 'site', 'add', 'HQ', '--storage', '0'], { token: admin });
    expect(dup.code).toBe(5);

    const nodes = await drive(['admin', 'node', 'ls'], { token: admin });
    expect(nodes.code, nodes.stderr).toBe(0);
    expect(nodes.json).toContainEqual(expect.objectContaining({ site: 'hq', status: 'up', version: expect.stringMatching(/^\d+\.\d+\.\d+/) }));
  });

  it('refuses a non-administrator with exit code 5', async () => {
    const plain = await makeUser(srv, 'storagecliuser', null);
    for (const args of [['admin', 'storage', 'ls'], ['admin', 'node', 'ls'], ['admin', 'site', 'add', 'x', '--storage', '0']]) {
      const r = await drive(args, { token: plain.token });
      expect(r.code, args.join(' ')).toBe(5);
    }
  });
});
