// Issue #18: the calls behind the five library screens (/businessLibraryManage, /businessDetail,
// /businessLevelProperty, /businessLibraryProperty, /businessConfig) through the real HTTP API, on SQLite and
// PostgreSQL (tests/pg/suite.ts): what each library holds (stats), classifier order and removal, and a library's own
// settings (version retention the retention job applies, administrators-only libraries), with the denials:
// non-administrators, unknown and built-in libraries, and classifiers files still carry.
import { createHash, randomBytes } from 'node:crypto';
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { encodeName } from '@hcs/openapi/client';
import { startServer, type TestServer } from '../helpers/server.ts';
import { makeDept, makeUser, outcome, signInAdmin, type TestUser } from '../helpers/org.ts';
import { signedStorageRequest, uploadFile, type ApiCall } from '../helpers/upload.ts';

let srv: TestServer;
let admin: TestUser;
let member: TestUser;

const BL = '/hcs/controller/BusinessLibs';
const CL = '/hcs/controller/Classifiers';
const sha = (b: Buffer) => createHash('sha256').update(b).digest('hex');
const call = (u: TestUser): ApiCall => (path, query, body) => u.api(path, query, body);

/** Uploads `bytes` into a custom library with the classifier's values; returns the instanceId. */
async function libUpload(u: TestUser, libCode: string, name: string, attrs: unknown, bytes = randomBytes(40)): Promise<string> {
  const api = call(u);
  const up = (await api('/hcs/controller/API/file-uploadable', { fSize: bytes.length, fName: encodeName(name), fMd5: sha(bytes), category: libCode })).data;
  expect(up?.uploadflag, JSON.stringify(up)).toBe(3);
  const put = await signedStorageRequest(api, { fId: up.fId, key: up.objectKey, bucket: up.bucketName, action: 'putObject', verb: 'PUT', body: bytes });
  expect(put.status).toBe(200);
  const saved = await u.api('/hcs/controller/API/save-instance', undefined, {
    fId: up.fId, fMd5: sha(bytes), fSize: bytes.length, objectKey: up.objectKey, fName: encodeName(name), bucketName: up.bucketName, classifierId: 'File', attrs,
  });
  expect(saved.status, JSON.stringify(saved)).toBe(200);
  return saved.data.instanceId;
}

let invoice: any; // classifier of LEDGER with two attributes
let receipt: any; // a second classifier, no attributes
let spare: any; // a third, never carried
let ledgerRoot: string;

beforeAll(async () => {
  srv = await startServer({ env: { HCS_VERSION_MAX_COUNT: '7', HCS_VERSION_MAX_DAYS: '30' } });
  admin = await signInAdmin(srv);
  await makeDept(srv, 'finance', 'Finance');
  member = await makeUser(srv, 'bsmember', 'finance');
  ledgerRoot = (await admin.api(`${BL}/add`, undefined, { libCode: 'LEDGER', libName: '账簿库', libNameEn: 'Ledger' })).data.rootId;
  await admin.api(`${BL}/add`, undefined, { libCode: 'EMPTYLIB', libName: '空库', libNameEn: 'Empty' });
  invoice = (await admin.api(`${CL}/add`, undefined, {
    libCode: 'LEDGER', classifierCode: 'invoice', classifierName: '发票', classifierNameEn: 'Invoice',
    attributes: [
      { attrCode: 'invoiceNo', attrName: '发票号', attrNameEn: 'Invoice no.', dataType: 'text', required: true, unique: true },
      { attrCode: 'total', attrName: '金额', attrNameEn: 'Total', dataType: 'number', required: false, unique: false },
    ],
  })).data;
  receipt = (await admin.api(`${CL}/add`, undefined, { libCode: 'LEDGER', classifierCode: 'receipt', classifierName: '收据', classifierNameEn: 'Receipt' })).data;
  spare = (await admin.api(`${CL}/add`, undefined, {
    libCode: 'LEDGER', classifierCode: 'spare', classifierName: '备用', classifierNameEn: 'Spare',
    attributes: [{ attrCode: 'note', attrName: '备注', attrNameEn: 'Note', dataType: 'text', required: false, unique: false }],
  })).data;
});
afterAll(async () => {
  expect(srv.violations).toEqual([]);
  await srv.close();
});

