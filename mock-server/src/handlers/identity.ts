// Company sign-in (contract tag "identity", issue #19): single sign-on through OpenID Connect providers, LDAP/AD
// sign-in and directory sync, and the administrators' settings for both (/integrationPlatform).
import { createHash, randomBytes, randomInt } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { AppContext, Handlers } from '../context.ts';
import { AppError } from '../http/errors.ts';
import { done, ok } from '../http/envelope.ts';
import { authOf, MSG } from '../auth/index.ts';
import { getUserById, type User } from '../db/users-repo.ts';
import { getSysConfig, setSysConfig } from '../db/libraries-repo.ts';
import { insertOpLog } from '../db/oplog-repo.ts';
import { managedDeptIds } from '../db/departments-repo.ts';
import {
  DEFAULT_ATTRIBUTES, DEFAULT_CLAIMS, DEFAULT_GROUP_MAPPING, parseGroupMapping, armDevice, authSourceOf, collectDevice, deleteProvider, deviceByUserCode, directoryDisabledIds, finishDevice, getLdapSettings,
  getProvider, insertState, listProviders, listReports, recordSsoSession, saveLdapSettings, saveProvider, ssoSessionOf, takeState,
  userByExternal, type GroupMapping, type LdapSettings, type OidcProviderRow,
} from '../db/identity-repo.ts';
import { seal } from '../identity/secret-box.ts';
import { claimDeptPath, claimGroups, claimText, loadOpenidClient, oidcClientOf } from '../identity/oidc.ts';
import { ensureDeptPath, provision } from '../identity/accounts.ts';
import { Directory } from '../identity/ldap.ts';
import { directorySyncOf, LDAP_SOURCE } from '../identity/sync.ts';
import { assertMappedGroups, desiredMembers, emptyTally, ensureMirrorGroups, reconcileMembers } from '../identity/group-mapping.ts';
import { currentUserView } from './session.ts';
import type { components } from '@hcs/openapi/schema';

type S = components['schemas'];

/** A browser sign-in must come back within this. */
const STATE_TTL_MS = 10 * 60_000;
const DEVICE_INTERVAL_S = 2;
export const LOCAL_LOGIN_KEY = 'identity.localLogin';
const CALLBACK_PATH = '/hcs/services/System/sso/callback';
const DEFAULT_PAGE = '/drive/personalFile';
/** User codes avoid letters and digits people confuse (0/O, 1/I). */
const USER_CODE_ALPHABET = 'ABCDEFGHJKLMNPQRSTUVWXYZ23456789';

/** The page to come back to: a path on this server's web app; anything else (other hosts, `//x`) falls back. */
export function safeRedirect(r: string | undefined): string {
  if (!r || !r.startsWith('/') || r.startsWith('//') || r.startsWith('/\\') || /[\u0000-\u001f]/.test(r)) return DEFAULT_PAGE;
  if (r.startsWith('/drive/')) return r;
  if (r.startsWith('/hcs/')) return DEFAULT_PAGE;
  return `/drive${r}`;
}

const sha256 = (s: string) => createHash('sha256').update(s).digest('hex');

function userCode(): string {
  let s = '';
  for (let i = 0; i < 8; i++) s += USER_CODE_ALPHABET[randomInt(USER_CODE_ALPHABET.length)];
  return `${s.slice(0, 4)}-${s.slice(4)}`;
}

export async function localLoginSetting(ctx: AppContext): Promise<'all' | 'admins'> {
  const v = (await getSysConfig(ctx.db, LOCAL_LOGIN_KEY)) ?? process.env.HCS_LOCAL_LOGIN;
  return v === 'admins' ? 'admins' : 'all';
}

function providerView(p: OidcProviderRow, base: string): S['OidcProvider'] {
  return {
    id: p.id,
    name: p.name,
    issuer: p.issuer,
    clientId: p.clientId,
    scopes: p.scopes,
    claims: p.claims,
    enabled: p.enabled,
    hasClientSecret: p.clientSecretSealed !== '',
    groupMapping: p.groupMapping as S['GroupMapping'],
    redirectUri: `${base}${CALLBACK_PATH}`,
  };
}

