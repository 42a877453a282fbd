// Sign-in, sign-out, the current user, passwords, languages and public platform facts (contract tag "session").
import { readFileSync } from 'node:fs';
import { isIP, BlockList } from 'node:net';
import type { FastifyRequest } from 'fastify';
import type { AppContext, Handlers } from '../context.ts';
import type { SessionUser } from '../auth/types.ts';
import { AppError } from '../http/errors.ts';
import { ok, done } from '../http/envelope.ts';
import { authOf, MSG } from '../auth/index.ts';
import { assertPasswordPolicy, hashPassword, verifyPassword, PASSWORD_MIN_LENGTH } from '../auth/passwords.ts';
import { getPasswordHash, getUserById, setPasswordHash, setUserLanguage, type User } from '../db/users-repo.ts';
import { getSysConfig } from '../db/libraries-repo.ts';
import { insertOpLog } from '../db/oplog-repo.ts';
import { CONFIG_KEYS } from '../db/seed.ts';
import { managedDeptIds } from '../db/departments-repo.ts';
import { getLdapSettings, listProviders } from '../db/identity-repo.ts';
import { localLoginSetting, ssoLogoutUrl } from './identity.ts';
import type { components } from '@hcs/openapi/schema';
import { loginRate } from '../config-store.ts';

type Schemas = components['schemas'];

type Lang = 'zh_CN' | 'en_US';
const LANGS: readonly Lang[] = ['zh_CN', 'en_US'];
const isLang = (v: unknown): v is Lang => typeof v === 'string' && (LANGS as readonly string[]).includes(v);

const VERSION: string = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')).version;
const AGREEMENT_VERSION = '2025-01';

function loadMessages(): Record<Lang, Record<string, string>> {
  const read = (l: Lang) => JSON.parse(readFileSync(new URL(`./messages/${l}.json`, import.meta.url), 'utf8')) as Record<string, string>;
  return { zh_CN: read('zh_CN'), en_US: read('en_US') };
}

function loadAgreements(): Record<Lang, { title: string; content: string }> {
  const read = (l: Lang) => {
    const text = readFileSync(new URL(`./agreement/${l}.txt`, import.meta.url), 'utf8').replace(/\r\n/g, '\n').trim();
    const [title = '', ...rest] = text.split('\n');
    return { title: title.trim(), content: rest.join('\n').trim() };
  };
  return { zh_CN: read('zh_CN'), en_US: read('en_US') };
}

/** The spec's current-user fields (section 3) plus what the web app needs to decide its first screen. */
export function currentUserView(user: User, managed?: string[]) {
  return {
    userId: user.id,
    userName: user.userName,
    userRealName: user.realName,
    userDeptId: user.deptId,
    userIsEnabled: user.isEnabled ? 1 : 0,
    userExpiredTime: user.expiredTime,
    platformId: user.platformId,
    isAdmin: user.isAdmin,
    ...(isLang(user.languageId) ? { languageId: user.languageId } : {}),
    mustChangePassword: user.mustChangePassword,
    // Tells the web app and the CLI where a department manager may administer (absent where nobody asked).
    ...(managed ? { managedDeptIds: managed } : {}),
  } satisfies Schemas['CurrentUser'];
}

function signedIn(req: FastifyRequest): SessionUser {
  if (!req.user) throw new AppError('UNAUTHENTICATED', MSG.unauthenticated);
  return req.user;
}

/** Matches an IP against one mapping entry: an exact address or a CIDR block. */
function ipMatches(ip: string, rule: string): boolean {
  const [net, bits] = rule.split('/');
  const family = isIP(net ?? '');
  if (!family || isIP(ip) !== family) return false;
  if (bits === undefined) return net === ip;
  const prefix = Number(bits);
  if (!Number.isInteger(prefix) || prefix < 0 || prefix > (family === 4 ? 32 : 128)) return false;
  const list = new BlockList();
  list.addSubnet(net as string, prefix, family === 4 ? 'ipv4' : 'ipv6');
  return list.check(ip, family === 4 ? 'ipv4' : 'ipv6');
}

