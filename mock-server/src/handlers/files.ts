// Files and folders (contract tag "files"): listing, create, rename, get, recycle, move, copy, folder pickers
// and the flat listing a folder download walks.
import { createHmac, timingSafeEqual } from 'node:crypto';
import type { AppContext, Handlers } from '../context.ts';
import { AppError } from '../http/errors.ts';
import { ok } from '../http/envelope.ts';
import { transaction } from '../db/database.ts';
import {
  copyInstance, deleteToRecycle, getInstanceRow, insertInstance, listChildren, listSubfolders, moveInstance, nextInWalk,
  renameInstance, setRemark, subtreeStats, ancestorsOf, type ConflictPolicy, type InstanceRow, type SortField,
} from '../db/instances-repo.ts';
import { decodeWireName } from '../files/names.ts';
import { accessible, callerOf, resolveFolder } from '../files/access.ts';
import { downloadInfo, instanceView, viewOf } from '../files/wire.ts';

function splitIds(ids: string): string[] {
  return [...new Set(ids.split(',').filter(Boolean))].slice(0, 1000);
}

function failure(id: string, e: unknown) {
  if (e instanceof AppError) return { instanceId: id, code: e.code, msg: e.message };
  throw e;
}

/**
 * Applies `one` to each id of a batch call: what worked goes to done, refusals to failed; anything else throws. Ids
 * the access gate refused (req.accessRefused) fail with its error and `one` never sees them.
 */
function batch<T>(ids: string, refused: ReadonlyMap<string, AppError> | null, one: (id: string) => T): { done: T[]; failed: ReturnType<typeof failure>[] } {
  const done: T[] = [];
  const failed: ReturnType<typeof failure>[] = [];
  for (const id of splitIds(ids)) {
    const denied = refused?.get(id);
    if (denied) {
      failed.push(failure(id, denied));
      continue;
    }
    try {
      done.push(one(id));
    } catch (e) {
      failed.push(failure(id, e));
    }
  }
  return { done, failed };
}

function walkCursor(secret: Buffer, rootId: string, lastId: string): string {
  const sig = createHmac('sha256', secret).update(`walk:${rootId}:${lastId}`).digest().subarray(0, 12).toString('base64url');
  return `${lastId}.${sig}`;
}

function readWalkCursor(secret: Buffer, rootId: string, cursor: string): string {
  const [lastId, sig] = cursor.split('.');
  const expected = lastId ? walkCursor(secret, rootId, lastId).split('.')[1]! : '';
  if (!lastId || !sig || sig.length !== expected.length || !timingSafeEqual(Buffer.from(sig), Buffer.from(expected))) {
    throw new AppError('BAD_REQUEST', 'the cursor is invalid for this folder');
  }
  return lastId;
}

