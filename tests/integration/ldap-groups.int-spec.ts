// Issue #19: directory groups as drive groups, and users who come back, against a real slapd (tests/ldap/slapd.sh)
// through the real server. Sync mirrors the directory's groups as drive groups and maps a directory group onto an
// existing drive group with a role; a member who leaves a directory group loses the membership the directory made
// but one added by hand stays; a renamed directory group renames its drive group; one that disappears leaves its
// drive group standing without its directory members. An account whose entry left the directory is disabled and
// enabled again when the entry returns; an account an administrator froze stays frozen. The mapping is for
// administrators only, and names live drive groups only.
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { Attribute, Change } from 'ldapts';
import { encryptForServer, startServer, type TestServer } from '../helpers/server.ts';
import { apiAs, type Env } from '../helpers/org.ts';
import { READER_DN, READER_PASSWORD, startSlapd, SUFFIX, type TestDirectory } from '../helpers/slapd.ts';

let srv: TestServer;
let dir: TestDirectory;
let admin: (path: string, query?: Record<string, string | number | undefined>, body?: unknown) => Promise<Env>;
let projects: string;

const IP = '/hcs/controller/integrationPlatform';
const GF = '/hcs/controller/groupFile';
const PEOPLE = `ou=people,${SUFFIX}`;
const GROUPS = `ou=groups,${SUFFIX}`;
const DANA = `uid=dana,ou=Platform,ou=Engineering,${PEOPLE}`;
const ERIN = `uid=erin,ou=Engineering,${PEOPLE}`;
const SAM = `uid=sam,ou=Sales,${PEOPLE}`;

async function signIn(username: string, password: string): Promise<{ status: number; code?: string; token?: string }> {
  const info = await srv.call('/hcs/services/System/platformInfo').then((r) => r.json());
  const enc = await encryptForServer(info.data.publicKey, password);
  const r = await srv.call(`/hcs/services/System/Token?username=${encodeURIComponent(username)}&password=${encodeURIComponent(enc)}`, { headers: { 'X-HCS-Client': 'cli' } });
  const body = await r.json();
  return { status: r.status, code: body.data?.code, token: body.data?.token };
}

async function syncNow(): Promise<any> {
  const queued = await admin(`${IP}/ldapConfig/sync`, undefined, {});
  expect(queued.status, JSON.stringify(queued)).toBe(200);
  for (let i = 0; i < 600; i++) {
    const list = await admin(`${IP}/ldapConfig/reports`, { limit: 5 });
    const r = list.data.find((x: any) => x.id === queued.data.id);
    if (r && (r.status === 'done' || r.status === 'failed')) return r;
    await new Promise((res) => setTimeout(res, 50));
  }
  throw new Error('the sync did not finish');
}

const userId = async (name: string) => (await srv.sql.get<{ id: string }>('select id from users where user_name_key = ?', name))!.id;
const enabled = async (name: string) => (await srv.sql.get<{ e: number }>('select is_enabled as e from users where user_name_key = ?', name))!.e;
const groupNamed = (name: string) => srv.sql.get<{ id: string; name: string; dissolved_at: number | null; owner_id: string }>(
  'select id, name, dissolved_at, owner_id from groups where name_key = ? and dissolved_at is null', name.toLowerCase());
/** userName -> role of the group's members. */
async function members(groupId: string): Promise<Record<string, string>> {
  const rows = await srv.sql.all<{ n: string; r: string }>(
    'select u.user_name_key as n, m.role_code as r from group_members m join users u on u.id = m.user_id where m.group_id = ? order by u.user_name_key', groupId);
  return Object.fromEntries(rows.map((x) => [x.n, x.r]));
}

const removeMember = (group: string, member: string) =>
  dir.admin((c) => c.modify(group, [new Change({ operation: 'delete', modification: new Attribute({ type: 'member', values: [member] }) })]));
const addMember = (group: string, member: string) =>
  dir.admin((c) => c.modify(group, [new Change({ operation: 'add', modification: new Attribute({ type: 'member', values: [member] }) })]));

