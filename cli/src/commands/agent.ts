// drive agent: the local transfer agent the web app hands big transfers to (see ../agent/agent.ts), in the
// foreground until Ctrl-C / SIGTERM; `drive agent install` writes the user service that runs it at login.
import { realpathSync } from 'node:fs';
import { homedir } from 'node:os';
import { delimiter, resolve } from 'node:path';
import { Option, type Command } from 'commander';
import { action, type CommandContext, type Io } from '../command-context.ts';
import { CliError, EXIT, usageError } from '../exit-codes.ts';
import { parseIntOption } from '../settings.ts';
import { allowedOrigins } from '../agent/guard.ts';
import { AGENT_VERSION, DEFAULT_PORTS, startAgent } from '../agent/agent.ts';
import { installPlan, writePlan } from '../agent/install.ts';
import { detectPicker } from '../agent/picker.ts';
import { realRoots } from '../agent/roots.ts';
import { agentAuthPath } from '../agent/session.ts';

interface AgentFlags {
  pluginPort: string;
  wsPort: string;
  clientPort: string;
  downloadDir?: string;
  root?: string[];
  picker: string;
  concurrency: string;
}

/** Agent settings from flags (commander already merged HCS_AGENT_* for value options). */
function agentSettings(ctx: CommandContext, flags: AgentFlags) {
  const server = ctx.settings.server;
  if (!server) throw usageError('no server: pass --server URL, set HCS_SERVER, or run `drive login --server URL` first');
  const envRoots = (ctx.io.env.HCS_AGENT_ROOTS ?? '').split(delimiter).filter(Boolean);
  return {
    server,
    ports: {
      plugin: parseIntOption('--plugin-port', flags.pluginPort, DEFAULT_PORTS.plugin, 0, 65535),
      ws: parseIntOption('--ws-port', flags.wsPort, DEFAULT_PORTS.ws, 0, 65535),
      client: parseIntOption('--client-port', flags.clientPort, DEFAULT_PORTS.client, 0, 65535),
    },
    downloadDir: resolve(flags.downloadDir ?? resolve(ctx.io.env.HOME || homedir(), 'Downloads')),
    roots: (flags.root?.length ? flags.root : envRoots).map((r) => resolve(r)),
    picker: flags.picker,
    concurrency: parseIntOption('--concurrency', flags.concurrency, 4, 1, 32),
  };
}

function agentOptions(cmd: Command): Command {
  return cmd
    .addOption(new Option('--plugin-port <port>', 'plugin HTTP port (api/isAppOnline)').env('HCS_AGENT_PLUGIN_PORT').default(String(DEFAULT_PORTS.plugin)))
    .addOption(new Option('--ws-port <port>', 'plugin WebSocket port').env('HCS_AGENT_WS_PORT').default(String(DEFAULT_PORTS.ws)))
    .addOption(new Option('--client-port <port>', 'desktop-client HTTP port (isAppInstalled, isAppOnline)').env('HCS_AGENT_CLIENT_PORT').default(String(DEFAULT_PORTS.client)))
    .addOption(new Option('--download-dir <dir>', 'where downloads go (default ~/Downloads)').env('HCS_AGENT_DOWNLOAD_DIR'))
    .addOption(new Option('--root <dir...>', `folders typed local paths may be in (HCS_AGENT_ROOTS: separated by "${delimiter}")`))
    .addOption(new Option('--picker <name>', 'native file picker: auto, none, zenity, kdialog, osascript, powershell').env('HCS_AGENT_PICKER').default('auto'))
    .addOption(new Option('--concurrency <n>', 'files at a time per transfer (1-32)').env('HCS_CONCURRENCY').default('4'));
}