export function filesHandlers(ctx: AppContext): Handlers {
  const { db } = ctx;

  return {
    async listInstances(req) {
      const user = callerOf(req.user);
      const q = req.query as {
        parentId?: string; libCode?: string; instanceType?: string; pageNo: number; pageSize: number; sortField: SortField;
        sortOrder: 'asc' | 'desc'; fileFilter?: number; cursor?: string; keyword?: string;
      };
      const folder = resolveFolder(db, user, q.parentId, q.libCode, q.instanceType, 'read');
      const page = listChildren(db, ctx.secret, {
        parentId: folder.id, sortField: q.sortField ?? 'instanceName', sortOrder: q.sortOrder ?? 'asc', fileFilter: q.fileFilter,
        keyword: q.keyword?.trim() || undefined, pageNo: q.pageNo ?? 1, pageSize: q.pageSize ?? 20, cursor: q.cursor,
      });
      const chain = [...ancestorsOf(db, folder.id), folder];
      const names = chain.filter((a) => a.parentId !== null).map((a) => a.name);
      return ok({
        list: page.rows.map((r) => instanceView(r, names)),
        total: page.total,
        pageNo: q.pageNo ?? 1,
        pageSize: q.pageSize ?? 20,
        nextCursor: page.nextCursor,
        parentId: folder.id,
        breadcrumbs: chain.map((a) => ({ instanceId: a.id, instanceName: a.name })),
      });
    },

    async createInstances(req) {
      const user = callerOf(req.user);
      const body = req.body as { libCode?: string; parentId?: string; instanceType?: string; instanceName: string }[];
      // Decode every name first: one bad entry creates none.
      const names = body.map((b, i) => decodeWireName(b.instanceName, `[${i}].instanceName`));
      const created = transaction(db, () =>
        body.map((b, i) => {
          const parent = resolveFolder(db, user, b.parentId, b.libCode, b.instanceType, 'write');
          return insertInstance(db, { parent, name: names[i]!, isFolder: true, createdBy: user.userId });
        }),
      );
      return ok(created.map((r) => viewOf(db, r)));
    },

    async getInstance(req) {
      const user = callerOf(req.user);
      const { id } = req.params as { id: string };
      return ok(viewOf(db, accessible(db, user, id, 'read')));
    },

    async modifyInstance(req) {
      const user = callerOf(req.user);
      const { id } = req.params as { id: string };
      const body = req.body as { instanceName?: string; remark?: string };
      const name = body.instanceName !== undefined ? decodeWireName(body.instanceName) : undefined;
      const row = transaction(db, () => {
        let r = accessible(db, user, id, 'write');
        if (name !== undefined && name !== r.name) r = renameInstance(db, r, name);
        if (body.remark !== undefined) setRemark(db, r.id, body.remark);
        return getInstanceRow(db, r.id)!;
      });
      return ok(viewOf(db, row));
    },

    async deleteInstances(req) {
      const user = callerOf(req.user);
      const { ids } = req.query as { ids: string };
      return ok(
        batch(ids, req.accessRefused, (id) => {
          const view = viewOf(db, accessible(db, user, id, 'write'));
          deleteToRecycle(db, id, user.userId);
          return view;
        }),
      );
    },

    async moveInstances(req) {
      const user = callerOf(req.user);
      const q = req.query as { ids: string; targetInstanceId: string; conflict?: ConflictPolicy };
      const target = resolveFolder(db, user, q.targetInstanceId, undefined, undefined, 'write');
      return ok(
        batch(q.ids, req.accessRefused, (id) => {
          accessible(db, user, id, 'write');
          return viewOf(db, moveInstance(db, id, target.id, q.conflict ?? 'rename'));
        }),
      );
    },

    async copyInstances(req) {
      const user = callerOf(req.user);
      const q = req.query as { ids: string; targetInstanceId: string; conflict?: ConflictPolicy };
      const target = resolveFolder(db, user, q.targetInstanceId, undefined, undefined, 'write');
      return ok(
        batch(q.ids, req.accessRefused, (id) => {
          accessible(db, user, id, 'read');
          return viewOf(db, copyInstance(db, id, target.id, q.conflict ?? 'rename', user.userId));
        }),
      );
    },

    async getTreeFolder(req) {
      const user = callerOf(req.user);
      const b = (req.body ?? {}) as { parentId?: string; libCode?: string; instanceType?: string };
      const folder = resolveFolder(db, user, b.parentId, b.libCode, b.instanceType, 'read');
      if (b.parentId === undefined || b.parentId === '' || b.parentId === '0') {
        const hasSub = listSubfolders(db, folder.id, 1).length > 0;
        return ok([{ instanceId: folder.id, instanceName: folder.name, parentId: '0', isLeaf: !hasSub }]);
      }
      return ok(treeNodes(folder));
    },

    async getTreeFolderData(req) {
      const user = callerOf(req.user);
      const q = req.query as { id?: string; libCode?: string };
      return ok(treeNodes(resolveFolder(db, user, q.id, q.libCode, undefined, 'read')));
    },

    async getFolderInfo(req) {
      const user = callerOf(req.user);
      const q = req.query as { instanceId: string; cursor?: string; limit?: number };
      const root = accessible(db, user, q.instanceId, 'read');
      const store = ctx.store();
      const limit = q.limit ?? 1000;
      if (!root.isFolder) {
        return ok({
          data: [{ instanceId: root.id, classifierId: 'File', pathNames: root.name, rootId: root.id, rootName: root.name, syncStatus: '1', fileInfo: downloadInfo(db, store, root, ctx.storageEndpoint(req)) }],
          nextCursor: null, totalFiles: 1, totalBytes: root.size,
        });
      }
      const stats = subtreeStats(db, root.id);
      const paths = new Map<string, string>([[root.id, '']]);
      const pathOf = (row: InstanceRow): string => {
        const parent = row.parentId!;
        let prefix = paths.get(parent);
        if (prefix === undefined) {
          const chain = ancestorsOf(db, row.id);
          const at = chain.findIndex((a) => a.id === root.id);
          prefix = chain.slice(at + 1).map((a) => a.name).join('/');
          paths.set(parent, prefix);
        }
        const p = prefix ? `${prefix}/${row.name}` : row.name;
        if (row.isFolder) paths.set(row.id, p);
        return p;
      };
      let last = q.cursor ? readWalkCursor(ctx.secret, root.id, q.cursor) : undefined;
      const data = [];
      let next: InstanceRow | undefined;
      while (data.length < limit && (next = nextInWalk(db, root.id, last))) {
        data.push({
          instanceId: next.id,
          classifierId: next.isFolder ? 'Folder' : 'File',
          pathNames: pathOf(next),
          rootId: root.id,
          rootName: root.name,
          syncStatus: '1',
          fileInfo: next.isFolder ? null : downloadInfo(db, store, next, ctx.storageEndpoint(req)),
        });
        last = next.id;
      }
      const more = last !== undefined && data.length === limit && nextInWalk(db, root.id, last) !== undefined;
      return ok({ data, nextCursor: more ? walkCursor(ctx.secret, root.id, last!) : null, totalFiles: stats.files, totalBytes: stats.bytes });
    },
  };

  function treeNodes(folder: InstanceRow) {
    return listSubfolders(db, folder.id).map((f) => ({
      instanceId: f.id, instanceName: f.name, parentId: folder.id, isLeaf: !f.hasSubfolders,
    }));
  }
}

