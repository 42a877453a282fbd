// drive admin config | ip | logs: the administration consoles (issue #18 part 1) from the command line. The server
// decides who may (administrators) and validates values, addresses and the self-lockout guard; the CLI names things,
// streams exports to a file and prints.
import { createWriteStream } from 'node:fs';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { ReadableStream as WebReadableStream } from 'node:stream/web';
import type { Command } from 'commander';
import type { components } from '@hcs/openapi/client';
import { HcsError } from '@hcs/openapi/client';
import { action, type CommandContext, type Io } from '../command-context.ts';
import { toCliError } from '../api.ts';
import { usageError } from '../exit-codes.ts';

type Schemas = components['schemas'];

function entryLine(e: Schemas['ConfigEntry']): string {
  return `${e.configKey.padEnd(24)} ${e.configValue}  (${e.configType}${e.builtin ? ', built-in' : ''})`;
}

function ruleLine(r: Schemas['IpRule']): string {
  const target = r.targetType === 'all' ? 'all' : `${r.targetType}:${r.targetName || r.targetId}`;
  return `${r.id}  ${r.ipValue.padEnd(32)} ${target.padEnd(24)} ${r.scope}${r.enabled ? '' : ' (disabled)'}${r.remark ? `  ${r.remark}` : ''}`;
}

/** --target all | role:administrator|manager|user | dept:<id> | user:<id> */
export function parseTarget(text: string): { targetType: Schemas['IpTargetType']; targetId: string } {
  if (text === 'all') return { targetType: 'all', targetId: '' };
  const m = /^(role|dept|user):(.+)$/.exec(text);
  if (!m) throw usageError(`--target: "${text}" is not all, role:<name>, dept:<id> or user:<id>`);
  return { targetType: m[1] as Schemas['IpTargetType'], targetId: m[2]! };
}

/** A time for --since/--until: YYYY-MM-DD (UTC midnight), an ISO date-time, or epoch milliseconds. */
export function parseTime(text: string, flag: string): number {
  if (/^\d{10,}$/.test(text)) return Number(text);
  const ms = Date.parse(/^\d{4}-\d{2}-\d{2}$/.test(text) ? `${text}T00:00:00Z` : text);
  if (Number.isNaN(ms)) throw usageError(`${flag}: "${text}" is not a date (YYYY-MM-DD), a date-time or epoch milliseconds`);
  return ms;
}

async function allRules(ctx: CommandContext): Promise<Schemas['IpRule'][]> {
  const out: Schemas['IpRule'][] = [];
  for (let pageNo = 1; ; pageNo++) {
    const page = (await ctx.api().call((c) => c.GET('/hcs/controller/access/list', { params: { query: { pageNo, pageSize: 1000 } } }))).data!;
    out.push(...page.list);
    if (out.length >= page.total || page.list.length === 0) return out;
  }
}

interface LogOpts {
  user?: string;
  type?: string;
  since?: string;
  until?: string;
  format: string;
  out?: string;
}

function logQuery(o: LogOpts): Record<string, string | number> {
  return {
    ...(o.user ? { userName: o.user } : {}),
    ...(o.type ? { optType: o.type } : {}),
    ...(o.since ? { since: parseTime(o.since, '--since') } : {}),
    ...(o.until ? { until: parseTime(o.until, '--until') } : {}),
  };
}