export function sessionHandlers(ctx: AppContext): Handlers {
  const { db, config } = ctx;
  const auth = authOf(ctx);
  const messages = loadMessages();
  const agreements = loadAgreements();

  const systemLanguage = async (): Promise<Lang> => {
    const v = await getSysConfig(db, CONFIG_KEYS.language);
    return isLang(v) ? v : config.defaultLanguage;
  };

  const currentUser = async (req: FastifyRequest) => {
    const user = await getUserById(db, signedIn(req).userId);
    if (!user) throw new AppError('UNAUTHENTICATED', MSG.unauthenticated);
    return ok(currentUserView(user, await managedDeptIds(db, user.id)));
  };

  return {
    getCurrentUser: currentUser,
    getCurrentUserAlias: currentUser,

    async login(req, reply) {
      const q = req.query;
      const record = async (result: 'success' | 'failure', detail: string, userId: string | null) => {
        try {
          await insertOpLog(db, {
            userId,
            userName: q.username.slice(0, 128),
            opType: 'login',
            opSubject: 'session',
            objectId: userId ?? '',
            objectName: q.username.slice(0, 128),
            device: String(req.headers['user-agent'] ?? ''),
            ip: req.ip,
            traceId: req.traceId,
            result,
            detail,
          });
        } catch (err) {
          req.log.error({ err, traceId: req.traceId }, 'operation log write failed');
        }
      };
      try {
        const password = auth.keys.decryptPassword(q.password, 'password');
        const { token, session, user } = await auth.signIn(req, reply, q.username, password, { id: q.captchaId, answer: q.captchaAnswer });
        await record('success', session.kind, user.id);
        return ok({
          // A browser's token exists only as the HttpOnly cookie; putting it in the body would hand it to scripts.
          token: session.kind === 'token' ? token : '',
          expiresAt: session.expiresAt,
          idleTimeoutMs: session.idleMs,
          user: currentUserView(user, await managedDeptIds(db, user.id)),
        });
      } catch (err) {
        await record('failure', err instanceof AppError ? err.code : 'INTERNAL', null);
        throw err;
      }
    },

    async logout(req, reply) {
      // Read before the session ends: its row names the provider and the ID token the provider's logout wants.
      const logoutUrl = await ssoLogoutUrl(ctx, req);
      await auth.signOut(req, reply);
      return ok(logoutUrl ? { logoutUrl } : {}, 'LoginOutSuccessful');
    },

    async getCaptcha(req, reply) {
      // A challenge is for one attempt: no cache may hand it to anyone else.
      reply.header('cache-control', 'no-store');
      return ok(await auth.captchas.create(req.ip));
    },

    // Administrators only: the contract's access mark (x-hcs-access: admin), enforced by the route layer.
    async getSystemWarnings() {
      return ok(auth.warnings());
    },

    async getPlatformInfo() {
      const providers = (await listProviders(db)).filter((p) => p.enabled).map((p) => ({ id: p.id, name: p.name }));
      const ldap = await getLdapSettings(db);
      return ok({
        platformId: 'NetDisk',
        publicKey: auth.keys.publicKeyPem,
        passwordEncryption: 'RSA-OAEP-256',
        loginMethod: providers.length > 0 ? 'sso' : 'local',
        loginMethods: { ssoProviders: providers, ldap: ldap?.enabled === true, localLogin: await localLoginSetting(ctx) },
        defaultLanguage: await systemLanguage(),
        skin: 'redblack',
        version: VERSION,
        passwordMinLength: PASSWORD_MIN_LENGTH,
      });
    },

    async getRequestIp(req) {
      return ok({ ip: req.ip });
    },

    async checkSpecialGatewayMapping(req) {
      const { ip } = req.body;
      if (!isIP(ip)) {
        throw new AppError('VALIDATION_FAILED', 'ip must be an IPv4 or IPv6 address', { fields: [{ field: 'ip', message: 'invalid' }] });
      }
      let rules: unknown;
      try {
        rules = JSON.parse((await getSysConfig(db, CONFIG_KEYS.gatewayMappings)) ?? '[]');
      } catch {
        req.log.warn({ traceId: req.traceId }, `sys_config ${CONFIG_KEYS.gatewayMappings} is not valid JSON; ignoring it`);
        rules = [];
      }
      const list = Array.isArray(rules) ? rules : [];
      for (const r of list) {
        if (r && typeof r === 'object' && typeof r.ip === 'string' && typeof r.host === 'string' && ipMatches(ip, r.ip)) {
          return ok(r.host as string);
        }
      }
      return ok('');
    },

    async changePassword(req) {
      const caller = signedIn(req);
      const body = req.body;
      const own = body.userId === caller.userId;
      if (!own) {
        if (!body.resetPassword || !caller.isAdmin) {
          throw new AppError('FORBIDDEN', "only an administrator can reset another user's password");
        }
      }
      const target = await getUserById(db, body.userId);
      if (!target) throw new AppError('NOT_FOUND', 'no such user');

      if (own) {
        if (!body.oldPassword) {
          throw new AppError('VALIDATION_FAILED', 'the old password is required', { fields: [{ field: 'oldPassword', message: 'required' }] });
        }
        // A stolen session must not be able to guess the old password without limit.
        const rate = await loginRate(ctx);
        const rule = { limit: rate.perAccount, windowMs: rate.windowMs };
        const key = `password:user:${target.id}`;
        await auth.limiter.check([{ key, rule }]);
        const oldPlain = auth.keys.decryptPassword(body.oldPassword, 'oldPassword');
        const hash = await getPasswordHash(db, target.id);
        if (!hash || !(await verifyPassword(oldPlain, hash))) {
          await auth.limiter.hit([{ key, rule }]);
          throw new AppError('PASSWORD_WRONG', 'login.PasswordModifiedFailed', { fields: [{ field: 'oldPassword', message: 'wrong' }] });
        }
        await auth.limiter.reset(key);
      }
      if (!body.newPassword) {
        throw new AppError('VALIDATION_FAILED', 'the new password is required', { fields: [{ field: 'newPassword', message: 'required' }] });
      }
      const newPlain = auth.keys.decryptPassword(body.newPassword, 'newPassword');
      assertPasswordPolicy(newPlain, target.userName);
      const newHash = await hashPassword(newPlain);
      // An administrator's reset is a temporary password: the user must choose their own at next sign-in.
      await setPasswordHash(db, target.id, newHash, !own);
      const ended = await auth.endOtherSessions(target.id, own ? caller.sessionId : null);
      req.log.info({ traceId: req.traceId, userId: target.id, endedSessions: ended, reset: !own }, 'password changed');
      return done('PasswordModifiedSuccessful');
    },

    async getLocale(req) {
      const { language } = req.query;
      return ok(messages[language]);
    },

    async getSystemLanguage() {
      return ok(await systemLanguage());
    },

    async setLanguage(req) {
      const caller = signedIn(req);
      const { languageId } = req.body;
      await setUserLanguage(db, caller.userId, languageId);
      return done();
    },

    async getUserAgreement(req) {
      const q = req.query;
      const saved = req.user?.languageId;
      const lang = q.languageId ?? (isLang(saved) ? saved : await systemLanguage());
      const a = agreements[lang];
      return ok({ title: a.title, content: a.content, version: AGREEMENT_VERSION });
    },
  };
}
