// Issue #17 part 1: internal shares through the real HTTP API, on SQLite and PostgreSQL (tests/pg/suite.ts). Every
// /fileShare call with its denials; every share role against every operation through fileSharingId (a hand-written
// expected table); another user's share id and items outside the share get nothing; department (subtree) and group
// recipients; resharing only with the roles that allow it and never wider; cancel and modify take effect at once.
import { createHash, randomBytes } from 'node:crypto';
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { encodeName } from '@hcs/openapi/client';
import { startServer, type TestServer } from '../helpers/server.ts';
import { apiAs, makeDept, makeUser, mkdir, outcome, type Env, type TestUser } from '../helpers/org.ts';
import { uploadFile, type ApiCall } from '../helpers/upload.ts';

let srv: TestServer;
let owner: TestUser; // eng: shares from their personal space
let bob: TestUser; // eng-web: the usual recipient
let carol: TestUser; // ops: reached by reshares
let dave: TestUser; // ops: a member of the owner's group
let eve: TestUser; // ops: reached by nothing

const C = '/hcs/controller';
const sha = (b: Buffer) => createHash('sha256').update(b).digest('hex');
const call = (u: TestUser): ApiCall => (path, query, body) => u.api(path, query, body);
const fileIn = (u: TestUser, name: string, parentId: string, bytes = randomBytes(64)) => uploadFile(call(u), name, bytes, { query: { parentId } });

type Recipient = { kind: 'user' | 'dept' | 'group'; id: string; roleCode: string };
async function share(u: TestUser, instanceId: string, recipients: Recipient[], fileSharingId?: string): Promise<Env> {
  return u.api(`${C}/fileSharing`, undefined, { instanceId, recipients, ...(fileSharingId ? { fileSharingId } : {}) });
}
async function shareOk(u: TestUser, instanceId: string, recipients: Recipient[]): Promise<any> {
  const r = await share(u, instanceId, recipients);
  expect(r.ret, JSON.stringify(r)).toBe(0);
  return r.data;
}
const toUser = (u: TestUser, roleCode: string): Recipient => ({ kind: 'user', id: u.id, roleCode });

beforeAll(async () => {
  srv = await startServer();
  await makeDept(srv, 'eng', 'Engineering');
  await makeDept(srv, 'eng-web', 'Web', 'eng');
  await makeDept(srv, 'ops', 'Ops');
  owner = await makeUser(srv, 'showner', 'eng');
  bob = await makeUser(srv, 'shbob', 'eng-web');
  carol = await makeUser(srv, 'shcarol', 'ops');
  dave = await makeUser(srv, 'shdave', 'ops');
  eve = await makeUser(srv, 'sheve', 'ops');
});
afterAll(async () => {
  expect(srv.violations).toEqual([]);
  await srv.close();
});

