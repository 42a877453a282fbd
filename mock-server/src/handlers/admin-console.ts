// Administration consoles (contract tag adminConsole, issue #18 part 1): configuration entries, the IP white list,
// operation logs, statistics and version facts. The contract marks these calls admin (the route layer refuses
// everyone else), but for the enumerations, public entries (getByKey) and the caller's white-list standing.
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { FastifyRequest } from 'fastify';
import type { AppContext, Handlers } from '../context.ts';
import { done, ok } from '../http/envelope.ts';
import { AppError } from '../http/errors.ts';
import { transaction, dialectOf, forUpdate } from '../db/sql/tx.ts';
import type { components } from '@hcs/openapi/schema';
import { configStore, envDefault, isSettingKey, SETTINGS, valueProblem, type Setting, type SettingKey } from '../config-store.ts';
import { ipGate, loadIpRules, parseIpValue, SYSTEM_ROLES, normaliseIp, type IpRuleRow } from '../auth/ip-whitelist.ts';
import {
  activeUsersSince, appliedMigrations, clearOpLogs, countOpLogs, dailyActivity, deleteCustomConfigs, deleteIpRules, getIpRule, insertCustomConfig,
  opTypes, pageOpLogs, personalStats, saveIpRule, storageByDept, storageBySpace, storageByType, storedConfig, storedConfigs, targetExists, targetNames,
  topFolders, totals, writeConfigValue, type OpLogFilter, type StoredConfig,
} from '../db/admin-console-repo.ts';
import { insertOpLog, type OpLogRow } from '../db/oplog-repo.ts';
import { migrationsFor } from '../db/sql/migrations/index.ts';
import { streamOpLogExport } from '../files/oplog-export.ts';
import { FILE_DOWNLOAD, ZIP_DOWNLOAD } from './download.ts';

type Schemas = components['schemas'];

/** Operations whose log rows count as uploads and downloads in the statistics. */
export const UPLOAD_TYPES = ['saveInstance', 'secondTransfer', 'bulkUpload'] as const;
// Visitors' downloads are logged once per token and file when granted (share-links' grantDownload), and when their
// client reports one through addLog, as the spec's share page does.
export const DOWNLOAD_TYPES = [FILE_DOWNLOAD, ZIP_DOWNLOAD, 'share.download'] as const;
const COUNT_CAP = 10_000;
const DAY_MS = 86_400_000;

function validation(field: string, message: string): AppError {
  return new AppError('VALIDATION_FAILED', `${field}: ${message}`, { fields: [{ field, message }] });
}

function settingEntry(key: SettingKey, stored: StoredConfig | undefined, ctx: AppContext): Schemas['ConfigEntry'] {
  const s: Setting = SETTINGS[key];
  return {
    configKey: key,
    configValue: stored?.value ?? envDefault(key, ctx.config),
    configType: s.type,
    description: s.description,
    builtin: true,
    publicRead: s.publicRead === true,
    editIsDisabled: false,
    ...(s.type === 'enum' ? { options: [...s.options] } : {}),
    ...(s.type === 'integer' ? { min: s.min, max: s.max } : {}),
    updateTime: stored?.updatedAt ?? 0,
  };
}

function customEntry(c: StoredConfig): Schemas['ConfigEntry'] {
  return {
    configKey: c.key, configValue: c.value, configType: c.type as Schemas['ConfigType'], description: c.description, builtin: false,
    publicRead: c.publicRead, editIsDisabled: false, ...(c.type === 'enum' ? { options: c.options } : {}), updateTime: c.updatedAt,
  };
}

function logView(r: OpLogRow): Schemas['OpLog'] {
  return {
    id: r.id, optTime: r.at, userId: r.userId, userName: r.userName, optType: r.opType, optSubject: r.opSubject, optObj: r.objectId,
    optObjName: r.objectName, optDevice: r.device, ip: r.ip, result: r.result, detail: r.detail, traceId: r.traceId,
  };
}

function filterOf(q: OpLogFilter): OpLogFilter {
  return { userName: q.userName, optType: q.optType, optObj: q.optObj, result: q.result, since: q.since, until: q.until, keyword: q.keyword };
}

const utcDay = (day: number) => new Date(day * DAY_MS).toISOString().slice(0, 10);

