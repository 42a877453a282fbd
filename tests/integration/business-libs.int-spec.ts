// Issue #18 part 2: business libraries through the real HTTP API, on SQLite and PostgreSQL (tests/pg/suite.ts).
// Every call of the contract tag business-libs: libraries (create, edit, disable, delete, getAll, getLibByUserId),
// their menu, classifiers and attributes (add, mod, features, exisAttrCode, DataTypes/withCommon), attribute values
// validated on upload (saveInstance's attrs) and on edit (setInstanceAttrs), unique values, list filters
// (pageLibFiles), with the denials: non-administrators, users without access to the library's files, role grants
// narrowing it, disabled libraries, and another library's ids.
import { createHash, randomBytes } from 'node:crypto';
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { encodeName } from '@hcs/openapi/client';
import { startServer, type TestServer } from '../helpers/server.ts';
import { makeDept, makeUser, outcome, signInAdmin, type Env, type TestUser } from '../helpers/org.ts';
import { signedStorageRequest, uploadFile, type ApiCall } from '../helpers/upload.ts';

let srv: TestServer;
let admin: TestUser;
let member: TestUser; // in a department of the organisation: defaultrole in libraries
let observer: TestUser; // granted observer on the CONTRACTS root
let loner: TestUser; // in no department: nothing in libraries without a grant

const BL = '/hcs/controller/BusinessLibs';
const CL = '/hcs/controller/Classifiers';
const ATTRS = '/hcs/controller/Instances/attrs';
const sha = (b: Buffer) => createHash('sha256').update(b).digest('hex');
const call = (u: TestUser): ApiCall => (path, query, body) => u.api(path, query, body);

const fields = (r: Env): string[] => (r.data?.fields ?? []).map((f: { field: string }) => f.field).sort();

async function del(u: TestUser, path: string): Promise<Env> {
  const res = await srv.call(path, { method: 'DELETE', token: u.token });
  return { status: res.status, ...((await res.json()) as object) } as Env;
}

/** Starts an upload of `bytes` into the library and stores its content; `save(attrs)` registers it (retryable). */
async function stagedUpload(u: TestUser, libCode: string, name: string, bytes = randomBytes(48)) {
  const api = call(u);
  const up = (await api('/hcs/controller/API/file-uploadable', { fSize: bytes.length, fName: encodeName(name), fMd5: sha(bytes), category: libCode })).data;
  expect(up?.uploadflag, JSON.stringify(up)).toBe(3);
  const put = await signedStorageRequest(api, { fId: up.fId, key: up.objectKey, bucket: up.bucketName, action: 'putObject', verb: 'PUT', body: bytes });
  expect(put.status).toBe(200);
  return (attrs?: unknown) =>
    u.api('/hcs/controller/API/save-instance', undefined, {
      fId: up.fId, fMd5: sha(bytes), fSize: bytes.length, objectKey: up.objectKey, fName: encodeName(name), bucketName: up.bucketName, classifierId: 'File',
      ...(attrs !== undefined ? { attrs } : {}),
    });
}

const CONTRACT_ATTRS = [
  { attrCode: 'contractNo', attrName: '合同编号', attrNameEn: 'Contract no.', dataType: 'text', required: true, unique: true },
  { attrCode: 'amount', attrName: '金额', attrNameEn: 'Amount', dataType: 'number', required: false, unique: false },
  { attrCode: 'signedOn', attrName: '签订日期', attrNameEn: 'Signed on', dataType: 'date', required: false, unique: false },
  { attrCode: 'status', attrName: '状态', attrNameEn: 'Status', dataType: 'enumeration', required: true, unique: false, options: ['draft', 'signed'] },
  { attrCode: 'owner', attrName: '负责人', attrNameEn: 'Owner', dataType: 'user', required: false, unique: false },
  { attrCode: 'dept', attrName: '部门', attrNameEn: 'Department', dataType: 'department', required: false, unique: false },
];

let lib: any; // CONTRACTS
let other: any; // OTHERLIB
let contract: any; // its classifier
let otherClassifier: any;

