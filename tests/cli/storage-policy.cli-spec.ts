// `drive admin storage policy <library code> --storage <name> [--bucket B] [--encryption none|AES256|aws:kms] [--json]`
// through the built CLI against the real server (issue #20): a library's new uploads moved to a connection named by
// name (its default bucket unless --bucket), back to the embedded store with AES256 (there: its AES-256-GCM), what is
// in force printed; an unknown connection, a bucket the connection lacks, an SSE mode it does not offer and a
// non-administrator all refused with exit code 5, a wrong --encryption with 2 (nothing sent).
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

describe('drive admin storage policy', () => {
  beforeAll(async () => {
    srv = await startServer();
    work = mkdtempSync(join(tmpdir(), 'hcs-policy-cli-'));
    admin = (await srv.login()).token;
  }, 60_000);

  afterAll(async () => {
    await srv?.close();
    if (work) rmSync(work, { recursive: true, force: true });
  });

  it('routes a library to a connection by name and back to the embedded store with its encryption', async () => {
    const creds = JSON.parse(readFileSync(join(srv.dataDir, 's3-credentials.json'), 'utf8')) as { accessKeyId: string; secretAccessKey: string };
    const add = await drive(['admin', 'storage', 'add', 'Loopback', '--endpoint', `${srv.baseUrl}/s3`, '--bucket', 'hcs-drive', '--access-key', creds.accessKeyId, '--secret-key-stdin'],
      { token: admin, stdin: `${creds.secretAccessKey}\n` });
    expect(add.code, add.stderr).toBe(0);
    const cloudId = add.json[0]!.cloudId as string;

    const routed = await drive(['admin', 'storage', 'policy', 'NetDisk', '--storage', 'loopback'], { token: admin });
    expect(routed.code, routed.stderr).toBe(0);
    expect(routed.json).toEqual([{
      event: 'storage-policy', libCode: 'NetDisk', cloudId, storage: 'Loopback', bucket: 'hcs-drive', encryption: 'none', kmsKeyId: '', inForce: 'none',
    }]);
    const row = await srv.sql.get<{ connection_id: string; bucket: string }>('SELECT connection_id, bucket FROM storage_policies WHERE lib_code = ?', 'NetDisk');
    expect(row).toEqual({ connection_id: cloudId, bucket: 'hcs-drive' });

    const human = await drive(['admin', 'storage', 'policy', 'NetDisk', '--storage', cloudId], { token: admin, json: false });
    expect(human.code, human.stderr).toBe(0);
    expect(human.stdout).toMatch(/NetDisk.*Loopback.*hcs-drive/);

    const back = await drive(['admin', 'storage', 'policy', 'NetDisk', '--storage', 'embedded', '--encryption', 'AES256'], { token: admin });
    expect(back.code, back.stderr).toBe(0);
    expect(back.json[0]).toMatchObject({ cloudId: '0', storage: 'embedded', bucket: 'hcs-drive', encryption: 'aes256-gcm', inForce: 'aes256-gcm' });
  });

  it('refuses what the server or the CLI cannot keep', async () => {
    const unknown = await drive(['admin', 'storage', 'policy', 'NetDisk', '--storage', 'nope'], { token: admin });
    expect([unknown.code, unknown.stderr]).toEqual([5, expect.stringMatching(/NOT_FOUND|no storage connection/)]);
    const noBucket = await drive(['admin', 'storage', 'policy', 'NetDisk', '--storage', 'loopback', '--bucket', 'hcs-no-such-bucket'], { token: admin });
    expect(noBucket.code).toBe(5);
    // The loopback connection offers no SSE.
    const noSse = await drive(['admin', 'storage', 'policy', 'NetDisk', '--storage', 'loopback', '--encryption', 'aws:kms'], { token: admin });
    expect(noSse.code).toBe(5);
    const badMode = await drive(['admin', 'storage', 'policy', 'NetDisk', '--storage', 'loopback', '--encryption', 'rot13'], { token: admin });
    expect(badMode.code).toBe(2);
    const plain = await makeUser(srv, 'policycliuser', null);
    const denied = await drive(['admin', 'storage', 'policy', 'NetDisk', '--storage', 'embedded'], { token: plain.token });
    expect(denied.code).toBe(5);
    const row = await srv.sql.get<{ connection_id: string; encryption: string }>('SELECT connection_id, encryption FROM storage_policies WHERE lib_code = ?', 'NetDisk');
    expect(row).toEqual({ connection_id: '0', encryption: 'aes256-gcm' });
  });
});
