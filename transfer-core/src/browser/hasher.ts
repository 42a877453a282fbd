import type { Hasher, HasherFactory } from '../ports/index.ts';
import type { HashRequest, HashResponse } from './hash-worker.ts';

type Req = HashRequest extends infer R ? (R extends HashRequest ? Omit<R, 'id'> : never) : never;

/**
 * Hashing in a Web Worker (hash-wasm), so 20 MiB chunks never block the UI. The default factory's literal
 * `new Worker(new URL('./hash-worker.ts', import.meta.url), { type: 'module' })` is what bundlers look for: Vite
 * emits the worker as its own asset (web: dist/assets/hash-worker-*.js, loaded under the server's CSP
 * `script-src 'self' 'wasm-unsafe-eval'; worker-src 'self' blob:`). Pass `makeWorker` only to supply another worker.
 * Chunks are transferred (not copied) to the worker; the caller must not reuse a buffer after update().
 * One worker serves all hashers of the factory; messages are answered in order.
 */
export function createHasherFactory(makeWorker: () => Worker = defaultWorker): HasherFactory {
  let worker: Worker | undefined;
  let seq = 0;
  let hasherSeq = 0;
  const pending = new Map<number, { resolve: (v: unknown) => void; reject: (e: Error) => void }>();

  function call(req: Req, transfer: Transferable[] = []): Promise<unknown> {
    if (!worker) {
      worker = makeWorker();
      worker.onmessage = (ev: MessageEvent<HashResponse>) => {
        const p = pending.get(ev.data.id);
        pending.delete(ev.data.id);
        if (!p) return;
        if (ev.data.ok) p.resolve(ev.data.value);
        else p.reject(new Error(ev.data.error));
      };
      worker.onerror = (ev) => {
        for (const p of pending.values()) p.reject(new Error(`hash worker failed: ${ev.message}`));
        pending.clear();
        worker?.terminate();
        worker = undefined;
      };
    }
    const id = ++seq;
    return new Promise((resolve, reject) => {
      pending.set(id, { resolve, reject });
      worker!.postMessage({ ...req, id }, transfer);
    });
  }

  return {
    checkpoints: true,
    async create(state) {
      const hasher = ++hasherSeq;
      await call({ op: 'create', hasher, state });
      const h: Hasher = {
        async update(data) {
          // Transfer when the view covers its whole buffer (fresh Blob reads do); otherwise copy.
          const whole = data.byteOffset === 0 && data.byteLength === data.buffer.byteLength && data.buffer instanceof ArrayBuffer;
          await call({ op: 'update', hasher, data }, whole ? [data.buffer as ArrayBuffer] : []);
        },
        digest: async () => (await call({ op: 'digest', hasher })) as string,
        save: async () => (await call({ op: 'save', hasher })) as Uint8Array,
        dispose() {
          void call({ op: 'dispose', hasher }).catch(() => {});
        },
      };
      return h;
    },
  };
}

function defaultWorker(): Worker {
  return new Worker(new URL('./hash-worker.ts', import.meta.url), { type: 'module' });
}
