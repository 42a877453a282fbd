// The agent's own session on the drive server. The web app never hands over its session (an HttpOnly cookie);
// it hands over a pairing token, which the agent redeems with pairAgent. Redeemed while the agent still holds a
// live session of the same user, the server keeps that session; otherwise it opens a new token session for the
// agent. The session is kept in agent-auth.json beside the CLI's auth file (0600 in a 0700 folder), so transfers
// continue after a restart without the web; it is separate from `drive login`'s, so signing the CLI out does not
// stop the agent and the agent never acts as another user than the web's.
import { join, dirname } from 'node:path';
import { createHcsClient, unwrap } from '@hcs/openapi/client';
import { readAuth, removeAuth, writeAuth, type AuthRecord } from '../auth-file.ts';
import { createApi, toCliError, type Api } from '../api.ts';
import { CliError, EXIT } from '../exit-codes.ts';
import type { Settings } from '../settings.ts';
import { ProtocolError, RESULT } from './protocol.ts';

export interface PairedUser {
  userId: string;
  userName: string;
}

const USER_AGENT = 'hcs-drive-agent/0.1.0';

export function agentAuthPath(cliAuthPath: string): string {
  return join(dirname(cliAuthPath), 'agent-auth.json');
}

/** Maps a failed server call to the protocol's result codes. */
export function protocolErrorOf(err: unknown): ProtocolError {
  if (err instanceof ProtocolError) return err;
  const e = toCliError(err);
  if (e.exitCode === EXIT.AUTH) return new ProtocolError(RESULT.PAIRING_REFUSED, e.code, e.message);
  if (e.exitCode === EXIT.UNREACHABLE) return new ProtocolError(RESULT.UNREACHABLE, e.code, e.message);
  return new ProtocolError(RESULT.REFUSED, e.code, e.message);
}

export class AgentSession {
  private record: AuthRecord | null = null;
  readonly server: string;
  readonly path: string;
  private readonly stateDir: string;
  private readonly fetchImpl: typeof fetch | undefined;

  constructor(opts: { server: string; path: string; stateDir: string; fetch?: typeof fetch }) {
    this.server = opts.server;
    this.path = opts.path;
    this.stateDir = opts.stateDir;
    this.fetchImpl = opts.fetch;
  }

  async load(): Promise<void> {
    const r = await readAuth(this.path);
    this.record = r && r.server === this.server && r.userId ? r : null;
  }

  /** The user the agent holds a session for, if any. */
  get user(): PairedUser | null {
    return this.record?.userId ? { userId: this.record.userId, userName: this.record.userName } : null;
  }

  /** An API client acting as `userId` and its token, or null when the agent holds no session of that user. */
  sessionFor(userId: string): { api: Api; token: string } | null {
    const r = this.record;
    if (!r || r.userId !== userId) return null;
    const settings: Settings = { server: this.server, userName: r.userName, token: r.token, authPath: this.path, json: true, stateDir: this.stateDir };
    return { api: createApi(settings, { fetch: this.fetchImpl }), token: r.token };
  }

  /**
   * Redeems a pairing token. Resolves with the user it pairs (and whether that replaced another user's session);
   * rejects with PAIRING_REFUSED when the server refuses it, leaving the current session as it was.
   */
  async pair(pairingToken: string): Promise<{ user: PairedUser; switched: boolean }> {
    const current = this.record;
    const client = createHcsClient({ baseUrl: this.server, token: () => current?.token, fetch: this.fetchImpl });
    let res;
    try {
      res = unwrap(await client.POST('/hcs/services/API/agent/pair', { body: { pairingToken }, headers: { 'User-Agent': USER_AGENT } }));
    } catch (err) {
      throw protocolErrorOf(err);
    }
    const data = res.data;
    if (!data) throw new ProtocolError(RESULT.REFUSED, 'BAD_RESPONSE', 'the server sent no pairing result');
    const user = { userId: data.user.userId, userName: data.user.userName };
    if (!data.token) {
      if (!current || current.userId !== user.userId) throw new ProtocolError(RESULT.REFUSED, 'BAD_RESPONSE', 'the server kept a session the agent does not hold');
      return { user, switched: false };
    }
    const switched = !!current && current.userId !== user.userId;
    const next: AuthRecord = { server: this.server, token: data.token, userName: user.userName, userId: user.userId, expiresAt: data.expiresAt };
    await writeAuth(this.path, next);
    this.record = next;
    if (current && current.token !== next.token) await this.revoke(current);
    return { user, switched };
  }

  /** Forgets the session after the server said it ended, so the next login opens a new one. */
  async dropIfCurrent(token: string | undefined): Promise<void> {
    if (!this.record || this.record.token !== token) return;
    this.record = null;
    await removeAuth(this.path);
  }

  get token(): string | undefined {
    return this.record?.token;
  }

  /** Ends a replaced session on the server; best effort (it may have ended already). */
  private async revoke(r: AuthRecord): Promise<void> {
    const settings: Settings = { server: this.server, userName: r.userName, token: r.token, authPath: this.path, json: true, stateDir: this.stateDir };
    try {
      await createApi(settings, { fetch: this.fetchImpl }).call((c) => c.GET('/hcs/controller/System/sso/logout', {}));
    } catch (err) {
      if (!(err instanceof CliError)) throw err;
    }
  }
}
