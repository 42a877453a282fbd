// Administration of files (issue #16 item 7): every file of every space for administrators, with recycle and restore
// on anyone's behalf (restore comes with the recycle bin's restore); and video preview with range requests.
import type { AppContext, Handlers } from '../context.ts';
import { ok } from '../http/envelope.ts';
import { AppError } from '../http/errors.ts';
import { STORED_CONTENT_HEADERS } from '../http/hygiene.ts';
import { sql } from 'kysely';
import { dialectOf } from '../db/sql/tx.ts';
import { deleteToRecycle, getInstanceRow, getLive } from '../db/instances-repo.ts';
import { getLinkCaller } from '../db/users-repo.ts';
import { accessible, callerOf } from '../files/access.ts';
import { batch } from '../files/file-ops.ts';
import { contentDisposition, nameKey } from '../files/names.ts';
import { issueTicket, redeemTicket } from '../files/tickets.ts';
import { contentOf, viewOf } from '../files/wire.ts';

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
      let base = db.selectFrom('instances as i').where('i.is_folder', '=', 0);
      const state = q.state ?? 'live';
      if (state === 'live') base = base.where('i.deleted_at', 'is', null);
      if (state === 'recycled') base = base.where('i.deleted_at', 'is not', null);
      const key = q.keyword?.trim() ? nameKey(q.keyword.trim()) : undefined;
      if (key !== undefined) base = base.where(dialectOf(db) === 'postgres' ? sql<boolean>`strpos(i.name_key, ${key}) > 0` : sql<boolean>`instr(i.name_key, ${key}) > 0`);
      if (q.ownerId) base = base.where('i.created_by', '=', q.ownerId);
      if (q.spaceKind) base = base.where('i.space_kind', '=', q.spaceKind);
      if (q.fileFilter !== undefined) base = base.where('i.filter_cat', '=', q.fileFilter);
      if (q.minSize !== undefined) base = base.where('i.size', '>=', q.minSize);
      if (q.maxSize !== undefined) base = base.where('i.size', '<=', q.maxSize);
      let page = base;
      if (q.cursor) {
        const c = decodeCursor(q.cursor);
        page = page.where((eb) => eb.or([eb('i.created_at', '<', c.createdAt), eb.and([eb('i.created_at', '=', c.createdAt), eb('i.id', '<', c.id)])]));
      }
      const rows = await page
        .select(['i.id', 'i.name', 'i.size', 'i.ext', 'i.file_type', 'i.created_by', 'i.space_kind', 'i.space_id', 'i.lib_code', 'i.parent_id', 'i.created_at', 'i.updated_at', 'i.deleted_at'])
        .select((eb) => eb.selectFrom('users as u').whereRef('u.id', '=', 'i.created_by').select('u.user_name').as('owner_name'))
        .select(sql<string | null>`case i.space_kind
          when 'user' then (select u.user_name from users u where u.id = i.space_id)
          when 'group' then (select g.name from groups g where g.id = i.space_id)
          else (select d.name from departments d where d.id = i.space_id) end`.as('space_name'))
        .orderBy('i.created_at', 'desc')
        .orderBy('i.id', 'desc')
        .limit(pageSize + 1)
        .offset(q.cursor ? 0 : (pageNo - 1) * pageSize)
        .execute();
      const more = rows.length > pageSize;
      const list = rows.slice(0, pageSize);
      const total = await base.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
      const last = list[list.length - 1];
      return ok({
        list: list.map((r) => ({
          instanceId: r.id, instanceName: r.name, fSize: r.size, fType: r.ext, fileType: r.file_type, ownerId: r.created_by, ownerName: r.owner_name ?? '',
          spaceKind: r.space_kind, spaceId: r.space_id, spaceName: r.space_name ?? '', libCode: r.lib_code, parentId: r.parent_id ?? '0',
          createTime: r.created_at, updateTime: r.updated_at, deleted: r.deleted_at !== null, deleteTime: r.deleted_at,
        })),
        total: Number(total.n),
        pageNo,
        pageSize,
        nextCursor: more && last ? encodeCursor(last.created_at, last.id) : null,
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

    // The gate checked `preview` on query.instanceId.
    async previewVideo(req) {
      const user = callerOf(req.user);
      const row = (await getInstanceRow(db, req.query.instanceId))!;
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
      if (!range || blob.size === 0) {
        const obj = await ctx.store().getObject(blob.objectKey);
        return reply.header('content-length', String(blob.size)).send(obj.body);
      }
      const obj = await ctx.store().getObject(blob.objectKey, { start: range.start, end: range.end });
      return reply
        .code(206)
        .header('content-range', `bytes ${range.start}-${range.end}/${blob.size}`)
        .header('content-length', String(range.end - range.start + 1))
        .send(obj.body);
    },
  };
}
