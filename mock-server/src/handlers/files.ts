// Files and folders (contract tag "files"): listing, create, rename, get, recycle, move, copy, folder pickers
// and the flat listing a folder download walks.
import type { AppContext, Handlers } from '../context.ts';
import { ok } from '../http/envelope.ts';
import { transaction } from '../db/sql/tx.ts';
import { getInstanceRow, insertInstance, listSubfolders, renameInstance, setRemark, type InstanceRow } from '../db/instances-repo.ts';
import { decodeWireName } from '../files/names.ts';
import { accessible, callerOf, listFolderFor, resolveFolder } from '../files/access.ts';
import { assertSubtreeAllows, hiddenChildren, permissionsFor, permissionsOfChildren, type Actor } from '../files/access-gate.ts';
import { downloadInfo, instanceView, viewOf, viewsOf } from '../files/wire.ts';
import { batch, copyItem, moveItem, recycleItem } from '../files/file-ops.ts';
import { walkFolder } from '../files/folder-walk.ts';
import type { components } from '@hcs/openapi/schema';
import { personalise } from './labels.ts';

type Schemas = components['schemas'];

export function filesHandlers(ctx: AppContext): Handlers {
  const { db } = ctx;

  return {
    async listInstances(req) {
      const user = callerOf(req.user);
      const q = req.query;
      const { folder, ancestors, page } = await listFolderFor(db, ctx.secret, user, q.parentId, q.libCode, q.instanceType, {
        sortField: q.sortField ?? 'instanceName', sortOrder: q.sortOrder ?? 'asc', fileFilter: q.fileFilter,
        keyword: q.keyword?.trim() || undefined, pageNo: q.pageNo ?? 1, pageSize: q.pageSize ?? 20, cursor: q.cursor,
      }, req.gateRows, q.deptId);
      const chain = [...ancestors, folder];
      const names = chain.filter((a) => a.parentId !== null).map((a) => a.name);
      // Children the caller may not view are left out, as if they did not exist (the page may come out shorter).
      const hidden = await hiddenChildren(db, user, folder);
      const rows = hidden.size ? page.rows.filter((r) => !hidden.has(r.id)) : page.rows;
      const allowed = await permissionsOfChildren(db, user, folder, ancestors, rows);
      return ok({
        list: await personalise(db, user.userId, rows.map((r, i) => instanceView(r, names, allowed[i]))),
        total: page.total - hidden.size,
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
            parent = await resolveFolder(trx, user, b.parentId, b.libCode, b.instanceType, 'write', req.query.deptId);
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
      const row = await accessible(db, user, id, 'read');
      const [view] = await personalise(db, user.userId, [await viewOf(db, row, await permissionsFor(db, user, row))]);
      return ok(view!);
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
      return ok(await batch(req.query.ids, req.accessRefused, (id) => recycleItem(db, user, id, (row) => viewOf(db, row))));
    },

    async moveInstances(req) {
      const user = callerOf(req.user);
      const q = req.query;
      const target = await resolveFolder(db, user, q.targetInstanceId, undefined, undefined, 'write');
      return ok(await batch(q.ids, req.accessRefused, async (id) => viewOf(db, await moveItem(db, user, id, target, q.conflict))));
    },

    async copyInstances(req) {
      const user = callerOf(req.user);
      const q = req.query;
      const target = await resolveFolder(db, user, q.targetInstanceId, undefined, undefined, 'write');
      return ok(await batch(q.ids, req.accessRefused, async (id) => viewOf(db, await copyItem(db, user, id, target, q.conflict))));
    },

    async getTreeFolder(req) {
      const user = callerOf(req.user);
      const b = req.body;
      const folder = await resolveFolder(db, user, b.parentId, b.libCode, b.instanceType, 'read');
      if (b.parentId === undefined || b.parentId === '' || b.parentId === '0') {
        return ok([{ instanceId: folder.id, instanceName: folder.name, parentId: '0', isLeaf: folder.childFolders === 0 } satisfies Schemas['TreeNode']]);
      }
      return ok(await treeNodes(folder, user));
    },

    async getTreeFolderData(req) {
      const user = callerOf(req.user);
      const q = req.query;
      return ok(await treeNodes(await resolveFolder(db, user, q.id, q.libCode, undefined, 'read'), user));
    },

    async getFolderInfo(req) {
      const user = callerOf(req.user);
      const q = req.query;
      const root = await accessible(db, user, q.instanceId, 'read');
      await assertSubtreeAllows(db, user, root, 'download');
      const walk = await walkFolder(db, ctx.secret, root, q.cursor, q.limit ?? 1000);
      const store = ctx.store();
      const endpoint = ctx.storageEndpoint(req);
      return ok({
        data: walk.entries.map((e) => ({
          instanceId: e.id,
          classifierId: e.isFolder ? 'Folder' : 'File',
          pathNames: e.path,
          rootId: root.id,
          rootName: root.name,
          syncStatus: '1',
          fileInfo: e.isFolder ? null : downloadInfo(store, e, endpoint),
        }) satisfies Schemas['FolderInfoEntry']),
        nextCursor: walk.nextCursor,
        totalFiles: walk.totalFiles,
        totalBytes: walk.totalBytes,
      });
    },
  };

  async function treeNodes(folder: InstanceRow, user: Actor) {
    const hidden = await hiddenChildren(db, user, folder);
    return (await listSubfolders(db, folder.id)).filter((f) => !hidden.has(f.id)).map((f) => ({
      instanceId: f.id, instanceName: f.name, parentId: folder.id, isLeaf: !f.hasSubfolders,
    }) satisfies Schemas['TreeNode']);
  }
}
