// drive admin sync add|status: cross-site replication (issue #20 part 3). Administrators only; the server validates
// the library, folder and sites, and queues the copies.
import type { Command } from 'commander';
import type { components } from '@hcs/openapi/client';
import type { Api } from '../api.ts';
import { action, type Io } from '../command-context.ts';
import { CliError, EXIT, usageError } from '../exit-codes.ts';
import { RemoteFs } from '../remote-path.ts';

type S = components['schemas'];

async function sites(api: Api): Promise<S['Site'][]> {
  return (await api.call((c) => c.GET('/hcs/controller/region/site/list'))).data!.list;
}

function pickSite(list: readonly S['Site'][], ref: string, flag: string): S['Site'] {
  const s = list.find((x) => x.name.toLowerCase() === ref.toLowerCase()) ?? list.find((x) => x.siteId === ref);
  if (!s) throw new CliError(EXIT.REFUSED, `${flag}: no site named ${ref} (drive admin site ls)`, 'NOT_FOUND');
  return s;
}

function configJson(c: S['SyncConfig'], names: Map<string, string>) {
  return {
    id: c.id, libCode: c.libCode, folderId: c.folderId, source: names.get(c.sourceSiteId) ?? c.sourceSiteId,
    targets: c.targetSiteIds.map((t) => names.get(t) ?? t),
  };
}

export function registerAdminSync(admin: Command, io: Io): void {
  const sync = admin.command('sync').description('Cross-site replication: sync configs and their progress');
  sync
    .command('add')
    .argument('<libCode>', 'the library to replicate (NetDisk for personal, group and department files)')
    .requiredOption('--to <site>', 'the target site (name or id)')
    .option('--path <remote path>', 'only this folder of the library (a remote path such as /projects)')
    .option('--from <site>', 'the source site (default: the site whose storage is the embedded store, connection 0)')
    .description('Replicate a library, or one folder of it, to another site')
    .action(
      action(io, async (ctx, libCode: string, opts: { to: string; path?: string; from?: string }) => {
        const api = ctx.api();
        const list = await sites(api);
        const target = pickSite(list, opts.to, '--to');
        const source = opts.from
          ? pickSite(list, opts.from, '--from')
          : list.find((s) => s.cloudId === '0' && s.siteId !== target.siteId);
        if (!source) throw usageError('--from: no site uses the embedded store (connection 0); name the source site');
        let folderId: string | null = null;
        if (opts.path !== undefined) {
          const r = await new RemoteFs(api).resolve(opts.path);
          if (!r.instance) throw usageError('--path: the root is the whole library; leave --path out');
          folderId = r.instance.instanceId;
        }
        const body = { libCode, folderId, sourceSiteId: source.siteId, targetSiteIds: [target.siteId] };
        const made = (await api.call((c) => c.POST('/hcs/controller/instance/sync/config/addOrUpdate', { body }))).data!;
        const names = new Map(list.map((s) => [s.siteId, s.name]));
        ctx.print(
          { event: 'sync-add', ...configJson(made, names) },
          `Replicating ${libCode}${opts.path ? ` ${opts.path}` : ''} from ${source.name} to ${target.name} (config ${made.id})`,
        );
      }),
    );
  sync
    .command('status')
    .description('Sync configs, progress per target site, and failed copies')
    .action(
      action(io, async (ctx) => {
        const api = ctx.api();
        const [list, configs, status] = await Promise.all([
          sites(api),
          api.call((c) => c.GET('/hcs/controller/instance/sync/config/list')),
          api.call((c) => c.GET('/hcs/controller/instance/sync/status')),
        ]);
        const names = new Map(list.map((s) => [s.siteId, s.name]));
        const data = status.data!;
        const json = { configs: configs.data!.list.map((c) => configJson(c, names)), sites: data.sites, failures: data.failures };
        const lines = [
          ...json.configs.map((c) => `config ${c.id}  ${c.libCode}${c.folderId ? ` folder ${c.folderId}` : ''}  ${c.source} -> ${c.targets.join(', ')}`),
          ...data.sites.map((s) => `site ${s.siteName.padEnd(16)} synced ${s.synced}  pending ${s.pending}  failed ${s.failed}  lag ${s.lagSeconds}s ${s.lagBytes} bytes`),
          ...data.failures.map((f) => `failed ${f.blobId} at ${f.siteName}: ${f.reason}`),
        ];
        ctx.print(json, lines.length ? lines.join('\n') : 'No sync configs.');
      }),
    );
}
