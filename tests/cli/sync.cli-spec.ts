// `drive admin sync add|status` through the built CLI against the real server (issue #20 part 3): a library
// replicated from the site on the embedded store to a second site (another bucket through its own connection), its
// progress and the --json shapes; a folder given by remote path; a non-administrator refused with exit code 5.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type TestServer } from '../helpers/server.ts';
import { cliEnv, driveRunner } from '../helpers/drive-cli.ts';
import { makeUser, mkdir, signInAdmin, type TestUser } from '../helpers/org.ts';
import { uploadFile } from '../helpers/upload.ts';

let srv: TestServer;
let work: string;
let admin: TestUser;
const drive = driveRunner(() => cliEnv(srv, work));

async function until(what: string, probe: () => Promise<boolean>): Promise<void> {
  const end = Date.now() + 30_000;
  while (!(await probe())) {
    if (Date.now() > end) throw new Error(`never happened: ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

describe('drive admin sync', () => {
  beforeAll(async () => {
    srv = await startServer({ env: { HCS_REPLICATION_SWEEP_SECONDS: '1' } });
    work = mkdtempSync(join(tmpdir(), 'hcs-sync-cli-'));
    admin = await signInAdmin(srv);
    const creds = JSON.parse(readFileSync(join(srv.dataDir, 's3-credentials.json'), 'utf8')) as { accessKeyId: string; secretAccessKey: string };
    const other = srv.built.ctx.store().forBucket('hcs-far');
    await other.ensureBucket();
    other.destroy();
    const conn = await admin.api('/hcs/controller/cloudConnect/addCloud', undefined, {
      name: 'far', endpoint: `${srv.baseUrl}/s3`, bucket: 'hcs-far', accessKey: creds.accessKeyId, secretKey: creds.secretAccessKey,
    });
    expect(conn.ret, JSON.stringify(conn)).toBe(0);
    for (const [name, cloudId] of [['hq', '0'], ['far', conn.data.cloudId]]) {
      expect((await admin.api('/hcs/controller/region/site/addOrUpdate', undefined, { name, cloudId })).ret).toBe(0);
    }
  }, 60_000);

  afterAll(async () => {
    await srv?.close();
    if (work) rmSync(work, { recursive: true, force: true });
  });

  it('adds a library and a folder to replicate and shows the progress', async () => {
    const id = await uploadFile(admin.api, 'cli-synced.bin', randomBytes(4000));
    const add = await drive(['admin', 'sync', 'add', 'NetDisk', '--to', 'far'], { token: admin.token });
    expect(add.code, add.stderr).toBe(0);
    expect(add.json).toEqual([{ event: 'sync-add', id: expect.any(String), libCode: 'NetDisk', folderId: null, source: 'hq', targets: ['far'] }]);
    const folder = await mkdir(admin, 'projects');
    const byPath = await drive(['admin', 'sync', 'add', 'NetDisk', '--to', 'far', '--path', '/projects'], { token: admin.token });
    expect(byPath.code, byPath.stderr).toBe(0);
    expect(byPath.json[0]).toMatchObject({ folderId: folder, source: 'hq', targets: ['far'] });
    const noSite = await drive(['admin', 'sync', 'add', 'NetDisk', '--to', 'nowhere'], { token: admin.token });
    expect(noSite.code).toBe(5);

    const blob = await srv.sql.get<{ blob_id: string }>('SELECT blob_id FROM instances WHERE id = ?', id);
    await until('copied to far', async () => (await srv.sql.get<{ state: string }>('SELECT state FROM blob_replicas WHERE blob_id = ?', blob!.blob_id))?.state === 'synced');
    const status = await drive(['admin', 'sync', 'status'], { token: admin.token });
    expect(status.code, status.stderr).toBe(0);
    expect(status.json).toHaveLength(1);
    const s = status.json[0] as { configs: unknown[]; sites: Array<Record<string, unknown>>; failures: unknown[] };
    expect(s.configs).toHaveLength(2);
    expect(s.sites).toEqual([expect.objectContaining({ siteName: 'far', synced: expect.any(Number), failed: 0 })]);
    expect(s.sites[0]!.synced).toBeGreaterThanOrEqual(1);
    expect(s.failures).toEqual([]);
    const human = await drive(['admin', 'sync', 'status'], { token: admin.token, json: false });
    expect(human.stdout).toMatch(/site far\s+synced \d+ {2}pending \d+ {2}failed 0/);
  });

  it('refuses a non-administrator with exit code 5', async () => {
    const plain = await makeUser(srv, 'synccliuser', null);
    for (const args of [['admin', 'sync', 'status'], ['admin', 'sync', 'add', 'NetDisk', '--to', 'far', '--from', 'hq']]) {
      const r = await drive(args, { token: plain.token });
      expect(r.code, args.join(' ')).toBe(5);
    }
  });
});
