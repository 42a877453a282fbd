// Downloads (contract tag "download"): what a ranged client download needs, presigned URLs, inline previews
// behind a ticket, and folders as one streamed zip.
import type { FastifyRequest } from 'fastify';
import type { AppContext, Handlers } from '../context.ts';
import { AppError } from '../http/errors.ts';
import { ok } from '../http/envelope.ts';
import { isActiveContent } from '../http/hygiene.ts';
import type { InstanceRow } from '../db/instances-repo.ts';
import { getLinkCaller } from '../db/users-repo.ts';
import { insertOpLog } from '../db/oplog-repo.ts';
import { accessible, callerOf, type Caller } from '../files/access.ts';
import { assertSubtreeAllows } from '../files/access-gate.ts';
import { contentDisposition, contentTypeOf } from '../files/names.ts';
import { issueTicket, redeemTicket } from '../files/tickets.ts';
import { contentOf, downloadInfo } from '../files/wire.ts';
import { atVersion } from '../files/versioned-content.ts';
import { sendZip } from '../files/zip-stream.ts';
import { watermarkImage } from '../files/watermark.ts';
import { nearestBlobStore, nearestCloudProvider } from '../replication/runner.ts';

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

  return {
    async getCloudProvider(req) {
      callerOf(req.user);
      return ok(await nearestCloudProvider(ctx, ctx.storageEndpoint(req)));
    },

    async getDownloadFileInfo(req) {
      const user = callerOf(req.user);
      const { instanceId, version } = req.query;
      // The gate has just read the file with its ancestors (req.gateRows): no second read of its row.
      const row = await atVersion(db, user, await accessible(db, user, instanceId, 'read', req.gateRows), version);
      const at = await nearestBlobStore(ctx, contentOf(row).id, ctx.storageEndpoint(req));
      const info = downloadInfo(at.store, row, at.endpoint);
      await logDownload(req, user.userId, user.userName, FILE_DOWNLOAD, row);
      return ok(info);
    },

    async getFileInfoById(req) {
      const user = callerOf(req.user);
      const { id } = req.params;
      const row = await accessible(db, user, id, 'read', req.gateRows);
      const at = await nearestBlobStore(ctx, contentOf(row).id, ctx.storageEndpoint(req));
      return ok(downloadInfo(at.store, row, at.endpoint));
    },

    async getS3DownloadUrl(req) {
      const user = callerOf(req.user);
      const q = req.query;
      const row = await atVersion(db, user, await accessible(db, user, q.instanceId, 'read', req.gateRows), q.version);
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
      // At a site with its own copy, the link reads that copy, not the origin across sites; else where the blob was
      // stored (its connection and bucket), whatever its library's policy says today.
      const at = await nearestBlobStore(ctx, blob.id, ctx.storageEndpoint(req));
      const url = await at.store.presignGet(blob.objectKey, { ...signing, endpoint: at.endpoint });
      if (q.action !== 'preview') await logDownload(req, user.userId, user.userName, FILE_DOWNLOAD, row);
      return ok({ url, expiresAt: Date.now() + expiresIn * 1000, contentType: contentTypeOf(row.name), size: blob.size, inline });
    },

    async getPreview(req) {
      const user = callerOf(req.user);
      const { instanceId } = req.query;
      const row = await accessible(db, user, instanceId, 'read', req.gateRows);
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
      const at = await nearestBlobStore(ctx, blob.id, ctx.storageEndpoint(req));
      const url = await at.store.presignGet(blob.objectKey, {
        expiresIn,
        endpoint: at.endpoint,
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
      const obj = await (await nearestBlobStore(ctx, blob.id, ctx.storageEndpoint(req))).store.getObject(blob.objectKey);
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
      await sendZip(ctx, req, reply, user, t.payload.ids, t.payload.name);
    },
  };
}
