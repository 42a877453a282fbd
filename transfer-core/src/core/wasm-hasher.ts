import { createSHA256 } from 'hash-wasm';
import type { Hasher, HasherFactory } from '../ports/index.ts';

/**
 * SHA-256 in WebAssembly (hash-wasm) on the calling thread, with save()/load() checkpoints. Runtime-neutral: the
 * browser runs it inside a Worker (browser/hash-worker.ts); Node uses it to resume a partially hashed file.
 * The saved state may hold up to one block (64 bytes) of file content: store it as privately as the file.
 */
export function createWasmHasherFactory(): HasherFactory {
  return {
    checkpoints: true,
    async create(state) {
      const h = await createSHA256();
      h.init();
      if (state) h.load(state);
      let done = false;
      const hasher: Hasher = {
        async update(data) {
          h.update(data);
        },
        async digest() {
          done = true;
          return h.digest('hex');
        },
        async save() {
          return done ? undefined : h.save();
        },
        dispose() {
          done = true;
        },
      };
      return hasher;
    },
  };
}
