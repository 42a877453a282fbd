// Password storage, the spec's password policy, and the RSA key clients encrypt passwords with before sending.
// A plaintext password only ever lives in a local variable here: never logged, never stored, never returned.
import {
  scrypt as scryptCb,
  randomBytes,
  randomInt,
  timingSafeEqual,
  generateKeyPairSync,
  createPrivateKey,
  createPublicKey,
  privateDecrypt,
  constants,
  type KeyObject,
  type ScryptOptions,
} from 'node:crypto';
import { existsSync, readFileSync, writeFileSync, chmodSync, renameSync } from 'node:fs';
import { join } from 'node:path';
import { fromWireBase64 } from '@hcs/openapi/client';
import { AppError } from '../http/errors.ts';

// ---------------------------------------------------------------------------------------------------------
// Hashing

const SCRYPT = { N: 2 ** 15, r: 8, p: 1, keyLen: 32, saltLen: 16 };
/** The cost new hashes get unless HCS_PASSWORD_SCRYPT_N says otherwise: about 0.1-0.2 s of one core. */
export const DEFAULT_SCRYPT_N = SCRYPT.N;
/** The cheapest cost HCS_PASSWORD_SCRYPT_N may set (test servers use it: a sign-in there is about 1 ms). */
export const MIN_SCRYPT_N = 2 ** 10;
/** Absolute ceiling on a stored cost, so a tampered hash row cannot make verification eat the machine. */
export const MAX_N = 2 ** 20;

/**
 * The cost (scrypt's N) of the hashes this process writes, set from HCS_PASSWORD_SCRYPT_N when the server is built
 * (config.ts bounds it). One process serves one configuration; a stored hash names its own cost, so changing this
 * never stops an account signing in, and a sign-in upgrades a cheaper hash to it (auth/index.ts).
 */
let scryptN = SCRYPT.N;
/** A cost HCS_PASSWORD_SCRYPT_N may set: a power of two from MIN_SCRYPT_N to MAX_N. */
export const isScryptCost = (n: number): boolean => Number.isInteger(n) && n >= MIN_SCRYPT_N && n <= MAX_N && (n & (n - 1)) === 0;
export function setPasswordScryptN(n: number): void {
  if (!isScryptCost(n)) throw new Error(`invalid scrypt cost: ${n}`);
  if (n !== scryptN) dummyHash = undefined;
  scryptN = n;
}
export const passwordScryptN = (): number => scryptN;

/** The cost a stored hash was made with, or undefined when it is not one of ours. */
export function scryptCostOf(stored: string): number | undefined {
  const parts = stored.split('$');
  if (parts.length !== 6 || parts[0] !== 'scrypt') return undefined;
  const n = Number(parts[1]);
  return Number.isInteger(n) ? n : undefined;
}

function scrypt(password: string, salt: Buffer, keyLen: number, opts: ScryptOptions): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    scryptCb(password.normalize('NFC'), salt, keyLen, opts, (err, key) => (err ? reject(err) : resolve(key)));
  });
}

/** scrypt needs 128*N*r bytes; Node's default maxmem (32 MiB) is exactly that for N=2^15, so give headroom. */
function maxmem(N: number, r: number): number {
  return 128 * N * r * 2;
}

/** `scrypt$N$r$p$salt$hash` with base64url salt and hash. */
export async function hashPassword(password: string, N = scryptN): Promise<string> {
  const { r, p, keyLen, saltLen } = SCRYPT;
  const salt = randomBytes(saltLen);
  const key = await scrypt(password, salt, keyLen, { N, r, p, maxmem: maxmem(N, r) });
  return `scrypt$${N}$${r}$${p}$${salt.toString('base64url')}$${key.toString('base64url')}`;
}

/** Constant-time check; false (never a throw) for a malformed stored hash. */
export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const parts = stored.split('$');
  if (parts.length !== 6 || parts[0] !== 'scrypt') return false;
  const N = Number(parts[1]);
  const r = Number(parts[2]);
  const p = Number(parts[3]);
  if (![N, r, p].every(Number.isInteger) || N < 2 || N > MAX_N || (N & (N - 1)) !== 0 || r < 1 || r > 32 || p < 1 || p > 16) {
    return false;
  }
  const salt = Buffer.from(parts[4] ?? '', 'base64url');
  const expected = Buffer.from(parts[5] ?? '', 'base64url');
  if (salt.length < 8 || expected.length < 16) return false;
  const actual = await scrypt(password, salt, expected.length, { N, r, p, maxmem: maxmem(N, r) });
  return timingSafeEqual(actual, expected);
}

let dummyHash: Promise<string> | undefined;
/**
 * A hash to verify against when the account does not exist, so a sign-in for an unknown name costs the
 * same time as one with a wrong password and timing does not reveal which accounts exist.
 */
export function dummyPasswordHash(): Promise<string> {
  dummyHash ??= hashPassword(randomBytes(18).toString('base64url'));
  return dummyHash;
}

// ---------------------------------------------------------------------------------------------------------
// Policy (spec section 5)

export const PASSWORD_MIN_LENGTH = 8;
/** Upper bound so nobody makes the server scrypt megabytes. */
export const PASSWORD_MAX_LENGTH = 256;
export const PASSWORD_MIN_STRENGTH = 2;

/**
 * The spec's strength score: one point per character class present (lowercase, uppercase, digit, ASCII
 * symbol, anything else), forced to 0 when shorter than 8 or equal to the user name or its reverse.
 */
