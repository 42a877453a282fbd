// The flat walk a folder download reads (getFolderInfo): every live entry below a folder in pre-order, a page at
// a time, with a cursor signed for that folder so a client can neither forge a position nor reuse it elsewhere.
import { createHmac, timingSafeEqual } from 'node:crypto';
import { AppError } from '../http/errors.ts';
import type { Db } from '../db/sql/tx.ts';
import { subtreeStats, walkSubtree, type InstanceRow, type WalkEntry } from '../db/instances-repo.ts';

export interface FolderWalkPage {
  entries: WalkEntry[];
  /** Where the next page starts; null once the walk is complete. */
  nextCursor: string | null;
  totalFiles: number;
  totalBytes: number;
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

/**
 * One page of the walk below `root` (which the caller may read), after `cursor`. A file walks as itself alone,
 * named by its own name, whatever the cursor.
 */
export async function walkFolder(db: Db, secret: Buffer, root: InstanceRow, cursor: string | undefined, limit: number): Promise<FolderWalkPage> {
  if (!root.isFolder) return { entries: [{ ...root, path: root.name }], nextCursor: null, totalFiles: 1, totalBytes: root.size };
  const after = cursor ? readWalkCursor(secret, root.id, cursor) : undefined;
  const [stats, page] = await Promise.all([subtreeStats(db, root.id), walkSubtree(db, root.id, after, limit)]);
  const last = page.entries[page.entries.length - 1];
  return {
    entries: page.entries,
    nextCursor: page.more && last ? walkCursor(secret, root.id, last.id) : null,
    totalFiles: stats.files,
    totalBytes: stats.bytes,
  };
}
