// Company sign-in (012_identity): providers, the LDAP connection, sign-ins in flight, the SSO facts of sessions,
// sync reports, and the accounts and departments that stand for external identities.
import { newId } from '../ids.ts';
import type { Db } from './sql/tx.ts';
import { USER_COLUMNS, toUser, type User } from './users-repo.ts';

export interface OidcClaimNames {
  userName: string;
  realName: string;
  email: string;
  department: string;
  groups: string;
  adminGroup?: string;
}

export const DEFAULT_CLAIMS: OidcClaimNames = {
  userName: 'preferred_username',
  realName: 'name',
  email: 'email',
  department: 'department',
  groups: 'groups',
};

/** How directory groups become drive group memberships (GroupMapping in the contract). */
export interface GroupMapping {
  mirror: boolean;
  mirrorRole: string;
  map: { directoryGroup: string; groupId: string; roleCode: string }[];
}

export const DEFAULT_GROUP_MAPPING: GroupMapping = { mirror: false, mirrorRole: 'groupdefaultrole', map: [] };

/** A stored mapping with every field filled in (rows from before 018 hold '{}'). */
export function parseGroupMapping(text: string): GroupMapping {
  const m = parseJson<Partial<GroupMapping>>(text, {});
  return {
    mirror: m.mirror === true,
    mirrorRole: typeof m.mirrorRole === 'string' && m.mirrorRole !== '' ? m.mirrorRole : DEFAULT_GROUP_MAPPING.mirrorRole,
    map: Array.isArray(m.map)
      ? m.map.map((e) => ({ directoryGroup: String(e.directoryGroup), groupId: String(e.groupId), roleCode: e.roleCode ? String(e.roleCode) : DEFAULT_GROUP_MAPPING.mirrorRole }))
      : [],
  };
}

export interface OidcProviderRow {
  id: string;
  name: string;
  issuer: string;
  clientId: string;
  clientSecretSealed: string;
  scopes: string;
  claims: OidcClaimNames;
  enabled: boolean;
  groupMapping: GroupMapping;
  updatedAt: number;
}

const parseJson = <T>(text: string, fallback: T): T => {
  try {
    const v = JSON.parse(text) as unknown;
    return v && typeof v === 'object' ? ({ ...fallback, ...(v as object) } as T) : fallback;
  } catch {
    return fallback;
  }
};

function toProvider(r: {
  id: string; name: string; issuer: string; client_id: string; client_secret_enc: string; scopes: string; claims: string; enabled: number; group_mapping: string; updated_at: number;
}): OidcProviderRow {
  return {
    id: r.id,
    name: r.name,
    issuer: r.issuer,
    clientId: r.client_id,
    clientSecretSealed: r.client_secret_enc,
    scopes: r.scopes,
    claims: parseJson(r.claims, DEFAULT_CLAIMS),
    enabled: r.enabled === 1,
    groupMapping: parseGroupMapping(r.group_mapping),
    updatedAt: r.updated_at,
  };
}

export async function listProviders(db: Db): Promise<OidcProviderRow[]> {
  const rows = await db.selectFrom('oidc_providers').selectAll().orderBy('created_at').orderBy('id').execute();
  return rows.map(toProvider);
}

export async function getProvider(db: Db, id: string): Promise<OidcProviderRow | undefined> {
  const r = await db.selectFrom('oidc_providers').selectAll().where('id', '=', id).executeTakeFirst();
  return r ? toProvider(r) : undefined;
}

export interface ProviderInput {
  id?: string | undefined;
  name: string;
  issuer: string;
  clientId: string;
  /** Sealed; undefined keeps the stored one. */
  clientSecretSealed?: string | undefined;
  scopes: string;
  claims: OidcClaimNames;
  enabled: boolean;
  groupMapping: GroupMapping;
}

/** Creates (no id) or replaces a provider; undefined when the id names none. */
export async function saveProvider(db: Db, p: ProviderInput, now = Date.now()): Promise<OidcProviderRow | undefined> {
  const values = {
    name: p.name,
    issuer: p.issuer,
    client_id: p.clientId,
    scopes: p.scopes,
    claims: JSON.stringify(p.claims),
    enabled: p.enabled ? (1 as const) : (0 as const),
    group_mapping: JSON.stringify(p.groupMapping),
    updated_at: now,
    ...(p.clientSecretSealed !== undefined ? { client_secret_enc: p.clientSecretSealed } : {}),
  };
  if (p.id === undefined) {
    const id = newId(9);
    await db.insertInto('oidc_providers').values({ id, ...values, created_at: now }).execute();
    return getProvider(db, id);
  }
  const res = await db.updateTable('oidc_providers').set(values).where('id', '=', p.id).executeTakeFirst();
  return res.numUpdatedRows > 0n ? getProvider(db, p.id) : undefined;
}

