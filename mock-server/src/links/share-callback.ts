// The share callback: a link made for a platform (createShare with `callback`) is POSTed to the URL an administrator
// registered for that platform, signed so the platform can tell it came from this drive. Users only name a
// platform: where the drive sends requests is the administrators' choice alone.
import { createHmac } from 'node:crypto';
import type { FastifyBaseLogger } from 'fastify';
import type { Db } from '../db/sql/tx.ts';
import { getCallback, recordAttempt, type ShareCallbackRow } from '../db/share-callbacks-repo.ts';

export const CALLBACK_TRIES = 3;
const TIMEOUT_MS = 5000;
const BACKOFF_MS = 500;

/** The platform's signing secret: derived, never stored; a new nonce (re-registering) revokes the old one. */
export function callbackSecret(serverSecret: Buffer, cb: Pick<ShareCallbackRow, 'platformId' | 'keyNonce'>): string {
  return createHmac('sha256', serverSecret).update(`share-callback:${cb.platformId}:${cb.keyNonce}`).digest('base64url');
}

export function signCallback(secret: string, timestamp: number, body: string): string {
  return `sha256=${createHmac('sha256', secret).update(`${timestamp}.${body}`).digest('hex')}`;
}

export interface CallbackPayload {
  token: string;
  instanceIds: string[];
  fileId: string;
  shareId: string;
  shareUrl: string;
}

/**
 * Sends one link's callback, up to CALLBACK_TRIES times, recording each try. The registration is read again before
 * every try, so a platform removed or moved meanwhile gets nothing more at its old address. Never throws.
 */
export async function deliverCallback(
  deps: { db: Db; secret: Buffer; log: FastifyBaseLogger; sleep?: (ms: number) => Promise<void> },
  platformId: string,
  payload: CallbackPayload,
): Promise<void> {
  const body = JSON.stringify(payload);
  const sleep = deps.sleep ?? ((ms: number) => new Promise<void>((r) => setTimeout(r, ms)));
  try {
    for (let attempt = 1; attempt <= CALLBACK_TRIES; attempt++) {
      const cb = await getCallback(deps.db, platformId);
      if (!cb) return await recordAttempt(deps.db, payload.shareId, 'failed', null);
      const timestamp = Date.now();
      let status: number | null = null;
      try {
        const res = await fetch(cb.url, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'x-hcs-timestamp': String(timestamp), 'x-hcs-signature': signCallback(callbackSecret(deps.secret, cb), timestamp, body) },
          body,
          // A redirect would send the link somewhere the administrator did not register.
          redirect: 'manual',
          signal: AbortSignal.timeout(TIMEOUT_MS),
        });
        status = res.status;
        await res.body?.cancel();
      } catch {
        status = null; // unreachable or timed out: tried again
      }
      const ok = status !== null && status >= 200 && status < 300;
      await recordAttempt(deps.db, payload.shareId, ok ? 'delivered' : attempt === CALLBACK_TRIES ? 'failed' : 'pending', status);
      if (ok) return;
      if (attempt < CALLBACK_TRIES) await sleep(BACKOFF_MS * attempt);
    }
  } catch (err) {
    // The link stands whatever happens to its callback; the owner sees the state, the log the reason.
    deps.log.error({ err, shareId: payload.shareId, platformId }, 'share callback failed');
  }
}