describe('library stats (/businessLibraryManage, /businessDetail)', () => {
  it('counts files, folders, bytes and files per classifier and attribute, live files only', async () => {
    await libUpload(member, 'LEDGER', 'a.pdf', { classifierId: invoice.classifierId, values: { invoiceNo: 'I-1', total: 10 } }, randomBytes(100));
    await libUpload(member, 'LEDGER', 'b.pdf', { classifierId: invoice.classifierId, values: { invoiceNo: 'I-2' } }, randomBytes(50));
    const binned = await libUpload(member, 'LEDGER', 'c.pdf', { classifierId: receipt.classifierId, values: {} }, randomBytes(30));
    const folder = await admin.api('/hcs/controller/Instances', undefined, [{ classifierId: 'Folder', instanceName: encodeName('2024'), parentId: ledgerRoot }]);
    expect(folder.data?.[0]?.instanceId, JSON.stringify(folder)).toEqual(expect.any(String));
    const before = (await admin.api(`${BL}/stats`, { libCode: 'LEDGER' })).data;
    expect(before).toHaveLength(1);
    expect(before[0]).toMatchObject({ libCode: 'LEDGER', files: 3, folders: 1, bytes: 180, classifiers: 3, attributes: 3, unclassified: 0 });
    expect(outcome(await admin.api('/hcs/controller/delete', { ids: binned }))).toBe('Y');

    const all = (await admin.api(`${BL}/stats`)).data;
    expect(all.map((s: any) => s.libCode)).toEqual(['EMPTYLIB', 'LEDGER']);
    const ledger = all.find((s: any) => s.libCode === 'LEDGER');
    expect(ledger).toMatchObject({ files: 2, folders: 1, bytes: 150, classifiers: 3, attributes: 3 });
    const byClassifier = Object.fromEntries(ledger.byClassifier.map((c: any) => [c.classifierId, c.files]));
    expect(byClassifier).toEqual({ [invoice.classifierId]: 2, [receipt.classifierId]: 0, [spare.classifierId]: 0 });
    const byAttr = Object.fromEntries(ledger.byAttribute.map((a: any) => [a.attrId, a.values]));
    expect(byAttr).toEqual({ [invoice.attributes[0].attrId]: 2, [invoice.attributes[1].attrId]: 1, [spare.attributes[0].attrId]: 0 });
    expect(all.find((s: any) => s.libCode === 'EMPTYLIB')).toMatchObject({ files: 0, folders: 0, bytes: 0, classifiers: 0, byClassifier: [] });
  });

  it('refuses non-administrators, built-in and unknown libraries', async () => {
    expect(outcome(await member.api(`${BL}/stats`))).toBe('F');
    expect(outcome(await member.api(`${BL}/stats`, { libCode: 'LEDGER' }))).toBe('F');
    expect(outcome(await admin.api(`${BL}/stats`, { libCode: 'NetDisk' }))).toBe('N');
    expect(outcome(await admin.api(`${BL}/stats`, { libCode: 'NOSUCH' }))).toBe('N');
  });
});

describe('classifier order and removal (/businessLevelProperty)', () => {
  it('moves a classifier: the list and the library menu follow its new place', async () => {
    const listed = (await admin.api(CL, { libCode: 'LEDGER' })).data;
    expect(listed.map((c: any) => c.classifierCode)).toEqual(['invoice', 'receipt', 'spare']);
    expect(listed.map((c: any) => c.sort)).toEqual([10, 20, 30]);
    const moved = await admin.api(`${CL}/mod`, undefined, { classifierId: spare.classifierId, sort: 5 });
    expect(moved.status, JSON.stringify(moved)).toBe(200);
    expect(moved.data.sort).toBe(5);
    expect((await admin.api(CL, { libCode: 'LEDGER' })).data.map((c: any) => c.classifierCode)).toEqual(['spare', 'invoice', 'receipt']);
    const menu = await member.api(`${BL}/businessMenu`, { libCode: 'LEDGER' });
    expect(menu.data[0].children.map((c: any) => c.menuName)).toEqual(['Spare', 'Invoice', 'Receipt']);
    expect(outcome(await member.api(`${CL}/mod`, undefined, { classifierId: spare.classifierId, sort: 1 }))).toBe('F');
  });

  it('refuses to remove a classifier files carry, live or in the recycle bin', async () => {
    const live = await admin.api(`${CL}/delete`, undefined, { classifierId: invoice.classifierId });
    expect([live.status, live.data.code]).toEqual([409, 'CONFLICT']);
    // receipt's only file is in the recycle bin: restoring it would bring back a classifier that no longer exists.
    const binned = await admin.api(`${CL}/delete`, undefined, { classifierId: receipt.classifierId });
    expect([binned.status, binned.data.code]).toEqual([409, 'CONFLICT']);
    expect((await admin.api(CL, { libCode: 'LEDGER' })).data).toHaveLength(3);
  });

  it('removes a classifier no file carries, with its attributes and menu entry; a new one takes the next place', async () => {
    expect(outcome(await member.api(`${CL}/delete`, undefined, { classifierId: spare.classifierId }))).toBe('F');
    const r = await admin.api(`${CL}/delete`, undefined, { classifierId: spare.classifierId });
    expect(r.status, JSON.stringify(r)).toBe(200);
    expect((await admin.api(CL, { libCode: 'LEDGER' })).data.map((c: any) => c.classifierCode)).toEqual(['invoice', 'receipt']);
    expect((await admin.api(`${CL}/exisAttrCode`, { libCode: 'LEDGER', attrCode: 'note' })).data.exists).toBe(false);
    const menu = await admin.api(`${BL}/businessMenu`, { libCode: 'LEDGER' });
    expect(menu.data[0].children.map((c: any) => c.menuName)).toEqual(['Invoice', 'Receipt']);
    expect(outcome(await admin.api(`${CL}/delete`, undefined, { classifierId: spare.classifierId }))).toBe('N');
    const again = (await admin.api(`${CL}/add`, undefined, { libCode: 'LEDGER', classifierCode: 'spare', classifierName: '备用', classifierNameEn: 'Spare' })).data;
    expect(again.sort).toBe(30);
    expect((await admin.api(`${BL}/stats`, { libCode: 'LEDGER' })).data[0].classifiers).toBe(3);
  });
});

