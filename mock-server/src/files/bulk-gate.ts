// Admission of bulk-upload requests to receiving their files. Each admitted request holds up to ~16 files in
// memory, so only `slots` receive at once; later ones wait without reading (the kernel's socket buffers hold their
// bytes). One user holds at most `perUser` of the slots, so a user stalling many bodies delays only their own
// uploads: a user at their share waits (in order) rather than being refused, since the CLI sends a few batches at
// once and a refusal would only make it retry. Each waiting request holds its parsed manifest (up to 1 MiB of JSON),
// so the manifests of one user's waiting requests may add up to `waitingBytesPerUser`; a request that would go past
// that is refused with 429 RATE_LIMITED and Retry-After. A client's usual batches have manifests of tens of KiB.
//
// The limit is per node, deliberately (issue #12): what it protects is this process's memory (each admitted request
// holds its files in memory while they are hashed and written) and its sockets, and N nodes have N times as much of
// both. A user's share is per node too: a user stalling bodies on one node holds at most 2 of that node's 8 slots,
// so everyone else's uploads on every node still get slots. Counting slots in the database would add a round trip
// (and a lease to recover from a crashed node) to every bulk upload and protect nothing a node does not protect
// alone.
import { AppError } from '../http/errors.ts';

export interface BulkGate {
  /**
   * Resolves once `userId` may receive a body, with the function that gives the slot back (call it once; later
   * calls do nothing). `bytes` is what the request holds while it waits (its manifest). Rejects with the signal's
   * reason when the signal aborts before then (the client left), and with RATE_LIMITED at once when the user's
   * waiting requests already hold too much.
   */
  acquire(userId: string, opts?: { bytes?: number; signal?: AbortSignal }): Promise<() => void>;
}

/** Server-wide slots and one user's share: a single user can never take more than a quarter of them. */
export const BULK_SLOTS = 8;
export const BULK_SLOTS_PER_USER = 2;
/** Manifest bytes one user's waiting requests may hold: four of the largest manifests, hundreds of usual ones. */
export const BULK_WAITING_BYTES_PER_USER = 4 * 1024 * 1024;
/** A slot frees up when a request finishes: small batches take about a second. */
const RETRY_AFTER_SECONDS = 2;

interface Waiter {
  userId: string;
  bytes: number;
  admit: () => void;
}

export function createBulkGate(opts: { slots?: number; perUser?: number; waitingBytesPerUser?: number } = {}): BulkGate {
  const slots = opts.slots ?? BULK_SLOTS;
  const perUser = opts.perUser ?? BULK_SLOTS_PER_USER;
  const waitingBytesPerUser = opts.waitingBytesPerUser ?? BULK_WAITING_BYTES_PER_USER;
  let active = 0;
  const held = new Map<string, number>();
  const waiting: Waiter[] = [];
  const queuedBytes = (userId: string) => waiting.reduce((n, w) => (w.userId === userId ? n + w.bytes : n), 0);

  const mayEnter = (userId: string) => active < slots && (held.get(userId) ?? 0) < perUser;

  function take(userId: string): () => void {
    active++;
    held.set(userId, (held.get(userId) ?? 0) + 1);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      active--;
      const n = held.get(userId)! - 1;
      if (n === 0) held.delete(userId);
      else held.set(userId, n);
      admitWaiting();
    };
  }

  /** First come, first served among the waiters whose user is under their share: others are passed over. */
  function admitWaiting(): void {
    for (let i = 0; i < waiting.length && active < slots;) {
      const w = waiting[i]!;
      if (mayEnter(w.userId)) {
        waiting.splice(i, 1);
        w.admit();
      } else i++;
    }
  }

  return {
    acquire(userId, { bytes = 0, signal } = {}) {
      if (signal?.aborted) return Promise.reject(signal.reason);
      // No waiter can enter while a slot is free (each release admits them), so a caller who may enter goes first.
      if (mayEnter(userId)) return Promise.resolve(take(userId));
      const queued = queuedBytes(userId);
      // One request alone always may wait, however large its manifest.
      if (queued > 0 && queued + bytes > waitingBytesPerUser) {
        return Promise.reject(
          new AppError('RATE_LIMITED', 'too many bulk uploads of this user are waiting to be received; send fewer at once', {
            retryAfterSeconds: RETRY_AFTER_SECONDS,
          }),
        );
      }
      return new Promise((resolve, reject) => {
        const onAbort = () => {
          const at = waiting.indexOf(w);
          if (at >= 0) waiting.splice(at, 1);
          reject(signal!.reason);
        };
        const w: Waiter = {
          userId,
          bytes,
          admit: () => {
            signal?.removeEventListener('abort', onAbort);
            resolve(take(userId));
          },
        };
        waiting.push(w);
        signal?.addEventListener('abort', onAbort, { once: true });
      });
    },
  };
}
