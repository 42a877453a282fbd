// Files and folders (contract tag "files"): listing, create, rename, get, recycle, move, copy, folder pickers
// and the flat listing a folder download walks.
import type { AppContext, Handlers } from '../context.ts';
import { ok } from '../http/envelope.ts';
import { transaction } from '../db/sql/tx.ts';
import { chainOf, getInstanceChains, getInstanceRow, getInstanceRows, insertInstance, listSubfolders, renameInstance, setRemark, type InstanceRow } from '../db/instances-repo.ts';
import { decodeWireName } from '../files/names.ts';
import { accessible, callerOf, listFolderFor, listQueryOf, resolveFolder } from '../files/access.ts';
import { assertSubtreeAllows, currentPermissions, decide, hiddenChildren, prepareAccess, permissionsFor, permissionsOfChildren, shownChain, type Actor } from '../files/access-gate.ts';
import { downloadInfo, instanceView, viewOf, viewsOf } from '../files/wire.ts';
import { batch, copyItem, moveItem, recycleItem } from '../files/file-ops.ts';
import { walkFolder } from '../files/folder-walk.ts';
import type { components } from '@hcs/openapi/schema';
import { PERMISSIONS } from '@hcs/openapi/operations';
import { AppError } from '../http/errors.ts';
import { personalise } from './labels.ts';
import { folderInfoSync, listingSync, type ReplicationState } from '../replication/status.ts';
import { blobStores } from '../storage/routing.ts';

type Schemas = components['schemas'];

