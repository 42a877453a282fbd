// Thumbnails for the file list and the icon view (contract operation getThumbnail). The route layer has already
// checked the preview permission; the handler finds the file, answers 304 for the thumbnail the browser holds, and
// otherwise streams the stored one (made on first request, files/thumbnails.ts).
import type { AppContext, Handlers } from '../context.ts';
import { STORED_CONTENT_HEADERS } from '../http/hygiene.ts';
import { accessible, callerOf } from '../files/access.ts';
import { contentOf } from '../files/wire.ts';
import { THUMBNAIL_TYPE, Thumbnails, type ThumbnailSize } from '../files/thumbnails.ts';
import { blobLocation } from '../storage/routing.ts';

export function thumbnailHandlers(ctx: AppContext): Handlers {
  const thumbnails = new Thumbnails(ctx.store);
  return {
    async getThumbnail(req, reply) {
      const user = callerOf(req.user);
      const { instanceId } = req.query;
      const size = (req.query.size ?? 256) as ThumbnailSize;
      const row = await accessible(ctx.db, user, instanceId, 'read');
      const blob = contentOf(row);
      // The blob is immutable content: its id and the size name the thumbnail's bytes for good. A new version of the
      // file is another blob, so the browser's copy is revalidated (no-cache) rather than kept blindly.
      const etag = `"${blob.id}-${size}"`;
      reply.headers(STORED_CONTENT_HEADERS).header('etag', etag).header('cache-control', 'private, no-cache');
      if (req.headers['if-none-match'] === etag) return reply.status(304).send();
      const thumb = await thumbnails.get(row.name, { ...blob, at: await blobLocation(ctx.db, blob.id) }, size);
      return reply.type(THUMBNAIL_TYPE).header('content-length', String(thumb.size)).send(thumb.body);
    },
  };
}
