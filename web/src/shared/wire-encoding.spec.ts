// @vitest-environment node
import { describe, expect, it } from 'vitest';
import { generateKeyPairSync, privateDecrypt, constants } from 'node:crypto';
import { decodeWireText, encodeWireText, encryptPassword, fromWireBase64, toWireBase64 } from './wire-encoding.ts';

describe('wire Base64', () => {
  it('replaces / + = with _x _j _d and back', () => {
    expect(toWireBase64('a/b+c==')).toBe('a_xb_jc_d_d');
    expect(fromWireBase64('a_xb_jc_d_d')).toBe('a/b+c==');
  });
  it('round-trips UTF-8 names', () => {
    const name = '季度报告?>/+.docx';
    const wire = encodeWireText(name);
    expect(wire).not.toMatch(/[/+=]/);
    expect(decodeWireText(wire)).toBe(name);
  });
});

describe('encryptPassword', () => {
  it('RSA-OAEP SHA-256 with an SPKI PEM; the server key decrypts it', async () => {
    const { publicKey, privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
    const pem = publicKey.export({ type: 'spki', format: 'pem' }).toString();
    const wire = await encryptPassword('S3cret!pw', pem);
    expect(wire).not.toMatch(/[/+=]/);
    const plain = privateDecrypt(
      { key: privateKey, padding: constants.RSA_PKCS1_OAEP_PADDING, oaepHash: 'sha256' },
      Buffer.from(fromWireBase64(wire), 'base64'),
    );
    expect(plain.toString()).toBe('S3cret!pw');
  });
});
