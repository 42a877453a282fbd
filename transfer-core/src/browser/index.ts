// @hcs/transfer-core/browser: the engine with browser adapters. Same exported names as ./node.
import { createFetchTransport } from '../core/fetch-transport.ts';
import type { EngineDeps } from '../core/engine-options.ts';
import type { ControlPlane, ResumeStore } from '../ports/index.ts';
import { createHasherFactory } from './hasher.ts';

export * from '../core/index.ts';
export { createFileSource } from './file-source.ts';
export { createHasherFactory } from './hasher.ts';
export { createResumeStore } from './resume-store.ts';
export { createDownloadSinkFactory, canWriteFiles } from './download-sink.ts';
export { createFetchTransport as createTransport } from '../core/fetch-transport.ts';

/** EngineDeps with the browser defaults (Worker hashing, fetch). */
export function createEngineDeps(opts: { controlPlane: ControlPlane; resumeStore: ResumeStore } & Partial<EngineDeps>): EngineDeps {
  return { transport: createFetchTransport(), hasherFactory: createHasherFactory(), ...opts };
}