describe('share roles through fileSharingId', () => {
  type Op = 'view' | 'props' | 'preview' | 'download' | 'upload' | 'mkdir' | 'rename' | 'delete' | 'reshare';
  const R = { view: 'Y', props: 'Y', preview: 'Y', download: 'F', upload: 'F', mkdir: 'F', rename: 'F', delete: 'F', reshare: 'F' } as const;
  const D = { ...R, download: 'Y' } as const;
  const EDIT = { ...D, upload: 'Y', mkdir: 'Y', rename: 'Y' } as const;
  const ALL = { ...EDIT, delete: 'Y', reshare: 'Y' } as const;
  // Hand-written from the contract's ShareRoleCode table: a change to a role's authorities must show up here.
  const EXPECTED: Record<string, Record<Op, string>> = {
    groupShare_view_only: { ...R, preview: 'F' },
    groupShare_reader: R,
    groupShare_download: D,
    groupShare_downloader: D,
    groupShare_sharedby: D,
    groupShare_default_role: D,
    groupShare_uploader: { ...R, upload: 'Y', mkdir: 'Y' },
    groupShare_edit: EDIT,
    groupShare_operator: { ...EDIT, delete: 'Y' },
    groupShare_external_sharing: { ...D, reshare: 'Y' },
    groupShare_manager: ALL,
    groupShare_manager_new: ALL,
  };

  it('each share role may do exactly what its authorities allow, and nothing outside the share', async () => {
    const outside = await mkdir(owner, 'not-shared');
    const outsideDoc = await fileIn(owner, 'private.txt', outside);
    const got: Record<string, Record<Op, string>> = {};
    for (const role of Object.keys(EXPECTED)) {
      const cell = await mkdir(owner, `cell-${role}`);
      const doc = await fileIn(owner, 'doc.txt', cell, Buffer.from(`shared words for ${role}`));
      const ren = await fileIn(owner, 'ren.txt', cell);
      const del = await fileIn(owner, 'del.txt', cell);
      const s = await shareOk(owner, cell, [toUser(bob, role)]);
      const fileSharingId: string = s.fileSharingId;
      const body = randomBytes(16);
      got[role] = {
        view: outcome(await bob.api(`${C}/Page`, { parentId: cell, fileSharingId })),
        props: outcome(await bob.api(`${C}/Instances/${doc}`, { fileSharingId })),
        preview: outcome(await bob.api(`${C}/API/1.0/preview`, { instanceId: doc, fileSharingId })),
        download: outcome(await bob.api(`${C}/API/getDownloadFileInfo`, { instanceId: doc, fileSharingId })),
        upload: outcome(await bob.api(`${C}/API/file-uploadable`, { fSize: body.length, fName: encodeName('up.bin'), fMd5: sha(body), parentId: cell, fileSharingId })),
        mkdir: outcome(await bob.api(`${C}/Instances`, undefined, [{ classifierId: 'Folder', instanceName: encodeName('new'), parentId: cell, fileSharingId }])),
        rename: outcome(await bob.api(`${C}/Instances/${ren}`, { fileSharingId }, { instanceName: encodeName('renamed.txt') })),
        delete: outcome(await bob.api(`${C}/delete`, { ids: del, fileSharingId })),
        reshare: outcome(await share(bob, doc, [toUser(carol, 'groupShare_view_only')], fileSharingId)),
      };
      // The share's id does not reach past its item, whatever the role.
      expect(outcome(await bob.api(`${C}/Page`, { parentId: outside, fileSharingId }))).toBe('N');
      expect(outcome(await bob.api(`${C}/API/getDownloadFileInfo`, { instanceId: outsideDoc, fileSharingId }))).toBe('N');
      // Someone it does not reach gets nothing through it, even naming an item inside.
      expect(outcome(await eve.api(`${C}/Page`, { parentId: cell, fileSharingId }))).toBe('N');
      expect(outcome(await eve.api(`${C}/Instances/${doc}`, { fileSharingId }))).toBe('N');
    }
    expect(got).toEqual(EXPECTED);
  });

  it('the downloaded and previewed bytes are the shared file, and the grant holds below the shared folder', async () => {
    const outer = await mkdir(owner, 'private-outer');
    const top = await mkdir(owner, 'deep', outer);
    const sub = await mkdir(owner, 'sub', top);
    const words = Buffer.from('deep shared words');
    const doc = await fileIn(owner, 'deep.txt', sub, words);
    const { fileSharingId } = await shareOk(owner, top, [toUser(bob, 'groupShare_downloader')]);
    const page = await bob.api(`${C}/Page`, { parentId: sub, fileSharingId });
    expect(page.data.list.map((r: any) => r.instanceName)).toEqual(['deep.txt']);
    // The recipient's path starts at the shared folder: the owner's folders above it are not named to them.
    expect(page.data.breadcrumbs.map((c: any) => c.instanceName)).toEqual(['deep', 'sub']);
    expect(JSON.stringify(page.data)).not.toContain('private-outer');
    expect((await owner.api(`${C}/Page`, { parentId: sub })).data.breadcrumbs.slice(1).map((c: any) => c.instanceName)).toEqual(['private-outer', 'deep', 'sub']);
    const zip = await bob.api(`${C}/API/getZipDownloadUrl`, { ids: sub, fileSharingId });
    expect(zip.ret, JSON.stringify(zip)).toBe(0);
    const preview = await bob.api(`${C}/API/1.0/preview`, { instanceId: doc, fileSharingId });
    expect(preview.ret, JSON.stringify(preview)).toBe(0);
    const got = await fetch(`${srv.baseUrl}${preview.data.url}`);
    expect(Buffer.from(await got.arrayBuffer()).equals(words)).toBe(true);
    // The explanation names the share as the source of what the recipient holds.
    const why = await bob.api(`${C}/SysRoleUser/explainAccess`, { instanceId: doc });
    expect(why.data).toMatchObject({ source: 'share', allowed: ['view', 'preview', 'download'] });
    // The gate honours the share without the id too (download tickets, the agent), but the id, when given, binds.
    expect(outcome(await bob.api(`${C}/Page`, { parentId: sub }))).toBe('Y');
    expect(outcome(await eve.api(`${C}/Page`, { parentId: sub }))).toBe('N');
  });

  it('an id from someone else\'s share, an unknown id, and a share of another item get nothing', async () => {
    const a = await mkdir(owner, 'for-bob');
    const b = await mkdir(owner, 'for-carol');
    const shA = (await shareOk(owner, a, [toUser(bob, 'groupShare_manager')])).fileSharingId;
    const shB = (await shareOk(owner, b, [toUser(carol, 'groupShare_manager')])).fileSharingId;
    // Bob with carol's share id, even on his own share's folder, and carol's folder with his own id.
    expect(outcome(await bob.api(`${C}/Page`, { parentId: b, fileSharingId: shB }))).toBe('N');
    expect(outcome(await bob.api(`${C}/Page`, { parentId: a, fileSharingId: shB }))).toBe('N');
    expect(outcome(await bob.api(`${C}/Page`, { parentId: b, fileSharingId: shA }))).toBe('N');
    expect(outcome(await bob.api(`${C}/delete`, { ids: b, fileSharingId: shA }))).toBe('N');
    expect(outcome(await bob.api(`${C}/Page`, { parentId: a, fileSharingId: 'sh_nothing' }))).toBe('N');
    // A call naming one item inside and one outside the share is refused whole.
    const inA = await mkdir(owner, 'inner', a);
    expect(outcome(await bob.api(`${C}/delete`, { ids: `${inA},${b}`, fileSharingId: shA }))).toBe('N');
    expect(outcome(await bob.api(`${C}/Page`, { parentId: inA, fileSharingId: shA }))).toBe('Y');
    // The share calls themselves: nothing of someone else's share.
    for (const u of [bob, eve]) {
      expect(outcome(await u.api(`${C}/fileSharingUser`, { fileSharingId: shB }))).toBe('N');
      expect(outcome(await u.api(`${C}/modFileSharing`, undefined, { fileSharingId: shB, recipients: [toUser(eve, 'groupShare_manager')] }))).toBe('N');
      expect(outcome(await u.api(`${C}/delFileSharing`, { ids: shB }))).toBe('N');
    }
    expect(outcome(await eve.api(`${C}/getFileSharing`, { fileSharingId: shB }))).toBe('N');
    expect(outcome(await carol.api(`${C}/Page`, { parentId: b, fileSharingId: shB }))).toBe('Y');
  });
});

