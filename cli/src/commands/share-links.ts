// drive share link|ls|rm|log: public links (issue #17 part 2). `link` makes a download link (or with --upload an
// upload link into a folder) and prints the address and the extraction code, which the server shows only once.
import type { Command } from 'commander';
import type { components } from '@hcs/openapi/client';
import type { Io } from '../command-context.ts';
import { action, type CommandContext } from '../command-context.ts';
import { CliError, EXIT, usageError } from '../exit-codes.ts';
import { formatRemote, RemoteFs } from '../remote-path.ts';

type S = components['schemas'];
const DAY = 24 * 60 * 60_000;

function positive(flag: string, v: string | undefined): number | undefined {
  if (v === undefined) return undefined;
  const n = Number(v);
  if (!Number.isInteger(n) || n < 1 || n > 1_000_000) throw usageError(`${flag}: a whole number from 1 to 1000000`);
  return n;
}

/** --expires YYYY-MM-DD: the link lasts through that day (local time). */
function expiryOf(expires: string | undefined, days: string | undefined, now = Date.now()): { expireTime?: number; days?: number } {
  if (expires !== undefined && days !== undefined) throw usageError('give --expires or --days, not both');
  if (days !== undefined) {
    const d = Number(days);
    if (!Number.isInteger(d) || d < 1 || d > 36500) throw usageError('--days: a whole number from 1 to 36500');
    return { days: d };
  }
  if (expires === undefined) return {};
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(expires);
  const end = m ? new Date(Number(m[1]), Number(m[2]) - 1, Number(m[3]) + 1).getTime() : NaN;
  if (!m || Number.isNaN(end) || new Date(end - DAY).getDate() !== Number(m[3])) throw usageError(`--expires: "${expires}" is not a date YYYY-MM-DD`);
  if (end <= now) throw usageError(`--expires: ${expires} is in the past`);
  return { expireTime: end };
}

function linkJson(l: S['FileShare']) {
  return {
    shareId: l.shareId, link: l.fullLink, type: l.shareType, status: l.status, hasCode: l.hasCode, ...(l.code ? { code: l.code } : {}),
    expires: l.expireTime === null ? null : new Date(l.expireTime).toISOString(), maxViews: l.maxViews, maxDownloads: l.maxDownloads,
    views: l.viewCount, downloads: l.downloadCount, previewOnly: l.previewOnly, items: l.items.map((i) => i.instanceName),
  };
}

function linkLine(l: S['FileShare']): string {
  const items = l.items.map((i) => (i.classifierId === 'Folder' ? `${i.instanceName}/` : i.instanceName)).join(', ');
  const limits = [l.maxDownloads !== null ? `downloads ${l.downloadCount}/${l.maxDownloads}` : `downloads ${l.downloadCount}`, l.maxViews !== null ? `views ${l.viewCount}/${l.maxViews}` : `views ${l.viewCount}`];
  const exp = l.expireTime === null ? 'never expires' : `expires ${new Date(l.expireTime).toISOString().slice(0, 10)}`;
  return `${l.shareId}  ${l.status.padEnd(9)} ${l.shareType.padEnd(8)} ${items.padEnd(32)} ${limits.join(', ')}, ${exp}\n  ${l.fullLink}`;
}