beforeAll(async () => {
  srv = await startServer();
  admin = await signInAdmin(srv);
  await makeDept(srv, 'legal', 'Legal');
  member = await makeUser(srv, 'blmember', 'legal');
  observer = await makeUser(srv, 'blobserver', 'legal');
  loner = await makeUser(srv, 'blloner', null);
});
afterAll(async () => {
  expect(srv.violations).toEqual([]);
  await srv.close();
});

describe('libraries', () => {
  it('lists the six data types', async () => {
    const r = await member.api('/hcs/controller/DataTypes/withCommon');
    expect(r.data.map((t: any) => t.code)).toEqual(['text', 'number', 'date', 'enumeration', 'user', 'department']);
    expect(r.data[0]).toEqual({ code: 'text', name: '文本', nameEn: 'Text' });
  });

  it('administrators create a library with its root and menu; codes are unique in any case; others are refused', async () => {
    const r = await admin.api(`${BL}/add`, undefined, { libCode: 'CONTRACTS', libName: '合同库', libNameEn: 'Contracts', webIcon: 'file-text', sort: 5 });
    expect(r.status, JSON.stringify(r)).toBe(200);
    lib = r.data;
    expect(lib).toMatchObject({ libCode: 'CONTRACTS', libName: '合同库', libNameEn: 'Contracts', webIcon: 'file-text', isShow: 1, isHome: 1, isEnabled: 1, custom: 1, sort: 5 });
    expect(lib.rootId).toEqual(expect.any(String));
    other = (await admin.api(`${BL}/add`, undefined, { libCode: 'OTHERLIB', libName: '其他库', libNameEn: 'Other', isHome: 0 })).data;
    const dup = await admin.api(`${BL}/add`, undefined, { libCode: 'contracts', libName: 'x', libNameEn: 'x' });
    expect([dup.status, dup.data.code]).toEqual([409, 'CONFLICT']);
    const bad = await admin.api(`${BL}/add`, undefined, { libCode: '9lives', libName: 'x', libNameEn: 'x' });
    expect(bad.status).toBe(422);
    const denied = await member.api(`${BL}/add`, undefined, { libCode: 'MINE', libName: 'x', libNameEn: 'x' });
    expect([denied.status, denied.data.code]).toEqual([403, 'FORBIDDEN']);
  });

  it('home, getAll and getLibByUserId list the real libraries', async () => {
    const home = await member.api(BL, { isShow: 1, isHome: 1 });
    expect(home.data.map((l: any) => l.libCode)).toEqual(expect.arrayContaining(['NetDisk', 'CONTRACTS']));
    expect(home.data.map((l: any) => l.libCode)).not.toContain('OTHERLIB');
    const all = await admin.api(`${BL}/getAll`);
    const byCode = new Map(all.data.map((l: any) => [l.libCode, l]));
    expect(byCode.get('NetDisk')).toMatchObject({ custom: 0, rootId: null });
    expect(byCode.get('OTHERLIB')).toMatchObject({ custom: 1, isHome: 0 });
    expect(outcome(await member.api(`${BL}/getAll`))).toBe('F');
    const mine = await member.api(`${BL}/getLibByUserId`, { userId: member.id });
    expect(mine.data.map((l: any) => l.libCode)).toEqual(expect.arrayContaining(['NetDisk', 'CONTRACTS', 'OTHERLIB']));
    expect(mine.data.map((l: any) => l.libCode)).not.toContain('SysConfig');
    expect(outcome(await member.api(`${BL}/getLibByUserId`, { userId: admin.id }))).toBe('F');
    expect((await admin.api(`${BL}/getLibByUserId`, { userId: member.id })).data.length).toBe(mine.data.length);
    expect(outcome(await admin.api(`${BL}/getLibByUserId`, { userId: 'nobody' }))).toBe('N');
  });
});

