// `drive agent install`: runs the agent as a user service that starts at login and restarts after a crash, with a
// systemd user unit on Linux and a launchd agent on macOS, plus (Linux) the hcs-drive:// URL handler the web app
// wakes the agent with. Only files are written; the command prints how to enable them (it runs no systemctl or
// launchctl itself, so it also works in a container or over ssh, and nothing starts behind the user's back).
import { mkdir, writeFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';

export const SERVICE_NAME = 'hcs-drive-agent';
export const LAUNCHD_LABEL = 'com.hcs-drive.agent';
/** The custom URL scheme the web app opens to wake the agent (spec 4: up to 5 tries, 1 s apart). */
export const URL_SCHEME = 'hcs-drive';

export interface InstallPlan {
  files: Array<{ path: string; content: string }>;
  /** What the user runs to enable it. */
  next: string[];
}

/** systemd's quoting for one ExecStart word: double quotes, backslash escapes, and `%`/`$` doubled (specifiers, variables). */
export function systemdQuote(word: string): string {
  if (/^[A-Za-z0-9_@+=:,./-]+$/.test(word)) return word;
  return `"${word.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/%/g, '%%').replace(/\$/g, '$$$$')}"`;
}

function xml(s: string): string {
  return s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}

/** A .desktop Exec word: reserved characters quoted, `%` doubled (field codes). */
function desktopQuote(word: string): string {
  const escaped = word.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/`/g, '\\`').replace(/\$/g, '\\$').replace(/%/g, '%%');
  return /^[A-Za-z0-9_@+=:,./-]+$/.test(word) ? word : `"${escaped}"`;
}

export function systemdUnit(command: readonly string[]): string {
  return `[Unit]
Description=HCS Drive local transfer agent (drive agent)
Wants=network-online.target
After=network-online.target

[Service]
Type=simple
ExecStart=${command.map(systemdQuote).join(' ')}
Restart=on-failure
RestartSec=5
NoNewPrivileges=true

[Install]
WantedBy=default.target
`;
}

export function launchdPlist(command: readonly string[], logDir: string): string {
  return `<?xml version="1.0" encoding="UTF-8"?>
<!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
<plist version="1.0">
<dict>
  <key>Label</key>
  <string>${LAUNCHD_LABEL}</string>
  <key>ProgramArguments</key>
  <array>
${command.map((w) => `    <string>${xml(w)}</string>`).join('\n')}
  </array>
  <key>RunAtLoad</key>
  <true/>
  <key>KeepAlive</key>
  <dict>
    <key>SuccessfulExit</key>
    <false/>
  </dict>
  <key>ProcessType</key>
  <string>Interactive</string>
  <key>StandardOutPath</key>
  <string>${xml(join(logDir, 'agent.log'))}</string>
  <key>StandardErrorPath</key>
  <string>${xml(join(logDir, 'agent.log'))}</string>
</dict>
</plist>
`;
}

export function desktopEntry(command: readonly string[]): string {
  return `[Desktop Entry]
Type=Application
Name=HCS Drive agent
Comment=Starts the local transfer agent when the drive's web app asks for it
Exec=${command.map(desktopQuote).join(' ')}
MimeType=x-scheme-handler/${URL_SCHEME};
NoDisplay=true
Terminal=false
`;
}

/**
 * The files for this platform. `command` is the full agent command line (node, the drive script, `agent` and its
 * options); `env` supplies XDG_CONFIG_HOME / XDG_DATA_HOME / HOME.
 */
export function installPlan(platform: NodeJS.Platform, command: readonly string[], env: NodeJS.ProcessEnv, logDir: string): InstallPlan {
  const home = env.HOME || homedir();
  if (platform === 'linux') {
    const config = env.XDG_CONFIG_HOME?.startsWith('/') ? env.XDG_CONFIG_HOME : join(home, '.config');
    const data = env.XDG_DATA_HOME?.startsWith('/') ? env.XDG_DATA_HOME : join(home, '.local', 'share');
    return {
      files: [
        { path: join(config, 'systemd', 'user', `${SERVICE_NAME}.service`), content: systemdUnit(command) },
        { path: join(data, 'applications', `${SERVICE_NAME}.desktop`), content: desktopEntry(command) },
      ],
      next: [
        'systemctl --user daemon-reload',
        `systemctl --user enable --now ${SERVICE_NAME}.service`,
        `xdg-mime default ${SERVICE_NAME}.desktop x-scheme-handler/${URL_SCHEME}`,
      ],
    };
  }
  if (platform === 'darwin') {
    const path = join(home, 'Library', 'LaunchAgents', `${LAUNCHD_LABEL}.plist`);
    return { files: [{ path, content: launchdPlist(command, logDir) }], next: [`launchctl bootstrap gui/$(id -u) ${path}`] };
  }
  throw new Error(`drive agent install supports Linux (systemd) and macOS (launchd); on ${platform} run \`drive agent\` from a startup script`);
}

export async function writePlan(plan: InstallPlan): Promise<void> {
  for (const f of plan.files) {
    await mkdir(dirname(f.path), { recursive: true });
    await writeFile(f.path, f.content, { mode: 0o644 });
  }
}
