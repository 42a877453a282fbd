// Filing a finished upload session: the versioning rules (a new version of the same-named file, or keep both as
// "name (n).ext"), its quota and the session's end. Used by save-instance and instant transfer (handlers/upload.ts).
import { AppError } from '../http/errors.ts';
import type { Db } from '../db/sql/tx.ts';
import { addVersion, getInstanceRow, getLive, insertInstance, lockFolders, nameTaken, spaceOf, type InstanceRow } from '../db/instances-repo.ts';
import { addUsage } from '../db/quota.ts';
import { endSession, type UploadSession } from '../db/uploads-repo.ts';

/**
 * Turns a finished session into a file: a new file, "name (n).ext" beside a same-named entry, or a new
 * version of the same-named file (its old content kept as a history version). The reservation becomes usage.
 * `stored`: the upload's bytes are in storage (save-instance), at the key the blob now has or not. Returns the file
 * and whether the session's storage must be cleaned (see endSession). Call inside the transaction that holds the
 * blob reference; it locks the space's row, then the folder's (the order of instances-repo.ts).
 */
export async function registerFile(
  db: Db, s: UploadSession, blobId: string, name: string, userId: string, stored: { keyIsBlob: boolean } | undefined = undefined,
): Promise<InstanceRow & { cleanup: boolean }> {
  const parent = await getLive(db, s.parentId);
  if (!parent.isFolder) throw new AppError('NOT_FOUND', 'the target folder no longer exists');
  await addUsage(db, spaceOf(parent), s.size);
  // Held until commit: a concurrent upload of the same name into this folder (any node) files after this one.
  await lockFolders(db, [parent.id]);
  const existing = s.conflict === 'newVersion' ? await nameTaken(db, parent.id, name) : undefined;
  const row =
    existing && !existing.isFolder
      ? await addVersion(db, (await getInstanceRow(db, existing.id))!, blobId, s.size)
      : await insertInstance(db, { parent, name, isFolder: false, size: s.size, blobId, createdBy: userId, conflict: 'rename' });
  return { ...row, cleanup: await endSession(db, s.id, { filed: true, stored: stored !== undefined, keyIsBlob: stored?.keyIsBlob }) };
}
