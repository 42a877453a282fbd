// The recycle bins (contract tag "files"): a user's bin (list, restore, delete for good, empty, read a recycled
// file) and the administrators' second-level bin (list, restore to the owner, delete, empty). Which ids a caller may
// touch is the access gate's (x-hcs-access `delete` on the ids, or `admin`); here an id must also be the top of an
// entry of the bin the call is about, or it fails as NOT_FOUND.
import type { AppContext, Handlers } from '../context.ts';
import { ok } from '../http/envelope.ts';
import { AppError } from '../http/errors.ts';
import { getInstanceRow } from '../db/instances-repo.ts';
import { getGroup } from '../db/groups-repo.ts';
import {
  deleteEntry, entriesOf, entryOfInstance, entryOfRow, listRecycle, moveToSecondLevel, putAwayEntry, restoreEntry, type RecycleEntry, type RecycleLevel,
} from '../db/recycle-repo.ts';
import { callerOf, defaultSpace } from '../files/access.ts';
import { checkAccess } from '../files/access-gate.ts';
import type { SessionUser } from '../auth/types.ts';
import type { Space } from '../db/quota.ts';
import { batch } from '../files/file-ops.ts';
import { contentOf, downloadInfo, viewOf } from '../files/wire.ts';
import { blobStore } from '../storage/routing.ts';
import type { components } from '@hcs/openapi/schema';

type Schemas = components['schemas'];

/** Entries handled per round when a whole bin is emptied: each is its own transaction. */
const EMPTY_BATCH = 200;

/**
 * A shared space's bin (a department's) is read whole, at most this many entries, so that the access gate can leave
 * out what the caller may not delete before paging: the gate checks this many ids in one call.
 */
const SHARED_BIN_MAX = 10_000;

export function recycleItem(e: RecycleEntry): Schemas['RecycleItem'] {
  return {
    instanceId: e.instanceId,
    instanceName: e.name,
    classifierId: e.isFolder ? 'Folder' : 'File',
    fSize: e.totalBytes,
    fType: e.ext,
    fileType: e.fileType,
    libCode: e.libCode,
    instanceType: e.instanceType,
    originalParentId: e.originalParentId ?? '0',
    originalPath: e.originalPath,
    deleteTime: e.deletedAt,
    deletedBy: e.deletedBy,
    deletedByName: e.deletedByName,
  };
}

async function entryAt(ctx: AppContext, id: string, level: RecycleLevel): Promise<RecycleEntry> {
  const e = await entryOfInstance(ctx.db, id, level);
  if (!e) throw new AppError('NOT_FOUND', level === 1 ? 'not in the recycle bin' : 'not in the second-level recycle bin');
  return e;
}