export function filesHandlers(ctx: AppContext): Handlers {
  const { db } = ctx;

  return {
    async listInstances(req) {
      const user = callerOf(req.user);
      const q = req.query;
      const { folder, ancestors, page } = await listFolderFor(
        db, user, q.parentId, q.libCode, q.instanceType, listQueryOf(q, user), req.gateRows, q.deptId, req.listingPage,
      );
      // A share's recipient is shown the path from the shared item down, not the owner's folders above it.
      const chain = await shownChain(db, user, [...ancestors, folder]);
      const folderPath = chain.filter((a) => a.parentId !== null).map((a) => a.name).join('/');
      // Children the caller may not view were left out by the query itself, as if they did not exist.
      const rows = page.rows;
      const allowed = await permissionsOfChildren(db, user, folder, ancestors, rows);
      const replication = await listingSync(db, folder, ancestors, rows);
      const views = rows.map((r, i) => {
        const view: ReturnType<typeof instanceView> & { replication?: ReplicationState } = instanceView(r, folderPath, allowed[i]);
        const rep = replication(r);
        if (rep) view.replication = rep;
        return view;
      });
      return ok({
        list: await personalise(db, user, views, page.marks),
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
            parent = await resolveFolder(trx, user, b.parentId, b.libCode, b.instanceType, 'write', req.query.deptId);
            folders.set(key, parent);
          }
          out.push(await insertInstance(trx, { parent, name: names[i]!, isFolder: true, createdBy: user.userId }));
        }
        return out;
      });
      return ok(await viewsOf(db, created, await currentPermissions(db, user, created)));
    },

    async getInstance(req) {
      const user = callerOf(req.user);
      const { id } = req.params;
      const row = await accessible(db, user, id, 'read');
      const [view] = await personalise(db, user, [await viewOf(db, row, await permissionsFor(db, user, row))]);
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
      return ok(await viewOf(db, row, await permissionsFor(db, user, row)));
    },

    async deleteInstances(req) {
      const user = callerOf(req.user);
      return ok(await batch(req.query.ids, req.accessRefused, (id) => recycleItem(db, user, id, (row) => viewOf(db, row))));
    },

    async moveInstances(req) {
      const user = callerOf(req.user);
      const q = req.query;
      const target = await resolveFolder(db, user, q.targetInstanceId, undefined, undefined, 'write');
      return ok(await withViews(user, await batch(q.ids, req.accessRefused, (id) => moveItem(db, user, id, target, q.conflict))));
    },

    async copyInstances(req) {
      const user = callerOf(req.user);
      const q = req.query;
      const target = await resolveFolder(db, user, q.targetInstanceId, undefined, undefined, 'write');
      return ok(await withViews(user, await batch(q.ids, req.accessRefused, (id) => copyItem(db, user, id, target, q.conflict))));
    },

    async getTreeFolder(req) {
      const user = callerOf(req.user);
      const b = req.body;
      const folder = await resolveFolder(db, user, b.parentId, b.libCode, b.instanceType, 'read');
      if (b.parentId === undefined || b.parentId === '' || b.parentId === '0') {
        const leaf = await leaves(user, folder, [folder]);
        return ok([{ instanceId: folder.id, instanceName: folder.name, parentId: '0', isLeaf: leaf.get(folder.id)! } satisfies Schemas['TreeNode']]);
      }
      return ok(await treeNodes(folder, user));
    },

    async getTreeFolderData(req) {
      const user = callerOf(req.user);
      const q = req.query;
      return ok(await treeNodes(await resolveFolder(db, user, q.id, q.libCode, undefined, 'read'), user));
    },

    async getParentAuth(req) {
      const user = callerOf(req.user);
      const id = req.query.instanceId;
      // The gate has read the item with its ancestors and checked that the caller sees it.
      const rows = req.gateRows?.has(id) ? req.gateRows : await getInstanceChains(db, [id]);
      const chain = chainOf(rows, id);
      if (!chain || chain.row.deletedAt !== null) throw new AppError('NOT_FOUND', 'no such file or folder');
      await prepareAccess(db, user, [...chain.ancestors, chain.row]);
      const d = decide(user, chain.row, chain.ancestors);
      if (!d.allowed.has('view')) throw new AppError('NOT_FOUND', 'no such file or folder');
      return ok({ instanceId: id, authorities: PERMISSIONS.filter((p) => d.allowed.has(p)), source: d.source });
    },

    async getFolderInfo(req) {
      const user = callerOf(req.user);
      const q = req.query;
      const root = await accessible(db, user, q.instanceId, 'read');
      await assertSubtreeAllows(db, user, root, 'download');
      const walk = await walkFolder(db, ctx.secret, root, q.cursor, q.limit ?? 1000);
      const endpoint = ctx.storageEndpoint(req);
      // Each file's own place (its blob's connection and bucket), whatever its library's policy says today.
      const places = await blobStores(ctx, walk.entries.flatMap((e) => (e.blobId ? [e.blobId] : [])), endpoint);
      const fileInfo = (e: (typeof walk.entries)[number]) => {
        const at = places.get(e.blobId ?? '') ?? { store: ctx.store(), endpoint };
        return downloadInfo(at.store, e, at.endpoint);
      };
      const sync = await folderInfoSync(db, root, walk.entries, ctx.config.node.site);
      return ok({
        data: walk.entries.map((e) => ({
          instanceId: e.id,
          classifierId: e.isFolder ? 'Folder' : 'File',
          pathNames: e.path,
          rootId: root.id,
          rootName: root.name,
          ...sync(e),
          fileInfo: e.isFolder ? null : fileInfo(e),
        }) satisfies Schemas['FolderInfoEntry']),
        nextCursor: walk.nextCursor,
        totalFiles: walk.totalFiles,
        totalBytes: walk.totalBytes,
      });
    },
  };

  /** A batch's moved or copied rows as the caller sees them where they now are. */
  async function withViews<F>(user: Actor, r: { done: InstanceRow[]; failed: F }) {
    return { done: await viewsOf(db, r.done, await currentPermissions(db, user, r.done)), failed: r.failed };
  }

  async function treeNodes(folder: InstanceRow, user: Actor) {
    const hidden = await hiddenChildren(db, user, folder);
    const subs = (await listSubfolders(db, folder.id)).filter((f) => !hidden.has(f.id));
    const leaf = await leaves(user, folder, subs);
    return subs.map((f) => ({ instanceId: f.id, instanceName: f.name, parentId: folder.id, isLeaf: leaf.get(f.id)! }) satisfies Schemas['TreeNode']);
  }

  /**
   * Which of `folders` (of `space`'s space) have no sub-folder the caller sees: one query for the grants on their
   * sub-folders (none for the owner), one more only when some are hidden.
   */
  async function leaves(user: Actor, space: InstanceRow, folders: readonly InstanceRow[]): Promise<Map<string, boolean>> {
    const below = await hiddenChildren(db, user, space, folders.filter((f) => f.childFolders > 0).map((f) => f.id));
    const hiddenUnder = new Map<string, number>();
    if (below.size) {
      for (const r of await getInstanceRows(db, [...below])) {
        if (r.isFolder && r.deletedAt === null && r.parentId !== null) hiddenUnder.set(r.parentId, (hiddenUnder.get(r.parentId) ?? 0) + 1);
      }
    }
    return new Map(folders.map((f) => [f.id, f.childFolders - (hiddenUnder.get(f.id) ?? 0) <= 0]));
  }
}
