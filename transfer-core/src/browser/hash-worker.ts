/// <reference lib="webworker" />
// The Web Worker side of the browser hasher: hash-wasm SHA-256 off the main thread, one hasher per id.
import { createSHA256, type IHasher } from 'hash-wasm';

export type HashRequest =
  | { id: number; op: 'create'; hasher: number; state?: Uint8Array }
  | { id: number; op: 'update'; hasher: number; data: Uint8Array }
  | { id: number; op: 'digest'; hasher: number }
  | { id: number; op: 'save'; hasher: number }
  | { id: number; op: 'dispose'; hasher: number };

export type HashResponse = { id: number; ok: true; value?: string | Uint8Array } | { id: number; ok: false; error: string };

const hashers = new Map<number, IHasher>();
const scope = globalThis as unknown as DedicatedWorkerGlobalScope;

scope.onmessage = async (ev: MessageEvent<HashRequest>) => {
  const req = ev.data;
  try {
    let value: string | Uint8Array | undefined;
    if (req.op === 'create') {
      const h = await createSHA256();
      h.init();
      if (req.state) h.load(req.state);
      hashers.set(req.hasher, h);
    } else {
      const h = hashers.get(req.hasher);
      if (!h) throw new Error('unknown hasher');
      if (req.op === 'update') h.update(req.data);
      else if (req.op === 'digest') {
        value = h.digest('hex');
        hashers.delete(req.hasher);
      } else if (req.op === 'save') value = h.save();
      else hashers.delete(req.hasher);
    }
    scope.postMessage({ id: req.id, ok: true, value } satisfies HashResponse);
  } catch (err) {
    scope.postMessage({ id: req.id, ok: false, error: err instanceof Error ? err.message : String(err) } satisfies HashResponse);
  }
};