export function recycleHandlers(ctx: AppContext): Handlers {
  const { db } = ctx;

  /** Applies `one` to every entry of a level (one space's, or all) until none is left; sums what it returns. */
  async function drain(level: RecycleLevel, space: Space | undefined, one: (e: RecycleEntry) => Promise<number>) {
    let count = 0;
    let bytes = 0;
    for (;;) {
      const entries = await entriesOf(db, level, { space, limit: EMPTY_BATCH });
      let moved = 0;
      for (const e of entries) {
        try {
          bytes += await one(e);
          count++;
          moved++;
        } catch (err) {
          // Restored or purged by someone else meanwhile: nothing left to do for it.
          if (!(err instanceof AppError && err.code === 'NOT_FOUND')) throw err;
        }
      }
      if (entries.length < EMPTY_BATCH || moved === 0) return { count, bytes };
    }
  }

  /**
   * The entries of a shared space's bin the caller may delete (restore, purge), in the listing's order: who may act
   * on which entry is the access gate's decision, per entry.
   */
  async function deletableIn(user: SessionUser, space: Space, q: Omit<Parameters<typeof listRecycle>[1], 'space' | 'level' | 'pageNo' | 'pageSize'>) {
    const { rows } = await listRecycle(db, { ...q, space, level: 1, pageNo: 1, pageSize: SHARED_BIN_MAX });
    const refused = await checkAccess(db, user, 'delete', rows.map((r) => r.instanceId));
    return rows.filter((r) => !refused.has(r.instanceId));
  }

  const ownSpace = (user: SessionUser, space: Space) => space.kind === 'user' && space.id === user.userId;

  /** The bin a call names: a group's (instanceType 2) must be a live group the caller belongs to, as the groups calls see it. */
  async function binOf(user: SessionUser, instanceType: string | undefined, groupId: string | undefined): Promise<Space> {
    if (instanceType !== '2') return defaultSpace(user, instanceType);
    if (!groupId) throw new AppError('BAD_REQUEST', 'a group\'s recycle bin needs groupId');
    const g = await getGroup(db, groupId, user.userId);
    if (!g || (g.myRole === null && !user.isAdmin)) throw new AppError('NOT_FOUND', 'no such group');
    return { kind: 'group', id: g.id };
  }

  return {
    async pageRecycle(req) {
      const user = callerOf(req.user);
      const q = req.query;
      const pageNo = q.pageNo ?? 1;
      const pageSize = q.pageSize ?? 20;
      const space = await binOf(user, q.instanceType, q.groupId);
      const filter = { keyword: q.keyword?.trim() || undefined, sortField: q.sortField ?? 'deleteTime', sortOrder: q.sortOrder ?? 'desc' } as const;
      if (!ownSpace(user, space)) {
        const all = await deletableIn(user, space, filter);
        const list = all.slice((pageNo - 1) * pageSize, pageNo * pageSize).map(recycleItem);
        return ok({ list, total: all.length, pageNo, pageSize, nextCursor: null });
      }
      // A group's dissolver finds what dissolving put away in their own bin (instanceType 2) and may restore it.
      const { rows, total } = await listRecycle(db, { ...filter, space, level: 1, pageNo, pageSize, dissolvedBy: user.userId });
      return ok({ list: rows.map(recycleItem), total, pageNo, pageSize, nextCursor: null });
    },

    async restoreInstances(req) {
      const user = callerOf(req.user);
      const q = req.query;
      return ok(await batch(q.ids, req.accessRefused, async (id) => {
        // The caller's own bin holds level-1 entries, and what dissolving a group put away when they dissolved it
        // (level 2): that comes back into their own files, so it needs room there.
        const own = await entryOfInstance(db, id, 1);
        const putAway = own ? undefined : await putAwayEntry(db, id, user.userId);
        if (!own && !putAway) throw new AppError('NOT_FOUND', 'not in the recycle bin');
        return viewOf(db, await restoreEntry(db, (own ?? putAway)!, q.conflict, user.userId, { checkSpace: putAway !== undefined }));
      }));
    },

    async removeRecycled(req) {
      callerOf(req.user);
      return ok(await batch(req.query.ids, req.accessRefused, async (id) => {
        await moveToSecondLevel(db, (await entryAt(ctx, id, 1)).id);
        return id;
      }));
    },

    async emptyRecycle(req) {
      const user = callerOf(req.user);
      const space = await binOf(user, req.query.instanceType, req.query.groupId);
      if (ownSpace(user, space)) return ok(await drain(1, space, (e) => moveToSecondLevel(db, e.id)));
      let count = 0;
      let bytes = 0;
      for (const e of await deletableIn(user, space, { sortField: 'deleteTime', sortOrder: 'asc' })) {
        try {
          bytes += await moveToSecondLevel(db, e.id);
          count++;
        } catch (err) {
          if (!(err instanceof AppError && err.code === 'NOT_FOUND')) throw err;
        }
      }
      return ok({ count, bytes });
    },

    async getRecycleFileInfo(req) {
      callerOf(req.user);
      const row = await getInstanceRow(db, req.query.instanceId);
      // The gate let a recycled row through for `delete`; it must be in a first-level bin (not the administrators').
      if (!row || row.deletedAt === null || (await entryOfRow(db, row))?.level !== 1) throw new AppError('NOT_FOUND', 'not in the recycle bin');
      const at = await blobStore(ctx, contentOf(row).id, ctx.storageEndpoint(req));
      return ok(downloadInfo(at.store, row, at.endpoint));
    },

    async moveSecRecycle(req) {
      return ok(await batch(req.query.ids, null, async (id) => {
        await moveToSecondLevel(db, (await entryAt(ctx, id, 1)).id);
        return id;
      }));
    },

    async pageSecRecycle(req) {
      const q = req.query;
      const pageNo = q.pageNo ?? 1;
      const pageSize = q.pageSize ?? 20;
      const { rows, total } = await listRecycle(db, {
        level: 2, keyword: q.keyword?.trim() || undefined, sortField: q.sortField ?? 'purgeTime', sortOrder: q.sortOrder ?? 'desc', pageNo, pageSize,
      });
      return ok({
        list: rows.map((e) => ({ ...recycleItem(e), ownerKind: e.spaceKind, ownerId: e.spaceId, ownerName: e.ownerName, purgeTime: e.purgedAt ?? e.deletedAt })),
        total, pageNo, pageSize, nextCursor: null,
      });
    },

    async restoreSecRecycle(req) {
      const q = req.query;
      return ok(await batch(q.ids, null, async (id) => {
        const e = await entryAt(ctx, id, 2);
        // Folders recreated on the way belong to the owner of a personal space, else to who deleted the entry.
        return viewOf(db, await restoreEntry(db, e, q.conflict, e.spaceKind === 'user' ? e.spaceId : e.deletedBy));
      }));
    },

    async deleteSecRecycle(req) {
      return ok(await batch(req.query.ids, null, async (id) => {
        await deleteEntry(db, ctx.store(), await entryAt(ctx, id, 2));
        return id;
      }));
    },

    async emptySecRecycle() {
      return ok(await drain(2, undefined, (e) => deleteEntry(db, ctx.store(), e)));
    },
  };
}
