// Files and folders (contract tag "files"): listing, create, rename, get, recycle, move, copy, folder pickers
// and the flat listing a folder download walks.
import { createHmac, timingSafeEqual } from 'node:crypto';
import type { AppContext, Handlers } from '../context.ts';
import { AppError } from '../http/errors.ts';
import { ok } from '../http/envelope.ts';
import { transaction } from '../db/sql/tx.ts';
import {
  copyInstance, deleteToRecycle, getInstanceRow, insertInstance, listSubfolders, moveInstance, walkSubtree,
  renameInstance, setRemark, subtreeStats, type InstanceRow,
} from '../db/instances-repo.ts';
import { decodeWireName } from '../files/names.ts';
import { accessible, callerOf, listFolderFor, resolveFolder } from '../files/access.ts';
import { downloadInfo, instanceView, viewOf, viewsOf } from '../files/wire.ts';
import type { components } from '@hcs/openapi/schema';

type Schemas = components['schemas'];

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
async function batch<T>(
  ids: string, refused: ReadonlyMap<string, AppError> | null, one: (id: string) => Promise<T>,
): Promise<{ done: T[]; failed: ReturnType<typeof failure>[] }> {
  const done: T[] = [];
  const failed: ReturnType<typeof failure>[] = [];
  for (const id of splitIds(ids)) {
    const denied = refused?.get(id);
    if (denied) {
      failed.push(failure(id, denied));
      continue;
    }
    try {
      done.push(await one(id));
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
      const q = req.query;
      const { folder, ancestors, page } = await listFolderFor(db, ctx.secret, user, q.parentId, q.libCode, q.instanceType, {
        sortField: q.sortField ?? 'instanceName', sortOrder: q.sortOrder ?? 'asc', fileFilter: q.fileFilter,
        keyword: q.keyword?.trim() || undefined, pageNo: q.pageNo ?? 1, pageSize: q.pageSize ?? 20, cursor: q.cursor,
      });
      const chain = [...ancestors, folder];
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
      const body = req.body;
      // Decode every name first: one bad entry creates none.
      const names = body.map((b, i) => decodeWireName(b.instanceName, `[${i}].instanceName`));
      const created = await transaction(db, async (trx) => {
        const out: InstanceRow[] = [];
        const folders = new Map<string, InstanceRow>();
        for (const [i, b] of body.entries()) {
          // One batch usually names one folder: resolve each distinct one once.
          const key = JSON.stringify([b.parentId ?? '', b.libCode ?? '', b.instanceType ?? '']);
          let parent = folders.get(key);
          if (!parent) {
            parent = await resolveFolder(trx, user, b.parentId, b.libCode, b.instanceType, 'write');
            folders.set(key, parent);
          }
          out.push(await insertInstance(trx, { parent, name: names[i]!, isFolder: true, createdBy: user.userId }));
        }
        return out;
      });
      return ok(await viewsOf(db, created));
    },

    async getInstance(req) {
      const user = callerOf(req.user);
      const { id } = req.params;
      return ok(await viewOf(db, await accessible(db, user, id, 'read')));
    },

    async modifyInstance(req) {
      const user = callerOf(req.user);
      const { id } = req.params;
      const body = req.body;
      const name = body.instanceName !== undefined ? decodeWireName(body.instanceName) : undefined;
      const row = await transaction(db, async (trx) => {
        let r = await accessible(trx, user, id, 'write');
        if (name !== undefined && name !== r.name) r = await renameInstance(trx, r, name);
        if (body.remark !== undefined) await setRemark(trx, r.id, body.remark);
        return (await getInstanceRow(trx, r.id))!;
      });
      return ok(await viewOf(db, row));
    },

    async deleteInstances(req) {
      const user = callerOf(req.user);
      const { ids } = req.query;
      return ok(
        await batch(ids, req.accessRefused, async (id) => {
          const view = await viewOf(db, await accessible(db, user, id, 'write'));
          await deleteToRecycle(db, id, user.userId);
          return view;
        }),
      );
    },

    async moveInstances(req) {
      const user = callerOf(req.user);
      const q = req.query;
      const target = await resolveFolder(db, user, q.targetInstanceId, undefined, undefined, 'write');
      return ok(
        await batch(q.ids, req.accessRefused, async (id) => {
          await accessible(db, user, id, 'write');
          return viewOf(db, await moveInstance(db, id, target.id, q.conflict ?? 'rename'));
        }),
      );
    },

    async copyInstances(req) {
      const user = callerOf(req.user);
      const q = req.query;
      const target = await resolveFolder(db, user, q.targetInstanceId, undefined, undefined, 'write');
      return ok(
        await batch(q.ids, req.accessRefused, async (id) => {
          await accessible(db, user, id, 'read');
          return viewOf(db, await copyInstance(db, id, target.id, q.conflict ?? 'rename', user.userId));
        }),
      );
    },

    async getTreeFolder(req) {
      const user = callerOf(req.user);
      const b = req.body;
      const folder = await resolveFolder(db, user, b.parentId, b.libCode, b.instanceType, 'read');
      if (b.parentId === undefined || b.parentId === '' || b.parentId === '0') {
        return ok([{ instanceId: folder.id, instanceName: folder.name, parentId: '0', isLeaf: folder.childFolders === 0 } satisfies Schemas['TreeNode']]);
      }
      return ok(await treeNodes(folder));
    },

    async getTreeFolderData(req) {
      const user = callerOf(req.user);
      const q = req.query;
      return ok(await treeNodes(await resolveFolder(db, user, q.id, q.libCode, undefined, 'read')));
    },

    async getFolderInfo(req) {
      const user = callerOf(req.user);
      const q = req.query;
      const root = await accessible(db, user, q.instanceId, 'read');
      const store = ctx.store();
      const limit = q.limit ?? 1000;
      const endpoint = ctx.storageEndpoint(req);
      if (!root.isFolder) {
        return ok({
          data: [{ instanceId: root.id, classifierId: 'File', pathNames: root.name, rootId: root.id, rootName: root.name, syncStatus: '1', fileInfo: downloadInfo(store, root, endpoint) }],
          nextCursor: null, totalFiles: 1, totalBytes: root.size,
        });
      }
      const after = q.cursor ? readWalkCursor(ctx.secret, root.id, q.cursor) : undefined;
      const [stats, page] = await Promise.all([subtreeStats(db, root.id), walkSubtree(db, root.id, after, limit)]);
      const data: Schemas['FolderInfoEntry'][] = [];
      for (const e of page.entries) {
        data.push({
          instanceId: e.id,
          classifierId: e.isFolder ? 'Folder' : 'File',
          pathNames: e.path,
          rootId: root.id,
          rootName: root.name,
          syncStatus: '1',
          fileInfo: e.isFolder ? null : downloadInfo(store, e, endpoint),
        });
      }
      const last = page.entries[page.entries.length - 1];
      return ok({ data, nextCursor: page.more && last ? walkCursor(ctx.secret, root.id, last.id) : null, totalFiles: stats.files, totalBytes: stats.bytes });
    },
  };

  async function treeNodes(folder: InstanceRow) {
    return (await listSubfolders(db, folder.id)).map((f) => ({
      instanceId: f.id, instanceName: f.name, parentId: folder.id, isLeaf: !f.hasSubfolders,
    }) satisfies Schemas['TreeNode']);
  }
}