export function registerShareLinks(share: Command, io: Io): void {
  share
    .command('link')
    .argument('<path>', 'remote file or folder: /personal/path, dept:<department>/path or group:<group>/path')
    .option('--code <code>', 'extraction code (4-8 letters or digits); default: the server draws one')
    .option('--no-code', 'no extraction code (if the link policy allows)')
    .option('--expires <date>', 'last day the link works, YYYY-MM-DD')
    .option('--days <n>', 'the link works for this many days')
    .option('--max-downloads <n>', 'downloads allowed')
    .option('--max-views <n>', 'visits allowed (accepted codes)')
    .option('--preview-only', 'visitors may preview, not download')
    .option('--upload', 'an upload link: visitors upload into this folder')
    .description('Make a public link and print its address and extraction code')
    .action(
      action(io, async (ctx: CommandContext, path: string, opts: { code?: string | false; expires?: string; days?: string; maxDownloads?: string; maxViews?: string; previewOnly?: boolean; upload?: boolean }) => {
        if (typeof opts.code === 'string' && !/^[A-Za-z0-9]{4,8}$/.test(opts.code)) throw usageError('--code: 4 to 8 letters or digits');
        const body: S['CreateShareRequest'] = {
          instanceIds: [],
          shareType: opts.upload ? 'upload' : 'download',
          ...(typeof opts.code === 'string' ? { code: opts.code } : opts.code === false ? {} : { generateCode: true }),
          ...expiryOf(opts.expires, opts.days),
          ...(opts.maxDownloads !== undefined ? { maxDownloads: positive('--max-downloads', opts.maxDownloads) } : {}),
          ...(opts.maxViews !== undefined ? { maxViews: positive('--max-views', opts.maxViews) } : {}),
          ...(opts.previewOnly ? { previewOnly: true } : {}),
        };
        const api = ctx.api();
        const item = await new RemoteFs(api).resolve(path);
        body.instanceIds = [item.id];
        const l = (await api.call((c) => c.POST('/hcs/controller/FileShare', { body }))).data;
        if (!l) throw new CliError(EXIT.REFUSED, 'the server returned no link', 'BAD_RESPONSE');
        const shown = formatRemote(item.space, item.segments);
        ctx.print(
          { event: 'link', path: shown, ...linkJson(l) },
          `${l.fullLink}\n${l.code ? `code: ${l.code}\n` : ''}(${l.shareType} link to ${shown}, share ${l.shareId})`,
        );
      }),
    );

  share
    .command('ls')
    .description('List your public links, newest first')
    .action(
      action(io, async (ctx: CommandContext) => {
        const api = ctx.api();
        const list: S['FileShare'][] = [];
        for (let pageNo = 1; ; pageNo++) {
          const page = (await api.call((c) => c.GET('/hcs/controller/FileShare/page', { params: { query: { pageNo, pageSize: 1000 } } }))).data;
          if (!page) break;
          list.push(...page.list);
          if (list.length >= page.total || page.list.length === 0) break;
        }
        if (ctx.settings.json) for (const l of list) ctx.print(linkJson(l), '');
        else ctx.print(null, list.length ? list.map(linkLine).join('\n') : 'You have no public links.');
      }),
    );

  share
    .command('rm')
    .argument('<shareId>', 'the link\'s share id (drive share ls)')
    .description('Delete a public link: it stops working at once')
    .action(
      action(io, async (ctx: CommandContext, shareId: string) => {
        if (!/^[A-Za-z0-9_-]{1,64}$/.test(shareId)) throw usageError(`"${shareId}" is not a share id`);
        const api = ctx.api();
        const r = (await api.call((c) => c.GET('/hcs/controller/FileShare/delete', { params: { query: { shareIds: shareId } } }))).data;
        if (!r?.done.includes(shareId)) throw new CliError(EXIT.REFUSED, `no link ${shareId} of yours`, r?.failed[0]?.code ?? 'NOT_FOUND');
        ctx.print({ event: 'deleted', shareId }, `Deleted link ${shareId}`);
      }),
    );

  share
    .command('log')
    .argument('<shareId>', 'the link\'s share id')
    .description('What happened through a link: visits, code attempts, previews, downloads, uploads (newest first)')
    .action(
      action(io, async (ctx: CommandContext, shareId: string) => {
        if (!/^[A-Za-z0-9_-]{1,64}$/.test(shareId)) throw usageError(`"${shareId}" is not a share id`);
        const api = ctx.api();
        const rows: S['ShareLog'][] = [];
        for (let pageNo = 1; ; pageNo++) {
          const page = (await api.call((c) => c.GET('/hcs/controller/FileShare/shareLog', { params: { query: { shareId, pageNo, pageSize: 1000 } } }))).data;
          if (!page) break;
          rows.push(...page.list);
          if (rows.length >= page.total || page.list.length === 0) break;
        }
        if (ctx.settings.json) {
          for (const r of rows) ctx.print({ time: new Date(r.createTime).toISOString(), type: r.optType, subject: r.optSubject, instanceId: r.optObj, name: r.optObjName, ip: r.ip, device: r.optDevice }, '');
        } else {
          ctx.print(null, rows.length ? rows.map((r) => `${new Date(r.createTime).toISOString()}  ${r.optType.padEnd(9)} ${r.ip.padEnd(15)} ${r.optObjName}`).join('\n') : 'Nothing yet.');
        }
      }),
    );
}