export async function deleteProvider(db: Db, id: string): Promise<boolean> {
  const res = await db.deleteFrom('oidc_providers').where('id', '=', id).executeTakeFirst();
  return res.numDeletedRows > 0n;
}

export interface LdapAttributeNames {
  userName: string;
  realName: string;
  email: string;
  memberOf: string;
}

export const DEFAULT_ATTRIBUTES: LdapAttributeNames = { userName: 'uid', realName: 'cn', email: 'mail', memberOf: 'memberOf' };

export interface LdapSettings {
  enabled: boolean;
  url: string;
  startTls: boolean;
  bindDn: string;
  bindPasswordSealed: string;
  userBaseDn: string;
  groupBaseDn: string;
  userFilter: string;
  attributes: LdapAttributeNames;
  adminGroup: string;
  syncMinutes: number;
  groupMapping: GroupMapping;
  updatedAt: number;
}

const LDAP_ID = 'default';

export async function getLdapSettings(db: Db): Promise<LdapSettings | undefined> {
  const r = await db.selectFrom('ldap_config').selectAll().where('id', '=', LDAP_ID).executeTakeFirst();
  if (!r) return undefined;
  return {
    enabled: r.enabled === 1,
    url: r.url,
    startTls: r.start_tls === 1,
    bindDn: r.bind_dn,
    bindPasswordSealed: r.bind_password_enc,
    userBaseDn: r.user_base_dn,
    groupBaseDn: r.group_base_dn,
    userFilter: r.user_filter,
    attributes: parseJson(r.attributes, DEFAULT_ATTRIBUTES),
    adminGroup: r.admin_group,
    syncMinutes: r.sync_minutes,
    groupMapping: parseGroupMapping(r.group_mapping),
    updatedAt: r.updated_at,
  };
}

export async function saveLdapSettings(db: Db, s: Omit<LdapSettings, 'updatedAt'>, now = Date.now()): Promise<void> {
  const values = {
    enabled: s.enabled ? (1 as const) : (0 as const),
    url: s.url,
    start_tls: s.startTls ? (1 as const) : (0 as const),
    bind_dn: s.bindDn,
    bind_password_enc: s.bindPasswordSealed,
    user_base_dn: s.userBaseDn,
    group_base_dn: s.groupBaseDn,
    user_filter: s.userFilter,
    attributes: JSON.stringify(s.attributes),
    admin_group: s.adminGroup,
    sync_minutes: s.syncMinutes,
    group_mapping: JSON.stringify(s.groupMapping),
    updated_at: now,
  };
  await db
    .insertInto('ldap_config')
    .values({ id: LDAP_ID, ...values })
    .onConflict((oc) => oc.column('id').doUpdateSet(values))
    .execute();
}

export interface SsoState {
  state: string;
  providerId: string;
  codeVerifier: string;
  nonce: string;
  redirect: string;
  userCode: string | null;
  userId: string | null;
  expiresAt: number;
}

export async function insertState(db: Db, s: Omit<SsoState, 'userId'> & { deviceCodeHash?: string | null }, now = Date.now()): Promise<void> {
  await db
    .insertInto('sso_states')
    .values({
      state: s.state,
      provider_id: s.providerId,
      code_verifier: s.codeVerifier,
      nonce: s.nonce,
      redirect: s.redirect,
      device_code_hash: s.deviceCodeHash ?? null,
      user_code: s.userCode,
      user_id: null,
      created_at: now,
      expires_at: s.expiresAt,
    })
    .execute();
  // Abandoned sign-ins go with the next one.
  await db.deleteFrom('sso_states').where('expires_at', '<', now).where('device_code_hash', 'is', null).execute();
}

/**
 * Takes a browser sign-in's state for its callback: deleted at once (a device sign-in's row stays for the CLI to
 * collect), so each state works exactly once even when a callback is replayed on another node.
 */
