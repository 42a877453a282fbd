// drive fetch <link> / drive put <link> <local...>: a public link's visitor, without an account (issue #17 part 2).
// The link's extraction code is traded for a visitor share token (loginShare); the transfers then run on
// @hcs/transfer-core exactly as signed-in ones do: downloads in verified, resumable ranged parts (through the
// server's shareDownload stream, which counts the download once and re-checks the link on every range), uploads
// through the anonymous upload endpoints, which take the signed-in calls' shapes.
import { mkdir, stat } from 'node:fs/promises';
import { basename, join, relative, resolve, sep } from 'node:path';
import type { Command } from 'commander';
import { createHcsControlPlane, createDownloadSinkFactory, createEngineDeps, createFileSource, createResumeStore, DownloadTask, UploadTask, type ControlPlane } from '@hcs/transfer-core/node';
import { createApi, type Api } from '../api.ts';
import type { Io } from '../command-context.ts';
import { action, type CommandContext } from '../command-context.ts';
import { CliError, EXIT, usageError } from '../exit-codes.ts';

interface LinkRef { server: string; key: string }

/** A link as printed by `drive share link` (<origin>/drive/fileDownload?link=KEY), or the bare key with --server. */
function parseLink(text: string, server: string | undefined): LinkRef {
  let url: URL | undefined;
  try {
    url = new URL(text);
  } catch {
    url = undefined;
  }
  const key = url ? url.searchParams.get('link') : text;
  if (!key || !/^[A-Za-z0-9_-]{16,64}$/.test(key)) throw usageError(`"${text}" is not a share link`);
  const origin = url ? url.origin : server;
  if (!origin) throw usageError('a bare link key needs --server (or HCS_SERVER)');
  return { server: origin, key };
}

