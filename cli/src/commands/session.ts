// drive login / logout / whoami. The password is RSA-OAEP-SHA256 encrypted with the server's public key
// (platformInfo) before it leaves the machine, and only ever read from standard input (--password-stdin, as
// `docker login` has it), HCS_PASSWORD or a hidden prompt: a --password flag would show in `ps` to every
// local user, so that flag is refused with a message that says what to use instead.
import { spawn } from 'node:child_process';
import { Option, type Command } from 'commander';
import { createHcsClient, encryptPassword, HcsError, unwrap } from '@hcs/openapi/client';
import { removeAuth, writeAuth } from '../auth-file.ts';
import { toCliError } from '../api.ts';
import { action, type Io } from '../command-context.ts';
import { CliError, EXIT, usageError } from '../exit-codes.ts';

/**
 * After repeated failed sign-ins the server holds each attempt back before answering (at most 60 s; the CLI has no
 * CAPTCHA to skip that), so sign-in waits well beyond that before giving up.
 */
export const SIGN_IN_TIMEOUT_MS = 120_000;

/** Sign-in refusals said in words: the server's msg is a locale key meant for the web app. */
function signInError(err: unknown): unknown {
  if (err instanceof HcsError && (err.code === 'LOGIN_FAILED' || err.code === 'CAPTCHA_REQUIRED')) {
    const slowed = err.code === 'CAPTCHA_REQUIRED' ? ' (after repeated failures, further sign-ins are slowed down for a while)' : '';
    return new CliError(EXIT.AUTH, `wrong user name or password${slowed}`, err.code);
  }
  if (err instanceof DOMException && err.name === 'TimeoutError') {
    return new CliError(EXIT.UNREACHABLE, `the server did not answer the sign-in within ${SIGN_IN_TIMEOUT_MS / 1000} s`, 'TIMEOUT');
  }
  return err;
}

/**
 * Opens `url` in the desktop's browser when there is a desktop to open it on; false when there is none (a server,
 * SSH, CI), and the user opens the printed URL elsewhere. HCS_BROWSER names another opener (tests use it).
 */
function openBrowser(env: NodeJS.ProcessEnv, url: string): boolean {
  const opener =
    env.HCS_BROWSER ??
    (process.platform === 'darwin' ? 'open' : process.platform === 'win32' ? 'explorer' : env.DISPLAY || env.WAYLAND_DISPLAY ? 'xdg-open' : undefined);
  if (!opener || opener === 'none') return false;
  try {
    const child = spawn(opener, [url], { stdio: 'ignore', detached: true });
    child.on('error', () => undefined);
    child.unref();
    return true;
  } catch {
    return false;
  }
}

/**
 * `drive login --sso`: the server hands a device code (kept here) and a short user code; the user signs in through
 * the company's provider in a browser with the user code's URL, and this polls System/sso/Token with the device code
 * until the server hands the token session over (once).
 */
async function ssoDeviceSignIn(server: string, io: Io, noBrowser: boolean): Promise<{ token: string; expiresAt: number; user: { userName: string; userId: string } }> {
  const client = createHcsClient({ baseUrl: server });
  const start = unwrap(await client.POST('/hcs/services/System/sso/device', { body: {} })).data!;
  const opened = !noBrowser && openBrowser(io.env, start.verificationUrl);
  io.stderr.write(
    `${opened ? 'A browser was opened to sign in. If it did not appear, open' : 'Open'} this URL in a browser and sign in:
  ${start.verificationUrl}
` +
      `Check that the page was opened for the code ${start.userCode}.
`,
  );
  const deadline = Date.now() + start.expiresIn * 1000;
  for (;;) {
    await new Promise((r) => setTimeout(r, start.interval * 1000));
    try {
      const res = unwrap(
        await client.GET('/hcs/controller/System/sso/Token', {
          params: { query: { ticket: start.deviceCode, platformId: 'NetDisk' } },
          headers: { 'X-HCS-Client': 'cli' },
        }),
      );
      if (!res.data?.token) throw new CliError(EXIT.AUTH, 'the server issued no token', 'SSO_FAILED');
      return { token: res.data.token, expiresAt: res.data.expiresAt, user: res.data.user };
    } catch (err) {
      if (err instanceof HcsError && err.code === 'SSO_PENDING' && Date.now() < deadline) continue;
      if (err instanceof HcsError && (err.code === 'SSO_PENDING' || err.code === 'SSO_FAILED')) {
        throw new CliError(EXIT.AUTH, 'single sign-on did not complete in time; run drive login --sso again', 'SSO_FAILED');
      }
      throw err;
    }
  }
}

