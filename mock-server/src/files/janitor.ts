// Cleans upload sessions nobody finished: after their expiry (24 h without activity) the multipart upload is
// aborted, the staging object deleted and the session row (with its quota reservation) removed. A staging key
// that became a blob on save is never deleted here: the blobs table is checked first.
import type { AppContext } from '../context.ts';

const BATCH = 200;

export interface Janitor {
  /** One pass over expired sessions; resolves to how many were cleaned. */
  sweep(now?: number): Promise<number>;
  stop(): void;
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
      const isBlob = db.prepare('SELECT 1 FROM blobs WHERE object_key = ?').get(r.objectKey) !== undefined;
      try {
        if (!isBlob) {
          const store = ctx.store();
          if (r.uploadId) await store.abortMultipart(r.objectKey, r.uploadId).catch((e: { code?: string }) => ignoreMissing(e));
          await store.deleteObject(r.objectKey).catch((e: { code?: string }) => ignoreMissing(e));
        }
        // Re-check the expiry: a client may have touched the session while storage was being cleaned.
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
