// Groups and their members (read side for access checks; group management comes with its own issue).
import type { Db } from './sql/tx.ts';

export async function isGroupMember(db: Db, groupId: string, userId: string): Promise<boolean> {
  const r = await db.selectFrom('group_members').select('user_id').where('group_id', '=', groupId).where('user_id', '=', userId).executeTakeFirst();
  return r !== undefined;
}