describe('library settings (/businessConfig)', () => {
  it('reads the server defaults for a library that sets none', async () => {
    const r = await admin.api(`${BL}/config`, { libCode: 'NetDisk' });
    expect(r.data).toEqual({ libCode: 'NetDisk', custom: 0, versionMaxCount: null, versionMaxDays: null, adminOnly: 0, defaults: { versionMaxCount: 7, versionMaxDays: 30 } });
  });

  it('a library\'s own version count is what the retention job keeps, and null returns it to the default', async () => {
    const set = await admin.api(`${BL}/config`, undefined, { libCode: 'NetDisk', versionMaxCount: 1 });
    expect(set.status, JSON.stringify(set)).toBe(200);
    expect(set.data).toMatchObject({ versionMaxCount: 1, versionMaxDays: null });
    const api = call(member);
    let id = '';
    for (const c of ['v-1', 'v-22', 'v-333', 'v-4444']) id = await uploadFile(api, 'kept.txt', Buffer.from(c), { query: { conflict: 'newVersion' } });
    await srv.built.retention().sweep(Date.now());
    const history = (await member.api('/hcs/controller/getHistoryVersion', { instanceId: id })).data.list.map((v: any) => v.version);
    expect(history).toEqual([4, 3]);
    const back = await admin.api(`${BL}/config`, undefined, { libCode: 'NetDisk', versionMaxCount: null, versionMaxDays: 0 });
    expect(back.data).toMatchObject({ versionMaxCount: null, versionMaxDays: 0 });
    expect((await admin.api(`${BL}/config`, { libCode: 'NetDisk' })).data).toMatchObject({ versionMaxCount: null, versionMaxDays: 0 });
  });

  it('an administrators-only library leaves members\' lists and refuses them its files', async () => {
    expect((await member.api(BL)).data.map((l: any) => l.libCode)).toContain('LEDGER');
    const r = await admin.api(`${BL}/config`, undefined, { libCode: 'LEDGER', adminOnly: 1 });
    expect(r.data).toMatchObject({ libCode: 'LEDGER', custom: 1, adminOnly: 1 });
    expect((await member.api(BL)).data.map((l: any) => l.libCode)).not.toContain('LEDGER');
    expect(outcome(await member.api(`${BL}/files`, { libCode: 'LEDGER' }))).toBe('F');
    expect((await admin.api(`${BL}/files`, { libCode: 'LEDGER' })).status).toBe(200);
    await admin.api(`${BL}/config`, undefined, { libCode: 'LEDGER', adminOnly: 0 });
    expect((await member.api(`${BL}/files`, { libCode: 'LEDGER' })).status).toBe(200);
  });

  it('refuses non-administrators, adminOnly on built-in libraries, unknown codes and bad limits', async () => {
    expect(outcome(await member.api(`${BL}/config`, { libCode: 'LEDGER' }))).toBe('F');
    expect(outcome(await member.api(`${BL}/config`, undefined, { libCode: 'LEDGER', versionMaxCount: 1 }))).toBe('F');
    for (const libCode of ['NetDisk', 'SysConfig']) expect(outcome(await admin.api(`${BL}/config`, undefined, { libCode, adminOnly: 1 }))).toBe('F');
    expect((await admin.api(`${BL}/config`, { libCode: 'SysConfig' })).data.adminOnly).toBe(1);
    expect(outcome(await admin.api(`${BL}/config`, { libCode: 'NOSUCH' }))).toBe('N');
    expect(outcome(await admin.api(`${BL}/config`, undefined, { libCode: 'NOSUCH', versionMaxCount: 3 }))).toBe('N');
    expect((await admin.api(`${BL}/config`, undefined, { libCode: 'LEDGER', versionMaxCount: 0 })).status).toBe(422);
    expect((await admin.api(`${BL}/config`, undefined, { libCode: 'LEDGER', versionMaxDays: -1 })).status).toBe(422);
  });
});