export async function takeState(db: Db, state: string, now = Date.now()): Promise<SsoState | undefined> {
  const r = await db.selectFrom('sso_states').selectAll().where('state', '=', state).where('user_id', 'is', null).executeTakeFirst();
  if (!r) return undefined;
  const res =
    r.device_code_hash === null
      ? await db.deleteFrom('sso_states').where('state', '=', state).executeTakeFirst().then((x) => x.numDeletedRows)
      : await db.updateTable('sso_states').set({ code_verifier: '' }).where('state', '=', state).where('code_verifier', '<>', '').executeTakeFirst().then((x) => x.numUpdatedRows);
  if (res === 0n || r.expires_at < now) return undefined;
  return { state: r.state, providerId: r.provider_id, codeVerifier: r.code_verifier, nonce: r.nonce, redirect: r.redirect, userCode: r.user_code, userId: r.user_id, expiresAt: r.expires_at };
}

/** A device sign-in waiting for its browser half, found by the code the user carries. */
export async function deviceByUserCode(db: Db, userCode: string, now = Date.now()): Promise<{ state: string; providerId: string } | undefined> {
  const r = await db
    .selectFrom('sso_states')
    .select(['state', 'provider_id'])
    .where('user_code', '=', userCode)
    .where('device_code_hash', 'is not', null)
    .where('user_id', 'is', null)
    .where('expires_at', '>=', now)
    .executeTakeFirst();
  return r ? { state: r.state, providerId: r.provider_id } : undefined;
}

/** Re-arms a device sign-in for a browser attempt (fresh PKCE verifier and nonce). */
export async function armDevice(db: Db, state: string, codeVerifier: string, nonce: string): Promise<void> {
  await db.updateTable('sso_states').set({ code_verifier: codeVerifier, nonce }).where('state', '=', state).execute();
}

export async function finishDevice(db: Db, state: string, userId: string): Promise<void> {
  await db.updateTable('sso_states').set({ user_id: userId }).where('state', '=', state).execute();
}

/** The CLI's poll: 'pending', the user to open a session for (the row is used up), or undefined (unknown/expired). */
export async function collectDevice(db: Db, deviceCodeHash: string, now = Date.now()): Promise<'pending' | { userId: string; providerId: string } | undefined> {
  const r = await db.selectFrom('sso_states').select(['state', 'user_id', 'provider_id', 'expires_at']).where('device_code_hash', '=', deviceCodeHash).executeTakeFirst();
  if (!r || r.expires_at < now) return undefined;
  if (r.user_id === null) return 'pending';
  const res = await db.deleteFrom('sso_states').where('state', '=', r.state).where('user_id', '=', r.user_id).executeTakeFirst();
  return res.numDeletedRows > 0n ? { userId: r.user_id, providerId: r.provider_id } : undefined;
}

export async function recordSsoSession(db: Db, sessionId: string, providerId: string, idToken: string, claims: Record<string, unknown>): Promise<void> {
  await db.insertInto('sso_sessions').values({ session_id: sessionId, provider_id: providerId, id_token: idToken, claims: JSON.stringify(claims) }).execute();
}

export async function ssoSessionOf(db: Db, sessionId: string): Promise<{ providerId: string; idToken: string } | undefined> {
  const r = await db.selectFrom('sso_sessions').select(['provider_id', 'id_token']).where('session_id', '=', sessionId).executeTakeFirst();
  return r ? { providerId: r.provider_id, idToken: r.id_token } : undefined;
}

export async function authSourceOf(db: Db, userId: string): Promise<{ source: string; externalId: string | null; email: string } | undefined> {
  const r = await db.selectFrom('users').select(['auth_source', 'external_id', 'email']).where('id', '=', userId).executeTakeFirst();
  return r ? { source: r.auth_source, externalId: r.external_id, email: r.email } : undefined;
}

/** The live or disabled (never deleted) account standing for an external identity. */
export async function userByExternal(db: Db, source: 'oidc' | 'ldap', externalId: string): Promise<User | null> {
  const r = await db
    .selectFrom('users')
    .select(USER_COLUMNS)
    .where('auth_source', '=', source)
    .where('external_id', '=', externalId)
    .where('deleted_at', 'is', null)
    .executeTakeFirst();
  return r ? toUser(r) : null;
}

export async function linkExternal(db: Db, userId: string, source: 'oidc' | 'ldap', externalId: string): Promise<void> {
  await db.updateTable('users').set({ auth_source: source, external_id: externalId }).where('id', '=', userId).execute();
}

export interface ExternalProfile {
  realName: string;
  email: string;
  deptId: string | null;
  isAdmin: boolean;
  isEnabled: boolean;
}

