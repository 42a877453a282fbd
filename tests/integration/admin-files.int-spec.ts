// The administrators' file view (issue #16 item 7) and video preview through the real server: every file with owner,
// space, size and type, filters and keyset paging, recycle and restore on the owner's behalf, administrators only;
// videos played from a ticketed URL that answers Range requests with the headers of stored bytes.
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { startServer, type TestServer } from '../helpers/server.ts';
import { tokenCalls, type Env } from '../helpers/org.ts';
import { createUser } from '../../mock-server/src/db/users-repo.ts';
import { uploadFile } from '../helpers/upload.ts';

let srv: TestServer;
let admin: string;
let nora: string;
let noraId: string;
// Filled in beforeAll, read by the tests after it.
const ids = {} as Record<'a' | 'b' | 'c', string>;

const { call, as } = tokenCalls(() => srv);
const video = Buffer.from(Array.from({ length: 70_000 }, (_, i) => i % 251));

beforeAll(async () => {
  srv = await startServer();
  admin = (await srv.login()).token;
  noraId = (await createUser(srv.built.ctx.db, { userName: 'nora', password: 'Nora#pass-1234' })).id;
  nora = (await srv.login('nora', 'Nora#pass-1234')).token;
  ids.a = await uploadFile(as(nora), 'report.docx', Buffer.from('a'.repeat(10)));
  ids.b = await uploadFile(as(nora), 'clip.mp4', video);
  ids.c = await uploadFile(as(admin), 'admin.pdf', Buffer.from('c'.repeat(30)));
});
afterAll(async () => {
  expect(srv.violations).toEqual([]);
  await srv.close();
});

describe('pageFilesForManager', () => {
  it('lists every file with owner, space, size and type, filtered and paged by keyset; administrators only', async () => {
    expect((await call(nora, '/hcs/controller/FileInfos/PageForMgr')).status).toBe(403);
    const all = await call(admin, '/hcs/controller/FileInfos/PageForMgr');
    expect(all.ret, JSON.stringify(all)).toBe(0);
    expect(all.data.total).toBe(3);
    const row = all.data.list.find((r: any) => r.instanceId === ids.a);
    expect(row).toMatchObject({ instanceName: 'report.docx', fSize: 10, fType: 'docx', fileType: 'word', ownerId: noraId, ownerName: 'nora', spaceKind: 'user', spaceId: noraId, spaceName: 'nora', deleted: false });
    expect(names(await call(admin, '/hcs/controller/FileInfos/PageForMgr', { ownerId: noraId })).sort()).toEqual(['clip.mp4', 'report.docx']);
    expect(names(await call(admin, '/hcs/controller/FileInfos/PageForMgr', { fileFilter: 7 }))).toEqual(['clip.mp4']);
    expect(names(await call(admin, '/hcs/controller/FileInfos/PageForMgr', { minSize: 20, maxSize: 100 }))).toEqual(['admin.pdf']);
    expect(names(await call(admin, '/hcs/controller/FileInfos/PageForMgr', { keyword: 'REP' }))).toEqual(['report.docx']);

    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const page: Env = await call(admin, '/hcs/controller/FileInfos/PageForMgr', { pageSize: 2, ...(cursor ? { cursor } : {}) });
      seen.push(...page.data.list.map((r: any) => r.instanceId));
      cursor = page.data.nextCursor;
    } while (cursor);
    expect(seen.sort()).toEqual([ids.a, ids.b, ids.c].sort());
  });

  it('recycles and restores anyone\'s files; the owner sees both', async () => {
    expect((await call(nora, '/hcs/controller/FileInfos/recycleForMgr', undefined, { ids: ids.a })).status).toBe(403);
    const recycled = await call(admin, '/hcs/controller/FileInfos/recycleForMgr', undefined, { ids: ids.a });
    expect([recycled.data.done.length, recycled.data.failed]).toEqual([1, []]);
    expect((await call(nora, `/hcs/controller/Instances/${ids.a}`)).status).toBe(404);
    expect(names(await call(admin, '/hcs/controller/FileInfos/PageForMgr', { state: 'recycled' }))).toEqual(['report.docx']);
    const restored = await call(admin, '/hcs/controller/FileInfos/restoreForMgr', undefined, { ids: `${ids.a},${ids.c}` });
    expect(restored.data.done.map((d: any) => d.instanceId)).toEqual([ids.a]);
    expect(restored.data.failed.map((f: any) => [f.instanceId, f.code])).toEqual([[ids.c, 'NOT_FOUND']]);
    expect((await call(nora, `/hcs/controller/Instances/${ids.a}`)).ret).toBe(0);
  });
});

function names(r: Env): string[] {
  return r.data.list.map((x: any) => x.instanceName);
}

describe('previewVideo', () => {
  it('plays mp4 in ranges with the headers of stored bytes; other types and other users are refused', async () => {
    expect((await call(admin, '/hcs/controller/FileInfos/preview/video', { instanceId: ids.b })).status).toBe(404);
    expect((await call(nora, '/hcs/controller/FileInfos/preview/video', { instanceId: ids.a })).status).toBe(422);
    // "0" names the caller's root to the access gate: no file to play, never a 500 (found by the contract fuzzer).
    const root = await call(nora, '/hcs/controller/FileInfos/preview/video', { instanceId: '0' });
    expect([root.status, root.data?.code]).toEqual([404, 'NOT_FOUND']);
    const p = await call(nora, '/hcs/controller/FileInfos/preview/video', { instanceId: ids.b });
    expect([p.ret, p.data.contentType, p.data.size]).toEqual([0, 'video/mp4', video.length]);
    const url = new URL(p.data.url, srv.baseUrl);

    const whole = await fetch(url);
    expect(whole.status).toBe(200);
    expect(Buffer.from(await whole.arrayBuffer()).equals(video)).toBe(true);
    for (const res of [whole]) {
      expect(res.headers.get('content-type')).toBe('video/mp4');
      expect(res.headers.get('accept-ranges')).toBe('bytes');
      expect(res.headers.get('x-content-type-options')).toBe('nosniff');
      expect(res.headers.get('content-security-policy')).toContain('sandbox');
    }
    const part = await fetch(url, { headers: { range: 'bytes=1000-1999' } });
    expect(part.status).toBe(206);
    expect(part.headers.get('content-range')).toBe(`bytes 1000-1999/${video.length}`);
    expect(part.headers.get('x-content-type-options')).toBe('nosniff');
    expect(Buffer.from(await part.arrayBuffer()).equals(video.subarray(1000, 2000))).toBe(true);
    const open = await fetch(url, { headers: { range: 'bytes=69990-' } });
    expect([open.status, open.headers.get('content-range')]).toEqual([206, `bytes 69990-69999/${video.length}`]);
    expect(Buffer.from(await open.arrayBuffer()).equals(video.subarray(69990))).toBe(true);
    const suffix = await fetch(url, { headers: { range: 'bytes=-5' } });
    expect(Buffer.from(await suffix.arrayBuffer()).equals(video.subarray(-5))).toBe(true);
    const past = await fetch(url, { headers: { range: `bytes=${video.length}-` } });
    expect([past.status, past.headers.get('content-range')]).toEqual([416, `bytes */${video.length}`]);
    await past.body?.cancel();
    // A forged ticket reads nothing.
    const forged = await fetch(new URL(p.data.url.replace(/.$/, (c: string) => (c === 'A' ? 'B' : 'A')), srv.baseUrl));
    expect(forged.status).toBe(404);
    await forged.body?.cancel();
  });
});
