// Batch operations on files and folders (recycle, move, copy): what each item needs before the repository
// applies it, and how a batch reports per item. The placement rules (no library root, target a folder, not into
// itself, same space for a move, quota for a copy) are checked by the repository inside the item's transaction.
import { AppError } from '../http/errors.ts';
import type { Db } from '../db/sql/tx.ts';
import { copyInstance, deleteToRecycle, moveInstance, type ConflictPolicy, type InstanceRow } from '../db/instances-repo.ts';
import { accessible, type Caller } from './access.ts';
import { assertSubtreeAllows } from './access-gate.ts';

/** At most this many distinct ids per batch call; the rest are ignored. */
const MAX_BATCH = 1000;

/** Without a conflict policy, a same-named entry in the target keeps its name and the arrival becomes "name (n)". */
const DEFAULT_CONFLICT: ConflictPolicy = 'rename';

export interface ItemFailure {
  instanceId: string;
  code: AppError['code'];
  msg: string;
}

function splitIds(ids: string): string[] {
  return [...new Set(ids.split(',').filter(Boolean))].slice(0, MAX_BATCH);
}

function failure(id: string, e: unknown): ItemFailure {
  if (e instanceof AppError) return { instanceId: id, code: e.code, msg: e.message };
  throw e;
}

/**
 * Applies `one` to each id of a comma-separated batch: what worked goes to done, refusals to failed; anything else
 * throws. Ids the access gate refused (req.accessRefused) fail with its error and `one` never sees them.
 */
export async function batch<T>(
  ids: string, refused: ReadonlyMap<string, AppError> | null, one: (id: string) => Promise<T>,
): Promise<{ done: T[]; failed: ItemFailure[] }> {
  const done: T[] = [];
  const failed: ItemFailure[] = [];
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

/**
 * Moves one entry the caller may write to the recycle bin. `describe` reads the entry first: once it is in the bin
 * its path is no longer that of a live entry.
 */
export async function recycleItem<T>(db: Db, user: Caller, id: string, describe: (row: InstanceRow) => Promise<T>): Promise<T> {
  const row = await accessible(db, user, id, 'write');
  // A folder goes to the bin whole: whatever a narrower grant or a deny keeps from the caller below it must stop it.
  await assertSubtreeAllows(db, user, row, 'delete');
  const described = await describe(row);
  await deleteToRecycle(db, id, user.userId);
  return described;
}

/** Moves one entry the caller may write into `target` (a folder they may write). */
export async function moveItem(db: Db, user: Caller, id: string, target: InstanceRow, conflict: ConflictPolicy | undefined): Promise<InstanceRow> {
  // Moving a folder moves everything below it: the caller must hold edit on all of it as on the folder itself, else
  // moving the folder would carry an item out from under the narrower grant or the deny that keeps it from them.
  await assertSubtreeAllows(db, user, await accessible(db, user, id, 'write'), 'edit');
  return moveInstance(db, id, target.id, conflict ?? DEFAULT_CONFLICT);
}

/** Copies one entry the caller may read into `target` (a folder they may write); the copy is theirs. */
export async function copyItem(db: Db, user: Caller, id: string, target: InstanceRow, conflict: ConflictPolicy | undefined): Promise<InstanceRow> {
  // A folder's copy carries its whole subtree into a space the caller controls: nothing below may be withheld.
  await assertSubtreeAllows(db, user, await accessible(db, user, id, 'read'), 'download');
  return copyInstance(db, id, target.id, conflict ?? DEFAULT_CONFLICT, user.userId);
}