export function registerAdminConsole(admin: Command, io: Io): void {
  const config = admin.command('config').description('System configuration entries (administrators)');
  config
    .command('get')
    .argument('<key>', 'the entry\'s key, e.g. upload.syncSpeed')
    .description('Show one configuration entry')
    .action(
      action(io, async (ctx, key: string) => {
        const e = (await ctx.api().call((c) => c.GET('/hcs/controller/sysConfig/getByConfigKey', { params: { query: { configKey: key } } }))).data!;
        ctx.print(e, entryLine(e));
      }),
    );
  config
    .command('set')
    .argument('<key>', 'the entry\'s key')
    .argument('<value>', 'the new value (checked against the entry\'s type and bounds by the server)')
    .description('Change a configuration entry; every server node uses it within a second')
    .action(
      action(io, async (ctx, key: string, value: string) => {
        const e = (await ctx.api().call((c) => c.POST('/hcs/controller/sysConfig/updateConfigs', { body: { configKey: key, configValue: value } }))).data!;
        ctx.print({ event: 'config-set', ...e }, `${e.configKey} = ${e.configValue}`);
      }),
    );
  config
    .command('ls')
    .description('List every configuration entry')
    .action(
      action(io, async (ctx) => {
        const page = (await ctx.api().call((c) => c.GET('/hcs/controller/sysConfig/page', { params: { query: { pageSize: 1000 } } }))).data!;
        if (ctx.settings.json) for (const e of page.list) ctx.print(e, '');
        else ctx.print(null, page.list.map(entryLine).join('\n'));
      }),
    );

  const ip = admin.command('ip').description('The IP white list (administrators)');
  ip
    .command('ls')
    .description('List the white list\'s entries')
    .action(
      action(io, async (ctx) => {
        const rules = await allRules(ctx);
        if (ctx.settings.json) for (const r of rules) ctx.print(r, '');
        else ctx.print(null, rules.length ? rules.map(ruleLine).join('\n') : 'The white list is empty: every address is admitted.');
      }),
    );
  ip
    .command('allow')
    .argument('<address>', 'an IPv4/IPv6 address, a CIDR (10.0.0.0/8) or a range (10.0.0.1-10.0.0.9)')
    .option('--target <who>', 'all, role:administrator|manager|user, dept:<id> or user:<id>', 'all')
    .option('--scope <scope>', 'drive (every call and sign-in) or console (administration calls only)', 'drive')
    .option('--remark <text>', 'a note shown in the list', '')
    .description('Add a white-list entry (refused if it would lock you out from where you are)')
    .action(
      action(io, async (ctx, address: string, o: { target: string; scope: string; remark: string }) => {
        if (o.scope !== 'drive' && o.scope !== 'console') throw usageError(`--scope: "${o.scope}" is not drive or console`);
        const body = { ipValue: address, ...parseTarget(o.target), scope: o.scope as Schemas['IpScope'], remark: o.remark, enabled: true };
        const r = (await ctx.api().call((c) => c.POST('/hcs/controller/access/addOrUpdate', { body }))).data!;
        ctx.print({ event: 'ip-allow', ...r }, `Allowed ${r.ipValue} for ${r.targetType === 'all' ? 'everyone' : `${r.targetType} ${r.targetName || r.targetId}`} (${r.scope}), id ${r.id}`);
      }),
    );
  ip
    .command('deny')
    .argument('<entry...>', 'entry ids, or addresses as they were added')
    .description('Remove white-list entries (by id or by their address)')
    .action(
      action(io, async (ctx, entries: string[]) => {
        const rules = await allRules(ctx);
        const ids = new Set<string>();
        for (const e of entries) {
          const hits = rules.filter((r) => r.id === e || r.ipValue === e);
          if (hits.length === 0) throw usageError(`no white-list entry ${e}`);
          for (const h of hits) ids.add(h.id);
        }
        await ctx.api().call((c) => c.POST('/hcs/controller/access/delete', { body: { ids: [...ids] } }));
        ctx.print({ event: 'ip-deny', ids: [...ids] }, `Removed ${ids.size} entr${ids.size === 1 ? 'y' : 'ies'}`);
      }),
    );

  admin
    .command('logs')
    .description('Operation logs, newest first: print them, or export CSV/XLSX')
    .option('--user <name>', 'only this account')
    .option('--type <optType>', 'only this operation type (drive admin logs --json lists optType per row)')
    .option('--since <date>', 'from this time: YYYY-MM-DD (UTC), a date-time or epoch ms')
    .option('--until <date>', 'before this time')
    .option('--format <format>', 'json (rows as JSON lines), csv or xlsx', 'json')
    .option('--out <file>', 'write to this file (required for xlsx; csv goes to stdout without it)')
    .action(
      action(io, async (ctx, o: LogOpts) => {
        const query = logQuery(o);
        if (o.format === 'csv' || o.format === 'xlsx') return exportLogs(ctx, o, query);
        if (o.format !== 'json') throw usageError(`--format: "${o.format}" is not json, csv or xlsx`);
        const out = o.out ? createWriteStream(o.out) : undefined;
        let n = 0;
        for (let cursor: string | undefined; ; ) {
          const page = (await ctx.api().call((c) =>
            c.GET('/hcs/controller/sysOptLog/page', { params: { query: { ...query, pageSize: 1000, ...(cursor ? { cursor } : {}) } } }),
          )).data!;
          for (const row of page.list) {
            n++;
            if (out) out.write(JSON.stringify(row) + '\n');
            else ctx.print(row, `${new Date(row.optTime).toISOString()}  ${row.userName.padEnd(16)} ${row.optType.padEnd(24)} ${row.result.padEnd(8)} ${row.optObjName || row.optObj}`);
          }
          if (!page.nextCursor) break;
          cursor = page.nextCursor;
        }
        if (out) {
          out.end();
          await new Promise<void>((resolve, reject) => out.on('finish', resolve).on('error', reject));
          ctx.print({ event: 'logs-export', format: 'json', rows: n, file: o.out }, `Wrote ${n} rows to ${o.out}`);
        }
      }),
    );
}

/** Streams System/downloadOptLog to --out (or stdout for CSV), so a million rows never sit in memory. */
async function exportLogs(ctx: CommandContext, o: LogOpts, query: Record<string, string | number>): Promise<void> {
  if (o.format === 'xlsx' && !o.out) throw usageError('--format xlsx needs --out FILE');
  const api = ctx.api();
  const qs = new URLSearchParams(Object.entries({ ...query, format: o.format }).map(([k, v]) => [k, String(v)]));
  const res = await fetch(`${api.server.replace(/\/+$/, '')}/hcs/controller/System/downloadOptLog?${qs}`, {
    headers: { token: ctx.settings.token ?? '' },
  }).catch((err: unknown) => {
    throw toCliError(err);
  });
  if (!res.ok || !res.body) {
    const body = (await res.json().catch(() => ({}))) as { msg?: string; data?: { code?: string; traceId?: string } };
    throw toCliError(new HcsError(res.status, 1, body.msg ?? `HTTP ${res.status}`, body.data?.code ?? 'ERROR', body.data?.traceId));
  }
  const source = Readable.fromWeb(res.body as WebReadableStream);
  if (o.out) {
    await pipeline(source, createWriteStream(o.out));
    ctx.print({ event: 'logs-export', format: o.format, file: o.out }, `Wrote ${o.out}`);
  } else {
    await pipeline(source, ctx.io.stdout, { end: false });
  }
}
