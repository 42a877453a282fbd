import type { EngineDeps } from '../core/engine-options.ts';
import { createWasmHasherFactory } from '../core/wasm-hasher.ts';
import { FakeClock } from './fake-clock.ts';
import { FakeControlPlane } from './fake-control-plane.ts';
import { FakeS3 } from './fake-s3.ts';
import { MemoryStore } from './memory-store.ts';

export function harness(over: Partial<EngineDeps> = {}) {
  const s3 = new FakeS3();
  const cp = new FakeControlPlane(s3);
  const store = new MemoryStore();
  const clock = new FakeClock();
  const deps: EngineDeps = { controlPlane: cp, transport: s3, hasherFactory: createWasmHasherFactory(), resumeStore: store, clock, retryBaseMs: 1000, ...over };
  return { s3, cp, store, clock, deps };
}

export const MiB = 1024 * 1024;