/** Reads a line from the terminal without echoing it. */
export async function promptHidden(question: string, input: NodeJS.ReadStream = process.stdin, output: NodeJS.WriteStream = process.stderr): Promise<string> {
  if (!input.isTTY) throw usageError('no password: set HCS_PASSWORD or run `drive login` in a terminal');
  output.write(question);
  input.setRawMode(true);
  input.resume();
  input.setEncoding('utf8');
  return new Promise((resolve, reject) => {
    let value = '';
    const done = (err?: Error) => {
      input.setRawMode(false);
      input.pause();
      input.off('data', onData);
      output.write('\n');
      if (err) reject(err);
      else resolve(value);
    };
    const onData = (chunk: string) => {
      for (const ch of chunk) {
        if (ch === '\r' || ch === '\n') return done();
        if (ch === '\u0003') return done(new CliError(EXIT.INTERRUPTED, 'cancelled', 'INTERRUPTED'));
        if (ch === '\u007f' || ch === '\b') value = value.slice(0, -1);
        else if (ch >= ' ') value += ch;
      }
    };
    input.on('data', onData);
  });
}

export async function promptLine(question: string): Promise<string> {
  if (!process.stdin.isTTY) throw usageError('no user name: pass --user NAME or set HCS_USER');
  const { createInterface } = await import('node:readline/promises');
  const rl = createInterface({ input: process.stdin, output: process.stderr });
  try {
    return (await rl.question(question)).trim();
  } finally {
    rl.close();
  }
}

/** The password piped to standard input: all of it up to the end, less one trailing line break. */
export async function readPasswordStdin(input: NodeJS.ReadableStream & { isTTY?: boolean } = process.stdin): Promise<string> {
  if (input.isTTY) throw usageError('--password-stdin reads a piped password: printf "%s" "$PW" | drive login --password-stdin');
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of input) {
    const b = typeof chunk === 'string' ? Buffer.from(chunk) : (chunk as Buffer);
    size += b.length;
    // A password is short; a large stdin is a mistake (a file piped in), not a password.
    if (size > 4096) throw usageError('--password-stdin: standard input is longer than 4096 bytes; pipe only the password');
    chunks.push(b);
  }
  return Buffer.concat(chunks).toString('utf8').replace(/\r?\n$/, '');
}