beforeAll(async () => {
  [srv, dir] = await Promise.all([startServer(), startSlapd()]);
  const { token } = await srv.login();
  admin = apiAs(srv, token);
  const made = await admin(`${GF}/newGroup`, undefined, { groupName: 'Projects' });
  expect(made.status, JSON.stringify(made)).toBe(200);
  projects = made.data.groupId;
  const saved = await admin(`${IP}/ldapConfig`, undefined, {
    enabled: true, url: dir.url, bindDn: READER_DN, bindPassword: READER_PASSWORD, userBaseDn: PEOPLE, groupBaseDn: GROUPS,
    userFilter: '(objectClass=inetOrgPerson)',
    groupMapping: { mirror: true, map: [{ directoryGroup: `CN=Engineers, ${GROUPS}`, groupId: projects, roleCode: 'group_leader' }] },
  });
  expect(saved.status, JSON.stringify(saved)).toBe(200);
  expect(saved.data.groupMapping).toEqual({
    mirror: true, mirrorRole: 'groupdefaultrole', map: [{ directoryGroup: `CN=Engineers, ${GROUPS}`, groupId: projects, roleCode: 'group_leader' }],
  });
});
afterAll(async () => {
  expect(srv.violations).toEqual([]);
  await srv.close();
  await dir.stop();
});

describe('the mapping', () => {
  it('names live drive groups only: an unknown id, a user\'s id or a dissolved group is NOT_FOUND, and nothing is saved', async () => {
    const adminId = await userId('admin');
    const gone = await admin(`${GF}/newGroup`, undefined, { groupName: 'Gone' });
    await srv.sql.run('update groups set dissolved_at = ? where id = ?', Date.now(), gone.data.groupId);
    for (const groupId of ['grp_nosuch', adminId, gone.data.groupId]) {
      const r = await admin(`${IP}/ldapConfig`, undefined, { url: dir.url, userBaseDn: PEOPLE, groupMapping: { map: [{ directoryGroup: `cn=sales,${GROUPS}`, groupId }] } });
      expect(r.status, groupId).toBe(404);
      expect(r.data.code).toBe('NOT_FOUND');
    }
    expect((await admin(`${IP}/ldapConfig`)).data.groupMapping.map).toEqual([expect.objectContaining({ groupId: projects })]);
  });

  it('a role that is no group role is refused by the contract', async () => {
    const r = await admin(`${IP}/ldapConfig`, undefined, { url: dir.url, userBaseDn: PEOPLE, groupMapping: { mirror: true, mirrorRole: 'superuser' } });
    expect(r.status).toBe(422);
    expect(r.data.code).toBe('VALIDATION_FAILED');
  });
});

