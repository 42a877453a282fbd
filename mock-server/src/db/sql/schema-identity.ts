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
  errors: Generated<string>;
  created_at: number;
  finished_at: number | null;
}

export interface IdentityTables {
  oidc_providers: OidcProvidersTable;
  ldap_config: LdapConfigTable;
  sso_states: SsoStatesTable;
  sso_sessions: SsoSessionsTable;
  identity_sync_reports: IdentitySyncReportsTable;
}