describe('the share calls', () => {
  it('fileSharing, getFileSharing, fileSharingUser, pageFileSharing and pageFileSharingList', async () => {
    const f = await mkdir(owner, 'Quarterly report');
    const s = await shareOk(owner, f, [toUser(bob, 'groupShare_reader'), { kind: 'dept', id: 'ops', roleCode: 'groupShare_view_only' }]);
    expect(s).toMatchObject({ instanceId: f, instanceName: 'Quarterly report', classifierId: 'Folder', instanceType: '1', ownerId: owner.id, ownerName: 'showner' });
    expect(s.recipients).toEqual([
      { kind: 'dept', id: 'ops', name: 'Ops', roleCode: 'groupShare_view_only' },
      { kind: 'user', id: bob.id, name: 'shbob', realName: expect.any(String), roleCode: 'groupShare_reader' },
    ]);
    // Sharing again adds recipients or changes their role in the same share.
    const again = await shareOk(owner, f, [toUser(bob, 'groupShare_edit')]);
    expect(again.fileSharingId).toBe(s.fileSharingId);
    expect(again.recipients.find((r: any) => r.id === bob.id).roleCode).toBe('groupShare_edit');
    expect(again.recipients).toHaveLength(2);

    const mine = await owner.api(`${C}/getFileSharing`, { fileSharingId: s.fileSharingId });
    expect(mine.data.recipients).toHaveLength(2);
    const theirs = await bob.api(`${C}/getFileSharing`, { fileSharingId: s.fileSharingId });
    expect(theirs.data).toMatchObject({ fileSharingId: s.fileSharingId, roleCode: 'groupShare_edit' });
    expect(theirs.data.recipients).toBeUndefined();
    expect((await owner.api(`${C}/fileSharingUser`, { fileSharingId: s.fileSharingId })).data).toHaveLength(2);
    expect(outcome(await bob.api(`${C}/fileSharingUser`, { fileSharingId: s.fileSharingId }))).toBe('N');

    const byMe = await owner.api(`${C}/pageFileSharing`, { keyword: 'quarterly' });
    expect(byMe.data.list.map((x: any) => x.fileSharingId)).toEqual([s.fileSharingId]);
    expect(byMe.data.list[0].recipients).toHaveLength(2);
    const withMe = await carol.api(`${C}/pageFileSharingList`, { keyword: 'QUARTER' });
    expect(withMe.data.list).toEqual([expect.objectContaining({ fileSharingId: s.fileSharingId, roleCode: 'groupShare_view_only', ownerName: 'showner' })]);
    expect((await eve.api(`${C}/pageFileSharingList`, { keyword: 'zzz-none' })).data).toMatchObject({ total: 0, list: [] });
    // A recipient does not see it among the shares they made.
    expect((await bob.api(`${C}/pageFileSharing`, { keyword: 'quarterly' })).data.total).toBe(0);
  });

  it('pages newest first by offset and by cursor, the same rows either way', async () => {
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) ids.push((await shareOk(owner, await mkdir(owner, `paged-${i}`), [toUser(eve, 'groupShare_reader')])).fileSharingId);
    const byOffset: string[] = [];
    for (let p = 1; p <= 3; p++) byOffset.push(...(await eve.api(`${C}/pageFileSharingList`, { keyword: 'paged-', pageNo: p, pageSize: 2 })).data.list.map((x: any) => x.fileSharingId));
    const byCursor: string[] = [];
    let cursor: string | undefined;
    for (;;) {
      const pg = (await eve.api(`${C}/pageFileSharingList`, { keyword: 'paged-', pageSize: 2, cursor })).data;
      byCursor.push(...pg.list.map((x: any) => x.fileSharingId));
      if (!pg.nextCursor) break;
      cursor = pg.nextCursor;
    }
    expect(byOffset).toEqual([...ids].reverse());
    expect(byCursor).toEqual(byOffset);
    expect((await eve.api(`${C}/pageFileSharingList`, { cursor: 'not-a-cursor' })).data.code).toBe('VALIDATION_FAILED');
  });

  it('refuses sharing with oneself, with unknown recipients, someone else\'s item, and what the caller may not share', async () => {
    const f = await mkdir(owner, 'refusals');
    expect((await share(owner, f, [toUser(owner, 'groupShare_reader')])).data.code).toBe('VALIDATION_FAILED');
    expect(outcome(await share(owner, f, [{ kind: 'user', id: 'no-such-user', roleCode: 'groupShare_reader' }]))).toBe('N');
    expect(outcome(await share(owner, f, [{ kind: 'dept', id: 'no-such-dept', roleCode: 'groupShare_reader' }]))).toBe('N');
    expect(outcome(await share(owner, f, [{ kind: 'group', id: 'no-such-group', roleCode: 'groupShare_reader' }]))).toBe('N');
    expect((await share(owner, f, [{ kind: 'user', id: bob.id, roleCode: 'manager' }])).data.code).toBe('VALIDATION_FAILED');
    expect(outcome(await share(eve, f, [toUser(carol, 'groupShare_reader')]))).toBe('N');
    expect((await owner.api(`${C}/pageFileSharing`, { keyword: 'refusals' })).data.total).toBe(0);
  });

  it('fileSharingRoleList kind=groupShare offers the twelve share roles; the default stays the file roles', async () => {
    const share = await bob.api(`${C}/SysRole/fileSharingRoleList`, { kind: 'groupShare' });
    expect(share.data.map((r: any) => r.roleCode).sort()).toEqual([
      'groupShare_default_role', 'groupShare_download', 'groupShare_downloader', 'groupShare_edit', 'groupShare_external_sharing', 'groupShare_manager',
      'groupShare_manager_new', 'groupShare_operator', 'groupShare_reader', 'groupShare_sharedby', 'groupShare_uploader', 'groupShare_view_only',
    ]);
    const file = await bob.api(`${C}/SysRole/fileSharingRoleList`);
    expect(file.data.map((r: any) => r.roleCode)).toContain('reader');
    expect(file.data.map((r: any) => r.roleCode)).not.toContain('groupShare_reader');
  });
});

