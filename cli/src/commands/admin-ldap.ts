// drive admin ldap test|sync|status (issue #19): the LDAP/AD connection administrators set up on /integrationPlatform.
// The server holds the settings (the bind password never leaves it); the CLI tests them, queues a directory sync
// (and with --wait follows its report) and shows the latest reports.
import type { Command } from 'commander';
import type { components } from '@hcs/openapi/client';
import { action, type Io } from '../command-context.ts';
import { CliError, EXIT } from '../exit-codes.ts';

type Report = components['schemas']['SyncReport'];

function reportLine(r: Report): string {
  const when = new Date(r.createdAt).toISOString().replace('T', ' ').slice(0, 19);
  const errors = r.errors.length ? `, ${r.errors.length} errors: ${r.errors.slice(0, 3).join('; ')}` : '';
  const groups = `groups: ${r.groupsAdded} made, ${r.membersAdded} memberships added, ${r.membersRemoved} removed`;
  return `#${r.id} ${when} ${r.trigger} ${r.status}: ${r.added} added, ${r.updated} updated, ${r.disabled} disabled, ${r.reenabled} re-enabled; ${groups}${errors}`;
}

const reportJson = (r: Report) => ({ ...r });

export function registerAdminLdap(admin: Command, io: Io): void {
  const ldap = admin.command('ldap').description('LDAP/AD directory sign-in and sync');
  ldap
    .command('test')
    .description('Connect and bind with the saved settings and count the users the filter finds')
    .action(
      action(io, async (ctx) => {
        const r = (await ctx.api().call((c) => c.POST('/hcs/controller/integrationPlatform/ldapConfig/test', { body: {} }))).data!;
        ctx.print({ event: 'ldap-test', ...r }, r.ok ? `Connected: the filter finds ${r.users ?? 0} users.` : `Connection failed: ${r.message ?? ''}`);
        if (!r.ok) throw new CliError(EXIT.REFUSED, `the directory refused or cannot be reached: ${r.message ?? ''}`, 'LDAP_UNAVAILABLE');
      }),
    );
  ldap
    .command('sync')
    .description('Queue a directory sync now')
    .option('--wait', 'wait for the sync to finish and print its report')
    .action(
      action(io, async (ctx, opts: { wait?: boolean }) => {
        const queued = (await ctx.api().call((c) => c.POST('/hcs/controller/integrationPlatform/ldapConfig/sync', {}))).data!;
        if (!opts.wait) {
          ctx.print({ event: 'ldap-sync', ...reportJson(queued) }, `Sync #${queued.id} queued.`);
          return;
        }
        for (;;) {
          const list = (await ctx.api().call((c) => c.GET('/hcs/controller/integrationPlatform/ldapConfig/reports', { params: { query: { limit: 20 } } }))).data ?? [];
          const r = list.find((x) => x.id === queued.id);
          if (r && (r.status === 'done' || r.status === 'failed')) {
            ctx.print({ event: 'ldap-sync', ...reportJson(r) }, reportLine(r));
            if (r.status === 'failed') throw new CliError(EXIT.REFUSED, `the sync failed: ${r.errors.join('; ')}`, 'LDAP_UNAVAILABLE');
            return;
          }
          await new Promise((res) => setTimeout(res, 500));
        }
      }),
    );
  ldap
    .command('status')
    .description('Show the connection settings (never the password) and the latest sync reports')
    .option('--limit <n>', 'how many reports', '5')
    .action(
      action(io, async (ctx, opts: { limit: string }) => {
        const limit = Math.min(100, Math.max(1, Number(opts.limit) || 5));
        const cfg = (await ctx.api().call((c) => c.GET('/hcs/controller/integrationPlatform/ldapConfig', {}))).data ?? null;
        const reports = (await ctx.api().call((c) => c.GET('/hcs/controller/integrationPlatform/ldapConfig/reports', { params: { query: { limit } } }))).data ?? [];
        const head = cfg
          ? `LDAP ${cfg.enabled ? 'enabled' : 'disabled'}: ${cfg.url}${cfg.startTls ? ' (StartTLS)' : ''}, base ${cfg.userBaseDn}, filter ${cfg.userFilter}` +
            `${cfg.syncMinutes > 0 ? `, sync every ${cfg.syncMinutes} min` : ', sync on demand'}` +
            `; directory groups: ${cfg.groupMapping.mirror ? 'mirrored as drive groups' : 'not mirrored'}, ${cfg.groupMapping.map?.length ?? 0} mapped`
          : 'LDAP is not configured.';
        ctx.print({ event: 'ldap-status', config: cfg, reports: reports.map(reportJson) }, [head, ...reports.map(reportLine)].join('\n'));
      }),
    );
}