describe('classifiers and attributes', () => {
  it('adds a classifier with typed attributes, shown in the library menu', async () => {
    const r = await admin.api(`${CL}/add`, undefined, { libCode: 'CONTRACTS', classifierCode: 'contract', classifierName: '合同', classifierNameEn: 'Contract', attributes: CONTRACT_ATTRS });
    expect(r.status, JSON.stringify(r)).toBe(200);
    contract = r.data;
    expect(contract.features).toEqual(['upload', 'download', 'preview']);
    expect(contract.attributes.map((a: any) => a.attrCode)).toEqual(CONTRACT_ATTRS.map((a) => a.attrCode));
    expect(contract.attributes[3]).toMatchObject({ dataType: 'enumeration', required: true, options: ['draft', 'signed'] });
    otherClassifier = (await admin.api(`${CL}/add`, undefined, { libCode: 'OTHERLIB', classifierCode: 'memo', classifierName: '备忘', classifierNameEn: 'Memo', attributes: [{ attrCode: 'topic', attrName: '主题', attrNameEn: 'Topic', dataType: 'text', required: false, unique: false }] })).data;
    const menu = await member.api(`${BL}/businessMenu`, { libCode: 'CONTRACTS' });
    expect(menu.data).toHaveLength(1);
    expect(menu.data[0]).toMatchObject({ menuUrl: '/businessLibrary', menuStr: '文件', menuName: 'Files' });
    expect(menu.data[0].children.map((c: any) => [c.menuStr, c.menuName, c.menuUrl])).toEqual([['合同', 'Contract', `/businessLibrary?classifierId=${encodeURIComponent(contract.classifierId)}`]]);
    const listed = await member.api(CL, { libCode: 'CONTRACTS' });
    expect(listed.data.map((c: any) => c.classifierId)).toEqual([contract.classifierId]);
  });

  it('refuses bad attribute lists, taken codes and non-administrators', async () => {
    const noOptions = await admin.api(`${CL}/add`, undefined, { libCode: 'CONTRACTS', classifierCode: 'x1', classifierName: 'x', classifierNameEn: 'x', attributes: [{ attrCode: 'e', attrName: 'e', attrNameEn: 'e', dataType: 'enumeration', required: false, unique: false }] });
    expect([noOptions.status, fields(noOptions)]).toEqual([422, ['attributes[0].options']]);
    const takenAttr = await admin.api(`${CL}/add`, undefined, { libCode: 'CONTRACTS', classifierCode: 'x2', classifierName: 'x', classifierNameEn: 'x', attributes: [{ ...CONTRACT_ATTRS[0], attrCode: 'CONTRACTNO' }] });
    expect([takenAttr.status, takenAttr.data.code]).toEqual([409, 'CONFLICT']);
    const takenCode = await admin.api(`${CL}/add`, undefined, { libCode: 'CONTRACTS', classifierCode: 'Contract', classifierName: 'x', classifierNameEn: 'x' });
    expect([takenCode.status, takenCode.data.code]).toEqual([409, 'CONFLICT']);
    // Nothing of the refused classifiers was kept.
    expect((await admin.api(CL, { libCode: 'CONTRACTS' })).data).toHaveLength(1);
    expect((await admin.api(`${CL}/exisAttrCode`, { libCode: 'CONTRACTS', attrCode: 'contractno' })).data).toEqual({ exists: true });
    expect((await admin.api(`${CL}/exisAttrCode`, { libCode: 'CONTRACTS', attrCode: 'topic' })).data).toEqual({ exists: false });
    expect((await admin.api(`${CL}/exisAttrCode`, { libCode: 'OTHERLIB', attrCode: 'topic' })).data).toEqual({ exists: true });
    expect(outcome(await admin.api(`${CL}/add`, undefined, { libCode: 'NetDisk', classifierCode: 'x', classifierName: 'x', classifierNameEn: 'x' }))).toBe('N');
    for (const r of [
      await member.api(`${CL}/add`, undefined, { libCode: 'CONTRACTS', classifierCode: 'x3', classifierName: 'x', classifierNameEn: 'x' }),
      await member.api(`${CL}/mod`, undefined, { classifierId: contract.classifierId, classifierName: 'hacked' }),
      await member.api(`${CL}/features`, undefined, { classifierId: contract.classifierId, features: [] }),
      await member.api(`${CL}/exisAttrCode`, { libCode: 'CONTRACTS', attrCode: 'x' }),
    ]) expect(outcome(r)).toBe('F');
  });

  it('mod renames and replaces the attribute list; features are set on their own', async () => {
    const attrs = contract.attributes.map((a: any) => ({ ...a }));
    const r = await admin.api(`${CL}/mod`, undefined, {
      classifierId: contract.classifierId, classifierName: '合同文件', attributes: [...attrs, { attrCode: 'scratch', attrName: '草稿', attrNameEn: 'Scratch', dataType: 'text', required: false, unique: false }],
    });
    expect(r.status, JSON.stringify(r)).toBe(200);
    expect(r.data.classifierName).toBe('合同文件');
    expect(r.data.attributes.map((a: any) => a.attrCode)).toContain('scratch');
    const menu = await admin.api(`${BL}/businessMenu`, { libCode: 'CONTRACTS' });
    expect(menu.data[0].children[0].menuStr).toBe('合同文件');
    const back = await admin.api(`${CL}/mod`, undefined, { classifierId: contract.classifierId, attributes: attrs });
    expect(back.data.attributes.map((a: any) => a.attrCode)).toEqual(CONTRACT_ATTRS.map((a) => a.attrCode));
    expect((await admin.api(`${CL}/exisAttrCode`, { libCode: 'CONTRACTS', attrCode: 'scratch' })).data.exists).toBe(false);
    const f = await admin.api(`${CL}/features`, undefined, { classifierId: contract.classifierId, features: ['upload', 'download', 'share'] });
    expect(f.data.features).toEqual(['upload', 'download', 'share']);
    const foreign = await admin.api(`${CL}/mod`, undefined, { classifierId: contract.classifierId, attributes: [...attrs, { ...otherClassifier.attributes[0] }] });
    expect([foreign.status, fields(foreign)]).toEqual([422, [`attributes[${attrs.length}].attrId`]]);
    contract = (await admin.api(CL, { libCode: 'CONTRACTS' })).data[0];
  });
});