/** Brings an external account's fields in line with the directory; true when something changed. */
export async function updateExternalUser(db: Db, user: User, email: string, p: Partial<ExternalProfile>, now = Date.now()): Promise<boolean> {
  const set: Record<string, unknown> = {};
  if (p.realName !== undefined && p.realName !== user.realName) set.real_name = p.realName;
  if (p.deptId !== undefined && p.deptId !== user.deptId) set.dept_id = p.deptId;
  if (p.isAdmin !== undefined && p.isAdmin !== user.isAdmin) set.is_admin = p.isAdmin ? 1 : 0;
  if (p.isEnabled !== undefined && p.isEnabled !== user.isEnabled) set.is_enabled = p.isEnabled ? 1 : 0;
  if (p.email !== undefined && p.email !== email) set.email = p.email;
  if (Object.keys(set).length === 0) return false;
  await db.updateTable('users').set({ ...set, updated_at: now }).where('id', '=', user.id).execute();
  return true;
}

/** Live LDAP accounts: external id (DN key) -> user id and whether enabled. */
export async function ldapAccounts(db: Db): Promise<Map<string, { userId: string; enabled: boolean }>> {
  const rows = await db
    .selectFrom('users')
    .select(['id', 'external_id', 'is_enabled'])
    .where('auth_source', '=', 'ldap')
    .where('deleted_at', 'is', null)
    .execute();
  return new Map(rows.filter((r) => r.external_id !== null).map((r) => [r.external_id as string, { userId: r.id, enabled: r.is_enabled === 1 }]));
}

export async function deptByExternal(db: Db, externalId: string): Promise<{ id: string; name: string; parentId: string | null } | undefined> {
  const r = await db.selectFrom('departments').select(['id', 'name', 'parent_id']).where('external_id', '=', externalId).executeTakeFirst();
  return r ? { id: r.id, name: r.name, parentId: r.parent_id } : undefined;
}

export async function setDeptExternal(db: Db, deptId: string, externalId: string): Promise<void> {
  await db.updateTable('departments').set({ external_id: externalId }).where('id', '=', deptId).execute();
}

export interface SyncReportRow {
  id: number;
  trigger: 'manual' | 'schedule';
  status: 'queued' | 'running' | 'done' | 'failed';
  added: number;
  updated: number;
  disabled: number;
  reenabled: number;
  groupsAdded: number;
  membersAdded: number;
  membersRemoved: number;
  errors: string[];
  createdAt: number;
  finishedAt: number | null;
}

const toReport = (r: {
  id: number; trigger: string; status: SyncReportRow['status']; added: number; updated: number; disabled: number; reenabled: number; groups_added: number;
  members_added: number; members_removed: number; errors: string; created_at: number; finished_at: number | null;
}): SyncReportRow => ({
  id: Number(r.id),
  trigger: r.trigger === 'schedule' ? 'schedule' : 'manual',
  status: r.status,
  added: r.added,
  updated: r.updated,
  disabled: r.disabled,
  reenabled: r.reenabled,
  groupsAdded: r.groups_added,
  membersAdded: r.members_added,
  membersRemoved: r.members_removed,
  errors: (() => {
    try {
      const v = JSON.parse(r.errors) as unknown;
      return Array.isArray(v) ? v.map(String) : [];
    } catch {
      return [];
    }
  })(),
  createdAt: r.created_at,
  finishedAt: r.finished_at,
});

export async function createReport(db: Db, trigger: 'manual' | 'schedule', now = Date.now()): Promise<SyncReportRow> {
  const r = await db.insertInto('identity_sync_reports').values({ trigger, status: 'queued', created_at: now }).returningAll().executeTakeFirstOrThrow();
  return toReport(r);
}

export async function getReport(db: Db, id: number): Promise<SyncReportRow | undefined> {
  const r = await db.selectFrom('identity_sync_reports').selectAll().where('id', '=', id).executeTakeFirst();
  return r ? toReport(r) : undefined;
}

export async function listReports(db: Db, limit: number): Promise<SyncReportRow[]> {
  const rows = await db.selectFrom('identity_sync_reports').selectAll().orderBy('id', 'desc').limit(limit).execute();
  return rows.map(toReport);
}

type ReportFields = 'status' | 'added' | 'updated' | 'disabled' | 'reenabled' | 'groupsAdded' | 'membersAdded' | 'membersRemoved' | 'errors' | 'finishedAt';

