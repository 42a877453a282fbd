// The part of archiver (untyped) the operation-log export uses.
declare module 'archiver' {
  import type { Readable } from 'node:stream';
  export class ZipArchive extends Readable {
    constructor(opts?: { zlib?: { level?: number }; forceZip64?: boolean });
    append(source: Readable | Buffer | string, data: { name: string }): this;
    finalize(): Promise<void>;
  }
}
