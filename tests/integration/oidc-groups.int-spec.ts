// Issue #19: a single sign-on's groups claim becomes drive group memberships, through a real OpenID Connect
// provider (oidc-provider, in this process) and the real server. The provider's group mapping mirrors claimed
// groups as drive groups and maps a claimed group onto an existing drive group with a role; each sign-in brings the
// user's memberships in line with the claim: the ones the claim made go when the claim drops the group, ones added
// by hand stay, and a token without the claim changes nothing. The mapping is for administrators only and names
// live drive groups only.
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { startServer, type TestServer } from '../helpers/server.ts';
import { apiAs } from '../helpers/org.ts';
import { Browser, startOidcProvider, type TestAccount, type TestProvider } from '../helpers/oidc-provider.ts';

let srv: TestServer;
let idp: TestProvider;
let admin: ReturnType<typeof apiAs>;
let providerId: string;
let projects: string;

const CALLBACK = '/hcs/services/System/sso/callback';
const IP = '/hcs/controller/integrationPlatform';
const GF = '/hcs/controller/groupFile';
const accounts: Record<string, TestAccount> = {
  alice: { preferred_username: 'alice', name: 'Alice Liddell', email: 'alice@example.org', groups: ['staff', 'eng'] },
  bob: { preferred_username: 'bob', name: 'Bob', email: 'bob@example.org', groups: ['eng'] },
};

/** Signs `account` in through the provider; answers the browser, signed in to the drive. */
async function ssoSignIn(account: string): Promise<Browser> {
  const b = new Browser();
  const { url } = await b.signIn(`${srv.baseUrl}/hcs/services/System/sso/login?redirect=/personalFile`, account, `${srv.baseUrl}${CALLBACK}`);
  const back = await b.fetch(url);
  expect(back.headers.get('location')).toBe('/drive/personalFile');
  return b;
}

const groupNamed = (name: string) => srv.sql.get<{ id: string; owner_id: string }>('select id, owner_id from groups where name_key = ? and dissolved_at is null', name.toLowerCase());
async function members(groupId: string): Promise<Record<string, string>> {
  const rows = await srv.sql.all<{ n: string; r: string }>(
    'select u.user_name_key as n, m.role_code as r from group_members m join users u on u.id = m.user_id where m.group_id = ? order by u.user_name_key', groupId);
  return Object.fromEntries(rows.map((x) => [x.n, x.r]));
}
const userId = async (name: string) => (await srv.sql.get<{ id: string }>('select id from users where user_name_key = ?', name))!.id;

beforeAll(async () => {
  srv = await startServer();
  idp = await startOidcProvider({ redirectUris: [`${srv.baseUrl}${CALLBACK}`], postLogoutRedirectUris: [`${srv.baseUrl}/drive/login`], accounts });
  const { token } = await srv.login();
  admin = apiAs(srv, token);
  projects = (await admin(`${GF}/newGroup`, undefined, { groupName: 'Projects' })).data.groupId;
  const saved = await admin(`${IP}/oidcProviders`, undefined, {
    name: 'Company SSO', issuer: idp.issuer, clientId: idp.clientId, clientSecret: idp.clientSecret,
    groupMapping: { mirror: true, map: [{ directoryGroup: 'staff', groupId: projects, roleCode: 'file_leader' }] },
  });
  expect(saved.status, JSON.stringify(saved)).toBe(200);
  expect(saved.data.groupMapping).toEqual({ mirror: true, mirrorRole: 'groupdefaultrole', map: [{ directoryGroup: 'staff', groupId: projects, roleCode: 'file_leader' }] });
  providerId = saved.data.id;
});
afterAll(async () => {
  expect(srv.violations).toEqual([]);
  await srv.close();
  await idp.close();
});

