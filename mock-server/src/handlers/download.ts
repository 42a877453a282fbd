// Downloads (contract tag "download"): what a ranged client download needs, presigned URLs, inline previews
// behind a ticket, and folders as one streamed zip.
import type { FastifyRequest } from 'fastify';
import type { AppContext, Handlers } from '../context.ts';
import { AppError } from '../http/errors.ts';
import { ok } from '../http/envelope.ts';
import { isActiveContent, securityHeaders, STORED_CONTENT_HEADERS } from '../http/hygiene.ts';
import { childrenAfter, type InstanceRow } from '../db/instances-repo.ts';
import { getLinkCaller } from '../db/users-repo.ts';
import { insertOpLog } from '../db/oplog-repo.ts';
import { accessible, callerOf, type Caller } from '../files/access.ts';
import { assertSubtreeAllows } from '../files/access-gate.ts';
import { contentDisposition, contentTypeOf } from '../files/names.ts';
import { issueTicket, redeemTicket } from '../files/tickets.ts';
import { contentOf, downloadInfo } from '../files/wire.ts';
import { atVersion } from '../files/versioned-content.ts';
import { ZipWriter } from '../files/zip-writer.ts';
import { watermarkImage } from '../files/watermark.ts';
import { localReplicaStore } from '../replication/runner.ts';

export const PREVIEW_INLINE_LIMIT = 15728640;

async function callerById(ctx: AppContext, userId: string): Promise<Caller> {
  const caller = await getLinkCaller(ctx.db, userId);
  if (!caller) throw new AppError('NOT_FOUND', 'the link is invalid or has expired');
  return caller;
}

/** Operation-log types of a signed-in user's downloads (visitors' are share.download), counted by the statistics. */
export const FILE_DOWNLOAD = 'download';
export const ZIP_DOWNLOAD = 'downloadZip';

