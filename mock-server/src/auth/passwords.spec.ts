import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { mkdtempSync, rmSync, statSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { webcrypto } from 'node:crypto';
import {
  hashPassword,
  verifyPassword,
  passwordStrength,
  assertPasswordPolicy,
  generatePassword,
  loadPasswordKeys,
  passwordScryptN,
  scryptCostOf,
  setPasswordScryptN,
  DEFAULT_SCRYPT_N,
} from './passwords.ts';
import { loadConfig } from '../config.ts';
import { encryptPassword, toWireBase64 as toWire, fromWireBase64 as fromWire } from '@hcs/openapi/client';
import type { AppError } from '../http/errors.ts';

describe('password hashing', () => {
  it('stores scrypt with its parameters and verifies only the right password', async () => {
    const h = await hashPassword('Correct-horse-9');
    expect(h).toMatch(/^scrypt\$32768\$8\$1\$[A-Za-z0-9_-]+\$[A-Za-z0-9_-]+$/);
    expect(h).not.toContain('Correct-horse-9');
    expect(await verifyPassword('Correct-horse-9', h)).toBe(true);
    expect(await verifyPassword('correct-horse-9', h)).toBe(false);
    expect(await verifyPassword('', h)).toBe(false);
  });

  it('salts every hash', async () => {
    expect(await hashPassword('Same-password-1')).not.toBe(await hashPassword('Same-password-1'));
  });

  it('refuses malformed or hostile stored hashes without throwing', async () => {
    expect(await verifyPassword('x', 'plain')).toBe(false);
    expect(await verifyPassword('x', 'scrypt$1$8$1$c2FsdHNhbHQ$aGFzaGhhc2hoYXNoaGFzaA')).toBe(false);
    // A cost far above the ceiling would let a tampered row pin the CPU and memory.
    expect(await verifyPassword('x', 'scrypt$1073741824$8$1$c2FsdHNhbHQ$aGFzaGhhc2hoYXNoaGFzaA')).toBe(false);
  });
});

describe('password hashing cost (HCS_PASSWORD_SCRYPT_N)', () => {
  it('hashes at the configured cost, and a hash of any allowed cost verifies whatever is configured', async () => {
    expect(passwordScryptN()).toBe(DEFAULT_SCRYPT_N);
    try {
      setPasswordScryptN(1024);
      const cheap = await hashPassword('Correct-horse-9');
      expect(scryptCostOf(cheap)).toBe(1024);
      setPasswordScryptN(DEFAULT_SCRYPT_N);
      expect(scryptCostOf(await hashPassword('Correct-horse-9'))).toBe(32768);
      expect(await verifyPassword('Correct-horse-9', cheap)).toBe(true);
      expect(await verifyPassword('Correct-horse-8', cheap)).toBe(false);
    } finally {
      setPasswordScryptN(DEFAULT_SCRYPT_N);
    }
    expect(scryptCostOf('plain')).toBeUndefined();
  });

  it('accepts only powers of two from 1024 to 2^20, from the environment and in the process', () => {
    expect(loadConfig({}).passwordScryptN).toBe(32768);
    expect(loadConfig({ HCS_PASSWORD_SCRYPT_N: '1024' }).passwordScryptN).toBe(1024);
    expect(loadConfig({ HCS_PASSWORD_SCRYPT_N: '1048576' }).passwordScryptN).toBe(1048576);
    for (const bad of ['512', '3000', '2097152', '-1024', 'x', '1024.5']) {
      expect(() => loadConfig({ HCS_PASSWORD_SCRYPT_N: bad }), bad).toThrow(/HCS_PASSWORD_SCRYPT_N|invalid number/);
      if (Number.isFinite(Number(bad))) expect(() => setPasswordScryptN(Number(bad)), bad).toThrow(/invalid scrypt cost/);
    }
    expect(passwordScryptN()).toBe(DEFAULT_SCRYPT_N);
  });
});

describe('password policy (spec 5)', () => {
  it('scores one point per character class', () => {
    expect(passwordStrength('abcdefgh')).toBe(1);
    expect(passwordStrength('abcdEFGH')).toBe(2);
    expect(passwordStrength('abcdEF12')).toBe(3);
    expect(passwordStrength('abcdEF1!')).toBe(4);
    expect(passwordStrength('abcdEF1!密')).toBe(5);
  });

  it('is 0 under 8 characters and for the user name or its reverse', () => {
    expect(passwordStrength('aB1!aB1')).toBe(0);
    expect(passwordStrength('Alice-2024', 'alice-2024')).toBe(0);
    expect(passwordStrength('4202-ecilA', 'alice-2024')).toBe(0);
    expect(passwordStrength('Alice-2024', 'bob')).toBe(4);
  });

  it('rejects short, weak and name-equal passwords with PASSWORD_POLICY', () => {
    const code = (pw: string, name = 'bob') => {
      try {
        assertPasswordPolicy(pw, name);
        return 'ok';
      } catch (e) {
        return (e as AppError).code + ':' + (e as AppError).fields?.[0]?.message;
      }
    };
    expect(code('Ab1!')).toBe('PASSWORD_POLICY:tooShort');
    expect(code('abcdefghij')).toBe('PASSWORD_POLICY:tooWeak');
    expect(code('Bobbybob1', 'bobbybob1')).toBe('PASSWORD_POLICY:tooWeak');
    expect(code('abc\u0000defGH')).toBe('PASSWORD_POLICY:invalidCharacters');
    expect(code('abcdefgH')).toBe('ok');
  });

  it('generates passwords that pass the policy', () => {
    for (let i = 0; i < 50; i++) {
      const p = generatePassword();
      expect(p.length).toBe(20);
      expect(passwordStrength(p)).toBe(4);
      expect(() => assertPasswordPolicy(p, 'admin')).not.toThrow();
    }
  });
});

describe('password transport (RSA-OAEP-256 with _x/_j/_d)', () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'hcs-keys-'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('maps the Base64 characters both ways', () => {
    expect(toWire('ab/c+d==')).toBe('ab_xc_jd_d_d');
    expect(fromWire('ab_xc_jd_d_d')).toBe('ab/c+d==');
  });

  it('creates the key once (0600) and keeps it across loads', () => {
    const a = loadPasswordKeys(dir);
    const file = join(dir, 'rsa-private.pem');
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(readFileSync(file, 'utf8')).toContain('BEGIN PRIVATE KEY');
    const b = loadPasswordKeys(dir);
    expect(b.publicKeyPem).toBe(a.publicKeyPem);
    expect(a.publicKeyPem).toContain('BEGIN PUBLIC KEY');
  });

  it('decrypts what encryptPassword produces, with non-ASCII text', async () => {
    const k = loadPasswordKeys(dir);
    const wire = await encryptPassword(k.publicKeyPem, 'Pässwörd-密码-1');
    expect(wire).not.toMatch(/[+/=]/);
    expect(k.decryptPassword(wire)).toBe('Pässwörd-密码-1');
  });

  it('decrypts what Web Crypto in a browser produces', async () => {
    const k = loadPasswordKeys(dir);
    const der = Buffer.from(k.publicKeyPem.replace(/-----[^-]+-----|\s/g, ''), 'base64');
    const key = await webcrypto.subtle.importKey('spki', der, { name: 'RSA-OAEP', hash: 'SHA-256' }, false, ['encrypt']);
    const ct = await webcrypto.subtle.encrypt({ name: 'RSA-OAEP' }, key, new TextEncoder().encode('From-the-browser-7'));
    expect(k.decryptPassword(toWire(Buffer.from(ct).toString('base64')))).toBe('From-the-browser-7');
  });

  it('refuses plaintext, garbage and tampered ciphertext with BAD_REQUEST naming the field', async () => {
    const k = loadPasswordKeys(dir);
    const wire = await encryptPassword(k.publicKeyPem, 'Secret-pass-1');
    const tampered = (wire[10] === 'A' ? 'B' : 'A') + wire.slice(1, 10) + (wire[10] === 'A' ? 'B' : 'A') + wire.slice(11);
    for (const bad of ['Secret-pass-1', '', '!!!', Buffer.alloc(256).toString('base64'), tampered]) {
      try {
        k.decryptPassword(bad, 'oldPassword');
        expect.unreachable(`accepted ${bad}`);
      } catch (e) {
        expect((e as AppError).code).toBe('BAD_REQUEST');
        expect((e as AppError).fields?.[0]?.field).toBe('oldPassword');
        expect((e as AppError).message).not.toContain('Secret-pass-1');
      }
    }
  });
});