describe('files with attribute values', () => {
  let first: string;
  let second: string;

  it('validates the values on upload and stores nothing until they are right', async () => {
    const save = await stagedUpload(member, 'CONTRACTS', 'lease.pdf');
    const bad = await save({ classifierId: contract.classifierId, values: { amount: 'lots', signedOn: '2025-02-30', status: 'lost', owner: 'nobody', dept: 'nowhere', bogus: 'x' } });
    expect([bad.status, bad.data.code]).toEqual([422, 'VALIDATION_FAILED']);
    expect(fields(bad)).toEqual(['attrs.values.amount', 'attrs.values.bogus', 'attrs.values.contractNo', 'attrs.values.dept', 'attrs.values.owner', 'attrs.values.signedOn', 'attrs.values.status']);
    const listed = await member.api(`${BL}/files`, { libCode: 'CONTRACTS' });
    expect(listed.data.total).toBe(0);
    const foreign = await save({ classifierId: otherClassifier.classifierId, values: { topic: 'x' } });
    expect(outcome(foreign)).toBe('N');
    // The same upload session saves once the values are right.
    const good = await save({ classifierId: contract.classifierId, values: { contractNo: 'C-001', amount: 1200.5, signedOn: '2024-02-29', status: 'signed', owner: member.id, dept: 'legal' } });
    expect(good.status, JSON.stringify(good)).toBe(200);
    first = good.data.instanceId;
    expect(good.data.libCode).toBe('CONTRACTS');
    const got = await member.api(ATTRS, { instanceId: first });
    expect(got.data).toEqual({ instanceId: first, classifierId: contract.classifierId, values: { contractNo: 'C-001', amount: 1200.5, signedOn: '2024-02-29', status: 'signed', owner: member.id, dept: 'legal' } });
  });

  it('refuses a unique value another file holds, in any case', async () => {
    const save = await stagedUpload(admin, 'CONTRACTS', 'copy.pdf');
    const dup = await save({ classifierId: contract.classifierId, values: { contractNo: 'c-001', status: 'draft' } });
    expect([dup.status, fields(dup)]).toEqual([422, ['attrs.values.contractNo']]);
    const ok = await save({ classifierId: contract.classifierId, values: { contractNo: 'C-002', status: 'draft', amount: '75' } });
    expect(ok.status, JSON.stringify(ok)).toBe(200);
    second = ok.data.instanceId;
    expect((await admin.api(ATTRS, { instanceId: second })).data.values.amount).toBe(75);
  });

  it('an instant transfer of stored content carries its values too, validated before the proof is used', async () => {
    const bytes = randomBytes(300);
    await uploadFile(call(member), 'original.bin', bytes);
    const u = (await member.api('/hcs/controller/API/file-uploadable', { fSize: bytes.length, fName: encodeName('instant.bin'), fMd5: sha(bytes), category: 'CONTRACTS' })).data;
    expect(u.uploadflag).toBe(1);
    const proof = sha(bytes.subarray(u.proof.offset, u.proof.offset + u.proof.length));
    const body = { fId: u.fId, proofId: u.proof.proofId, proof, instanceName: encodeName('instant.bin') };
    const bad = await member.api('/hcs/controller/API/second-transfer', undefined, { ...body, attrs: { classifierId: contract.classifierId, values: { contractNo: 'C-009' } } });
    expect([bad.status, fields(bad)]).toEqual([422, ['attrs.values.status']]);
    const done = await member.api('/hcs/controller/API/second-transfer', undefined, { ...body, attrs: { classifierId: contract.classifierId, values: { contractNo: 'C-009', status: 'draft' } } });
    expect(done.status, JSON.stringify(done)).toBe(200);
    expect((await member.api(ATTRS, { instanceId: done.data.instanceId })).data.values).toEqual({ contractNo: 'C-009', status: 'draft' });
    // Out of the way of the listing counts below (the member's default role does not delete).
    const gone = await admin.api('/hcs/controller/delete', { ids: done.data.instanceId });
    expect(gone.data?.failed ?? [], JSON.stringify(gone)).toEqual([]);
  });

  it('edits values later with the same validation; a refused edit changes nothing', async () => {
    const bad = await member.api(ATTRS, undefined, { instanceId: first, classifierId: contract.classifierId, values: { contractNo: 'C-002', status: 'signed' } });
    expect([bad.status, fields(bad)]).toEqual([422, ['values.contractNo']]);
    const missing = await member.api(ATTRS, undefined, { instanceId: first, classifierId: contract.classifierId, values: { contractNo: 'C-001' } });
    expect([missing.status, fields(missing)]).toEqual([422, ['values.status']]);
    expect((await member.api(ATTRS, { instanceId: first })).data.values.amount).toBe(1200.5);
    const ok = await member.api(ATTRS, undefined, { instanceId: first, classifierId: contract.classifierId, values: { contractNo: 'C-001', status: 'signed', amount: 99 } });
    expect(ok.data.values).toEqual({ contractNo: 'C-001', status: 'signed', amount: 99 });
    const foreign = await member.api(ATTRS, undefined, { instanceId: first, classifierId: otherClassifier.classifierId, values: {} });
    expect(outcome(foreign)).toBe('N');
    // A personal file carries no attributes.
    const personal = await uploadFile(call(member), 'mine.txt', randomBytes(16));
    expect((await member.api(ATTRS, undefined, { instanceId: personal, classifierId: contract.classifierId, values: {} })).status).toBe(400);
  });

  it('lists files with their values as columns and filters by attributes', async () => {
    const all = await member.api(`${BL}/files`, { libCode: 'CONTRACTS' });
    expect(all.data.total).toBe(2);
    expect(all.data.breadcrumbs[0].instanceName).toBe('合同库');
    const row = all.data.list.find((r: any) => r.instanceId === first);
    expect(row).toMatchObject({ attrClassifierId: contract.classifierId, attrs: { contractNo: 'C-001', status: 'signed', amount: 99 } });
    const names = async (filter: object, extra: Record<string, string> = {}) =>
      (await member.api(`${BL}/files`, { libCode: 'CONTRACTS', attrFilter: JSON.stringify(filter), ...extra })).data.list.map((r: any) => r.instanceName);
    expect(await names({ status: 'signed' })).toEqual(['lease.pdf']);
    expect(await names({ status: 'draft' })).toEqual(['copy.pdf']);
    expect(await names({ contractNo: 'c-00' })).toEqual(['copy.pdf', 'lease.pdf']);
    expect(await names({ amount: 75 })).toEqual(['copy.pdf']);
    expect(await names({ amount: '99', status: 'signed' })).toEqual(['lease.pdf']);
    expect(await names({ amount: 99, status: 'draft' })).toEqual([]);
    expect(await names({}, { classifierId: contract.classifierId })).toEqual(['copy.pdf', 'lease.pdf']);
    const unknown = await member.api(`${BL}/files`, { libCode: 'CONTRACTS', attrFilter: JSON.stringify({ topic: 'x' }) });
    expect([unknown.status, fields(unknown)]).toEqual([422, ['attrFilter.topic']]);
    expect((await member.api(`${BL}/files`, { libCode: 'CONTRACTS', attrFilter: '[1]' })).status).toBe(422);
    expect(outcome(await member.api(`${BL}/files`, { libCode: 'CONTRACTS', classifierId: otherClassifier.classifierId }))).toBe('N');
  });

  it('searches the whole library by attributes and name, showing only what the caller may view', async () => {
    // A file in a sub-folder the member may not view (a deny grant), and one in a folder they may.
    const mk = async (name: string) => (await admin.api('/hcs/controller/Instances', undefined, [{ classifierId: 'Folder', instanceName: encodeName(name), parentId: lib.rootId }])).data[0].instanceId;
    const open = await mk('open');
    const closed = await mk('closed');
    for (const [folder, name, no] of [[open, 'deep-open.pdf', 'D-1'], [closed, 'deep-closed.pdf', 'D-2']] as const) {
      const save = await (async () => {
        const bytes = randomBytes(40);
        const api = call(admin);
        const up = (await api('/hcs/controller/API/file-uploadable', { fSize: bytes.length, fName: encodeName(name), fMd5: sha(bytes), parentId: folder })).data;
        await signedStorageRequest(api, { fId: up.fId, key: up.objectKey, bucket: up.bucketName, action: 'putObject', verb: 'PUT', body: bytes });
        return admin.api('/hcs/controller/API/save-instance', undefined, { fId: up.fId, fMd5: sha(bytes), fSize: bytes.length, objectKey: up.objectKey, fName: encodeName(name), bucketName: up.bucketName, attrs: { classifierId: contract.classifierId, values: { contractNo: no, status: 'signed' } } });
      })();
      expect(save.status, JSON.stringify(save)).toBe(200);
    }
    expect(outcome(await admin.api('/hcs/controller/SysRoleUser/setGroupRoleUser', undefined, { instanceId: closed, roleId: 'disable', userIds: [member.id] }))).toBe('Y');
    const deep = async (u: TestUser, q: Record<string, string>) => (await u.api(`${BL}/files`, { libCode: 'CONTRACTS', deep: 'true', ...q })).data;
    const signed = await deep(member, { attrFilter: JSON.stringify({ status: 'signed' }) });
    expect(signed.list.map((r: any) => r.instanceName)).toEqual(['deep-open.pdf', 'lease.pdf']);
    expect(signed.total).toBe(2);
    expect(signed.list[0]).toMatchObject({ parentNames: 'open', attrs: { contractNo: 'D-1' } });
    expect((await deep(admin, { attrFilter: JSON.stringify({ status: 'signed' }) })).list.map((r: any) => r.instanceName)).toEqual(['deep-closed.pdf', 'deep-open.pdf', 'lease.pdf']);
    expect((await deep(member, { keyword: 'DEEP' })).list.map((r: any) => r.instanceName)).toEqual(['deep-open.pdf']);
    expect((await deep(member, { attrFilter: JSON.stringify({ contractNo: 'd-' }), pageSize: '1', pageNo: '1' })).total).toBe(1);
    // Out of the way of the counts below.
    for (const id of [open, closed]) expect((await admin.api('/hcs/controller/delete', { ids: id })).data?.failed ?? []).toEqual([]);
  });

  it("another library's folder, and users outside the library's grants, are refused", async () => {
    const otherRoot = other.rootId;
    expect(outcome(await member.api(`${BL}/files`, { libCode: 'CONTRACTS', parentId: otherRoot }))).toBe('N');
    expect(outcome(await loner.api(`${BL}/files`, { libCode: 'CONTRACTS' }))).toBe('N');
    expect(outcome(await loner.api(ATTRS, { instanceId: first }))).toBe('N');
    expect(outcome(await loner.api(ATTRS, undefined, { instanceId: first, classifierId: contract.classifierId, values: { contractNo: 'X', status: 'draft' } }))).toBe('N');
    // A grant narrows the default: an observer sees the files and their values but may not change them.
    expect(outcome(await admin.api('/hcs/controller/SysRoleUser/setGroupRoleUser', undefined, { instanceId: lib.rootId, roleId: 'observer', userIds: [observer.id] }))).toBe('Y');
    expect((await observer.api(`${BL}/files`, { libCode: 'CONTRACTS' })).data.total).toBe(2);
    expect((await observer.api(ATTRS, { instanceId: first })).data.values.contractNo).toBe('C-001');
    expect(outcome(await observer.api(ATTRS, undefined, { instanceId: first, classifierId: contract.classifierId, values: { contractNo: 'C-001', status: 'draft' } }))).toBe('F');
    const up = await observer.api('/hcs/controller/API/file-uploadable', { fSize: 3, fName: encodeName('x.txt'), fMd5: sha(Buffer.from('abc')), category: 'CONTRACTS' });
    expect(outcome(up)).toBe('F');
    const named = await observer.api('/hcs/controller/API/file-uploadable', { fSize: 3, fName: encodeName('x.txt'), fMd5: sha(Buffer.from('abc')), category: 'CONTRACTS', parentId: lib.rootId });
    expect(outcome(named)).toBe('F');
    // The member's default role adds to the library.
    const memberUp = await member.api('/hcs/controller/API/file-uploadable', { fSize: 3, fName: encodeName('y.txt'), fMd5: sha(Buffer.from('abd')), category: 'CONTRACTS' });
    expect(memberUp.data.uploadflag).toBe(3);
  });
});