describe('the groups claim', () => {
  it('a first sign-in mirrors the claimed groups and joins the mapped group with its role', async () => {
    await ssoSignIn('alice');
    const staff = (await groupNamed('staff'))!;
    const eng = (await groupNamed('eng'))!;
    expect(staff.owner_id).toBe(await userId('admin'));
    expect(await members(staff.id)).toEqual({ admin: 'group_administrator', alice: 'groupdefaultrole' });
    expect(await members(eng.id)).toEqual({ admin: 'group_administrator', alice: 'groupdefaultrole' });
    expect(await members(projects)).toEqual({ admin: 'group_administrator', alice: 'file_leader' });
    // A second user of a group already mirrored joins the same drive group.
    await ssoSignIn('bob');
    expect(await members(eng.id)).toEqual({ admin: 'group_administrator', alice: 'groupdefaultrole', bob: 'groupdefaultrole' });
    expect(await srv.sql.all("select id from groups where name_key = 'eng' and dissolved_at is null")).toHaveLength(1);
  });

  it('a group the claim drops goes at the next sign-in; memberships added by hand stay', async () => {
    const staff = (await groupNamed('staff'))!;
    // Bob joins the mirrored 'staff' group by hand.
    const added = await admin(`${GF}/addUserForLarge`, undefined, { groupId: staff.id, userIds: [await userId('bob')] });
    expect(added.status, JSON.stringify(added)).toBe(200);
    accounts.alice!.groups = ['eng'];
    accounts.bob!.groups = [];
    await ssoSignIn('alice');
    await ssoSignIn('bob');
    expect(await members(staff.id)).toEqual({ admin: 'group_administrator', bob: 'groupdefaultrole' });
    expect(await members(projects)).toEqual({ admin: 'group_administrator' });
    // The drive groups stay, whatever they hold.
    expect(await groupNamed('staff')).toBeDefined();
    expect(await members((await groupNamed('eng'))!.id)).toEqual({ admin: 'group_administrator', alice: 'groupdefaultrole' });
  });

  it('a token without the groups claim changes no membership', async () => {
    delete accounts.alice!.groups;
    await ssoSignIn('alice');
    expect(await members((await groupNamed('eng'))!.id)).toMatchObject({ alice: 'groupdefaultrole' });
    accounts.alice!.groups = ['eng', 'staff'];
    await ssoSignIn('alice');
    expect(await members(projects)).toEqual({ admin: 'group_administrator', alice: 'file_leader' });
  });
});

describe('who may map', () => {
  it('a mapping names live drive groups only: an unknown id or a user\'s id is NOT_FOUND and changes nothing', async () => {
    for (const groupId of ['grp_nosuch', await userId('alice')]) {
      const r = await admin(`${IP}/oidcProviders`, undefined, {
        id: providerId, name: 'Company SSO', issuer: idp.issuer, clientId: idp.clientId, groupMapping: { map: [{ directoryGroup: 'eng', groupId }] },
      });
      expect(r.status, groupId).toBe(404);
      expect(r.data.code).toBe('NOT_FOUND');
    }
    const list = await admin(`${IP}/oidcProviders`);
    expect(list.data[0].groupMapping.map).toEqual([{ directoryGroup: 'staff', groupId: projects, roleCode: 'file_leader' }]);
  });

  it('a provider saved without a mapping keeps the one it has', async () => {
    const r = await admin(`${IP}/oidcProviders`, undefined, { id: providerId, name: 'Company SSO', issuer: idp.issuer, clientId: idp.clientId });
    expect(r.data.groupMapping.map).toHaveLength(1);
  });

  it('a signed-in user who is no administrator cannot map their way into a group', async () => {
    const alice = await ssoSignIn('alice');
    const r = await alice.fetch(`${srv.baseUrl}${IP}/oidcProviders`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'X-Requested-With': 'XMLHttpRequest' },
      body: JSON.stringify({ id: providerId, name: 'Mine', issuer: idp.issuer, clientId: idp.clientId, groupMapping: { map: [{ directoryGroup: 'eng', groupId: projects, roleCode: 'group_administrator' }] } }),
    });
    expect(r.status).toBe(403);
    expect((await r.json()).data.code).toBe('FORBIDDEN');
    expect((await admin(`${IP}/oidcProviders`)).data[0]).toMatchObject({ name: 'Company SSO', groupMapping: { map: [{ groupId: projects, roleCode: 'file_leader' }] } });
  });
});
