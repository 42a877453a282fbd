// 012: company sign-in (issue #19).
// - users.auth_source says how an account proves who it is: 'local' (password hash here), 'oidc' (a provider's
//   subject, external_id = `<providerId>:<sub>`) or 'ldap' (a directory bind; external_id = the entry's DN, lower
//   case). Only local accounts ever check the stored hash; the others keep an unusable random one.
// - departments.external_id: the directory OU a synced department stands for, so a renamed OU stays the same
//   department and sync never touches departments it did not make.
// - oidc_providers / ldap_config: the administrators' settings; client secrets and bind passwords are stored
//   encrypted with the server secret (AES-256-GCM) and never leave the server.
// - sso_states: one sign-in in flight (state -> PKCE verifier, nonce, where to return), in the database so any node
//   can finish what another started; a CLI sign-in keeps its device code hash here until the CLI collects it.
// - sso_sessions: the provider and ID token behind a local session, for RP-initiated logout.
// - identity_sync_reports: what each directory sync added, updated, disabled and failed on.
import { sql, type Kysely } from 'kysely';
import type { Migration } from 'kysely/migration';
import type { SqlDialect } from '../tx.ts';
import { columnTypes } from './column-types.ts';

export function identityMigration(dialect: SqlDialect): Migration {
  return {
    async up(db: Kysely<unknown>) {
      const t = columnTypes(dialect);
      await db.schema.alterTable('users').addColumn('auth_source', t.text, (c) => c.notNull().defaultTo('local')).execute();
      await db.schema.alterTable('users').addColumn('external_id', t.text).execute();
      await sql`create unique index users_external on users (auth_source, external_id) where external_id is not null`.execute(db);
      await db.schema.alterTable('departments').addColumn('external_id', t.text).execute();
      await sql`create unique index departments_external on departments (external_id) where external_id is not null`.execute(db);

      await db.schema
        .createTable('oidc_providers')
        .addColumn('id', t.text, (c) => c.primaryKey())
        .addColumn('name', t.text, (c) => c.notNull())
        .addColumn('issuer', t.text, (c) => c.notNull())
        .addColumn('client_id', t.text, (c) => c.notNull())
        .addColumn('client_secret_enc', t.text, (c) => c.notNull().defaultTo(''))
        .addColumn('scopes', t.text, (c) => c.notNull().defaultTo('openid profile email'))
        .addColumn('claims', t.text, (c) => c.notNull().defaultTo('{}'))
        .addColumn('enabled', t.flag, (c) => c.notNull().defaultTo(1))
        .addColumn('created_at', t.time, (c) => c.notNull())
        .addColumn('updated_at', t.time, (c) => c.notNull())
        .execute();

      await db.schema
        .createTable('ldap_config')
        .addColumn('id', t.text, (c) => c.primaryKey())
        .addColumn('enabled', t.flag, (c) => c.notNull().defaultTo(0))
        .addColumn('url', t.text, (c) => c.notNull())
        .addColumn('start_tls', t.flag, (c) => c.notNull().defaultTo(0))
        .addColumn('bind_dn', t.text, (c) => c.notNull().defaultTo(''))
        .addColumn('bind_password_enc', t.text, (c) => c.notNull().defaultTo(''))
        .addColumn('user_base_dn', t.text, (c) => c.notNull())
        .addColumn('group_base_dn', t.text, (c) => c.notNull().defaultTo(''))
        .addColumn('user_filter', t.text, (c) => c.notNull().defaultTo('(objectClass=inetOrgPerson)'))
        .addColumn('attributes', t.text, (c) => c.notNull().defaultTo('{}'))
        .addColumn('admin_group', t.text, (c) => c.notNull().defaultTo(''))
        .addColumn('sync_minutes', t.int, (c) => c.notNull().defaultTo(0))
        .addColumn('updated_at', t.time, (c) => c.notNull())
        .execute();

      await db.schema
        .createTable('sso_states')
        .addColumn('state', t.text, (c) => c.primaryKey())
        .addColumn('provider_id', t.text, (c) => c.notNull().references('oidc_providers.id').onDelete('cascade'))
        .addColumn('code_verifier', t.text, (c) => c.notNull())
        .addColumn('nonce', t.text, (c) => c.notNull())
        .addColumn('redirect', t.text, (c) => c.notNull().defaultTo('/personalFile'))
        .addColumn('device_code_hash', t.text)
        .addColumn('user_code', t.text)
        .addColumn('user_id', t.text, (c) => c.references('users.id').onDelete('cascade'))
        .addColumn('created_at', t.time, (c) => c.notNull())
        .addColumn('expires_at', t.time, (c) => c.notNull())
        .execute();
      await sql`create unique index sso_states_device on sso_states (device_code_hash) where device_code_hash is not null`.execute(db);

      await db.schema
        .createTable('sso_sessions')
        .addColumn('session_id', t.text, (c) => c.primaryKey().references('sessions.id').onDelete('cascade'))
        .addColumn('provider_id', t.text, (c) => c.notNull())
        .addColumn('id_token', t.text, (c) => c.notNull())
        .addColumn('claims', t.text, (c) => c.notNull().defaultTo('{}'))
        .execute();

      await db.schema
        .createTable('identity_sync_reports')
        .addColumn('id', t.serialIdType, t.serialId)
        .addColumn('trigger', t.text, (c) => c.notNull())
        .addColumn('status', t.text, (c) => c.notNull().check(sql`status in ('queued', 'running', 'done', 'failed')`))
        .addColumn('added', t.int, (c) => c.notNull().defaultTo(0))
        .addColumn('updated', t.int, (c) => c.notNull().defaultTo(0))
        .addColumn('disabled', t.int, (c) => c.notNull().defaultTo(0))
        .addColumn('errors', t.text, (c) => c.notNull().defaultTo('[]'))
        .addColumn('created_at', t.time, (c) => c.notNull())
        .addColumn('finished_at', t.time)
        .execute();
    },
  };
}
