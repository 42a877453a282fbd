// New documents and templates (issue #16 item 6) through the real server: blank .docx, .xlsx and .pptx are OOXML
// packages a reader opens (the parts Word, Excel and PowerPoint need are there and parse), a .txt is empty; they are
// filed like uploads (quota, names); an administrator's template is copied for users who pick it.
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { inflateRawSync } from 'node:zlib';
import { encodeName } from '@hcs/openapi/client';
import { startServer, type TestServer } from '../helpers/server.ts';
import { tokenCalls } from '../helpers/org.ts';
import { createUser, setUserQuota } from '../../mock-server/src/db/users-repo.ts';
import { uploadFile } from '../helpers/upload.ts';

let srv: TestServer;
let admin: string;
let nora: string;
let noraId: string;

const { call, as } = tokenCalls(() => srv);

/** The entries of a zip, read from its central directory (stored or deflated, as OOXML writers use). */
function unzip(zip: Buffer): Map<string, Buffer> {
  const eocd = zip.lastIndexOf(Buffer.from([0x50, 0x4b, 0x05, 0x06]));
  expect(eocd).toBeGreaterThan(0);
  const count = zip.readUInt16LE(eocd + 10);
  let at = zip.readUInt32LE(eocd + 16);
  const out = new Map<string, Buffer>();
  for (let i = 0; i < count; i++) {
    expect(zip.readUInt32LE(at)).toBe(0x02014b50);
    const method = zip.readUInt16LE(at + 10);
    const compressed = zip.readUInt32LE(at + 20);
    const size = zip.readUInt32LE(at + 24);
    const nameLen = zip.readUInt16LE(at + 28);
    const extraLen = zip.readUInt16LE(at + 30);
    const commentLen = zip.readUInt16LE(at + 32);
    const local = zip.readUInt32LE(at + 42);
    const name = zip.subarray(at + 46, at + 46 + nameLen).toString('utf8');
    const dataAt = local + 30 + zip.readUInt16LE(local + 26) + zip.readUInt16LE(local + 28);
    const raw = zip.subarray(dataAt, dataAt + compressed);
    const data = method === 0 ? raw : inflateRawSync(raw);
    expect(data.length, name).toBe(size);
    out.set(name, data);
    at += 46 + nameLen + extraLen + commentLen;
  }
  return out;
}

async function contentOf(token: string, instanceId: string): Promise<Buffer> {
  const url = await call(token, '/hcs/controller/API/getS3DownloadUrl', { instanceId });
  expect(url.ret, JSON.stringify(url)).toBe(0);
  const res = await fetch(new URL(url.data.url, srv.baseUrl));
  expect(res.status).toBe(200);
  return Buffer.from(await res.arrayBuffer());
}

const create = (token: string, body: Record<string, unknown>) => call(token, '/hcs/controller/officeFile', undefined, body);

beforeAll(async () => {
  srv = await startServer();
  admin = (await srv.login()).token;
  noraId = (await createUser(srv.built.ctx.db, { userName: 'nora', password: 'Nora#pass-1234' })).id;
  nora = (await srv.login('nora', 'Nora#pass-1234')).token;
});
afterAll(async () => {
  expect(srv.violations).toEqual([]);
  await srv.close();
});

const PARTS: Record<string, { main: string; root: RegExp }> = {
  docx: { main: 'word/document.xml', root: /<w:document[\s>]/ },
  xlsx: { main: 'xl/workbook.xml', root: /<workbook[\s>]/ },
  pptx: { main: 'ppt/presentation.xml', root: /<p:presentation[\s>]/ },
};