function ldapView(s: LdapSettings): S['LdapConfig'] {
  return {
    enabled: s.enabled,
    url: s.url,
    startTls: s.startTls,
    bindDn: s.bindDn,
    hasBindPassword: s.bindPasswordSealed !== '',
    userBaseDn: s.userBaseDn,
    groupBaseDn: s.groupBaseDn,
    userFilter: s.userFilter,
    attributes: s.attributes,
    adminGroup: s.adminGroup,
    syncMinutes: s.syncMinutes,
    groupMapping: s.groupMapping as S['GroupMapping'],
  };
}

/** A mapping from a request with its defaults filled in; undefined when the request leaves it out. */
const mappingFrom = (m: S['GroupMapping'] | undefined): GroupMapping | undefined => (m === undefined ? undefined : parseGroupMapping(JSON.stringify(m)));

/** The origin the provider sends the browser back to: the configured public URL, else the one the request came to. */
const baseOf = (ctx: AppContext, req: FastifyRequest) => ctx.config.publicUrl ?? `${req.protocol}://${req.host}`;

/**
 * Where to send the browser to end the provider's session too (RP-initiated logout), for a session that came from
 * a provider that offers it; undefined otherwise, or when the provider cannot be reached (the local session ends
 * all the same).
 */
export async function ssoLogoutUrl(ctx: AppContext, req: FastifyRequest): Promise<string | undefined> {
  if (!req.user) return undefined;
  const sso = await ssoSessionOf(ctx.db, req.user.sessionId);
  const p = sso ? await getProvider(ctx.db, sso.providerId) : undefined;
  if (!sso || !p) return undefined;
  try {
    const cfg = await oidcClientOf(ctx).config(p);
    const oidc = await loadOpenidClient();
    if (!cfg.serverMetadata().end_session_endpoint) return undefined;
    return oidc.buildEndSessionUrl(cfg, {
      ...(sso.idToken ? { id_token_hint: sso.idToken } : {}),
      client_id: p.clientId,
      post_logout_redirect_uri: `${baseOf(ctx, req)}/drive/login`,
    }).href;
  } catch (err) {
    req.log.warn({ err, traceId: req.traceId }, 'single sign-on: no provider logout URL');
    return undefined;
  }
}