describe('directory sync with groups', () => {
  it('mirrors the directory groups as drive groups owned by the administrator, and fills the mapped group with its role', async () => {
    const report = await syncNow();
    expect(report).toMatchObject({ status: 'done', added: 3, disabled: 0, reenabled: 0, groupsAdded: 3, errors: [] });
    const engineers = (await groupNamed('engineers'))!;
    expect(engineers.owner_id).toBe(await userId('admin'));
    expect(await members(engineers.id)).toEqual({ admin: 'group_administrator', dana: 'groupdefaultrole', erin: 'groupdefaultrole' });
    expect(await members((await groupNamed('sales'))!.id)).toEqual({ admin: 'group_administrator', sam: 'groupdefaultrole' });
    expect(await members((await groupNamed('drive-admins'))!.id)).toEqual({ admin: 'group_administrator', erin: 'groupdefaultrole' });
    expect(await members(projects)).toEqual({ admin: 'group_administrator', dana: 'group_leader', erin: 'group_leader' });
    // 2 + 1 + 1 mirrored, 2 mapped.
    expect(report.membersAdded).toBe(6);
    // The directory's members see their groups like any member does.
    const dana = apiAs(srv, (await signIn('dana', 'Dana-dir-pass-1')).token!);
    expect((await dana(`${GF}/searchGroup`)).data.list.map((g: any) => g.groupName).sort()).toEqual(['Projects', 'engineers']);
  });

  it('a sync with nothing changed changes no membership', async () => {
    expect(await syncNow()).toMatchObject({ status: 'done', groupsAdded: 0, membersAdded: 0, membersRemoved: 0, errors: [] });
  });

  it('leaving a directory group removes the membership the directory made; members added by hand stay', async () => {
    const engineers = (await groupNamed('engineers'))!;
    // Sam joins the mirrored group by hand, and Erin is in Projects through the directory only.
    const added = await admin(`${GF}/addUserForLarge`, undefined, { groupId: engineers.id, userIds: [await userId('sam')] });
    expect(added.status, JSON.stringify(added)).toBe(200);
    await removeMember(`cn=engineers,${GROUPS}`, ERIN);
    const report = await syncNow();
    expect(report).toMatchObject({ status: 'done', membersAdded: 0, membersRemoved: 2, errors: [] });
    expect(await members(engineers.id)).toEqual({ admin: 'group_administrator', dana: 'groupdefaultrole', sam: 'groupdefaultrole' });
    expect(await members(projects)).toEqual({ admin: 'group_administrator', dana: 'group_leader' });
    // Sam is now in the directory group too: still the hand-made membership, which the directory never takes over.
    await addMember(`cn=engineers,${GROUPS}`, SAM);
    await syncNow();
    await removeMember(`cn=engineers,${GROUPS}`, SAM);
    await syncNow();
    expect(await members(engineers.id)).toMatchObject({ sam: 'groupdefaultrole' });
    // Erin is still in drive-admins: that membership stays.
    expect(await members((await groupNamed('drive-admins'))!.id)).toMatchObject({ erin: 'groupdefaultrole' });
  });

  it('a renamed directory group renames its drive group, which keeps its id; a mapping names the group by its DN', async () => {
    const before = (await groupNamed('engineers'))!;
    await dir.admin((c) => c.modifyDN(`cn=engineers,${GROUPS}`, `cn=platform-engineers,${GROUPS}`));
    const report = await syncNow();
    // The mirror follows the group's entryUUID; the explicit mapping names the old DN, so Dana leaves Projects.
    expect(report).toMatchObject({ status: 'done', groupsAdded: 0, membersAdded: 0, membersRemoved: 1, errors: [] });
    expect(await groupNamed('engineers')).toBeUndefined();
    expect((await groupNamed('platform-engineers'))!.id).toBe(before.id);
    expect(await members(before.id)).toMatchObject({ dana: 'groupdefaultrole' });
    expect(await members(projects)).toEqual({ admin: 'group_administrator' });

    const remapped = await admin(`${IP}/ldapConfig`, undefined, {
      url: dir.url, userBaseDn: PEOPLE, groupMapping: { mirror: true, map: [{ directoryGroup: `cn=platform-engineers,${GROUPS}`, groupId: projects, roleCode: 'group_leader' }] },
    });
    expect(remapped.status).toBe(200);
    expect(await syncNow()).toMatchObject({ membersAdded: 1, membersRemoved: 0 });
    expect(await members(projects)).toEqual({ admin: 'group_administrator', dana: 'group_leader' });
  });

  it('a directory group that disappears leaves its drive group standing without its directory members', async () => {
    const sales = (await groupNamed('sales'))!;
    await dir.admin((c) => c.del(`cn=sales,${GROUPS}`));
    const report = await syncNow();
    expect(report).toMatchObject({ status: 'done', membersRemoved: 1, errors: [] });
    const still = (await groupNamed('sales'))!;
    expect(still).toMatchObject({ id: sales.id, dissolved_at: null });
    expect(await members(sales.id)).toEqual({ admin: 'group_administrator' });
  });
});

describe('a directory group named like a drive group made by hand', () => {
  it('is reported, and the hand-made group is not taken over', async () => {
    const before = await members(projects);
    await dir.admin((c) => c.add(`cn=projects,${GROUPS}`, { objectClass: 'groupOfNames', cn: 'projects', member: [SAM] }));
    try {
      const report = await syncNow();
      expect(report.status).toBe('done');
      expect(report.errors).toEqual([expect.stringMatching(/^group projects: NAME_EXISTS/)]);
      expect(await members(projects)).toEqual(before);
      expect(await srv.sql.get("select 1 as x from directory_groups where group_id = ?", projects)).toBeUndefined();
    } finally {
      await dir.admin((c) => c.del(`cn=projects,${GROUPS}`));
    }
  });
});