export function registerSession(program: Command, io: Io, stdin: NodeJS.ReadableStream & { isTTY?: boolean } = process.stdin): void {
  program
    .command('login')
    .description('Sign in and store the session token (0600) in the auth file')
    .option('--password-stdin', 'read the password from standard input (printf "%s" "$PW" | drive login --password-stdin)')
    .option('--sso', "sign in through the company's single sign-on in a browser (a URL and code are printed when no browser opens)")
    .option('--no-browser', 'with --sso: only print the URL to open elsewhere')
    // Declared only to answer it with what to use instead of commander's bare "unknown option".
    .addOption(new Option('--password <password>').hideHelp())
    .action(
      action(io, async (ctx, opts: { passwordStdin?: boolean; password?: string; sso?: boolean; browser?: boolean }) => {
        if (opts.sso) {
          const server = ctx.settings.server;
          if (!server) throw usageError('no server: pass --server URL or set HCS_SERVER');
          try {
            const got = await ssoDeviceSignIn(server, io, opts.browser === false);
            await writeAuth(ctx.settings.authPath, { server, token: got.token, userName: got.user.userName, userId: got.user.userId, expiresAt: got.expiresAt });
            ctx.print(
              { event: 'login', server, userName: got.user.userName, userId: got.user.userId, expiresAt: got.expiresAt, authFile: ctx.settings.authPath, sso: true },
              `Signed in to ${server} as ${got.user.userName}.`,
            );
            return;
          } catch (err) {
            throw toCliError(err);
          }
        }
        if (opts.password !== undefined) {
          throw usageError('--password is not accepted: a password on the command line is visible to other users (ps); use --password-stdin or HCS_PASSWORD');
        }
        const server = ctx.settings.server;
        if (!server) throw usageError('no server: pass --server URL or set HCS_SERVER');
        const userName = ctx.settings.userName ?? (await promptLine('User name: '));
        if (!userName) throw usageError('no user name: pass --user NAME or set HCS_USER');
        const password = opts.passwordStdin
          ? await readPasswordStdin(stdin)
          : (io.env.HCS_PASSWORD ?? (await promptHidden(`Password for ${userName}@${server}: `)));
        if (!password) throw usageError('empty password');
        // A fresh client without the stored token: signing in must not depend on an old session.
        const client = createHcsClient({ baseUrl: server });
        try {
          const info = unwrap(await client.GET('/hcs/services/System/platformInfo', {}));
          if (!info.data) throw new CliError(EXIT.REFUSED, 'the server sent no platform info', 'BAD_RESPONSE');
          const res = unwrap(
            await client.GET('/hcs/services/System/Token', {
              params: { query: { username: userName, password: await encryptPassword(info.data.publicKey, password), platformId: info.data.platformId } },
              // Asks for a token session (sent back in the `token` header) instead of a browser cookie.
              headers: { 'X-HCS-Client': 'cli' },
              signal: AbortSignal.timeout(SIGN_IN_TIMEOUT_MS),
            }),
          );
          if (!res.data?.token) throw new CliError(EXIT.AUTH, 'the server issued no token', 'LOGIN_FAILED');
          await writeAuth(ctx.settings.authPath, {
            server,
            token: res.data.token,
            userName: res.data.user.userName,
            userId: res.data.user.userId,
            expiresAt: res.data.expiresAt,
          });
          ctx.print(
            { event: 'login', server, userName: res.data.user.userName, userId: res.data.user.userId, expiresAt: res.data.expiresAt, authFile: ctx.settings.authPath },
            `Signed in to ${server} as ${res.data.user.userName}.`,
          );
        } catch (err) {
          throw toCliError(signInError(err));
        }
      }),
    );

  program
    .command('logout')
    .description('End the session on the server and delete the auth file')
    .action(
      action(io, async (ctx) => {
        let revoked = false;
        if (ctx.settings.server && ctx.settings.token) {
          try {
            await ctx.api().call((c) => c.GET('/hcs/controller/System/sso/logout', {}));
            revoked = true;
          } catch (err) {
            // An ended session or an unreachable server must not keep the local secret around.
            const e = toCliError(err);
            if (e.exitCode !== EXIT.AUTH) io.stderr.write(`drive: warning: the server did not confirm sign-out (${e.message})\n`);
          }
        }
        const removed = await removeAuth(ctx.settings.authPath);
        ctx.print({ event: 'logout', revoked, removed }, removed || revoked ? 'Signed out.' : 'Not signed in.');
      }),
    );

  program
    .command('whoami')
    .description('Show the signed-in user')
    .action(
      action(io, async (ctx) => {
        const res = await ctx.api().call((c) => c.GET('/hcs/controller/System/Current/User', {}));
        const u = res.data;
        if (!u) throw new CliError(EXIT.REFUSED, 'the server sent no user', 'BAD_RESPONSE');
        ctx.print({ server: ctx.settings.server, ...u }, `${u.userName}${u.userRealName ? ` (${u.userRealName})` : ''} on ${ctx.settings.server}`);
      }),
    );
}
