import type { Clock, ControlPlane, HasherFactory, ResumeStore, Transport } from '../ports/index.ts';

/** What an upload or download needs from its environment; the node and browser entries fill in the defaults. */
export interface EngineDeps {
  controlPlane: ControlPlane;
  transport: Transport;
  hasherFactory: HasherFactory;
  resumeStore: ResumeStore;
  clock?: Clock;
  /** Called on HTTP 401 (e.g. re-login with stored credentials); the request is retried after it, up to 3 times. */
  onUnauthorized?: () => Promise<void>;
  platformId?: string;
  /** Parts in flight per file (spec 9: 3). */
  partConcurrency?: number;
  /** Per part request (spec 9: 900000 ms). */
  partTimeoutMs?: number;
  /** Backoff base of the 500/network retries (default 1000 ms). */
  retryBaseMs?: number;
  /** Caps the server's syncSpeed further (bytes/s), e.g. a CLI --limit-rate. */
  maxBytesPerSecond?: number;
  /** Minimum interval between progress events (default 250 ms). */
  progressIntervalMs?: number;
}
