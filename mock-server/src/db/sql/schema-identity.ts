// Tables of company sign-in (migration 012_identity), kept beside schema.ts so the identity work edits its own file.
import type { Generated } from 'kysely';
import type { Flag } from './schema.ts';

export interface OidcProvidersTable {
  id: string;
  name: string;
  issuer: string;
  client_id: string;
  client_secret_enc: Generated<string>;
  scopes: Generated<string>;
  /** JSON: claim names for userName, realName, email, department, groups. */
  claims: Generated<string>;
  enabled: Generated<Flag>;
  /** JSON: the GroupMapping (018). */
  group_mapping: Generated<string>;
  created_at: number;
  updated_at: number;
}

export interface LdapConfigTable {
  id: string;
  enabled: Generated<Flag>;
  url: string;
  start_tls: Generated<Flag>;
  bind_dn: Generated<string>;
  bind_password_enc: Generated<string>;
  user_base_dn: string;
  group_base_dn: Generated<string>;
  user_filter: Generated<string>;
  /** JSON: attribute names for userName, realName, email. */
  attributes: Generated<string>;
  admin_group: Generated<string>;
  sync_minutes: Generated<number>;
  /** JSON: the GroupMapping (018). */
  group_mapping: Generated<string>;
  updated_at: number;
}

export interface SsoStatesTable {
  state: string;
  provider_id: string;
  code_verifier: string;
  nonce: string;
  redirect: Generated<string>;
  device_code_hash: string | null;
  user_code: string | null;
  user_id: string | null;
  created_at: number;
  expires_at: number;
}

export interface SsoSessionsTable {
  session_id: string;
  provider_id: string;
  id_token: string;
  claims: Generated<string>;
}

export interface IdentitySyncReportsTable {
  id: Generated<number>;
  trigger: string;
  status: 'queued' | 'running' | 'done' | 'failed';
  added: Generated<number>;
  updated: Generated<number>;
  disabled: Generated<number>;
  reenabled: Generated<number>;
  groups_added: Generated<number>;
  members_added: Generated<number>;
  members_removed: Generated<number>;
  errors: Generated<string>;
  created_at: number;
  finished_at: number | null;
}

/** A drive group standing for a directory group (018); source 'ldap' or 'oidc:<providerId>'. */
export interface DirectoryGroupsTable {
  source: string;
  external_id: string;
  group_id: string;
  name: string;
  updated_at: number;
}

/** A group membership the directory made (018); members added by hand have no row. */
export interface DirectoryMembershipsTable {
  group_id: string;
  user_id: string;
  source: string;
  created_at: number;
}

/** An account disabled by sync because its entry left the directory (018). */
export interface DirectoryDisabledTable {
  user_id: string;
  source: string;
  disabled_at: number;
}

export interface IdentityTables {
  oidc_providers: OidcProvidersTable;
  ldap_config: LdapConfigTable;
  sso_states: SsoStatesTable;
  sso_sessions: SsoSessionsTable;
  identity_sync_reports: IdentitySyncReportsTable;
  directory_groups: DirectoryGroupsTable;
  directory_memberships: DirectoryMembershipsTable;
  directory_disabled: DirectoryDisabledTable;
}
