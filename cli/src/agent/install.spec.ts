// What `drive agent install` writes: a systemd user unit and URL handler (Linux), a launchd agent (macOS). The files
// are checked as text; nothing is started.
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { installPlan, LAUNCHD_LABEL, SERVICE_NAME, systemdQuote, writePlan } from './install.ts';

const command = ['/opt/node/bin/node', '/home/u/drive/bin/drive.js', '--server', 'https://drive.example.com', 'agent', '--download-dir', '/home/u/My Files 100%', '--root', '/home/u/$work'];
let dir: string | undefined;
afterEach(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
  dir = undefined;
});

describe('drive agent install', () => {
  it('writes a systemd user unit that runs the agent command, restarts it and starts at login', async () => {
    dir = mkdtempSync(join(tmpdir(), 'agent-install-'));
    const plan = installPlan('linux', command, { HOME: dir }, join(dir, 'state'));
    await writePlan(plan);
    const unitPath = join(dir, '.config', 'systemd', 'user', `${SERVICE_NAME}.service`);
    const unit = readFileSync(unitPath, 'utf8');
    expect(unit).toContain(
      'ExecStart=/opt/node/bin/node /home/u/drive/bin/drive.js --server https://drive.example.com agent --download-dir "/home/u/My Files 100%%" --root "/home/u/$$work"',
    );
    expect(unit).toMatch(/^Restart=on-failure$/m);
    expect(unit).toMatch(/^WantedBy=default.target$/m);
    expect(statSync(unitPath).mode & 0o022).toBe(0);
    const desktop = readFileSync(join(dir, '.local', 'share', 'applications', `${SERVICE_NAME}.desktop`), 'utf8');
    expect(desktop).toMatch(/^MimeType=x-scheme-handler\/hcs-drive;$/m);
    expect(desktop).toContain('"/home/u/My Files 100%%"');
    expect(plan.next).toEqual(['systemctl --user daemon-reload', `systemctl --user enable --now ${SERVICE_NAME}.service`, `xdg-mime default ${SERVICE_NAME}.desktop x-scheme-handler/hcs-drive`]);
  });

  it('honours XDG_CONFIG_HOME for the unit', () => {
    const plan = installPlan('linux', command, { HOME: '/home/u', XDG_CONFIG_HOME: '/cfg', XDG_DATA_HOME: '/data' }, '/state');
    expect(plan.files.map((f) => f.path)).toEqual([`/cfg/systemd/user/${SERVICE_NAME}.service`, `/data/applications/${SERVICE_NAME}.desktop`]);
  });

  it('writes a launchd agent with each argument as its own escaped string', () => {
    const plan = installPlan('darwin', [...command, 'a<b>&"c"'], { HOME: '/Users/u' }, '/Users/u/.local/state/hcs-drive');
    expect(plan.files[0]!.path).toBe(`/Users/u/Library/LaunchAgents/${LAUNCHD_LABEL}.plist`);
    const plist = plan.files[0]!.content;
    expect(plist).toContain('<string>/home/u/My Files 100%</string>');
    expect(plist).toContain('<string>a&lt;b&gt;&amp;&quot;c&quot;</string>');
    expect(plist).toMatch(/<key>RunAtLoad<\/key>\s*<true\/>/);
    expect(plist).toContain('<string>/Users/u/.local/state/hcs-drive/agent.log</string>');
    expect(plan.next).toEqual([`launchctl bootstrap gui/$(id -u) /Users/u/Library/LaunchAgents/${LAUNCHD_LABEL}.plist`]);
  });

  it('quotes what systemd would otherwise split or expand', () => {
    expect(systemdQuote('/plain/path')).toBe('/plain/path');
    expect(systemdQuote('a b')).toBe('"a b"');
    expect(systemdQuote('say "hi"\\')).toBe('"say \\"hi\\"\\\\"');
    expect(systemdQuote('%h$HOME')).toBe('"%%h$$HOME"');
  });

  it('refuses platforms it has no service format for', () => {
    expect(() => installPlan('win32', command, {}, '/s')).toThrow(/Linux \(systemd\) and macOS \(launchd\)/);
  });
});
