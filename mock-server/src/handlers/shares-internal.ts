// Internal shares (contract tag "shares", issue #17 part 1). What a recipient may do on the shared item is the
// access gate's decision (it reads the shares); this module keeps the shares themselves: only their owner sees the
// recipients, changes or cancels them, and a share that is neither the caller's nor reaching them answers
// NOT_FOUND as if it did not exist.
import type { AppContext, Handlers } from '../context.ts';
import { done, ok } from '../http/envelope.ts';
import { AppError } from '../http/errors.ts';
import { callerOf } from '../files/access.ts';
import { permissionsFor, shareRoleAuthorities } from '../files/access-gate.ts';
import { getInstanceRows } from '../db/instances-repo.ts';
import { deptChainOf } from '../db/roles-repo.ts';
import {
  addToShare, cancelShares, getShare, pageOwnShares, pageSharesWithMe, recipientsOf, replaceRecipients, shareFor,
  type RecipientInput, type RecipientRow, type ShareRow,
} from '../db/shares-repo.ts';
import type { SessionUser } from '../auth/types.ts';
import type { Db } from '../db/sql/tx.ts';
import type { components } from '@hcs/openapi/schema';

type Schemas = components['schemas'];
type RoleCode = Schemas['ShareRoleCode'];

const INSTANCE_TYPE = { user: '1', group: '2', dept: '3' } as const;

/** The widest of the roles reaching a recipient through one share (the one with the most authorities). */
function widest(roles: readonly string[]): string | undefined {
  return [...roles].sort((a, b) => shareRoleAuthorities(b).size - shareRoleAuthorities(a).size || a.localeCompare(b))[0];
}

function recipientView(r: RecipientRow): Schemas['ShareRecipient'] {
  return { kind: r.kind, id: r.id, name: r.name, ...(r.realName !== null ? { realName: r.realName } : {}), roleCode: r.roleCode as RoleCode };
}

function shareView(s: Omit<ShareRow, 'roles'> & { roles?: string[] }, recipients?: readonly RecipientRow[]): Schemas['FileSharing'] {
  const role = s.roles && widest(s.roles);
  return {
    fileSharingId: s.id, instanceId: s.instanceId, instanceName: s.name, classifierId: s.isFolder ? 'Folder' : 'File',
    instanceType: INSTANCE_TYPE[s.spaceKind], fSize: s.size, fileType: s.fileType, ownerId: s.ownerId, ownerName: s.ownerName,
    ownerRealName: s.ownerRealName, createTime: s.createdAt, updateTime: s.updatedAt,
    ...(role ? { roleCode: role as RoleCode } : {}),
    ...(recipients ? { recipients: recipients.map(recipientView) } : {}),
  };
}

const page = (q: { pageNo?: number; pageSize?: number; keyword?: string; cursor?: string }) => {
  const size = q.pageSize ?? 20;
  const pageNo = q.pageNo ?? 1;
  return { query: { keyword: q.keyword?.trim() || undefined, limit: size, offset: (pageNo - 1) * size, cursor: q.cursor }, pageNo, pageSize: size };
};

/**
 * What the caller may hand out on the item: no recipient themselves, and no role giving more than the caller holds
 * there (a reshare never widens what the resharer has).
 */
async function checkGrantable(db: Db, user: SessionUser, instanceId: string, recipients: readonly RecipientInput[]): Promise<void> {
  if (recipients.some((r) => r.kind === 'user' && r.id === user.userId)) {
    throw new AppError('VALIDATION_FAILED', 'recipients: you cannot share with yourself', { fields: [{ field: 'recipients', message: 'self' }] });
  }
  const [row] = await getInstanceRows(db, [instanceId]);
  if (!row || row.deletedAt !== null) throw new AppError('NOT_FOUND', 'no such file or folder');
  const held = await permissionsFor(db, user, row);
  if (!held.has('share')) throw new AppError('FORBIDDEN', 'you may not share this item');
  const beyond = recipients.find((r) => [...shareRoleAuthorities(r.roleCode)].some((p) => !held.has(p)));
  if (beyond) throw new AppError('FORBIDDEN', `the role ${beyond.roleCode} gives more than you hold on this item`);
}

export function sharesInternalHandlers(ctx: AppContext): Handlers {
  const { db } = ctx;

  /** The caller's own share of a live item, or NOT_FOUND (someone else's looks like none). */
  const ownShare = async (user: SessionUser, shareId: string) => {
    const share = await getShare(db, shareId);
    if (!share || share.ownerId !== user.userId) throw new AppError('NOT_FOUND', 'no such share');
    return share;
  };

  const withRecipients = async (shareId: string) => {
    const share = (await getShare(db, shareId))!;
    return shareView(share, await recipientsOf(db, [shareId]));
  };

  return {
    async pageFileSharing(req) {
      const user = callerOf(req.user);
      const p = page(req.query);
      const { rows, total, next } = await pageOwnShares(db, user.userId, p.query);
      const recipients = await recipientsOf(db, rows.map((r) => r.id));
      const list = rows.map((r) => shareView(r, recipients.filter((x) => x.shareId === r.id)));
      return ok({ list, total, pageNo: p.pageNo, pageSize: p.pageSize, nextCursor: next });
    },

    async pageFileSharingList(req) {
      const user = callerOf(req.user);
      const p = page(req.query);
      const { rows, total, next } = await pageSharesWithMe(db, { userId: user.userId, deptChain: await deptChainOf(db, user.deptId) }, p.query);
      return ok({ list: rows.map((r) => shareView(r)), total, pageNo: p.pageNo, pageSize: p.pageSize, nextCursor: next });
    },

    async createFileSharing(req) {
      const user = callerOf(req.user);
      const { instanceId, recipients } = req.body;
      await checkGrantable(db, user, instanceId, recipients);
      return ok(await withRecipients(await addToShare(db, user.userId, instanceId, recipients)));
    },

    async modifyFileSharing(req) {
      const user = callerOf(req.user);
      const { fileSharingId, recipients } = req.body;
      const share = await ownShare(user, fileSharingId);
      await checkGrantable(db, user, share.instanceId, recipients);
      await replaceRecipients(db, user.userId, fileSharingId, recipients);
      return ok(await withRecipients(fileSharingId));
    },

    async deleteFileSharing(req) {
      const user = callerOf(req.user);
      await cancelShares(db, user.userId, req.query.ids.split(','));
      return done();
    },

    async listFileSharingUsers(req) {
      const user = callerOf(req.user);
      await ownShare(user, req.query.fileSharingId);
      return ok((await recipientsOf(db, [req.query.fileSharingId])).map(recipientView));
    },

    async getFileSharing(req) {
      const user = callerOf(req.user);
      const share = await getShare(db, req.query.fileSharingId);
      if (!share) throw new AppError('NOT_FOUND', 'no such share');
      if (share.ownerId === user.userId) return ok(shareView(share, await recipientsOf(db, [share.id])));
      const reach = await shareFor(db, share.id, { userId: user.userId, deptChain: await deptChainOf(db, user.deptId) });
      if (!reach || reach.roles.length === 0) throw new AppError('NOT_FOUND', 'no such share');
      return ok(shareView({ ...share, roles: reach.roles }));
    },
  };
}