describe('recipients and resharing', () => {
  it('a department share reaches its whole subtree, a group share every member, and no one else', async () => {
    const f = await mkdir(owner, 'for-eng');
    const { fileSharingId } = await shareOk(owner, f, [{ kind: 'dept', id: 'eng', roleCode: 'groupShare_reader' }]);
    expect(outcome(await bob.api(`${C}/Page`, { parentId: f, fileSharingId }))).toBe('Y'); // eng-web is under eng
    expect(outcome(await carol.api(`${C}/Page`, { parentId: f, fileSharingId }))).toBe('N');
    expect((await bob.api(`${C}/pageFileSharingList`, { keyword: 'for-eng' })).data.total).toBe(1);
    expect((await carol.api(`${C}/pageFileSharingList`, { keyword: 'for-eng' })).data.total).toBe(0);

    const g = (await owner.api(`${C}/groupFile/newGroup`, undefined, { groupName: 'Share circle' })).data;
    expect((await owner.api(`${C}/groupFile/addUserForLarge`, undefined, { groupId: g.groupId, userIds: [dave.id] })).data.added).toBe(1);
    const h = await mkdir(owner, 'for-circle');
    const viaGroup = (await shareOk(owner, h, [{ kind: 'group', id: g.groupId, roleCode: 'groupShare_downloader' }])).fileSharingId;
    const doc = await fileIn(owner, 'c.txt', h);
    expect(outcome(await dave.api(`${C}/API/getDownloadFileInfo`, { instanceId: doc, fileSharingId: viaGroup }))).toBe('Y');
    expect(outcome(await eve.api(`${C}/API/getDownloadFileInfo`, { instanceId: doc, fileSharingId: viaGroup }))).toBe('N');
    // Leaving the group (here: removed) ends it at once.
    expect((await owner.api(`${C}/groupUser/deleteGroupUser`, undefined, { groupId: g.groupId, userIds: [dave.id] })).ret).toBe(0);
    expect(outcome(await dave.api(`${C}/API/getDownloadFileInfo`, { instanceId: doc, fileSharingId: viaGroup }))).toBe('N');
  });

  it('a reshare never gives more than the resharer holds, and reaches its recipient', async () => {
    const f = await mkdir(owner, 'reshared');
    const doc = await fileIn(owner, 'r.txt', f);
    const via = (await shareOk(owner, f, [toUser(bob, 'groupShare_external_sharing')])).fileSharingId;
    expect(outcome(await share(bob, f, [toUser(carol, 'groupShare_manager')], via))).toBe('F');
    expect(outcome(await share(bob, f, [toUser(carol, 'groupShare_edit')], via))).toBe('F');
    const re = await share(bob, f, [toUser(carol, 'groupShare_reader')], via);
    expect(re.ret, JSON.stringify(re)).toBe(0);
    expect(outcome(await carol.api(`${C}/API/1.0/preview`, { instanceId: doc, fileSharingId: re.data.fileSharingId }))).toBe('Y');
    expect(outcome(await carol.api(`${C}/API/getDownloadFileInfo`, { instanceId: doc, fileSharingId: re.data.fileSharingId }))).toBe('F');
    // A reader may not reshare at all.
    const readerVia = (await shareOk(owner, await mkdir(owner, 'read-only'), [toUser(eve, 'groupShare_reader')])).fileSharingId;
    const ro = (await eve.api(`${C}/getFileSharing`, { fileSharingId: readerVia })).data.instanceId;
    expect(outcome(await share(eve, ro, [toUser(carol, 'groupShare_view_only')], readerVia))).toBe('F');
  });

  it('a deny grant nearer to the item wins over a share', async () => {
    const root = (await owner.api(`${C}/Page`, { instanceType: '3' })).data.parentId;
    const f = await mkdir(owner, 'locked-by-admin', root);
    // In a department space the owner holds defaultrole: no manager role to hand out, a reader one is fine.
    expect(outcome(await share(owner, f, [toUser(carol, 'groupShare_manager')]))).toBe('F');
    const { fileSharingId } = await shareOk(owner, f, [toUser(carol, 'groupShare_reader')]);
    expect(outcome(await carol.api(`${C}/Page`, { parentId: f, fileSharingId }))).toBe('Y');
    const { token } = await srv.login();
    const admin = apiAs(srv, token);
    expect((await admin(`${C}/SysRoleUser/setGroupRoleUser`, undefined, { instanceId: f, roleId: 'disable', userIds: [carol.id] })).ret).toBe(0);
    expect(outcome(await carol.api(`${C}/Page`, { parentId: f, fileSharingId }))).toBe('N');
  });
});

