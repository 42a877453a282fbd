// OpenID Connect single sign-on with openid-client: authorization code with PKCE (S256), state and nonce kept in
// the database, ID-token validation (signature, issuer, audience, expiry, nonce) by openid-client, and userinfo.
import type * as OpenidClient from 'openid-client';
import type { Configuration } from 'openid-client';
import { isIP } from 'node:net';
import type { AppContext } from '../context.ts';
import { open } from './secret-box.ts';
import type { OidcClaimNames, OidcProviderRow } from '../db/identity-repo.ts';

/** Discovery results are kept this long per provider version. */
const DISCOVERY_TTL_MS = 10 * 60_000;

function loopback(url: URL): boolean {
  const host = url.hostname.replace(/^\[|\]$/g, '');
  return host === 'localhost' || (isIP(host) !== 0 && (host.startsWith('127.') || host === '::1'));
}

export interface OidcClient {
  config(p: OidcProviderRow): Promise<Configuration>;
}

let lib: Promise<typeof OpenidClient> | undefined;
/** openid-client (about 6 MiB resident) loads with the first single sign-on, not at the server's start. */
export const loadOpenidClient = (): Promise<typeof OpenidClient> => (lib ??= import('openid-client'));

const clients = new WeakMap<AppContext, OidcClient>();

/** The server instance's client (one discovery cache per instance). */
export function oidcClientOf(ctx: AppContext): OidcClient {
  let c = clients.get(ctx);
  if (!c) {
    c = createOidcClient(ctx);
    clients.set(ctx, c);
  }
  return c;
}

function createOidcClient(ctx: AppContext): OidcClient {
  const cache = new Map<string, { at: number; version: number; config: Promise<Configuration> }>();
  return {
    config(p) {
      const hit = cache.get(p.id);
      const now = Date.now();
      if (hit && hit.version === p.updatedAt && now - hit.at < DISCOVERY_TTL_MS) return hit.config;
      const issuer = new URL(p.issuer);
      const secret = open(ctx.secret, p.clientSecretSealed);
      // Plain http only to a provider on this machine (development and the test suite); anything else must be https.
      const insecure = issuer.protocol === 'http:' && loopback(issuer);
      // openid-client trusts the TLS channel for an ID token from the token endpoint (OIDC Core 3.1.3.7 allows it)
      // and does not check its signature; the signature is checked here too, against the provider's JWKS.
      const config = loadOpenidClient().then((oidc) =>
        oidc.discovery(issuer, p.clientId, secret === '' ? undefined : secret, secret === '' ? oidc.None() : oidc.ClientSecretBasic(secret), {
          execute: insecure ? [oidc.allowInsecureRequests, oidc.enableNonRepudiationChecks] : [oidc.enableNonRepudiationChecks],
          timeout: 10,
        }),
      );
      config.catch(() => cache.delete(p.id));
      cache.set(p.id, { at: now, version: p.updatedAt, config });
      return config;
    },
  };
}

/** A claim's value as text ('' when absent); arrays and objects are not text. */
export function claimText(claims: Record<string, unknown>, name: string): string {
  const v = claims[name];
  return typeof v === 'string' ? v.trim() : typeof v === 'number' ? String(v) : '';
}

/** The department path a claim names: 'A/B' or ['A', 'B']. */
export function claimDeptPath(claims: Record<string, unknown>, names: OidcClaimNames): string[] {
  const v = claims[names.department];
  const parts = Array.isArray(v) ? v.map(String) : typeof v === 'string' ? v.split('/') : [];
  return parts.map((s) => s.trim()).filter((s) => s !== '').slice(0, 16);
}

export function claimGroups(claims: Record<string, unknown>, names: OidcClaimNames): string[] {
  const v = claims[names.groups];
  return Array.isArray(v) ? v.map(String) : typeof v === 'string' ? [v] : [];
}
