// A real OpenID Connect provider for the tests: panva's oidc-provider (OpenID certified), in this process, with a
// static client, fixed accounts and its development login/consent pages. A thin HTTP front in the same process can
// rewrite the ID token the token endpoint answers (re-signed with the provider's own key, or with a stranger's), so
// tests can check that the drive refuses a wrong nonce, audience, signature or an expired token.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomBytes } from 'node:crypto';
import Provider from 'oidc-provider';
import { SignJWT, decodeJwt, exportJWK, generateKeyPair, type JWTPayload } from 'jose';

export interface TestAccount {
  preferred_username: string;
  name: string;
  email: string;
  department?: string;
  groups?: string[];
}

export type IdTokenTamper = (payload: JWTPayload) => { payload: JWTPayload; foreignKey?: boolean };

export interface TestProvider {
  issuer: string;
  clientId: string;
  clientSecret: string;
  /** Rewrites the next ID tokens (null: leave them alone). */
  tamper(fn: IdTokenTamper | null): void;
  close(): Promise<void>;
}

const KID = 'test-key';

export async function startOidcProvider(opts: { redirectUris: string[]; postLogoutRedirectUris: string[]; accounts: Record<string, TestAccount> }): Promise<TestProvider> {
  const { privateKey } = await generateKeyPair('RS256', { extractable: true });
  const stranger = (await generateKeyPair('RS256', { extractable: true })).privateKey;
  const jwk = { ...(await exportJWK(privateKey)), kid: KID, alg: 'RS256', use: 'sig' };
  const clientId = 'hcs-drive';
  const clientSecret = randomBytes(24).toString('base64url');

  const front: Server = createServer();
  await new Promise<void>((r) => front.listen(0, '127.0.0.1', r));
  const issuer = `http://127.0.0.1:${(front.address() as AddressInfo).port}`;

  const provider = new Provider(issuer, {
    clients: [
      {
        client_id: clientId,
        client_secret: clientSecret,
        redirect_uris: opts.redirectUris,
        post_logout_redirect_uris: opts.postLogoutRedirectUris,
        grant_types: ['authorization_code'],
        response_types: ['code'],
        token_endpoint_auth_method: 'client_secret_basic',
      },
    ],
    jwks: { keys: [jwk as never] },
    cookies: { keys: [randomBytes(16).toString('hex')] },
    claims: { openid: ['sub'], profile: ['name', 'preferred_username', 'department', 'groups'], email: ['email'] },
    pkce: { required: () => true },
    features: { devInteractions: { enabled: true }, rpInitiatedLogout: { enabled: true } },
    async findAccount(_ctx, id) {
      const a = opts.accounts[id];
      if (!a) return undefined;
      return { accountId: id, claims: async () => ({ sub: id, ...a }) };
    },
  });
  // The tests' own noise: the provider's development-only warnings are expected here.
  provider.on('server_error', (_ctx, err) => console.error('oidc-provider', err));
  const handle = provider.callback();

  let tamper: IdTokenTamper | null = null;
  front.on('request', (req: IncomingMessage, res: ServerResponse) => {
    if (tamper && req.method === 'POST' && req.url?.startsWith('/token')) {
      const fn = tamper;
      const end = res.end.bind(res) as (chunk?: unknown) => ServerResponse;
      (res as { end: unknown }).end = (chunk?: unknown) => {
        void (async () => {
          const body = JSON.parse(Buffer.isBuffer(chunk) ? chunk.toString('utf8') : String(chunk)) as { id_token?: string };
          if (body.id_token) {
            const t = fn(decodeJwt(body.id_token));
            body.id_token = await new SignJWT(t.payload).setProtectedHeader({ alg: 'RS256', kid: KID }).sign(t.foreignKey ? stranger : privateKey);
          }
          const out = JSON.stringify(body);
          res.setHeader('content-length', Buffer.byteLength(out));
          end(out);
        })();
        return res;
      };
    }
    handle(req, res);
  });

  return {
    issuer,
    clientId,
    clientSecret,
    tamper(fn) {
      tamper = fn;
    },
    close: () => new Promise<void>((r) => {
      front.closeAllConnections();
      front.close(() => r());
    }),
  };
}

/** A cookie jar and redirect-following fetch, as a browser would carry the sign-in across the two servers. */
export class Browser {
  readonly cookies = new Map<string, string>();

  async fetch(url: string, init: RequestInit = {}): Promise<Response> {
    const headers = new Headers(init.headers);
    if (this.cookies.size > 0) headers.set('cookie', [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; '));
    const res = await fetch(url, { ...init, headers, redirect: 'manual' });
    for (const c of res.headers.getSetCookie()) {
      const [pair] = c.split(';');
      const eq = pair!.indexOf('=');
      const name = pair!.slice(0, eq).trim();
      const value = pair!.slice(eq + 1).trim();
      if (value === '' || /expires=Thu, 01 Jan 1970/i.test(c) || /max-age=0/i.test(c)) this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
    return res;
  }

  /**
   * Follows redirects from `url` until one leaves for `stopAt` (a URL prefix) or a page answers; the provider's login
   * and consent forms are filled in for `accountId`. Answers the last response and the URL it came from.
   */
  async signIn(url: string, accountId: string, stopAt: string): Promise<{ url: string; res: Response }> {
    let current = url;
    for (let hop = 0; hop < 20; hop++) {
      const res = await this.fetch(current);
      const location = res.headers.get('location');
      if (location) {
        current = new URL(location, current).href;
        if (current.startsWith(stopAt)) return { url: current, res };
        continue;
      }
      const html = await res.text();
      const action = /<form[^>]*action="([^"]+)"/.exec(html)?.[1];
      const prompt = /name="prompt" value="([a-z]+)"/.exec(html)?.[1];
      if (!action || !prompt) return { url: current, res: new Response(html, { status: res.status }) };
      const form = new URLSearchParams({ prompt, ...(prompt === 'login' ? { login: accountId, password: 'any' } : {}) });
      const posted = await this.fetch(new URL(action.replace(/&amp;/g, '&'), current).href, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: form.toString(),
      });
      const next = posted.headers.get('location');
      if (!next) throw new Error(`the provider's ${prompt} form answered ${posted.status} without a redirect`);
      current = new URL(next, action.startsWith('http') ? action : current).href;
      if (current.startsWith(stopAt)) return { url: current, res: posted };
    }
    throw new Error('too many redirects');
  }
}