export function downloadHandlers(ctx: AppContext): Handlers {
  const { db } = ctx;

  /**
   * One operation-log row per download, written where the server hands out what the download needs (information, a
   * URL, a zip's single-use ticket redeemed): the ranged reads that follow go to storage or repeat a URL, so logging
   * them would count one download many times. Reads are no mutations, so the contract's onSend log never sees them.
   */
  async function logDownload(req: FastifyRequest, userId: string, userName: string, opType: string, obj: { id: string; name: string }): Promise<void> {
    try {
      await insertOpLog(db, {
        userId, userName, opType, opSubject: 'download', objectId: obj.id, objectName: obj.name,
        device: String(req.headers['user-agent'] ?? ''), ip: req.ip, traceId: req.traceId, result: 'success', detail: '',
      });
    } catch (err) {
      // As for every other operation: a log write that fails does not take the user's download away.
      req.log.error({ err, traceId: req.traceId }, 'operation log write failed');
    }
  }

  /** Writes the entries of `ids` into the zip, walking folders one page of children at a time. */
  async function writeZip(zip: ZipWriter, user: Caller, ids: string[], closed: () => boolean): Promise<void> {
    const store = ctx.store();
    const used = new Set<string>();
    const addFile = async (row: InstanceRow, path: string) => {
      const blob = contentOf(row);
      if (blob.size === 0) return zip.addFile(path, row.updatedAt, 0, (async function* () {})());
      // Local content is read into the zip writer's reused buffers; a remote store's response is streamed.
      const reader = await store.openReader(blob.objectKey);
      if (!reader) return zip.addFile(path, row.updatedAt, blob.size, (await store.getObject(blob.objectKey)).body);
      try {
        await zip.addFile(path, row.updatedAt, blob.size, reader);
      } finally {
        await reader.close();
      }
    };
    const walk = async (folder: InstanceRow, path: string): Promise<void> => {
      await zip.addDirectory(path, folder.updatedAt);
      let after: InstanceRow | undefined;
      for (;;) {
        const page = await childrenAfter(db, folder.id, after && { isFolder: after.isFolder, nameKey: after.nameKey, id: after.id }, 200);
        for (const child of page) {
          if (closed()) return;
          if (child.isFolder) await walk(child, `${path}/${child.name}`);
          else await addFile(child, `${path}/${child.name}`);
        }
        if (page.length < 200) return;
        after = page[page.length - 1];
      }
    };
    for (const id of ids) {
      if (closed()) return;
      const row = await accessible(db, user, id, 'read');
      // Top-level names from different folders may clash: keep both.
      let name = row.name;
      for (let n = 1; used.has(name.toLowerCase()); n++) name = `${row.name} (${n})`;
      used.add(name.toLowerCase());
      if (row.isFolder) await walk(row, name);
      else await addFile(row, name);
    }
  }

  return {
    async getCloudProvider(req) {
      callerOf(req.user);
      const store = ctx.store();
      return ok({ cloudProvider: 's3', host: ctx.storageEndpoint(req), region: store.region, bucketName: store.bucket, pathStyle: true });
    },

    async getDownloadFileInfo(req) {
      const user = callerOf(req.user);
      const { instanceId, version } = req.query;
      const row = await atVersion(db, user, await accessible(db, user, instanceId, 'read'), version);
      const info = downloadInfo(ctx.store(), row, ctx.storageEndpoint(req));
      await logDownload(req, user.userId, user.userName, FILE_DOWNLOAD, row);
      return ok(info);
    },

    async getFileInfoById(req) {
      const user = callerOf(req.user);
      const { id } = req.params;
      return ok(downloadInfo(ctx.store(), await accessible(db, user, id, 'read'), ctx.storageEndpoint(req)));
    },

    async getS3DownloadUrl(req) {
      const user = callerOf(req.user);
      const q = req.query;
      const row = await atVersion(db, user, await accessible(db, user, q.instanceId, 'read'), q.version);
      const blob = contentOf(row);
      let name = row.name;
      if (q.fileName) {
        try {
          name = decodeURIComponent(q.fileName);
        } catch {
          throw new AppError('BAD_REQUEST', 'fileName is not URI-encoded');
        }
        if (/[\u0000-\u001f\u007f/\\]/.test(name)) throw new AppError('BAD_REQUEST', 'fileName contains forbidden characters');
      }
      const expiresIn = q.expiresIn ?? 3600;
      // A presigned link is storage's origin (the drive's own, with the embedded store) and an external S3 cannot be
      // told to sandbox it: a file that can run script is never shown inline from it, whatever the caller asked.
      // The overrides are part of the signed URL, so radosgw or MinIO apply them as well.
      const inline = q.action === 'preview' && !isActiveContent({ name: row.name });
      const signing = {
        expiresIn,
        responseContentDisposition: contentDisposition(inline ? 'inline' : 'attachment', name),
        responseContentType: inline ? contentTypeOf(row.name) : 'application/octet-stream',
      };
      // At a site with its own copy, the link reads that copy, not the origin across sites.
      const local = await localReplicaStore(ctx, blob.id);
      let url: string;
      try {
        url = local ? await local.store.presignGet(blob.objectKey, signing) : await ctx.store().presignGet(blob.objectKey, { ...signing, endpoint: ctx.storageEndpoint(req) });
      } finally {
        if (local?.owned) local.store.destroy();
      }
      if (q.action !== 'preview') await logDownload(req, user.userId, user.userName, FILE_DOWNLOAD, row);
      return ok({ url, expiresAt: Date.now() + expiresIn * 1000, contentType: contentTypeOf(row.name), size: blob.size, inline });
    },

    async getPreview(req) {
      const user = callerOf(req.user);
      const { instanceId } = req.query;
      const row = await accessible(db, user, instanceId, 'read');
      const blob = contentOf(row);
      const contentType = contentTypeOf(row.name);
      // An SVG keeps its type (an <img> needs it), so it is shown only through the sandboxed route, at any size; the
      // route streams, and images are not read in ranges.
      if (blob.size < PREVIEW_INLINE_LIMIT || isActiveContent({ contentType })) {
        const { ticket, expiresAt } = await issueTicket(db, ctx.secret, 'preview', user.userId, { instanceId: row.id });
        return ok({ url: `/hcs/services/API/preview/${ticket}`, expiresAt, contentType, size: blob.size, inline: true });
      }
      // Large markup (HTML, XML) is served as text and read in ranges by the text preview; opened as a page it
      // downloads instead.
      const expiresIn = 3600;
      const url = await ctx.store().presignGet(blob.objectKey, {
        expiresIn,
        endpoint: ctx.storageEndpoint(req),
        responseContentDisposition: contentDisposition(isActiveContent({ name: row.name }) ? 'attachment' : 'inline', row.name),
        responseContentType: contentType,
      });
      return ok({ url, expiresAt: Date.now() + expiresIn * 1000, contentType, size: blob.size, inline: false });
    },

    async streamPreview(req, reply) {
      const { ticket } = req.params;
      const t = await redeemTicket<{ instanceId: string; watermark?: string }>(db, ctx.secret, 'preview', ticket, { singleUse: false });
      const row = await accessible(db, await callerById(ctx, t.userId), t.payload.instanceId, 'read');
      const blob = contentOf(row);
      const obj = await ctx.store().getObject(blob.objectKey);
      // A protected link's preview (upHikShield): the picture is re-encoded with the visitor's mark, so its length is not known ahead.
      const marked = t.payload.watermark !== undefined;
      if (!marked) reply.header('content-length', String(blob.size));
      return reply
        .header('content-type', contentTypeOf(row.name))
        .header('content-disposition', contentDisposition('inline', row.name))
        // User content on the server's origin: never let it run script or be sniffed into something else.
        .header('content-security-policy', "sandbox; default-src 'none'; img-src data:; style-src 'unsafe-inline'; media-src 'self'")
        .header('x-content-type-options', 'nosniff')
        .header('cache-control', 'private, max-age=600')
        .send(marked ? watermarkImage(obj.body, t.payload.watermark!) : obj.body);
    },

    async getZipDownloadUrl(req) {
      const user = callerOf(req.user);
      const q = req.query;
      const ids = [...new Set(q.ids.split(',').filter(Boolean))];
      if (ids.length > 1000) throw new AppError('VALIDATION_FAILED', 'at most 1000 entries per zip');
      const rows: InstanceRow[] = [];
      for (const id of ids) rows.push(await accessible(db, user, id, 'read'));
      for (const row of rows) await assertSubtreeAllows(db, user, row, 'download');
      let name = q.name?.trim() || (rows.length === 1 ? rows[0]!.name : 'download');
      if (/[\u0000-\u001f\u007f/\\]/.test(name)) throw new AppError('BAD_REQUEST', 'name contains forbidden characters');
      name = name.replace(/\.zip$/i, '');
      // The name at authorisation goes into the log when the ticket is redeemed (that request carries no session).
      const { ticket, expiresAt } = await issueTicket(db, ctx.secret, 'zip', user.userId, { ids, name, userName: user.userName });
      return ok({ url: `/hcs/services/API/zip/${ticket}`, expiresAt, contentType: 'application/zip' });
    },

    async downloadZip(req, reply) {
      const { ticket } = req.params;
      const t = await redeemTicket<{ ids: string[]; name: string; userName?: string }>(db, ctx.secret, 'zip', ticket, { singleUse: true });
      const user = await callerById(ctx, t.userId);
      // Check every entry before the first byte, so a refusal is still a proper error envelope.
      for (const id of t.payload.ids) await assertSubtreeAllows(db, user, await accessible(db, user, id, 'read'), 'download');
      // The ticket is single-use: one row per zip downloaded.
      await logDownload(req, user.userId, t.payload.userName ?? '', ZIP_DOWNLOAD, { id: t.payload.ids.join(','), name: `${t.payload.name}.zip` });
      // The zip writer writes straight to the socket: its write callbacks tell when a reused read buffer may be
      // refilled, which a stream handed to reply.send() would hide. Hijacked replies skip onSend, so the
      // headers it would add are written here.
      reply.hijack();
      const res = reply.raw;
      const headers: Record<string, string | string[]> = {};
      const set = (name: string, value: unknown) => (headers[name.toLowerCase()] = Array.isArray(value) ? value.map(String) : String(value));
      for (const [name, value] of Object.entries(reply.getHeaders())) if (value !== undefined) set(name, value);
      for (const [name, value] of Object.entries({ ...securityHeaders(req.url, 'application/zip'), ...STORED_CONTENT_HEADERS })) set(name, value);
      set('content-type', 'application/zip');
      set('content-disposition', contentDisposition('attachment', `${t.payload.name}.zip`));
      set('cache-control', 'no-store');
      res.writeHead(200, headers);
      let closed = false;
      res.on('close', () => (closed = true));
      const zip = new ZipWriter(res);
      try {
        await writeZip(zip, user, t.payload.ids, () => closed);
        if (!closed) await zip.finish();
      } catch (err) {
        // Headers are gone: cutting the stream makes the client see a failed download, not a corrupt zip.
        if (!closed) req.log.error({ err, traceId: req.traceId }, 'zip stream failed');
        res.destroy();
      }
    },
  };
}
