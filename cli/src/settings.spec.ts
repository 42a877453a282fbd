import { afterEach, describe, expect, it } from 'vitest';
import { buildProgram } from './program.ts';
import { loadSettings, type Io } from './command-context.ts';
import { envBool, normaliseServer, parseIntOption, resolveSettings } from './settings.ts';
import type { Command } from 'commander';

const auth = { server: 'https://a.example.com', token: 'tok-a', userName: 'alice' };

describe('resolveSettings precedence: flag > env > auth file > default', () => {
  it('uses the auth file server and token when nothing overrides them', () => {
    const s = resolveSettings({}, {}, auth, false);
    expect(s.server).toBe('https://a.example.com');
    expect(s.token).toBe('tok-a');
    expect(s.userName).toBe('alice');
    expect(s.json).toBe(false);
  });

  it('never sends a stored token to a different server', () => {
    const s = resolveSettings({ server: 'https://b.example.com' }, {}, auth, false);
    expect(s.server).toBe('https://b.example.com');
    expect(s.token).toBeUndefined();
  });

  it('HCS_TOKEN wins over the auth file', () => {
    expect(resolveSettings({}, { HCS_TOKEN: 'env-tok' }, auth, false).token).toBe('env-tok');
  });

  it('--json wins over HCS_JSON=0; HCS_JSON=1 turns it on', () => {
    expect(resolveSettings({}, { HCS_JSON: '0' }, null, true).json).toBe(true);
    expect(resolveSettings({}, { HCS_JSON: '1' }, null, false).json).toBe(true);
    expect(resolveSettings({}, { HCS_JSON: 'false' }, null, false).json).toBe(false);
  });

  it('defaults the auth path under XDG_CONFIG_HOME and honours --config', () => {
    expect(resolveSettings({}, { XDG_CONFIG_HOME: '/cfg' }, null, false).authPath).toBe('/cfg/hcs-drive/auth.json');
    expect(resolveSettings({ config: '/x/a.json' }, { XDG_CONFIG_HOME: '/cfg' }, null, false).authPath).toBe('/x/a.json');
  });
});

describe('value parsing', () => {
  it('normalises server URLs and refuses unsafe ones', () => {
    expect(normaliseServer('http://h:8080/')).toBe('http://h:8080');
    expect(normaliseServer('https://h/drive/hcs/')).toBe('https://h/drive');
    expect(() => normaliseServer('ftp://h')).toThrow(/http or https/);
    expect(() => normaliseServer('https://u:p@h')).toThrow(/credentials/);
    expect(() => normaliseServer('not a url')).toThrow(/invalid server URL/);
  });

  it('parses booleans strictly', () => {
    expect(envBool(undefined)).toBeUndefined();
    expect(envBool('yes')).toBe(true);
    expect(envBool('off')).toBe(false);
    expect(() => envBool('maybe')).toThrow(/invalid boolean/);
  });

  it('bounds integer options with a usage error', () => {
    expect(parseIntOption('--concurrency', '8', 4, 1, 32)).toBe(8);
    expect(parseIntOption('--concurrency', undefined, 4, 1, 32)).toBe(4);
    expect(() => parseIntOption('--concurrency', '0', 4, 1, 32)).toThrow(/from 1 to 32/);
    expect(() => parseIntOption('--concurrency', '2.5', 4, 1, 32)).toThrow();
  });
});

describe('commander wiring: every flag also from HCS_*', () => {
  const saved = { ...process.env };
  afterEach(() => {
    process.env = { ...saved };
  });
  const io: Io = { stdout: process.stdout, stderr: process.stderr, env: {} };

  async function settingsFor(argv: string[], env: Record<string, string>) {
    Object.assign(process.env, env);
    const program = buildProgram({ ...io, env });
    let captured: Command | undefined;
    // Replace the whoami action to capture the parsed command without calling a server.
    const whoami = program.commands.find((c) => c.name() === 'whoami')!;
    whoami.action((...args: unknown[]) => {
      captured = args[args.length - 1] as Command;
    });
    await program.parseAsync(['node', 'drive', ...argv]);
    return loadSettings(captured!, { ...io, env });
  }

  it('reads HCS_SERVER, HCS_USER, HCS_CONFIG and HCS_STATE_DIR', async () => {
    const s = await settingsFor(['whoami'], { HCS_SERVER: 'http://env:1', HCS_USER: 'envuser', HCS_CONFIG: '/tmp/none/auth.json', HCS_STATE_DIR: '/tmp/st' });
    expect(s.server).toBe('http://env:1');
    expect(s.userName).toBe('envuser');
    expect(s.authPath).toBe('/tmp/none/auth.json');
    expect(s.stateDir).toBe('/tmp/st');
  });

  it('a flag beats its environment variable', async () => {
    const s = await settingsFor(['--server', 'http://flag:2', '--user', 'flaguser', 'whoami'], { HCS_SERVER: 'http://env:1', HCS_USER: 'envuser', HCS_CONFIG: '/tmp/none/auth.json' });
    expect(s.server).toBe('http://flag:2');
    expect(s.userName).toBe('flaguser');
  });

  it('--json after the command name counts too', async () => {
    const s = await settingsFor(['whoami', '--json'], { HCS_CONFIG: '/tmp/none/auth.json', HCS_JSON: '0' });
    expect(s.json).toBe(true);
  });
});
