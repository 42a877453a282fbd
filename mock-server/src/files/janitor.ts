// Cleans upload sessions after their expiry: sessions nobody finished (24 h after they were created) and ended
// sessions once no signed request of theirs can reach storage any more. The multipart upload is aborted, the
// staging object deleted and the session row (with any quota reservation) removed. A staging key that became a
// blob on save is never deleted here: the blobs table is checked first.
import type { AppContext } from '../context.ts';
import type { ObjectStore } from '../storage/object-store.ts';
import type { Db } from '../db/database.ts';

const BATCH = 200;

export interface Janitor {
  /** One pass over expired sessions; resolves to how many were cleaned. */
  sweep(now?: number): Promise<number>;
  stop(): void;
}

/**
 * Removes what an upload session may have left in storage: its multipart upload and its staging object, unless
 * that object is a blob's content. Throws when storage fails; what is already gone is not an error.
 */
export async function cleanStaging(db: Db, store: ObjectStore, s: { objectKey: string; uploadId: string | null }): Promise<void> {
  if (s.uploadId) await store.abortMultipart(s.objectKey, s.uploadId).catch(ignoreMissing);
  const isBlob = db.prepare('SELECT 1 FROM blobs WHERE object_key = ?').get(s.objectKey) !== undefined;
  if (!isBlob) await store.deleteObject(s.objectKey).catch(ignoreMissing);
}

export function startJanitor(ctx: AppContext, intervalMs = 15 * 60_000): Janitor {
  const { db } = ctx;
  let running: Promise<number> | null = null;

  const pass = async (now: number): Promise<number> => {
    const rows = db
      .prepare('SELECT id, object_key AS objectKey, upload_id AS uploadId FROM upload_sessions WHERE expires_at < ? ORDER BY expires_at LIMIT ?')
      .all(now, BATCH) as { id: string; objectKey: string; uploadId: string | null }[];
    let cleaned = 0;
    for (const r of rows) {
      try {
        await cleanStaging(db, ctx.store(), r);
        // Re-check the expiry: the row must not have changed while storage was being cleaned.
        const res = db.prepare('DELETE FROM upload_sessions WHERE id = ? AND expires_at < ?').run(r.id, now);
        cleaned += Number(res.changes);
      } catch (err) {
        ctx.log.warn({ err, session: r.id }, 'could not clean an expired upload session; will retry');
      }
    }
    return cleaned;
  };

  const sweep = (now = Date.now()): Promise<number> => {
    // One pass at a time; a second caller waits for the running one.
    running ??= pass(now).finally(() => {
      running = null;
    });
    return running;
  };

  const timer = setInterval(() => {
    sweep().catch((err) => ctx.log.warn({ err }, 'upload janitor failed'));
  }, intervalMs);
  timer.unref();
  return {
    sweep,
    stop: () => clearInterval(timer),
  };
}

function ignoreMissing(e: { code?: string }): void {
  if (e.code === 'NoSuchUpload' || e.code === 'NoSuchKey' || e.code === 'NotFound') return;
  throw e;
}
