// Administration of files (issue #16 item 7): every file of every space for administrators, with recycle and restore
// on anyone's behalf; and video preview with range requests.
import type { AppContext, Handlers } from '../context.ts';
import { ok } from '../http/envelope.ts';
import { AppError } from '../http/errors.ts';
import { STORED_CONTENT_HEADERS } from '../http/hygiene.ts';
import { deleteToRecycle, getInstanceRow, getLive } from '../db/instances-repo.ts';
import { entryOfInstance, restoreEntry } from '../db/recycle-repo.ts';
import { getLinkCaller } from '../db/users-repo.ts';
import { countManagedFiles, pageManagedFiles, type ManagedFilter } from '../db/admin-files-repo.ts';
import { accessible, callerOf } from '../files/access.ts';
import { batch } from '../files/file-ops.ts';
import { contentDisposition } from '../files/names.ts';
import { issueTicket, redeemTicket } from '../files/tickets.ts';
import { contentOf, viewOf } from '../files/wire.ts';
import { blobStore } from '../storage/routing.ts';

/** The formats browsers play in <video>, by extension. */
const VIDEO_TYPES: Record<string, 'video/mp4' | 'video/ogg' | 'video/webm'> = {
  mp4: 'video/mp4', m4v: 'video/mp4', ogg: 'video/ogg', ogv: 'video/ogg', webm: 'video/webm',
};

/** A position in the administrators' list: newest first. */
function encodeCursor(createdAt: number, id: string): string {
  return Buffer.from(JSON.stringify([createdAt, id])).toString('base64url');
}

function decodeCursor(cursor: string): { createdAt: number; id: string } {
  try {
    const v: unknown = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
    if (Array.isArray(v) && typeof v[0] === 'number' && typeof v[1] === 'string') return { createdAt: v[0], id: v[1] };
  } catch {
    // answered below
  }
  throw new AppError('BAD_REQUEST', 'the cursor is not one this listing returned');
}

/**
 * A single byte range of a `size`-byte file from a Range header: undefined for none or one not understood (the whole
 * file is sent, as RFC 9110 allows), 'unsatisfiable' for one that starts past the end.
 */
export function parseRange(header: string | undefined, size: number): { start: number; end: number } | 'unsatisfiable' | undefined {
  const m = header === undefined ? null : /^bytes=(\d*)-(\d*)$/.exec(header.trim());
  if (!m || (m[1] === '' && m[2] === '')) return undefined;
  if (m[1] === '') {
    const suffix = Number(m[2]);
    if (suffix === 0) return 'unsatisfiable';
    return size === 0 ? 'unsatisfiable' : { start: Math.max(0, size - suffix), end: size - 1 };
  }
  const start = Number(m[1]);
  const end = m[2] === '' ? size - 1 : Math.min(Number(m[2]), size - 1);
  if (start >= size || end < start) return 'unsatisfiable';
  return { start, end };
}

