// @hcs/transfer-core/node: the engine with Node adapters. Same exported names as ./browser.
import { createHttpTransport } from './http-transport.ts';
import type { EngineDeps } from '../core/engine-options.ts';
import type { ControlPlane, ResumeStore } from '../ports/index.ts';
import { createNodeHasherFactory } from './hasher.ts';

export * from '../core/index.ts';
export { openFileSource as createFileSource } from './file-source.ts';
export { createNodeHasherFactory as createHasherFactory } from './hasher.ts';
export { createFileResumeStore as createResumeStore } from './resume-store.ts';
export { createFileSinkFactory as createDownloadSinkFactory, canWriteFiles } from './download-sink.ts';
export { createHttpTransport as createTransport } from './http-transport.ts';

/** EngineDeps with the Node defaults (node:crypto hashing, node:http keep-alive transport). */
export function createEngineDeps(opts: { controlPlane: ControlPlane; resumeStore: ResumeStore } & Partial<EngineDeps>): EngineDeps {
  return { transport: createHttpTransport(), hasherFactory: createNodeHasherFactory(), ...opts };
}
