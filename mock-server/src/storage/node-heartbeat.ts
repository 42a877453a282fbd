// Every server process is a node: it writes its row (id, address, site, version) when it starts listening and then
// beats on a timer, so any node can tell which of its peers are live. A failed beat is logged and retried on the
// next tick: a database hiccup must not stop the server, and a node that cannot write is rightly shown down.
import { readFileSync } from 'node:fs';
import type { Db } from '../db/sql/tx.ts';
import { beat } from '../db/storage-repo.ts';

export const SERVER_VERSION: string = (JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }).version;

export interface NodeHeartbeat {
  beatNow(): Promise<void>;
  stop(): void;
}

export function startNodeHeartbeat(
  db: Db,
  node: { id: string; address: string; site: string },
  intervalMs: number,
  onError: (err: unknown) => void,
): NodeHeartbeat {
  const startedAt = Date.now();
  const beatNow = () => beat(db, { id: node.id, address: node.address, site: node.site, version: SERVER_VERSION, started_at: startedAt });
  const timer = setInterval(() => void beatNow().catch(onError), intervalMs);
  timer.unref();
  return { beatNow, stop: () => clearInterval(timer) };
}