describe('editing, disabling and deleting libraries', () => {
  it('edits a library; built-in libraries and unknown ids are refused', async () => {
    const r = await admin.api(`${BL}/${lib.libId}`, undefined, { libNameEn: 'Contract library', isHome: 0, sort: 1 });
    expect(r.data).toMatchObject({ libNameEn: 'Contract library', isHome: 0, sort: 1, libName: '合同库' });
    expect((await member.api(BL, { isShow: 1, isHome: 1 })).data.map((l: any) => l.libCode)).not.toContain('CONTRACTS');
    await admin.api(`${BL}/${lib.libId}`, undefined, { isHome: 1 });
    expect(outcome(await admin.api(`${BL}/NetDisk`, undefined, { libName: 'x' }))).toBe('F');
    expect(outcome(await admin.api(`${BL}/nope`, undefined, { libName: 'x' }))).toBe('N');
    expect(outcome(await member.api(`${BL}/${lib.libId}`, undefined, { libName: 'x' }))).toBe('F');
  });

  it('a disabled library leaves the lists and refuses its files to everyone but administrators', async () => {
    await admin.api(`${BL}/${lib.libId}`, undefined, { isEnabled: 0 });
    expect((await member.api(BL)).data.map((l: any) => l.libCode)).not.toContain('CONTRACTS');
    expect((await admin.api(`${BL}/getAll`)).data.find((l: any) => l.libCode === 'CONTRACTS').isEnabled).toBe(0);
    expect(outcome(await member.api(`${BL}/files`, { libCode: 'CONTRACTS' }))).toBe('F');
    expect(outcome(await member.api(CL, { libCode: 'CONTRACTS' }))).toBe('F');
    expect((await admin.api(`${BL}/files`, { libCode: 'CONTRACTS' })).data.total).toBe(2);
    await admin.api(`${BL}/${lib.libId}`, undefined, { isEnabled: 1 });
    expect((await member.api(`${BL}/files`, { libCode: 'CONTRACTS' })).data.total).toBe(2);
  });

  it('deletes only empty libraries, with their classifiers and menu', async () => {
    expect(outcome(await del(member, `${BL}/${other.libId}`))).toBe('F');
    const held = await del(admin, `${BL}/${lib.libId}`);
    expect([held.status, held.data.code]).toEqual([409, 'CONFLICT']);
    expect((await del(admin, `${BL}/${other.libId}`)).status).toBe(200);
    expect((await admin.api(`${BL}/getAll`)).data.map((l: any) => l.libCode)).not.toContain('OTHERLIB');
    expect(outcome(await admin.api(CL, { libCode: 'OTHERLIB' }))).toBe('N');
    expect(outcome(await del(admin, `${BL}/${other.libId}`))).toBe('N');
    expect(outcome(await del(admin, `${BL}/NetDisk`))).toBe('F');
  });
});
