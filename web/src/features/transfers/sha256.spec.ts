import { describe, expect, it } from 'vitest';
import { Sha256Js } from './sha256.ts';

async function reference(b: Uint8Array<ArrayBuffer>): Promise<string> {
  return Array.from(new Uint8Array(await crypto.subtle.digest('SHA-256', b)), (x) => x.toString(16).padStart(2, '0')).join('');
}

describe('Sha256Js', () => {
  it('matches WebCrypto for every padding boundary and for uneven update splits', async () => {
    for (const len of [0, 1, 55, 56, 63, 64, 65, 119, 120, 1000, 100_003]) {
      const data = Uint8Array.from({ length: len }, (_, i) => (i * 31 + 7) & 255);
      const h = new Sha256Js();
      for (let i = 0; i < len; i += 37) h.update(data.subarray(i, Math.min(len, i + 37)));
      expect(h.digestHex(), `length ${len}`).toBe(await reference(data));
    }
  });
});