describe('officeFile', () => {
  it.each(['docx', 'xlsx', 'pptx'] as const)('creates a blank %s that is a valid OOXML package', async (kind) => {
    const r = await create(nora, { instanceName: encodeName(`新建 ${kind}`), kind });
    expect(r.ret, JSON.stringify(r)).toBe(0);
    expect(r.data.instanceName).toBe(`新建 ${kind}.${kind}`);
    const parts = unzip(await contentOf(nora, r.data.instanceId));
    const types = parts.get('[Content_Types].xml')?.toString('utf8');
    expect(types).toContain(`/${PARTS[kind]!.main}`);
    expect(parts.get('_rels/.rels')?.toString('utf8')).toContain(PARTS[kind]!.main);
    expect(parts.get(PARTS[kind]!.main)?.toString('utf8')).toMatch(PARTS[kind]!.root);
    expect(r.data.fSize).toBeGreaterThan(1000);
  });

  it('creates an empty text file, keeps both on a taken name or refuses with conflict fail, and charges the quota', async () => {
    const dir = (await call(nora, '/hcs/controller/Instances', undefined, [{ classifierId: 'Folder', instanceName: encodeName('docs') }])).data[0].instanceId;
    const t = await create(nora, { instanceName: encodeName('notes.txt'), kind: 'txt', parentId: dir });
    expect([t.ret, t.data.fSize, t.data.parentId]).toEqual([0, 0, dir]);
    const again = await create(nora, { instanceName: encodeName('notes'), kind: 'txt', parentId: dir });
    expect(again.data.instanceName).toBe('notes (1).txt');
    const fail = await create(nora, { instanceName: encodeName('notes.txt'), kind: 'txt', parentId: dir, conflict: 'fail' });
    expect([fail.status, fail.data.code]).toEqual([409, 'NAME_EXISTS']);

    const used = async () => Number((await srv.sql.get<{ used_bytes: number }>('select used_bytes from users where id = ?', noraId))!.used_bytes);
    const before = await used();
    const doc = await create(nora, { instanceName: encodeName('charged'), kind: 'docx', parentId: dir });
    expect(await used()).toBe(before + doc.data.fSize);
    await setUserQuota(srv.built.ctx.db, noraId, before + doc.data.fSize + 10);
    const full = await create(nora, { instanceName: encodeName('too big'), kind: 'pptx', parentId: dir });
    expect([full.status, full.data.code]).toEqual([409, 'SPACE_NOT_ENOUGH']);
    await setUserQuota(srv.built.ctx.db, noraId, null);
    // Not into someone else's folder.
    const adminDir = (await call(admin, '/hcs/controller/Instances', undefined, [{ classifierId: 'Folder', instanceName: encodeName('mine') }])).data[0].instanceId;
    expect((await create(nora, { instanceName: encodeName('x'), kind: 'txt', parentId: adminDir })).status).toBe(404);
  });

  it('administrators add templates that users pick; only administrators manage them', async () => {
    const bytes = Buffer.from('会议纪要模板\n日期：\n');
    const src = await uploadFile(as(admin), '会议纪要.txt', bytes);
    expect((await call(nora, '/hcs/controller/fileTemplate', undefined, { instanceId: src })).status).toBe(404);
    const mine = await uploadFile(as(nora), 'n.txt', Buffer.from('n'));
    expect((await call(nora, '/hcs/controller/fileTemplate', undefined, { instanceId: mine })).status).toBe(403);
    const notDoc = await uploadFile(as(admin), 'pic.png', Buffer.from('png'));
    expect((await call(admin, '/hcs/controller/fileTemplate', undefined, { instanceId: notDoc })).status).toBe(422);
    const added = await call(admin, '/hcs/controller/fileTemplate', undefined, { instanceId: src });
    expect([added.ret, added.data.name, added.data.kind]).toEqual([0, '会议纪要', 'txt']);

    const list = await call(nora, '/hcs/controller/fileTemplate');
    expect(list.data.filter((t: any) => t.builtIn).map((t: any) => t.templateId)).toEqual(['blank-docx', 'blank-xlsx', 'blank-pptx', 'blank-txt']);
    expect(list.data.find((t: any) => !t.builtIn)).toMatchObject({ templateId: added.data.templateId, name: '会议纪要', fSize: bytes.length });

    const made = await create(nora, { instanceName: encodeName('周会'), templateId: added.data.templateId });
    expect([made.ret, made.data.instanceName]).toEqual([0, '周会.txt']);
    expect((await contentOf(nora, made.data.instanceId)).equals(bytes)).toBe(true);
    // The template keeps its content when the source file goes.
    expect((await call(admin, '/hcs/controller/delete', { ids: src })).data.done).toHaveLength(1);
    const again = await create(nora, { instanceName: encodeName('周会二'), templateId: added.data.templateId });
    expect((await contentOf(nora, again.data.instanceId)).equals(bytes)).toBe(true);
    const blank = await create(nora, { instanceName: encodeName('b'), templateId: 'blank-xlsx' });
    expect(blank.data.instanceName).toBe('b.xlsx');

    expect((await call(nora, `/hcs/controller/fileTemplate/${added.data.templateId}/delete`, undefined, {})).status).toBe(403);
    expect((await call(admin, `/hcs/controller/fileTemplate/${added.data.templateId}/delete`, undefined, {})).ret).toBe(0);
    expect((await create(nora, { instanceName: encodeName('gone'), templateId: added.data.templateId })).status).toBe(404);
    // Files made from it stay.
    expect((await contentOf(nora, made.data.instanceId)).equals(bytes)).toBe(true);
  });
});
