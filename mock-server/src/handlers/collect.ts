// My Favorites (issue #16 item 2). Adding needs `view` on each item (the gate, per item); the list leaves out what the
// caller can no longer see, deciding with the gate (checkAccess) on the rows, and names each item's space and parent
// so the client opens it where it lives.
import type { AppContext, Handlers } from '../context.ts';
import { ok } from '../http/envelope.ts';
import { AppError } from '../http/errors.ts';
import { getInstanceRows } from '../db/instances-repo.ts';
import { addFavourites, listFavourites, removeFavourites } from '../db/favourites-repo.ts';
import { checkAccess } from '../files/access-gate.ts';
import { callerOf } from '../files/access.ts';
import { viewsOf } from '../files/wire.ts';
import { batch } from '../files/file-ops.ts';
import { personalise } from './labels.ts';

function idsOf(list: string): string[] {
  return [...new Set(list.split(',').filter(Boolean))];
}

export function collectHandlers(ctx: AppContext): Handlers {
  const { db } = ctx;
  return {
    async addFavourite(req) {
      const user = callerOf(req.user);
      const refused = req.accessRefused;
      const allowed = idsOf(req.body.ids).filter((id) => !refused?.has(id));
      // Only items that exist below a library root: "0" (the root alias the gate accepts) is no file or folder.
      const rows = new Map((await getInstanceRows(db, allowed)).filter((r) => r.parentId !== null).map((r) => [r.id, r]));
      await addFavourites(db, user.userId, [...rows.keys()]);
      // The session was read before this call may have made the caller's first mark.
      const views = new Map((await personalise(db, { userId: user.userId, hasMarks: true }, await viewsOf(db, [...rows.values()]))).map((v) => [v.instanceId, v]));
      return ok(await batch(req.body.ids, refused, async (id) => {
        const view = views.get(id);
        if (!view) throw new AppError('NOT_FOUND', 'no such file or folder');
        return view;
      }));
    },

    async deleteFavourite(req) {
      const user = callerOf(req.user);
      return ok({ removed: await removeFavourites(db, user.userId, idsOf(req.query.ids)) });
    },

    async pageFavourites(req) {
      const user = callerOf(req.user);
      const pageNo = req.query.pageNo ?? 1;
      const pageSize = req.query.pageSize ?? 20;
      // At most MAX_FAVOURITES rows, decided on at once: the gate reads them in one query.
      const all = await listFavourites(db, user.userId);
      const refused = await checkAccess(db, user, 'view', all.map((f) => f.instanceId));
      const visible = all.filter((f) => !refused.has(f.instanceId));
      const slice = visible.slice((pageNo - 1) * pageSize, pageNo * pageSize);
      const rows = new Map((await getInstanceRows(db, slice.map((f) => f.instanceId))).map((r) => [r.id, r]));
      const views = await personalise(db, user, await viewsOf(db, slice.map((f) => rows.get(f.instanceId)!)));
      return ok({
        list: views.map((v, i) => ({ ...v, favouriteTime: slice[i]!.createdAt })),
        total: visible.length,
        pageNo,
        pageSize,
        nextCursor: null,
      });
    },
  };
}
