// Seals secrets the identity settings keep (OIDC client secrets, the LDAP bind password) with a key derived from
// the server secret, which every node on one database shares. AES-256-GCM: a changed ciphertext fails to open
// instead of yielding a wrong password.
import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';

const PREFIX = 'v1:';

function keyOf(secret: Buffer): Buffer {
  return Buffer.from(hkdfSync('sha256', secret, Buffer.alloc(0), 'hcs-identity-secrets', 32));
}

export function seal(secret: Buffer, plain: string): string {
  if (plain === '') return '';
  const iv = randomBytes(12);
  const c = createCipheriv('aes-256-gcm', keyOf(secret), iv);
  const body = Buffer.concat([c.update(plain, 'utf8'), c.final()]);
  return PREFIX + Buffer.concat([iv, c.getAuthTag(), body]).toString('base64url');
}

export function open(secret: Buffer, sealed: string): string {
  if (sealed === '') return '';
  if (!sealed.startsWith(PREFIX)) throw new Error('an identity secret is not in the sealed format');
  const raw = Buffer.from(sealed.slice(PREFIX.length), 'base64url');
  const d = createDecipheriv('aes-256-gcm', keyOf(secret), raw.subarray(0, 12));
  d.setAuthTag(raw.subarray(12, 28));
  return Buffer.concat([d.update(raw.subarray(28)), d.final()]).toString('utf8');
}
