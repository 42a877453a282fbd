// The few parts of these untyped packages the benchmarks use.
declare module 'autocannon' {
  interface Result {
    requests: { average: number };
    latency: { p50: number; p99: number };
  }
  function autocannon(opts: { url: string; connections: number; duration: number; headers?: Record<string, string> }): Promise<Result>;
  export default autocannon;
}
declare module 'archiver' {
  import type { Readable } from 'node:stream';
  interface Archiver extends Readable {
    file(path: string, data: { name: string }): this;
    finalize(): Promise<void>;
  }
  export class ZipArchive extends Readable implements Archiver {
    constructor(opts: { store?: boolean; forceZip64?: boolean });
    file(path: string, data: { name: string }): this;
    finalize(): Promise<void>;
  }
}