describe('accounts that leave and come back', () => {
  it('a user deleted from the directory is disabled, and enabled again by the sync after they are back, with their groups', async () => {
    const danaId = await userId('dana');
    const engineers = (await groupNamed('platform-engineers'))!;
    await dir.admin((c) => c.del(DANA));
    const gone = await syncNow();
    expect(gone).toMatchObject({ status: 'done', disabled: 1, reenabled: 0 });
    expect(await enabled('dana')).toBe(0);
    expect((await signIn('dana', 'Dana-dir-pass-1')).status).toBe(401);
    // Her entry is gone, and with it the memberships the directory made.
    expect(await members(engineers.id)).not.toHaveProperty('dana');
    expect(await members(projects)).not.toHaveProperty('dana');

    // Back as a new entry (a new entryUUID) of the same name, and in her group again (the group kept her DN; it is
    // written again so that the overlay gives the new entry its memberOf).
    await dir.admin(async (c) => {
      await c.add(DANA, { objectClass: 'inetOrgPerson', uid: 'dana', cn: 'Dana Scully', sn: 'Scully', mail: 'dana@example.org', userPassword: 'Dana-dir-pass-1' });
      await c.modify(`cn=platform-engineers,${GROUPS}`, [new Change({ operation: 'replace', modification: new Attribute({ type: 'member', values: [DANA] }) })]);
    });
    const back = await syncNow();
    expect(back).toMatchObject({ status: 'done', added: 0, disabled: 0, reenabled: 1, errors: [] });
    expect(await userId('dana')).toBe(danaId);
    expect(await enabled('dana')).toBe(1);
    expect((await signIn('dana', 'Dana-dir-pass-1')).status).toBe(200);
    expect(await members(engineers.id)).toMatchObject({ dana: 'groupdefaultrole' });
    expect(await members(projects)).toMatchObject({ dana: 'group_leader' });
    // Once back, the next sync has nothing more to enable.
    expect(await syncNow()).toMatchObject({ reenabled: 0, disabled: 0 });
  });

  it('an account an administrator froze is not enabled by sync, in the directory or out of it and back', async () => {
    const samId = await userId('sam');
    const frozen = await admin('/hcs/controller/Users/setUserState', undefined, { userIds: [samId], enabled: false });
    expect(frozen.status, JSON.stringify(frozen)).toBe(200);
    expect(await syncNow()).toMatchObject({ status: 'done', disabled: 0, reenabled: 0 });
    expect(await enabled('sam')).toBe(0);

    await dir.admin((c) => c.del(SAM));
    expect(await syncNow()).toMatchObject({ disabled: 0, reenabled: 0 });
    await dir.admin((c) => c.add(SAM, { objectClass: 'inetOrgPerson', uid: 'sam', cn: 'Sam Spade', sn: 'Spade', mail: 'sam@example.org', userPassword: 'Sam-dir-pass-1' }));
    expect(await syncNow()).toMatchObject({ disabled: 0, reenabled: 0 });
    expect(await enabled('sam')).toBe(0);
    expect((await signIn('sam', 'Sam-dir-pass-1')).code).toBe('ACCOUNT_FROZEN');
  });

  it('a user disabled by sync whom an administrator enabled meanwhile is simply enabled when back', async () => {
    await dir.admin((c) => c.del(ERIN));
    expect(await syncNow()).toMatchObject({ disabled: 1 });
    const enabledAgain = await admin('/hcs/controller/Users/setUserState', undefined, { userIds: [await userId('erin')], enabled: true });
    expect(enabledAgain.status).toBe(200);
    await dir.admin((c) => c.add(ERIN, { objectClass: 'inetOrgPerson', uid: 'erin', cn: 'Erin Brockovich', sn: 'Brockovich', mail: 'erin@example.org', userPassword: 'Erin-dir-pass-1' }));
    expect(await syncNow()).toMatchObject({ disabled: 0, reenabled: 0 });
    expect(await enabled('erin')).toBe(1);
  });
});

describe('an administrator\'s freeze of an account sync had disabled', () => {
  it('holds when the entry comes back: the freeze replaces sync\'s reason', async () => {
    await dir.admin((c) => c.del(ERIN));
    expect(await syncNow()).toMatchObject({ disabled: 1 });
    const frozen = await admin('/hcs/controller/Users/setUserState', undefined, { userIds: [await userId('erin')], enabled: false });
    expect(frozen.status, JSON.stringify(frozen)).toBe(200);
    await dir.admin((c) => c.add(ERIN, { objectClass: 'inetOrgPerson', uid: 'erin', cn: 'Erin Brockovich', sn: 'Brockovich', mail: 'erin@example.org', userPassword: 'Erin-dir-pass-1' }));
    expect(await syncNow()).toMatchObject({ disabled: 0, reenabled: 0 });
    expect(await enabled('erin')).toBe(0);
  });
});

describe('who may map', () => {
  it('a directory user who is no administrator reaches neither the mapping nor the groups it made', async () => {
    const dana = apiAs(srv, (await signIn('dana', 'Dana-dir-pass-1')).token!);
    const r = await dana(`${IP}/ldapConfig`, undefined, { url: dir.url, userBaseDn: PEOPLE, groupMapping: { map: [{ directoryGroup: 'cn=x', groupId: projects, roleCode: 'group_administrator' }] } });
    expect(r.status).toBe(403);
    expect(r.data.code).toBe('FORBIDDEN');
    expect((await admin(`${IP}/ldapConfig`)).data.groupMapping.map).toEqual([expect.objectContaining({ groupId: projects, roleCode: 'group_leader' })]);
    // A mirrored group's member is no administrator of it.
    const sales = (await groupNamed('sales'))!;
    expect((await dana(`${GF}/updateGroup`, undefined, { groupId: sales.id, groupName: 'Mine' })).status).toBeGreaterThanOrEqual(400);
  });
});