/** An Api for the visitor: no session, the share token on every call, the signed-in upload paths sent to the anonymous ones. */
function visitorApi(ctx: CommandContext, server: string, token: () => string | undefined): Api {
  const fetchAs: typeof fetch = async (input, init) => {
    const req = new Request(input, init);
    const url = new URL(req.url);
    url.pathname = url.pathname.replace(/^\/hcs\/controller\/API\//, '/hcs/services/API/');
    const headers = new Headers(req.headers);
    headers.delete('token');
    const t = token();
    if (t) headers.set('shareToken', t);
    return fetch(new Request(url, { method: req.method, headers, body: req.body, signal: req.signal, duplex: 'half' } as RequestInit));
  };
  return createApi({ ...ctx.settings, server, token: undefined }, { requireAuth: false, fetch: fetchAs });
}

async function signIn(api: Api, key: string, code: string | undefined) {
  const d = (await api.call((c) => c.POST('/hcs/services/FileShare/loginShare', { body: { link: key, ...(code ? { code } : {}) } }))).data;
  if (!d) throw new CliError(EXIT.REFUSED, 'the server returned no share token', 'BAD_RESPONSE');
  return d;
}

interface RemoteFile { instanceId: string; path: string[]; size: number }

/** Every file the link reaches, with its path below the link (folders walked page by page). */
async function filesOf(api: Api, items: { instanceId: string; instanceName: string; classifierId: string; fSize: number }[], under: string[] = []): Promise<RemoteFile[]> {
  const out: RemoteFile[] = [];
  for (const it of items) {
    const path = [...under, it.instanceName];
    if (it.classifierId !== 'Folder') {
      out.push({ instanceId: it.instanceId, path, size: it.fSize });
      continue;
    }
    for (let pageNo = 1; ; pageNo++) {
      const page = (await api.call((c) => c.GET('/hcs/services/ShareAPI/instance/page', { params: { query: { parentId: it.instanceId, pageNo, pageSize: 1000 } } }))).data;
      if (!page) break;
      out.push(...(await filesOf(api, page.list, path)));
      if (pageNo * 1000 >= page.total || page.list.length === 0) break;
    }
  }
  return out;
}

/** A local path under `out` for remote names (which the server keeps free of separators; `..` is refused here too). */
function localPath(out: string, path: string[]): string {
  const p = resolve(out, ...path);
  if (p !== resolve(out) && !p.startsWith(resolve(out) + sep)) throw new CliError(EXIT.REFUSED, `unsafe name ${path.join('/')}`, 'UNSAFE_NAME');
  return p;
}

export function registerLinkTransfer(program: Command, io: Io): void {
  program
    .command('fetch')
    .argument('<link>', 'a public link (https://.../drive/fileDownload?link=...)')
    .option('--code <code>', 'the extraction code')
    .option('--out <dir>', 'where to save (default: the current directory)', '.')
    .description('Download what a public link shares (resumable: run it again to continue; every file is verified)')
    .action(
      action(io, async (ctx: CommandContext, linkText: string, opts: { code?: string; out: string }) => {
        const ref = parseLink(linkText, ctx.settings.server);
        // The token is known once signed in; the API reads it for every later call.
        const held: { token?: string } = {};
        const api = visitorApi(ctx, ref.server, () => held.token);
        const share = await signIn(api, ref.key, opts.code);
        held.token = share.token;
        if (share.shareType !== 'download') throw new CliError(EXIT.REFUSED, 'this is an upload link: use drive put', 'UPLOAD_LINK');
        if (share.previewOnly) throw new CliError(EXIT.REFUSED, 'this link allows preview only', 'SHARE_PREVIEW_ONLY');
        const files = await filesOf(api, share.items);
        await mkdir(opts.out, { recursive: true });
        // Downloads read ranges from the server's stream for this link (the first counts the download, the rest
        // resume it); the engine verifies each file's SHA-256 against the link's file information.
        const controlPlane: ControlPlane = {
          ...createHcsControlPlane(api.client),
          async getDownloadFileInfo(q, signal) {
            const d = (await api.call((c) => c.GET('/hcs/services/ShareAPI/getDownloadFileInfo', { params: { query: { instanceId: q.instanceId } }, signal }))).data;
            if (!d) throw new CliError(EXIT.REFUSED, 'no file information', 'BAD_RESPONSE');
            return d;
          },
          async signStorageRequest(q) {
            if (q.action !== 'getObject') throw new CliError(EXIT.REFUSED, 'a download link signs reads only', 'FORBIDDEN');
            const url = `${ref.server}/hcs/services/ShareAPI/shareDownload?instanceId=${encodeURIComponent(q.fId ?? '')}&token=${encodeURIComponent(held.token ?? '')}`;
            return { url, authorization: '', date: '', contentSha256: 'UNSIGNED-PAYLOAD', host: ref.server, bucketName: q.bucketName } as Awaited<ReturnType<ControlPlane['signStorageRequest']>>;
          },
        };
        const deps = createEngineDeps({ controlPlane, resumeStore: createResumeStore(join(ctx.settings.stateDir, `fetch-${ref.key}.json`)) });
        let failed = 0;
        for (const f of files) {
          const dest = localPath(opts.out, f.path);
          await mkdir(resolve(dest, '..'), { recursive: true });
          const task = new DownloadTask({ instanceId: f.instanceId, sinks: createDownloadSinkFactory({ dir: resolve(dest, '..'), pathFor: () => dest }) }, deps);
          await task.run();
          const shown = relative(process.cwd(), dest) || basename(dest);
          if (task.status === 'success') {
            ctx.print({ event: 'file-done', path: shown, instanceId: f.instanceId, bytes: task.info?.fileSize ?? f.size, sha256: task.info?.fMd5 }, `${shown}  ${task.info?.fileSize ?? f.size} bytes, verified`);
          } else {
            failed++;
            const e = task.error;
            ctx.print({ event: 'file-failed', path: shown, instanceId: f.instanceId, error: e?.message ?? task.status }, '');
            io.stderr.write(`drive: ${shown}: ${e?.message ?? task.status}\n`);
          }
        }
        ctx.print({ event: 'done', files: files.length, failed }, `${files.length - failed} of ${files.length} files downloaded to ${opts.out}`);
        return failed > 0 ? EXIT.PARTIAL : EXIT.OK;
      }),
    );

  program
    .command('put')
    .argument('<link>', 'an upload link')
    .argument('<local...>', 'local files')
    .option('--code <code>', 'the extraction code')
    .description('Upload files into an upload link\'s folder (resumable, as drive upload)')
    .action(
      action(io, async (ctx: CommandContext, linkText: string, locals: string[], opts: { code?: string }) => {
        const ref = parseLink(linkText, ctx.settings.server);
        const paths: string[] = [];
        for (const l of locals) {
          const s = await stat(l).catch(() => undefined);
          if (!s?.isFile()) throw usageError(`${l}: not a file (drive put uploads files)`);
          paths.push(l);
        }
        // The token is known once signed in; the API reads it for every later call.
        const held: { token?: string } = {};
        const api = visitorApi(ctx, ref.server, () => held.token);
        const share = await signIn(api, ref.key, opts.code);
        held.token = share.token;
        if (share.shareType !== 'upload') throw new CliError(EXIT.REFUSED, 'this link takes no uploads: use drive fetch', 'DOWNLOAD_LINK');
        const deps = createEngineDeps({ controlPlane: createHcsControlPlane(api.client), resumeStore: createResumeStore(join(ctx.settings.stateDir, `put-${ref.key}.json`)) });
        let failed = 0;
        for (const p of paths) {
          const source = await createFileSource(p, basename(p));
          const task = new UploadTask({ source, target: { conflict: 'keepBoth', category: 'NetDisk' } }, deps);
          try {
            await task.run();
          } finally {
            await source.close();
          }
          if (task.status === 'success' && task.result) {
            ctx.print({ event: 'file-done', path: p, instanceId: task.result.instanceId, sha256: task.result.fMd5 }, `${p}  uploaded`);
          } else {
            failed++;
            const e = task.error as { code?: string; message?: string } | undefined;
            ctx.print({ event: 'file-failed', path: p, code: e?.code ?? null, error: e?.message ?? task.status }, '');
            io.stderr.write(`drive: ${p}: ${e?.message ?? task.status}\n`);
          }
        }
        ctx.print({ event: 'done', files: paths.length, failed }, `${paths.length - failed} of ${paths.length} files uploaded`);
        return failed > 0 ? EXIT.PARTIAL : EXIT.OK;
      }),
    );
}