export function adminFilesHandlers(ctx: AppContext): Handlers {
  const { db } = ctx;

  return {
    async pageFilesForManager(req) {
      callerOf(req.user);
      const q = req.query;
      const pageNo = q.pageNo ?? 1;
      const pageSize = q.pageSize ?? 20;
      const f: ManagedFilter = {
        keyword: q.keyword, ownerId: q.ownerId, spaceKind: q.spaceKind, fileFilter: q.fileFilter, minSize: q.minSize, maxSize: q.maxSize, state: q.state ?? 'live',
      };
      const rows = await pageManagedFiles(db, f, {
        after: q.cursor ? decodeCursor(q.cursor) : undefined, offset: q.cursor ? 0 : (pageNo - 1) * pageSize, limit: pageSize + 1,
      });
      const list = rows.slice(0, pageSize);
      const last = list[list.length - 1];
      return ok({
        list: list.map((r) => ({
          instanceId: r.id, instanceName: r.name, fSize: r.size, fType: r.ext, fileType: r.fileType, ownerId: r.ownerId, ownerName: r.ownerName,
          spaceKind: r.spaceKind, spaceId: r.spaceId, spaceName: r.spaceName, libCode: r.libCode, parentId: r.parentId ?? '0',
          createTime: r.createdAt, updateTime: r.updatedAt, deleted: r.deletedAt !== null, deleteTime: r.deletedAt,
        })),
        total: await countManagedFiles(db, f),
        pageNo,
        pageSize,
        nextCursor: rows.length > pageSize && last ? encodeCursor(last.createdAt, last.id) : null,
      });
    },

    async recycleFilesForManager(req) {
      const admin = callerOf(req.user);
      return ok(await batch(req.body.ids, null, async (id) => {
        const row = await getLive(db, id);
        if (row.parentId === null) throw new AppError('FORBIDDEN', 'a library root cannot be recycled');
        const view = await viewOf(db, row);
        await deleteToRecycle(db, id, admin.userId);
        return view;
      }));
    },

    async restoreFilesForManager(req) {
      const admin = callerOf(req.user);
      return ok(await batch(req.body.ids, null, async (id) => {
        const entry = await entryOfInstance(db, id, 1);
        if (!entry) throw new AppError('NOT_FOUND', 'not in a recycle bin');
        return viewOf(db, await restoreEntry(db, entry, 'keepBoth', admin.userId));
      }));
    },

    // The gate checked `preview` on query.instanceId.
    async previewVideo(req) {
      const user = callerOf(req.user);
      // The gate reads "0" as the caller's root, which is no row here: nothing to play.
      const row = await getInstanceRow(db, req.query.instanceId);
      if (!row) throw new AppError('NOT_FOUND', 'no such file or folder');
      const contentType = VIDEO_TYPES[row.ext];
      if (!contentType) throw new AppError('VALIDATION_FAILED', 'only mp4, ogg and webm videos play in the browser', { fields: [{ field: 'instanceId', message: 'type' }] });
      const blob = contentOf(row);
      // A preview ticket (the kind streamPreview also reads) that this route serves in ranges.
      const { ticket, expiresAt } = await issueTicket(db, ctx.secret, 'preview', user.userId, { instanceId: row.id });
      return ok({ url: `/hcs/services/API/preview/video/${ticket}`, expiresAt, contentType, size: blob.size });
    },

    async streamVideo(req, reply) {
      const t = await redeemTicket<{ instanceId: string }>(db, ctx.secret, 'preview', req.params.ticket, { singleUse: false });
      const caller = await getLinkCaller(db, t.userId);
      if (!caller) throw new AppError('NOT_FOUND', 'the link is invalid or has expired');
      const row = await accessible(db, caller, t.payload.instanceId, 'read');
      const contentType = VIDEO_TYPES[row.ext];
      if (!contentType) throw new AppError('NOT_FOUND', 'the link is invalid or has expired');
      const blob = contentOf(row);
      reply
        .headers(STORED_CONTENT_HEADERS)
        .header('content-type', contentType)
        .header('accept-ranges', 'bytes')
        .header('content-disposition', contentDisposition('inline', row.name))
        .header('cache-control', 'private, max-age=600');
      const range = parseRange(req.headers.range, blob.size);
      if (range === 'unsatisfiable') {
        reply.header('content-range', `bytes */${blob.size}`);
        throw new AppError('BAD_REQUEST', 'the range is outside the file', { status: 416 });
      }
      const { store } = await blobStore(ctx, blob.id);
      if (!range || blob.size === 0) {
        const obj = await store.getObject(blob.objectKey);
        return reply.header('content-length', String(blob.size)).send(obj.body);
      }
      const obj = await store.getObject(blob.objectKey, { start: range.start, end: range.end });
      return reply
        .code(206)
        .header('content-range', `bytes ${range.start}-${range.end}/${blob.size}`)
        .header('content-length', String(range.end - range.start + 1))
        .send(obj.body);
    },
  };
}
