// Pairing tokens are read only when genuine (the server's tag), whole and unexpired.
import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { issuePairingToken, PAIRING_TTL_MS, readPairingToken } from './agent.ts';

describe('agent pairing tokens', () => {
  const secret = randomBytes(32);
  const now = 1_700_000_000_000;

  it('reads back the user of a genuine token until it expires', () => {
    const { pairingToken, expiresAt } = issuePairingToken(secret, 'user-1', now);
    expect(expiresAt).toBe(now + PAIRING_TTL_MS);
    expect(readPairingToken(secret, pairingToken, now + PAIRING_TTL_MS - 1)).toMatchObject({ u: 'user-1', e: expiresAt });
    expect(readPairingToken(secret, pairingToken, now + PAIRING_TTL_MS)).toBeNull();
  });

  it('refuses tokens of another secret, altered claims, a cut tag and garbage', () => {
    const { pairingToken } = issuePairingToken(secret, 'user-1', now);
    const [payload, tag] = pairingToken.split('.') as [string, string];
    expect(readPairingToken(randomBytes(32), pairingToken, now)).toBeNull();
    const claims = JSON.parse(Buffer.from(payload, 'base64url').toString()) as Record<string, unknown>;
    const other = Buffer.from(JSON.stringify({ ...claims, u: 'admin' })).toString('base64url');
    expect(readPairingToken(secret, `${other}.${tag}`, now)).toBeNull();
    const later = Buffer.from(JSON.stringify({ ...claims, e: now + 10 * PAIRING_TTL_MS })).toString('base64url');
    expect(readPairingToken(secret, `${later}.${tag}`, now + 2 * PAIRING_TTL_MS)).toBeNull();
    expect(readPairingToken(secret, `${payload}.${tag.slice(1)}`, now)).toBeNull();
    for (const junk of ['', '.', 'abc', `${payload}.`, `.${tag}`]) expect(readPairingToken(secret, junk, now)).toBeNull();
  });
});