export function registerAgent(program: Command, io: Io): void {
  const agent = agentOptions(
    program
      .command('agent')
      .description('Local transfer agent for the web app (plugin on 127.0.0.1:8756/8801, desktop client on 8754); runs until Ctrl-C'),
  ).action(
    action(io, async (ctx, flags: AgentFlags) => {
      const s = agentSettings(ctx, flags);
      let picker;
      try {
        picker = await detectPicker(s.picker, ctx.io.env);
      } catch (err) {
        throw usageError((err as Error).message);
      }
      const origins = allowedOrigins(s.server, ctx.io.env.HCS_PUBLIC_URL);
      const log = (e: Record<string, unknown>) => {
        if (ctx.settings.json) ctx.io.stdout.write(JSON.stringify({ ts: new Date().toISOString(), ...e }) + '\n');
        else ctx.io.stderr.write(`drive agent: ${Object.entries(e).map(([k, v]) => `${k}=${typeof v === 'string' ? v : JSON.stringify(v)}`).join(' ')}\n`);
      };
      let running;
      try {
        running = await startAgent({
          server: s.server,
          origins,
          ports: s.ports,
          stateDir: ctx.settings.stateDir,
          authPath: agentAuthPath(ctx.settings.authPath),
          downloadDir: s.downloadDir,
          roots: await realRoots(s.roots),
          picker,
          concurrency: s.concurrency,
          env: ctx.io.env,
          log,
        });
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code === 'EADDRINUSE') {
          throw new CliError(EXIT.REFUSED, `a port is in use (another drive agent running?): ${(err as Error).message}`, 'PORT_IN_USE');
        }
        throw err;
      }
      ctx.print(
        { event: 'agent-ready', version: AGENT_VERSION, server: s.server, origins: [...origins], ports: running.ports, downloadDir: s.downloadDir, roots: s.roots, picker },
        `drive agent ${AGENT_VERSION} for ${s.server}: plugin 127.0.0.1:${running.ports.plugin} (WebSocket ${running.ports.ws}), client 127.0.0.1:${running.ports.client}; downloads to ${s.downloadDir}. Ctrl-C stops it.`,
      );
      const signal = await new Promise<NodeJS.Signals>((done) => {
        process.once('SIGINT', () => done('SIGINT'));
        process.once('SIGTERM', () => done('SIGTERM'));
      });
      await running.close();
      // Transfers keep their state: the next start continues them.
      return signal === 'SIGINT' ? EXIT.INTERRUPTED : EXIT.OK;
    }),
  );

  agent
    .command('install')
    .description('Write a user service that runs `drive agent` (with the agent options given) at login: systemd (Linux) or launchd (macOS)')
    .option('--platform <name>', 'linux or darwin (default: this machine)')
    .action(
      action(io, async (ctx, flags: { platform?: string }) => {
        // The agent's options belong to `drive agent`, wherever they stand on the command line.
        const s = agentSettings(ctx, agent.opts<AgentFlags>());
        const script = realpathSync(process.argv[1] ?? '');
        const words = [process.execPath, script, '--server', s.server, '--state-dir', ctx.settings.stateDir, '--config', ctx.settings.authPath, 'agent'];
        words.push('--plugin-port', String(s.ports.plugin), '--ws-port', String(s.ports.ws), '--client-port', String(s.ports.client));
        words.push('--download-dir', s.downloadDir, '--picker', s.picker, '--concurrency', String(s.concurrency));
        if (s.roots.length) words.push('--root', ...s.roots);
        const platform = (flags.platform ?? process.platform) as NodeJS.Platform;
        let plan;
        try {
          plan = installPlan(platform, words, ctx.io.env, ctx.settings.stateDir);
        } catch (err) {
          throw usageError((err as Error).message);
        }
        await writePlan(plan);
        ctx.print(
          { event: 'agent-installed', platform, files: plan.files.map((f) => f.path), next: plan.next },
          `Wrote ${plan.files.map((f) => f.path).join(', ')}.\nTo start it now and at every login, run:\n${plan.next.map((l) => `  ${l}`).join('\n')}`,
        );
      }),
    );
}
