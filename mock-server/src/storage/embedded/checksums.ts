// Incremental checksums for the integrity headers S3 clients may send: Content-MD5 and the
// x-amz-checksum-* family (as headers or as aws-chunked trailers). All values are base64.
import { createHash, type Hash } from 'node:crypto';
import { crc32 } from 'node:zlib';

export interface Checksum {
  update(chunk: Buffer): void;
  digestBase64(): string;
}

class HashChecksum implements Checksum {
  private readonly hash: Hash;
  constructor(algorithm: string) {
    this.hash = createHash(algorithm);
  }
  update(chunk: Buffer): void {
    this.hash.update(chunk);
  }
  digestBase64(): string {
    return this.hash.digest('base64');
  }
}

function uint32Base64(value: number): string {
  const out = Buffer.alloc(4);
  out.writeUInt32BE(value >>> 0);
  return out.toString('base64');
}

class Crc32Checksum implements Checksum {
  private value = 0;
  update(chunk: Buffer): void {
    this.value = crc32(chunk, this.value);
  }
  digestBase64(): string {
    return uint32Base64(this.value);
  }
}

let crc32cTable: Uint32Array | undefined;

function crc32cLookup(): Uint32Array {
  if (crc32cTable) return crc32cTable;
  crc32cTable = new Uint32Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0x82f63b78 ^ (c >>> 1) : c >>> 1;
    crc32cTable[n] = c >>> 0;
  }
  return crc32cTable;
}

class Crc32cChecksum implements Checksum {
  private value = 0xffffffff;
  private readonly table = crc32cLookup();
  update(chunk: Buffer): void {
    let c = this.value;
    for (let i = 0; i < chunk.length; i++) c = this.table[(c ^ chunk[i]!) & 0xff]! ^ (c >>> 8);
    this.value = c;
  }
  digestBase64(): string {
    return uint32Base64(this.value ^ 0xffffffff);
  }
}

/** Algorithms whose value the store recomputes; others (crc64nvme) are accepted unchecked. */
export const VERIFIABLE_ALGORITHMS = ['crc32', 'crc32c', 'sha1', 'sha256'] as const;
export type ChecksumAlgorithm = (typeof VERIFIABLE_ALGORITHMS)[number];

export function isVerifiable(algorithm: string): algorithm is ChecksumAlgorithm {
  return (VERIFIABLE_ALGORITHMS as readonly string[]).includes(algorithm);
}

export function createChecksum(algorithm: ChecksumAlgorithm | 'md5'): Checksum {
  switch (algorithm) {
    case 'crc32': return new Crc32Checksum();
    case 'crc32c': return new Crc32cChecksum();
    default: return new HashChecksum(algorithm);
  }
}
