// Purging a deleted account for good (realDeleteUser). Nothing vanishes silently: the personal files go to a chosen
// account (into a folder named after the purged one, in each library root) or to the administrators' second-level
// recycle bin, and whatever the account created elsewhere is credited to the receiver (or the purging administrator),
// all in one transaction with the removal of the account.
import { sql } from 'kysely';
import { atomically, type Db } from './sql/tx.ts';
import { AppError } from '../http/errors.ts';
import { deleteToRecycle, freeName, getOrCreateRoot, getInstanceRow, insertInstance, recountChildren } from './instances-repo.ts';
import { addUsage } from './quota.ts';
import { getAdminUser } from './users-repo.ts';

export interface PurgeResult {
  userId: string;
  files: number;
  bytes: number;
  handedOverTo: string | null;
  folderId: string | null;
}

export async function purgeUser(db: Db, userId: string, handOverTo: string | undefined, actorId: string): Promise<PurgeResult> {
  return atomically(db, async (trx) => {
    const user = await getAdminUser(trx, userId);
    if (!user) throw new AppError('NOT_FOUND', `no account ${userId}`);
    if (user.deletedAt === null) throw new AppError('CONFLICT', 'only a deleted account can be purged; delete it first');
    let receiver = null;
    if (handOverTo !== undefined) {
      receiver = await getAdminUser(trx, handOverTo);
      if (!receiver || receiver.deletedAt !== null || receiver.id === userId) {
        throw new AppError('NOT_FOUND', 'the account to hand the files over to is not a live account', { fields: [{ field: 'handOverTo', message: 'unknown' }] });
      }
    }
    const heir = receiver?.id ?? actorId;
    const roots = await trx
      .selectFrom('instances')
      .select(['id', 'lib_code'])
      .where('space_kind', '=', 'user')
      .where('space_id', '=', userId)
      .where('parent_id', 'is', null)
      .execute();
    const files = Number(
      (await trx.selectFrom('instances').select((eb) => eb.fn.countAll<number>().as('n')).where('space_kind', '=', 'user').where('space_id', '=', userId).where('parent_id', 'is not', null).executeTakeFirstOrThrow()).n,
    );
    let folderId: string | null = null;

    if (receiver) {
      for (const root of roots) {
        const target = await getOrCreateRoot(trx, { kind: 'user', id: receiver.id }, root.lib_code, receiver.id);
        const folder = await insertInstance(trx, { parent: target, name: await freeName(trx, target.id, user.userName, true), isFolder: true, createdBy: receiver.id });
        folderId ??= folder.id;
        await trx.updateTable('instances').set({ parent_id: folder.id }).where('parent_id', '=', root.id).execute();
        await trx.updateTable('recycle_entries').set({ original_parent_id: folder.id }).where('original_parent_id', '=', root.id).execute();
        await recountChildren(trx, [folder.id]);
      }
      if (roots.length) await trx.deleteFrom('instances').where('id', 'in', roots.map((r) => r.id)).execute();
      await trx.updateTable('instances').set({ space_id: receiver.id }).where('space_kind', '=', 'user').where('space_id', '=', userId).execute();
      await trx.updateTable('recycle_entries').set({ space_id: receiver.id }).where('space_kind', '=', 'user').where('space_id', '=', userId).execute();
      // Charged even past the receiver's quota: refusing would leave the files nowhere.
      await addUsage(trx, { kind: 'user', id: receiver.id }, user.usedBytes);
    } else {
      // Every live top-level entry goes to the bin as its own entry, then everything of the account in the bin
      // (its own level-1 entries too) moves to the second level, which only administrators see.
      for (const root of roots) {
        const tops = await trx.selectFrom('instances').select('id').where('parent_id', '=', root.id).where('deleted_at', 'is', null).execute();
        for (const t of tops) if (await getInstanceRow(trx, t.id)) await deleteToRecycle(trx, t.id, actorId);
      }
      await trx.updateTable('recycle_entries').set({ level: 2 }).where('space_kind', '=', 'user').where('space_id', '=', userId).execute();
    }

    // What the account made or deleted anywhere (department and group spaces too) is credited to the heir.
    await trx.updateTable('instances').set({ created_by: heir }).where('created_by', '=', userId).execute();
    await trx.updateTable('file_versions').set({ created_by: heir }).where('created_by', '=', userId).execute();
    await trx.updateTable('recycle_entries').set({ deleted_by: heir }).where('deleted_by', '=', userId).execute();
    await trx.updateTable('groups').set({ owner_id: heir }).where('owner_id', '=', userId).execute();
    await trx.updateTable('group_members').set({ parent_user_id: null }).where('parent_user_id', '=', userId).execute();
    // Grants name their subject by id only (no foreign key); sessions, labels, department management and memberships
    // go with the row (ON DELETE CASCADE).
    await trx.deleteFrom('grants').where('subject_kind', '=', 'user').where('subject_id', '=', userId).execute();
    await sql`delete from users where id = ${userId}`.execute(trx);
    return { userId, files, bytes: user.usedBytes, handedOverTo: receiver?.id ?? null, folderId };
  });
}