describe('modify and cancel', () => {
  it('changing a role, removing a recipient and cancelling take effect at once', async () => {
    const f = await mkdir(owner, 'changing');
    const doc = await fileIn(owner, 'x.txt', f);
    const { fileSharingId } = await shareOk(owner, f, [toUser(bob, 'groupShare_reader'), toUser(carol, 'groupShare_reader')]);
    expect(outcome(await bob.api(`${C}/delete`, { ids: doc, fileSharingId }))).toBe('F');
    const mod = await owner.api(`${C}/modFileSharing`, undefined, { fileSharingId, recipients: [toUser(bob, 'groupShare_operator')] });
    expect(mod.ret, JSON.stringify(mod)).toBe(0);
    expect(mod.data.recipients).toEqual([expect.objectContaining({ id: bob.id, roleCode: 'groupShare_operator' })]);
    expect(outcome(await carol.api(`${C}/Page`, { parentId: f, fileSharingId }))).toBe('N');
    expect(outcome(await bob.api(`${C}/Page`, { parentId: f, fileSharingId }))).toBe('Y');

    expect((await owner.api(`${C}/delFileSharing`, { ids: fileSharingId })).ret).toBe(0);
    expect(outcome(await bob.api(`${C}/Page`, { parentId: f, fileSharingId }))).toBe('N');
    expect(outcome(await bob.api(`${C}/Page`, { parentId: f }))).toBe('N');
    expect(outcome(await bob.api(`${C}/API/getDownloadFileInfo`, { instanceId: doc }))).toBe('N');
    expect(outcome(await bob.api(`${C}/getFileSharing`, { fileSharingId }))).toBe('N');
    expect((await bob.api(`${C}/pageFileSharingList`, { keyword: 'changing' })).data.total).toBe(0);
    expect((await owner.api(`${C}/pageFileSharing`, { keyword: 'changing' })).data.total).toBe(0);
    expect(outcome(await owner.api(`${C}/delFileSharing`, { ids: fileSharingId }))).toBe('N');
  });

  it('cancelling several is all or nothing; a recycled item leaves both lists', async () => {
    const a = await mkdir(owner, 'batch-a');
    const b = await mkdir(owner, 'batch-b');
    const sa = (await shareOk(owner, a, [toUser(bob, 'groupShare_reader')])).fileSharingId;
    const sb = (await shareOk(owner, b, [toUser(bob, 'groupShare_reader')])).fileSharingId;
    const foreign = (await shareOk(carol, await mkdir(carol, 'carols'), [toUser(bob, 'groupShare_reader')])).fileSharingId;
    expect(outcome(await owner.api(`${C}/delFileSharing`, { ids: `${sa},${foreign}` }))).toBe('N');
    expect(outcome(await bob.api(`${C}/Page`, { parentId: a, fileSharingId: sa }))).toBe('Y');
    expect((await owner.api(`${C}/delete`, { ids: b })).ret).toBe(0);
    expect((await bob.api(`${C}/pageFileSharingList`, { keyword: 'batch-' })).data.list.map((x: any) => x.fileSharingId)).toEqual([sa]);
    expect((await owner.api(`${C}/pageFileSharing`, { keyword: 'batch-' })).data.list.map((x: any) => x.fileSharingId)).toEqual([sa]);
    expect(outcome(await bob.api(`${C}/getFileSharing`, { fileSharingId: sb }))).toBe('N');
    expect((await owner.api(`${C}/delFileSharing`, { ids: `${sa},${sb}` })).ret).toBe(0);
  });
});
