// @hcs/transfer-core/node: the engine with Node adapters. Same exported names as ./browser.
import { createFetchTransport } from '../core/fetch-transport.ts';
import type { EngineDeps } from '../core/engine-options.ts';
import type { ControlPlane, ResumeStore } from '../ports/index.ts';
import { createNodeHasherFactory } from './hasher.ts';

export * from '../core/index.ts';
export { openFileSource as createFileSource } from './file-source.ts';
export { createNodeHasherFactory as createHasherFactory } from './hasher.ts';
export { createFileResumeStore as createResumeStore } from './resume-store.ts';
export { createFileSinkFactory as createDownloadSinkFactory, canWriteFiles } from './download-sink.ts';
export { createFetchTransport as createTransport } from '../core/fetch-transport.ts';

/** EngineDeps with the Node defaults (node:crypto hashing, global fetch). */
export function createEngineDeps(opts: { controlPlane: ControlPlane; resumeStore: ResumeStore } & Partial<EngineDeps>): EngineDeps {
  return { transport: createFetchTransport(), hasherFactory: createNodeHasherFactory(), ...opts };
}