export async function setReport(db: Db, id: number, r: Partial<Pick<SyncReportRow, ReportFields>>): Promise<void> {
  await db
    .updateTable('identity_sync_reports')
    .set({
      ...(r.status !== undefined ? { status: r.status } : {}),
      ...(r.added !== undefined ? { added: r.added } : {}),
      ...(r.updated !== undefined ? { updated: r.updated } : {}),
      ...(r.disabled !== undefined ? { disabled: r.disabled } : {}),
      ...(r.reenabled !== undefined ? { reenabled: r.reenabled } : {}),
      ...(r.groupsAdded !== undefined ? { groups_added: r.groupsAdded } : {}),
      ...(r.membersAdded !== undefined ? { members_added: r.membersAdded } : {}),
      ...(r.membersRemoved !== undefined ? { members_removed: r.membersRemoved } : {}),
      ...(r.errors !== undefined ? { errors: JSON.stringify(r.errors.slice(0, 100)) } : {}),
      ...(r.finishedAt !== undefined ? { finished_at: r.finishedAt } : {}),
    })
    .where('id', '=', id)
    .execute();
}

/** The drive group linked to a directory group of `source` (live or dissolved), if any. */
export async function linkedGroup(db: Db, source: string, externalId: string): Promise<{ groupId: string; name: string; dissolved: boolean } | undefined> {
  const r = await db
    .selectFrom('directory_groups as d')
    .innerJoin('groups as g', 'g.id', 'd.group_id')
    .select(['d.group_id', 'd.name', 'g.dissolved_at'])
    .where('d.source', '=', source)
    .where('d.external_id', '=', externalId)
    .executeTakeFirst();
  return r ? { groupId: r.group_id, name: r.name, dissolved: r.dissolved_at !== null } : undefined;
}

export async function linkGroup(db: Db, source: string, externalId: string, groupId: string, name: string, now = Date.now()): Promise<void> {
  const values = { group_id: groupId, name, updated_at: now };
  await db
    .insertInto('directory_groups')
    .values({ source, external_id: externalId, ...values })
    .onConflict((oc) => oc.columns(['source', 'external_id']).doUpdateSet(values))
    .execute();
}

/** Live drive groups mirroring a directory group of `source`. */
export async function linkedGroupIds(db: Db, source: string): Promise<string[]> {
  const rows = await db
    .selectFrom('directory_groups as d')
    .innerJoin('groups as g', 'g.id', 'd.group_id')
    .select('d.group_id')
    .where('d.source', '=', source)
    .where('g.dissolved_at', 'is', null)
    .execute();
  return rows.map((r) => r.group_id);
}

/** Memberships `source` made, with whether the member is still in the group; `userId` narrows to one user. */
export async function directoryMemberships(db: Db, source: string, userId?: string): Promise<{ groupId: string; userId: string; present: boolean }[]> {
  let q = db
    .selectFrom('directory_memberships as d')
    .leftJoin('group_members as m', (j) => j.onRef('m.group_id', '=', 'd.group_id').onRef('m.user_id', '=', 'd.user_id'))
    .select(['d.group_id', 'd.user_id', 'm.user_id as member'])
    .where('d.source', '=', source);
  if (userId !== undefined) q = q.where('d.user_id', '=', userId);
  const rows = await q.execute();
  return rows.map((r) => ({ groupId: r.group_id, userId: r.user_id, present: r.member !== null }));
}

export async function recordDirectoryMembers(db: Db, groupId: string, userIds: readonly string[], source: string, now = Date.now()): Promise<void> {
  if (userIds.length === 0) return;
  await db
    .insertInto('directory_memberships')
    .values(userIds.map((u) => ({ group_id: groupId, user_id: u, source, created_at: now })))
    .onConflict((oc) => oc.columns(['group_id', 'user_id']).doUpdateSet({ source, created_at: now }))
    .execute();
}

export async function forgetDirectoryMembers(db: Db, groupId: string, userIds: readonly string[]): Promise<void> {
  if (userIds.length === 0) return;
  await db.deleteFrom('directory_memberships').where('group_id', '=', groupId).where('user_id', 'in', [...userIds]).execute();
}

/** Accounts sync disabled (their entry left the directory), by user id. */
export async function directoryDisabledIds(db: Db, source: string): Promise<Set<string>> {
  const rows = await db.selectFrom('directory_disabled').select('user_id').where('source', '=', source).execute();
  return new Set(rows.map((r) => r.user_id));
}

export async function markDirectoryDisabled(db: Db, userId: string, source: string, now = Date.now()): Promise<void> {
  await db
    .insertInto('directory_disabled')
    .values({ user_id: userId, source, disabled_at: now })
    .onConflict((oc) => oc.column('user_id').doUpdateSet({ source, disabled_at: now }))
    .execute();
}

export async function clearDirectoryDisabled(db: Db, userId: string): Promise<void> {
  await db.deleteFrom('directory_disabled').where('user_id', '=', userId).execute();
}
