// Issue #18/#22: downloads in the operation log, on SQLite and PostgreSQL (tests/pg/suite.ts). A download is logged
// once, where the server authorises it (download information, a presigned download URL, a zip's single-use ticket,
// a visitor's grant), never per ranged read of the same download; a preview or a refused download is no download;
// the statistics' downloads per day count exactly the logged downloads.
import { randomBytes } from 'node:crypto';
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { startServer, type TestServer } from '../helpers/server.ts';
import { makeUser, mkdir, signInAdmin, type TestUser } from '../helpers/org.ts';
import { signedStorageRequest, uploadFile, type ApiCall } from '../helpers/upload.ts';

let srv: TestServer;
let admin: TestUser;
let alice: TestUser;
let bob: TestUser;
let report: string;
let folder: string;
const bytes = randomBytes(4000);
const C = '/hcs/controller';
const call = (u: TestUser): ApiCall => (path, query, body) => u.api(path, query, body);

interface LogRow { optType: string; optObj: string; optObjName: string; userName: string; result: string }

async function downloadRows(optType: string, since: number): Promise<LogRow[]> {
  const r = await admin.api(`${C}/sysOptLog/page`, { optType, since, pageSize: 100 });
  expect(r.status).toBe(200);
  return r.data.list;
}

/** Downloads over the whole series, so a run that crosses midnight (UTC) still adds up. */
async function downloadsCounted(): Promise<number> {
  const r = await admin.api(`${C}/dataStatistics/overview`, { days: 7 });
  expect(r.status).toBe(200);
  return r.data.daily.reduce((n: number, d: { downloads: number }) => n + d.downloads, 0);
}

async function fetchBytes(url: string, headers: Record<string, string> = {}): Promise<{ status: number; body: Buffer }> {
  const res = await fetch(url.startsWith('http') ? url : srv.baseUrl + url, { headers });
  return { status: res.status, body: Buffer.from(await res.arrayBuffer()) };
}

beforeAll(async () => {
  srv = await startServer({ env: { HCS_TRUST_PROXY: '127.0.0.1' } });
  admin = await signInAdmin(srv);
  alice = await makeUser(srv, 'dlalice', null);
  bob = await makeUser(srv, 'dlbob', null);
  folder = await mkdir(alice, 'Reports');
  report = await uploadFile(call(alice), 'q3.pdf', bytes, { query: { parentId: folder } });
});
afterAll(async () => {
  expect(srv.violations).toEqual([]);
  await srv.close();
});