/** The running version: package.json of the server, and the build named by HCS_BUILD or the checkout's commit. */
function versionFacts(): { version: string; build: string } {
  const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version?: string };
  return { version: pkg.version ?? '0.0.0', build: process.env.HCS_BUILD || 'dev' };
}

export function adminConsoleHandlers(ctx: AppContext): Handlers {
  const { db } = ctx;
  const store = configStore(ctx);
  const gate = ipGate(ctx);

  async function entryOf(key: string): Promise<Schemas['ConfigEntry'] | undefined> {
    const stored = await storedConfig(db, key);
    if (isSettingKey(key)) return settingEntry(key, stored, ctx);
    return stored?.custom ? customEntry(stored) : undefined;
  }

  async function ruleViews(rules: readonly IpRuleRow[]): Promise<Schemas['IpRule'][]> {
    const names = await targetNames(db, rules);
    return rules.map((r) => ({
      id: r.id, ipValue: r.ipValue, kind: r.kind, targetType: r.targetType, targetId: r.targetId,
      targetName: r.targetType === 'dept' || r.targetType === 'user' ? (names.get(r.targetId) ?? '') : r.targetId,
      scope: r.scope, enabled: r.enabled, remark: r.remark, updateTime: r.updatedAt,
    }));
  }

  /** Refuses a white list (as it would be) that no longer admits the calling administrator from here. */
  async function assertNotLockedOut(req: FastifyRequest, next: readonly IpRuleRow[]): Promise<void> {
    const me = req.user!;
    if (!(await gate.admitsWith(next, me, req.ip, 'console'))) {
      throw new AppError('IP_SELF_LOCKOUT', `the white list would no longer admit you from ${normaliseIp(req.ip)}; nothing was saved`);
    }
  }

  return {
    async pageSysConfig(req) {
      const { pageNo = 1, pageSize = 20, keyword } = req.query;
      const keys = Object.keys(SETTINGS) as SettingKey[];
      const stored = await storedConfigs(db, keys);
      let all = [...keys.map((k) => settingEntry(k, stored.get(k), ctx)), ...[...stored.values()].filter((c) => c.custom && !isSettingKey(c.key)).map(customEntry)];
      if (keyword) {
        const k = keyword.toLowerCase();
        all = all.filter((e) => e.configKey.toLowerCase().includes(k) || e.description.toLowerCase().includes(k));
      }
      all.sort((a, b) => (a.configKey < b.configKey ? -1 : a.configKey > b.configKey ? 1 : 0));
      return ok({ list: all.slice((pageNo - 1) * pageSize, pageNo * pageSize), total: all.length, pageNo, pageSize });
    },

    async addConfigs(req) {
      const b = req.body;
      if (isSettingKey(b.configKey)) throw new AppError('NAME_EXISTS', `${b.configKey} exists`);
      const options = b.options ?? [];
      if (b.configType === 'enum' && options.length === 0) throw validation('options', 'an enum entry needs its values');
      const problem = valueProblem(b.configValue, b.configType, { options });
      if (problem) throw validation('configValue', problem);
      const inserted = await transaction(db, (trx) =>
        insertCustomConfig(trx, {
          key: b.configKey, value: b.configValue, type: b.configType, description: b.description ?? '', options: b.configType === 'enum' ? options : [],
          publicRead: b.publicRead ?? false,
        }),
      );
      if (!inserted) throw new AppError('NAME_EXISTS', `${b.configKey} exists`);
      store.invalidate();
      return ok((await entryOf(b.configKey))!);
    },

    async updateConfigs(req) {
      const b = req.body;
      const current = await entryOf(b.configKey);
      if (!current) throw new AppError('NOT_FOUND', `no configuration entry ${b.configKey}`);
      const problem = valueProblem(b.configValue, current.configType, { min: current.min, max: current.max, options: current.options });
      if (problem) throw validation('configValue', problem);
      await transaction(db, (trx) => writeConfigValue(trx, b.configKey, b.configValue, current.builtin ? undefined : b.description));
      store.invalidate();
      return ok((await entryOf(b.configKey))!);
    },

    async deleteConfigs(req) {
      const keys = [...new Set(req.body.configKeys)];
      const builtin = keys.find(isSettingKey);
      if (builtin) throw new AppError('CONFIG_BUILTIN', `${builtin} is one of the server's settings and cannot be deleted`);
      await transaction(db, async (trx) => {
        const n = await deleteCustomConfigs(trx, keys);
        // All or nothing: an unknown key (or an internal one) undoes the others.
        if (n !== keys.length) throw new AppError('NOT_FOUND', 'one of the keys names no configuration entry');
      });
      store.invalidate();
      return done();
    },

    async getByConfigKey(req) {
      const entry = await entryOf(req.query.configKey);
      if (!entry) throw new AppError('NOT_FOUND', `no configuration entry ${req.query.configKey}`);
      return ok(entry);
    },

    async getConfigByKey(req) {
      const entry = await entryOf(req.params.configKey);
      if (!entry || !entry.publicRead) throw new AppError('NOT_FOUND', `no configuration entry ${req.params.configKey}`);
      return ok({ configKey: entry.configKey, configValue: entry.configValue });
    },

    async getEnumerations() {
      const items = (type: string, values: readonly string[]) => values.map((v) => ({ value: v, label: `adminConsole.enum.${type}.${v}` }));
      const types = await opTypes(db);
      return ok({
        configType: items('configType', ['string', 'integer', 'boolean', 'enum', 'json']),
        ipTargetType: items('ipTargetType', ['all', 'role', 'dept', 'user']),
        ipScope: items('ipScope', ['console', 'drive']),
        role: items('role', SYSTEM_ROLES),
        optResult: items('optResult', ['success', 'failure']),
        language: items('language', ['zh_CN', 'en_US']),
        optType: types.map((t) => ({ value: t, label: `adminConsole.enum.optType.${t}` })),
      });
    },

    async getSsoAccess(req) {
      const me = req.user!;
      const rules = await gate.rules();
      return ok({
        ip: normaliseIp(req.ip),
        allowed: !gate.enforced || (await gate.admitsWith(rules, me, req.ip, 'drive')),
        consoleAllowed: me.isAdmin && (!gate.enforced || (await gate.admitsWith(rules, me, req.ip, 'console'))),
        enforced: gate.enforced,
      });
    },

    async listIpRules(req) {
      const { pageNo = 1, pageSize = 20 } = req.query;
      const rules = await gate.rules();
      return ok({ list: await ruleViews(rules.slice((pageNo - 1) * pageSize, pageNo * pageSize)), total: rules.length, pageNo, pageSize });
    },

    async addOrUpdateIpRule(req) {
      const b = req.body;
      const parsed = parseIpValue(b.ipValue);
      if (!parsed) throw validation('ipValue', 'not an IPv4/IPv6 address, CIDR or range');
      const targetId = b.targetType === 'all' ? '' : (b.targetId ?? '');
      if (b.targetType === 'role' && !(SYSTEM_ROLES as readonly string[]).includes(targetId)) throw validation('targetId', `one of ${SYSTEM_ROLES.join(', ')}`);
      if ((b.targetType === 'dept' || b.targetType === 'user') && !(await targetExists(db, b.targetType, targetId))) {
        throw validation('targetId', `no such ${b.targetType === 'dept' ? 'department' : 'account'}`);
      }
      const rule: IpRuleRow = {
        id: b.id ?? randomUUID(), ipValue: b.ipValue.trim(), kind: parsed.kind, targetType: b.targetType, targetId, scope: b.scope,
        enabled: b.enabled ?? true, remark: b.remark ?? '', updatedAt: Date.now(),
      };
      await transaction(db, async (trx) => {
        // Read and written in one transaction, so two administrators saving at once cannot each pass the guard with
        // the other's entry unseen (SQLite serialises writers; on PostgreSQL the counter's row is the lock).
        await forUpdate(trx, trx.selectFrom('admin_versions').select('version').where('name', '=', 'ipWhitelist')).execute();
        if (b.id !== undefined && !(await getIpRule(trx, b.id))) throw new AppError('NOT_FOUND', `no white-list entry ${b.id}`);
        const current = await loadIpRules(trx);
        await assertNotLockedOut(req, [...current.filter((r) => r.id !== rule.id), rule]);
        await saveIpRule(trx, rule, req.user!.userId);
      });
      gate.invalidate();
      return ok((await ruleViews([(await getIpRule(db, rule.id))!]))[0]!);
    },

    async deleteIpRules(req) {
      const ids = [...new Set(req.body.ids)];
      await transaction(db, async (trx) => {
        await forUpdate(trx, trx.selectFrom('admin_versions').select('version').where('name', '=', 'ipWhitelist')).execute();
        const current = await loadIpRules(trx);
        const known = new Set(current.map((r) => r.id));
        const missing = ids.find((id) => !known.has(id));
        if (missing) throw new AppError('NOT_FOUND', `no white-list entry ${missing}`);
        await assertNotLockedOut(req, current.filter((r) => !ids.includes(r.id)));
        await deleteIpRules(trx, ids);
      });
      gate.invalidate();
      return done();
    },

    async pageSysOptLog(req) {
      const q = req.query;
      const f = filterOf(q);
      const pageSize = q.pageSize ?? 20;
      const pageNo = q.pageNo ?? 1;
      const rows = q.cursor !== undefined
        ? await pageOpLogs(db, f, { limit: pageSize + 1, beforeId: Number(q.cursor) })
        : await pageOpLogs(db, f, { limit: pageSize + 1, offset: (pageNo - 1) * pageSize });
      const more = rows.length > pageSize;
      const page = rows.slice(0, pageSize);
      const total = await countOpLogs(db, f, COUNT_CAP + 1);
      return ok({
        list: page.map(logView), total: Math.min(total, COUNT_CAP), totalCapped: total > COUNT_CAP, pageNo, pageSize,
        ...(more ? { nextCursor: String(page[page.length - 1]!.id) } : {}),
      });
    },

    async listOptTypes() {
      return ok(await opTypes(db));
    },

    async clearOptLog(req) {
      const before = req.body?.before;
      const cleared = await transaction(db, async (trx) => {
        const n = await clearOpLogs(trx, before);
        // Written with the deletion, so no clearing leaves the log without a trace of it.
        await insertOpLog(trx, {
          userId: req.user!.userId, userName: req.user!.userName, opType: 'clearOptLog', opSubject: 'adminConsole', objectId: '',
          objectName: before === undefined ? 'all' : `before ${new Date(before).toISOString()}`, device: String(req.headers['user-agent'] ?? ''),
          ip: req.ip, traceId: req.traceId, result: 'success', detail: `cleared ${n}`,
        });
        return n;
      });
      return ok({ cleared });
    },

    async downloadOptLog(req, reply) {
      const format = req.query.format ?? 'csv';
      return streamOpLogExport(db, reply, filterOf(req.query), format, req.headers['accept-language']);
    },

    async getDataStatistics(req) {
      const days = req.query.days ?? 30;
      const today = Math.floor(Date.now() / DAY_MS);
      const since = (today - days + 1) * DAY_MS;
      const [bySpace, byDept, byType, daily, active, folders, sums] = await Promise.all([
        storageBySpace(db), storageByDept(db), storageByType(db), dailyActivity(db, since, UPLOAD_TYPES, DOWNLOAD_TYPES), activeUsersSince(db, since),
        topFolders(db), totals(db),
      ]);
      const byDay = new Map(daily.map((d) => [d.day, d]));
      const series = Array.from({ length: days }, (_, i) => {
        const day = today - days + 1 + i;
        const d = byDay.get(day);
        return { day: utcDay(day), uploads: d?.uploads ?? 0, downloads: d?.downloads ?? 0, activeUsers: d?.activeUsers ?? 0 };
      });
      return ok({ bySpace, byDept, byType, daily: series, activeUsers: active, topFolders: folders, totals: sums });
    },

    async pagePersonalStatistics(req) {
      const { pageNo = 1, pageSize = 20, keyword } = req.query;
      const { rows, total } = await personalStats(db, { keyword, limit: pageSize, offset: (pageNo - 1) * pageSize });
      return ok({ list: rows, total, pageNo, pageSize });
    },

    async getPatchInfo() {
      const applied = await appliedMigrations(db);
      const names = Object.keys(migrationsFor(dialectOf(db))).sort();
      return ok({
        ...versionFacts(),
        node: process.version,
        database: dialectOf(db),
        migrations: names.map((name) => ({ name, applied: applied.has(name), appliedAt: applied.get(name) ?? null })),
      });
    },
  };
}

