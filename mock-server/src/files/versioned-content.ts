// Which stored content of a file a caller may read besides its current content: a history version (with the
// `version` permission) and a file in their recycle bin (with `delete`, the permission that restores it). Both go
// through the ordinary download path: download info with the version's content, and signed reads of its key.
import type { Db } from '../db/sql/tx.ts';
import type { SessionUser } from '../auth/types.ts';
import { getInstanceChains, type InstanceRow } from '../db/instances-repo.ts';
import { entryOfRow } from '../db/recycle-repo.ts';
import { getVersion, withContentOf } from '../db/versions-repo.ts';
import { checkAccess, requireAccess } from './access-gate.ts';
import { AppError } from '../http/errors.ts';

/**
 * `row` with the content of its `version` (undefined: as it is); the caller needs `version` on it. The current
 * content is a version too (getHistoryVersion lists it under the file's own number), kept in the row, not with the
 * history.
 */
export async function atVersion(db: Db, user: SessionUser, row: InstanceRow, version: number | undefined): Promise<InstanceRow> {
  if (version === undefined) return row;
  await requireAccess(db, user, 'version', [row.id]);
  if (version === row.version) return row;
  return withContentOf(row, await getVersion(db, row.id, version));
}

/**
 * True when `key` is content of the file `fileId` the caller may read: its current content (live: `download`;
 * in a first-level recycle bin: `delete`), or the content of one of its history versions (`version` besides).
 * A file the caller may not act on at all throws the gate's refusal (NOT_FOUND for one they cannot see).
 */
export async function mayReadKey(db: Db, user: SessionUser, fileId: string | undefined, key: string): Promise<boolean> {
  if (!fileId) return false;
  // The file with its ancestors in one statement, for the row and for each check below (which would otherwise read
  // them again): a small file's signed read was two statements here, each a round trip on PostgreSQL.
  const rows = await getInstanceChains(db, [fileId]);
  const row = rows.get(fileId);
  if (!row) throw new AppError('NOT_FOUND', 'no such file or folder');
  const read = async () => rows;
  if (row.deletedAt !== null) {
    await requireAccess(db, user, 'delete', [row.id], read);
    const entry = await entryOfRow(db, row);
    return entry?.level === 1 && row.objectKey === key;
  }
  await requireAccess(db, user, 'download', [row.id], read);
  if (row.isFolder) return false;
  if (row.objectKey === key) return true;
  const versioned = await db
    .selectFrom('file_versions as v')
    .innerJoin('blobs as b', 'b.id', 'v.blob_id')
    .select('v.id')
    .where('v.instance_id', '=', row.id)
    .where('b.object_key', '=', key)
    .executeTakeFirst();
  return versioned !== undefined && (await checkAccess(db, user, 'version', [row.id], undefined, false, read)).size === 0;
}