describe('downloads in the operation log', () => {
  it('two downloads of a file are two rows (type download, the file as object), whatever the ranged reads; the statistics count them', async () => {
    const t0 = Date.now();
    const before = await downloadsCounted();
    // The web's way: a presigned URL, then the browser's ranged reads of it.
    const url = await alice.api(`${C}/API/getS3DownloadUrl`, { instanceId: report });
    expect(url.status).toBe(200);
    const head = await fetchBytes(url.data.url, { range: 'bytes=0-999' });
    const tail = await fetchBytes(url.data.url, { range: 'bytes=1000-' });
    expect([head.status, tail.status]).toEqual([206, 206]);
    expect(Buffer.concat([head.body, tail.body]).equals(bytes)).toBe(true);
    // The transfer engine's way (CLI, agent): download information, then signed ranged reads.
    const info = await alice.api(`${C}/API/getDownloadFileInfo`, { instanceId: report });
    expect(info.status).toBe(200);
    const parts: Buffer[] = [];
    for (const range of ['bytes=0-1999', 'bytes=2000-3999']) {
      const res = await signedStorageRequest(call(alice), { action: 'getObject', verb: 'GET', fId: report, key: info.data.objectKey, bucket: info.data.bucketName, range });
      expect(res.status).toBe(206);
      parts.push(Buffer.from(await res.arrayBuffer()));
    }
    expect(Buffer.concat(parts).equals(bytes)).toBe(true);

    const rows = await downloadRows('download', t0);
    expect(rows.map((r) => [r.optType, r.optObj, r.optObjName, r.userName, r.result])).toEqual([
      ['download', report, 'q3.pdf', 'dlalice', 'success'],
      ['download', report, 'q3.pdf', 'dlalice', 'success'],
    ]);
    expect(await downloadsCounted()).toBe(before + 2);
    // The log's filters find them by user as well.
    expect((await admin.api(`${C}/sysOptLog/page`, { optType: 'download', userName: 'dlalice', since: t0 })).data.total).toBe(2);
    expect((await admin.api(`${C}/sysOptLog/page`, { optType: 'download', userName: 'dlbob', since: t0 })).data.total).toBe(0);
  });

  it('a preview and a refused download (another user\'s file, a made-up id) are no download', async () => {
    const t0 = Date.now();
    const before = await downloadsCounted();
    expect((await alice.api(`${C}/API/getS3DownloadUrl`, { instanceId: report, action: 'preview' })).status).toBe(200);
    for (const id of [report, randomBytes(8).toString('hex')]) {
      for (const path of ['getS3DownloadUrl', 'getDownloadFileInfo', 'getZipDownloadUrl']) {
        const r = await bob.api(`${C}/API/${path}`, path === 'getZipDownloadUrl' ? { ids: id } : { instanceId: id });
        expect([path, r.status, r.data.code]).toEqual([path, 404, 'NOT_FOUND']);
      }
    }
    expect(await downloadRows('download', t0)).toEqual([]);
    expect(await downloadRows('downloadZip', t0)).toEqual([]);
    expect(await downloadsCounted()).toBe(before);
  });

  it('a zip is one row when its single-use URL is fetched, none for a URL never used or used again', async () => {
    const t0 = Date.now();
    const before = await downloadsCounted();
    const unused = await alice.api(`${C}/API/getZipDownloadUrl`, { ids: folder });
    expect(unused.status).toBe(200);
    expect(await downloadRows('downloadZip', t0)).toEqual([]);
    const zip = await alice.api(`${C}/API/getZipDownloadUrl`, { ids: `${folder},${report}`, name: 'bundle' });
    const got = await fetchBytes(zip.data.url);
    expect(got.status).toBe(200);
    expect(got.body.subarray(0, 2).toString()).toBe('PK');
    expect((await fetchBytes(zip.data.url)).status).not.toBe(200);
    const rows = await downloadRows('downloadZip', t0);
    expect(rows.map((r) => [r.optObj, r.optObjName, r.userName, r.result])).toEqual([[`${folder},${report}`, 'bundle.zip', 'dlalice', 'success']]);
    expect(await downloadsCounted()).toBe(before + 1);
  });

  it('a visitor\'s download through a public link counts once per file, not per ranged read', async () => {
    const t0 = Date.now();
    const before = await downloadsCounted();
    const link = await alice.api('/hcs/controller/FileShare', undefined, { instanceIds: [report] });
    expect(link.status, JSON.stringify(link)).toBe(200);
    const visitor = { 'x-forwarded-for': '198.51.100.77' };
    const login = await srv.call('/hcs/services/FileShare/loginShare', {
      method: 'POST', headers: { ...visitor, 'content-type': 'application/json' }, body: JSON.stringify({ link: link.data.link }),
    });
    const token = ((await login.json()) as { data: { token: string } }).data.token;
    const dl = `/hcs/services/ShareAPI/shareDownload?instanceId=${report}&token=${encodeURIComponent(token)}`;
    expect((await fetchBytes(dl, visitor)).body.equals(bytes)).toBe(true);
    expect((await fetchBytes(dl, { ...visitor, range: 'bytes=0-9' })).status).toBe(206);
    const rows = await downloadRows('share.download', t0);
    expect(rows.map((r) => [r.optObj, r.optObjName])).toEqual([[report, 'q3.pdf']]);
    expect(await downloadsCounted()).toBe(before + 1);
  });
});