export function passwordStrength(password: string, userName = ''): number {
  const chars = Array.from(password);
  if (chars.length < PASSWORD_MIN_LENGTH) return 0;
  if (userName) {
    const lower = password.toLowerCase();
    const name = userName.toLowerCase();
    if (lower === name || lower === Array.from(name).reverse().join('')) return 0;
  }
  let lowerCase = false;
  let upperCase = false;
  let digit = false;
  let symbol = false;
  let other = false;
  for (const c of chars) {
    if (c >= 'a' && c <= 'z') lowerCase = true;
    else if (c >= 'A' && c <= 'Z') upperCase = true;
    else if (c >= '0' && c <= '9') digit = true;
    else if (c.charCodeAt(0) >= 0x21 && c.charCodeAt(0) <= 0x7e) symbol = true;
    else other = true;
  }
  return [lowerCase, upperCase, digit, symbol, other].filter(Boolean).length;
}

/** Throws PASSWORD_POLICY with the reason; the message names the rule, never the password. */
export function assertPasswordPolicy(password: string, userName: string): void {
  const len = Array.from(password).length;
  if (len < PASSWORD_MIN_LENGTH) {
    throw new AppError('PASSWORD_POLICY', `the password must have at least ${PASSWORD_MIN_LENGTH} characters`, {
      fields: [{ field: 'newPassword', message: 'tooShort' }],
    });
  }
  if (len > PASSWORD_MAX_LENGTH) {
    throw new AppError('PASSWORD_POLICY', `the password must have at most ${PASSWORD_MAX_LENGTH} characters`, {
      fields: [{ field: 'newPassword', message: 'tooLong' }],
    });
  }
  if (hasControlCharacters(password)) {
    throw new AppError('PASSWORD_POLICY', 'the password must not contain control characters', {
      fields: [{ field: 'newPassword', message: 'invalidCharacters' }],
    });
  }
  if (passwordStrength(password, userName) < PASSWORD_MIN_STRENGTH) {
    throw new AppError(
      'PASSWORD_POLICY',
      'the password is too weak: combine at least two of lowercase letters, uppercase letters, digits and symbols, and do not use the user name',
      { fields: [{ field: 'newPassword', message: 'tooWeak' }] },
    );
  }
}

/** C0 controls and DEL: refused in passwords when set and at sign-in. */
export function hasControlCharacters(password: string): boolean {
  return /[\u0000-\u001f\u007f]/.test(password);
}

const ALPHABETS = ['abcdefghijkmnopqrstuvwxyz', 'ABCDEFGHJKLMNPQRSTUVWXYZ', '23456789', '-_.!@#%+='];

/** A random password meeting the policy (every class present), without look-alike characters. */
export function generatePassword(length = 20): string {
  const all = ALPHABETS.join('');
  const chars = ALPHABETS.map((a) => a[randomInt(a.length)] as string);
  while (chars.length < length) chars.push(all[randomInt(all.length)] as string);
  for (let i = chars.length - 1; i > 0; i--) {
    const j = randomInt(i + 1);
    [chars[i], chars[j]] = [chars[j] as string, chars[i] as string];
  }
  return chars.join('');
}

// ---------------------------------------------------------------------------------------------------------
// Transport encryption: RSA-OAEP (SHA-256), Base64 with the spec's `_x/_j/_d` replacements. Clients encrypt with
// encryptPassword from @hcs/openapi/client (Web Crypto); the wire Base64 helpers live there too.

export interface PasswordKeys {
  /** SPKI PEM handed out by platformInfo. */
  publicKeyPem: string;
  /** Reverses the wire encoding and decrypts; BAD_REQUEST on anything that is not a valid ciphertext. */
  decryptPassword(wire: string, field?: string): string;
}

const KEY_FILE = 'rsa-private.pem';

/** Loads the server's RSA key pair from the data dir, creating it (0600) on first start. */
export function loadPasswordKeys(dataDir: string): PasswordKeys {
  const file = join(dataDir, KEY_FILE);
  let privateKey: KeyObject;
  if (existsSync(file)) {
    privateKey = createPrivateKey(readFileSync(file, 'utf8'));
    chmodSync(file, 0o600);
  } else {
    const pair = generateKeyPairSync('rsa', { modulusLength: 2048 });
    privateKey = pair.privateKey;
    // Write then rename, so a crash never leaves a truncated key that would lock everyone out.
    const tmp = `${file}.${process.pid}.tmp`;
    writeFileSync(tmp, privateKey.export({ type: 'pkcs8', format: 'pem' }), { mode: 0o600 });
    renameSync(tmp, file);
  }
  const publicKeyPem = createPublicKey(privateKey).export({ type: 'spki', format: 'pem' }).toString();
  return {
    publicKeyPem,
    decryptPassword(wire: string, field = 'password'): string {
      const bad = () =>
        new AppError('BAD_REQUEST', `${field} must be encrypted with the public key from services/System/platformInfo (RSA-OAEP-256)`, {
          fields: [{ field, message: 'notEncrypted' }],
        });
      const b64 = fromWireBase64(wire.trim());
      if (!/^[A-Za-z0-9+/]+={0,2}$/.test(b64)) throw bad();
      const ct = Buffer.from(b64, 'base64');
      if (ct.length !== 256) throw bad();
      try {
        return privateDecrypt({ key: privateKey, padding: constants.RSA_PKCS1_OAEP_PADDING, oaepHash: 'sha256' }, ct).toString('utf8');
      } catch {
        throw bad();
      }
    },
  };
}