export function identityHandlers(ctx: AppContext): Handlers {
  const { db } = ctx;
  const auth = authOf(ctx);
  const client = oidcClientOf(ctx);
  const sync = directorySyncOf(ctx);

  const base = (req: FastifyRequest) => baseOf(ctx, req);

  const enabledProvider = async (id: string | undefined): Promise<OidcProviderRow> => {
    const p = id ? await getProvider(db, id) : (await listProviders(db)).find((x) => x.enabled);
    if (!p || !p.enabled) throw new AppError('NOT_FOUND', 'no such single sign-on provider');
    return p;
  };

  const audit = async (req: FastifyRequest, userName: string, userId: string | null, result: 'success' | 'failure', detail: string) => {
    try {
      await insertOpLog(db, {
        userId, userName: userName.slice(0, 128), opType: 'login', opSubject: 'session', objectId: userId ?? '', objectName: userName.slice(0, 128),
        device: String(req.headers['user-agent'] ?? ''), ip: req.ip, traceId: req.traceId, result, detail,
      });
    } catch (err) {
      req.log.error({ err, traceId: req.traceId }, 'operation log write failed');
    }
  };

  /** Sends the browser to the provider with a fresh state, nonce and PKCE verifier. */
  const toProvider = async (req: FastifyRequest, reply: FastifyReply, p: OidcProviderRow, state: string, codeVerifier: string, nonce: string) => {
    const cfg = await client.config(p).catch((err: unknown) => {
      req.log.warn({ err, traceId: req.traceId, provider: p.id }, 'single sign-on: provider discovery failed');
      throw new AppError('SSO_FAILED', 'the single sign-on provider cannot be reached');
    });
    const oidc = await loadOpenidClient();
    const url = oidc.buildAuthorizationUrl(cfg, {
      redirect_uri: `${base(req)}${CALLBACK_PATH}`,
      scope: p.scopes,
      response_type: 'code',
      code_challenge: await oidc.calculatePKCECodeChallenge(codeVerifier),
      code_challenge_method: 'S256',
      state,
      nonce,
    });
    reply.header('cache-control', 'no-store');
    return reply.redirect(url.href, 302);
  };

  /** The account a provider's verified claims stand for, created just in time and kept in line with the claims. */
  const accountFor = async (p: OidcProviderRow, claims: Record<string, unknown>): Promise<User> => {
    const names = { ...DEFAULT_CLAIMS, ...p.claims };
    const sub = claimText(claims, 'sub');
    const userName = claimText(claims, names.userName) || claimText(claims, 'email') || sub;
    if (sub === '' || userName === '') throw new AppError('SSO_FAILED', 'the provider named no subject or user name');
    const path = claimDeptPath(claims, names);
    const deptId = path.length > 0 ? await ensureDeptPath(db, path) : null;
    const admin = names.adminGroup ? claimGroups(claims, names).includes(names.adminGroup) : false;
    const existing = await userByExternal(db, 'oidc', `${p.id}:${sub}`);
    const groups = claimGroups(claims, names);
    const r = await provision(
      db,
      {
        source: 'oidc',
        externalId: `${p.id}:${sub}`,
        userName,
        realName: claimText(claims, names.realName) || userName,
        email: claimText(claims, names.email),
        // Without a department claim an existing account keeps the department an administrator gave it.
        deptId: deptId ?? existing?.deptId ?? null,
        isAdmin: admin,
      },
      { updateAdmin: Boolean(names.adminGroup) },
    );
    // No groups claim at all says nothing about groups (a provider may leave it out of some tokens): memberships
    // change only when the claim is there, an empty list included.
    if (claims[names.groups] !== undefined) await claimMemberships(p, r.user.id, groups);
    return r.user;
  };

  /** The user's memberships in the provider's mapped and mirrored groups, as their groups claim says now. */
  const claimMemberships = async (p: OidcProviderRow, userId: string, values: readonly string[]) => {
    const source = `oidc:${p.id}`;
    const tally = emptyTally();
    const refs = [...new Set(values)].map((v) => ({ externalId: v, name: v, matchKey: v }));
    const mirrored = p.groupMapping.mirror ? await ensureMirrorGroups(db, source, refs, tally) : new Map<string, string>();
    const want = desiredMembers(p.groupMapping, mirrored, [{ userId, groups: refs }], (v) => v);
    await reconcileMembers(db, source, want, p.groupMapping, tally, userId);
    if (tally.errors.length > 0) ctx.log.warn({ provider: p.id, userId, errors: tally.errors }, 'single sign-on: some group memberships could not follow the groups claim');
  };

  const failTo = (reply: FastifyReply, code: string) => {
    reply.header('cache-control', 'no-store');
    return reply.redirect(`/drive/login?ssoError=${encodeURIComponent(code)}`, 302);
  };

  // Staff sign-in through a directory and the local-password policy hook into services/System/Token.
  auth.hooks = {
    async directory(userName, password, user) {
      const source = user ? (await authSourceOf(db, user.id))?.source ?? 'local' : null;
      if (source === 'local') return 'local';
      // A single sign-on account has no password anywhere this server can check.
      if (source === 'oidc') return null;
      const settings = await getLdapSettings(db);
      if (!settings?.enabled) return source === 'ldap' ? null : 'local';
      const dir = new Directory(settings, ctx.secret);
      const found = await dir.verify(userName, password);
      if (!found) return null;
      const deptId = await ensureDeptPath(db, found.department, found.departmentKeys);
      const r = await provision(
        db,
        { source: 'ldap', externalId: found.externalId, userName: found.userName, realName: found.realName, email: found.email, deptId, isAdmin: dir.isAdmin(found) },
        // Only an account sync disabled because its entry left is a returning user's; it stays disabled (and the
        // sign-in refused) until the next sync sees the entry back and enables it.
        { updateAdmin: settings.adminGroup !== '', returning: async (u, _ext, trx) => (await directoryDisabledIds(trx, LDAP_SOURCE)).has(u.id) },
      );
      // A name that is a local account's and also a directory user's stays the local account's.
      if (user && r.user.id !== user.id) return null;
      return r.user;
    },
    async localAllowed(user) {
      return user.isAdmin || (await localLoginSetting(ctx)) === 'all';
    },
  };

  return {
    async ssoLogin(req, reply) {
      const q = req.query;
      let state: string;
      let p: OidcProviderRow;
      const oidc = await loadOpenidClient();
      const codeVerifier = oidc.randomPKCECodeVerifier();
      const nonce = oidc.randomNonce();
      if (q.userCode) {
        // The browser half of `drive login --sso`: the device's row carries the sign-in.
        const device = await deviceByUserCode(db, q.userCode.trim().toUpperCase());
        if (!device) throw new AppError('NOT_FOUND', 'no waiting sign-in has that code');
        p = await enabledProvider(device.providerId);
        state = device.state;
        await armDevice(db, state, codeVerifier, nonce);
      } else {
        p = await enabledProvider(q.providerId);
        state = oidc.randomState();
        await insertState(db, { state, providerId: p.id, codeVerifier, nonce, redirect: safeRedirect(q.redirect), userCode: null, expiresAt: Date.now() + STATE_TTL_MS });
      }
      return toProvider(req, reply, p, state, codeVerifier, nonce);
    },

    async ssoCallback(req, reply) {
      const q = req.query;
      const st = q.state ? await takeState(db, q.state) : undefined;
      if (!st || st.codeVerifier === '') {
        req.log.warn({ traceId: req.traceId }, 'single sign-on: unknown, used or expired state');
        return failTo(reply, 'SSO_FAILED');
      }
      const p = await getProvider(db, st.providerId);
      if (!p || !p.enabled) return failTo(reply, 'SSO_FAILED');
      let user: User;
      let idToken: string;
      let claims: Record<string, unknown> = {};
      try {
        const cfg = await client.config(p);
        const oidc = await loadOpenidClient();
        const current = new URL(`${base(req)}${CALLBACK_PATH}`);
        current.search = new URL(req.url, 'http://x').search;
        const tokens = await oidc.authorizationCodeGrant(cfg, current, {
          pkceCodeVerifier: st.codeVerifier,
          expectedState: st.state,
          expectedNonce: st.nonce,
          idTokenExpected: true,
        });
        const idClaims = tokens.claims();
        if (!idClaims) throw new Error('no ID token');
        idToken = tokens.id_token ?? '';
        claims = { ...idClaims };
        if (cfg.serverMetadata().userinfo_endpoint) {
          const info = await oidc.fetchUserInfo(cfg, tokens.access_token, idClaims.sub);
          claims = { ...info, ...idClaims };
        }
        user = await accountFor(p, claims);
      } catch (err) {
        req.log.warn({ traceId: req.traceId, provider: p.id, reason: err instanceof Error ? err.message : String(err) }, 'single sign-on refused');
        await audit(req, claimText(claims, 'sub') || '(sso)', null, 'failure', 'SSO_FAILED');
        return failTo(reply, 'SSO_FAILED');
      }
      if (st.userCode !== null) {
        // The CLI collects its token session with the device code; the browser only learns that it worked.
        await finishDevice(db, st.state, user.id);
        await audit(req, user.userName, user.id, 'success', 'sso-device');
        reply.header('cache-control', 'no-store');
        return reply.redirect('/drive/login?ssoDevice=done', 302);
      }
      try {
        const { session } = await auth.openSessionFor(req, reply, user);
        await recordSsoSession(db, session.id, p.id, idToken, claims);
      } catch (err) {
        if (err instanceof AppError && (err.code === 'ACCOUNT_FROZEN' || err.code === 'ACCOUNT_EXPIRED')) return failTo(reply, err.code);
        throw err;
      }
      await audit(req, user.userName, user.id, 'success', `sso:${p.id}`);
      reply.header('cache-control', 'no-store');
      return reply.redirect(st.redirect, 302);
    },

    async startSsoDevice(req) {
      const oidc = await loadOpenidClient();
      const p = await enabledProvider(req.body?.providerId);
      const deviceCode = randomBytes(32).toString('base64url');
      const code = userCode();
      await insertState(db, {
        state: oidc.randomState(), providerId: p.id, codeVerifier: '', nonce: '', redirect: DEFAULT_PAGE, userCode: code,
        deviceCodeHash: sha256(deviceCode), expiresAt: Date.now() + STATE_TTL_MS,
      });
      return ok({
        deviceCode,
        userCode: code,
        verificationUrl: `${base(req)}/hcs/services/System/sso/login?userCode=${encodeURIComponent(code)}`,
        expiresIn: STATE_TTL_MS / 1000,
        interval: DEVICE_INTERVAL_S,
      });
    },

    async getSsoToken(req, reply) {
      const r = await collectDevice(db, sha256(req.query.ticket));
      if (r === 'pending') throw new AppError('SSO_PENDING', 'the sign-in in the browser has not finished yet');
      if (!r) throw new AppError('SSO_FAILED', 'unknown, used or expired sign-in');
      const user = await getUserById(db, r.userId);
      if (!user) throw new AppError('SSO_FAILED', 'the account is gone');
      // The CLI asks for a token session like a password sign-in does (X-HCS-Client: cli).
      const { token, session } = await auth.openSessionFor(req, reply, user);
      return ok({
        token: session.kind === 'token' ? token : '',
        expiresAt: session.expiresAt,
        idleTimeoutMs: session.idleMs,
        user: currentUserView(user, await managedDeptIds(db, user.id)),
      });
    },

    async getSsoUserInfo(req) {
      if (!req.user) throw new AppError('UNAUTHENTICATED', MSG.unauthenticated);
      const user = await getUserById(db, req.user.userId);
      const facts = await authSourceOf(db, req.user.userId);
      if (!user || !facts) throw new AppError('UNAUTHENTICATED', MSG.unauthenticated);
      const sso = await ssoSessionOf(db, req.user.sessionId);
      const provider = sso ? await getProvider(db, sso.providerId) : undefined;
      const source = facts.source === 'oidc' || facts.source === 'ldap' ? facts.source : 'local';
      return ok({
        userId: user.id,
        userName: user.userName,
        realName: user.realName,
        email: facts.email,
        authSource: source,
        ...(sso ? { providerId: sso.providerId } : {}),
        ...(provider ? { providerName: provider.name } : {}),
      });
    },

    async getIdentitySettings() {
      return ok({ localLogin: await localLoginSetting(ctx) });
    },

    async saveIdentitySettings(req) {
      await setSysConfig(db, LOCAL_LOGIN_KEY, req.body.localLogin);
      return ok({ localLogin: req.body.localLogin });
    },

    async listOidcProviders(req) {
      const origin = base(req);
      return ok((await listProviders(db)).map((p) => providerView(p, origin)));
    },

    async saveOidcProvider(req) {
      const b = req.body;
      const mapping = mappingFrom(b.groupMapping);
      await assertMappedGroups(db, mapping);
      const prev = b.id !== undefined ? await getProvider(db, b.id) : undefined;
      const saved = await saveProvider(db, {
        id: b.id,
        name: b.name.trim(),
        issuer: b.issuer.replace(/\/+$/, ''),
        clientId: b.clientId,
        clientSecretSealed: b.clientSecret === undefined ? undefined : seal(ctx.secret, b.clientSecret),
        scopes: b.scopes?.trim() || 'openid profile email',
        claims: { ...DEFAULT_CLAIMS, ...b.claims },
        enabled: b.enabled ?? true,
        groupMapping: mapping ?? prev?.groupMapping ?? DEFAULT_GROUP_MAPPING,
      });
      if (!saved) throw new AppError('NOT_FOUND', 'no such single sign-on provider');
      return ok(providerView(saved, base(req)));
    },

    async deleteOidcProvider(req) {
      if (!(await deleteProvider(db, req.body.id))) throw new AppError('NOT_FOUND', 'no such single sign-on provider');
      return done();
    },

    async getLdapConfig() {
      const s = await getLdapSettings(db);
      return ok(s ? ldapView(s) : null);
    },

    async saveLdapConfig(req) {
      // Only a mapping sent now is checked: a group dissolved since the last save must not block other changes.
      await assertMappedGroups(db, mappingFrom(req.body.groupMapping));
      const settings = await settingsFrom(req.body);
      await saveLdapSettings(db, settings);
      return ok(ldapView({ ...settings, updatedAt: Date.now() }));
    },

    async testLdapConnection(req) {
      const s = await settingsFrom(req.body);
      return ok(await new Directory({ ...s, updatedAt: 0 }, ctx.secret).test());
    },

    async previewLdapUsers(req) {
      const s = await getLdapSettings(db);
      if (!s) throw new AppError('NOT_FOUND', 'no LDAP connection is saved');
      const users = await new Directory(s, ctx.secret).preview(req.query.keyword || undefined);
      return ok(users.map((u) => ({ dn: u.dn, userName: u.userName, realName: u.realName, email: u.email, department: u.department })));
    },

    async syncLdapNow() {
      const s = await getLdapSettings(db);
      if (!s?.enabled) throw new AppError('CONFLICT', 'LDAP is not configured or not enabled');
      return ok(await sync.request('manual'));
    },

    async listLdapSyncReports(req) {
      return ok(await listReports(db, req.query.limit ?? 20));
    },
  };

  /** The saved settings with the body's changes; an omitted bind password keeps the stored one. */
  async function settingsFrom(b: S['LdapTestRequest']): Promise<Omit<LdapSettings, 'updatedAt'>> {
    const prev = await getLdapSettings(db);
    const url = b.url ?? prev?.url;
    const userBaseDn = b.userBaseDn ?? prev?.userBaseDn;
    if (!url || !userBaseDn) throw new AppError('NOT_FOUND', 'no LDAP connection is saved');
    return {
      enabled: b.enabled ?? prev?.enabled ?? true,
      url,
      startTls: b.startTls ?? prev?.startTls ?? false,
      bindDn: b.bindDn ?? prev?.bindDn ?? '',
      bindPasswordSealed: b.bindPassword === undefined ? prev?.bindPasswordSealed ?? '' : seal(ctx.secret, b.bindPassword),
      userBaseDn,
      groupBaseDn: b.groupBaseDn ?? prev?.groupBaseDn ?? '',
      userFilter: b.userFilter?.trim() || prev?.userFilter || '(objectClass=inetOrgPerson)',
      attributes: { ...DEFAULT_ATTRIBUTES, ...prev?.attributes, ...b.attributes },
      adminGroup: b.adminGroup ?? prev?.adminGroup ?? '',
      syncMinutes: b.syncMinutes ?? prev?.syncMinutes ?? 0,
      groupMapping: mappingFrom(b.groupMapping) ?? prev?.groupMapping ?? DEFAULT_GROUP_MAPPING,
    };
  }
}

