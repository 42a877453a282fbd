// The client tool the header's "client tool" button downloads (spec 7: getToolName's msg is a path under /hcs/):
// the `drive` CLI, which is also the local transfer agent, built into one file by `npm run build -w cli`
// (cli/scripts/bundle.ts). getToolName points to an install page for the caller's platform and language; the page
// links the file and gives the commands that run it as this server's agent.
import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import type { FastifyRequest } from 'fastify';
import type { AppContext, Handlers } from '../context.ts';
import { AppError } from '../http/errors.ts';
import { done } from '../http/envelope.ts';

const BUNDLE = fileURLToPath(new URL('../../../cli/dist/hcs-drive.mjs', import.meta.url));
export const PACKAGE_PATH = '/hcs/services/API/agent/hcs-drive.mjs';
export const INSTALL_PATH = '/hcs/services/API/agent/install';

type Lang = 'zh_CN' | 'en_US';
type Platform = 'windows' | 'mac' | 'linux';

/** The spec's platform values and the usual spellings of them; anything else means "show every platform". */
function platformOf(type: string | undefined): Platform | undefined {
  const t = (type ?? '').trim().toLowerCase();
  if (['windows', 'win', 'win32'].includes(t)) return 'windows';
  if (['mac', 'macos', 'darwin', 'osx'].includes(t)) return 'mac';
  if (t === 'linux') return 'linux';
  return undefined;
}

const esc = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&#39;');

const TEXT = {
  zh_CN: {
    title: 'HCS 网盘客户端工具',
    intro: '客户端工具即 drive 命令行及本地传输代理：网页把大文件的上传和下载交给它，关闭网页后传输继续，重启电脑后可断点续传。',
    node: '需要 Node.js 22.18 或更高版本。',
    download: '下载 hcs-drive.mjs',
    checksum: 'SHA-256 校验值',
    missing: '本服务器尚未构建客户端工具，请联系管理员（npm run build -w cli）。',
    linux: 'Linux（systemd 用户服务）',
    mac: 'macOS（launchd）',
    windows: 'Windows（PowerShell）',
    runNow: '立即运行（Ctrl-C 停止）：',
    atLogin: '登录时自动运行：',
    windowsLogin: '登录时自动运行：在“启动”文件夹（Win+R 输入 shell:startup）中创建快捷方式，目标为：',
    cli: '在终端中使用：',
  },
  en_US: {
    title: 'HCS Drive client tool',
    intro:
      'The client tool is the drive command line and local transfer agent: the web app hands big uploads and downloads to it, they go on after the tab closes and resume after a restart.',
    node: 'Requires Node.js 22.18 or later.',
    download: 'Download hcs-drive.mjs',
    checksum: 'SHA-256',
    missing: 'This server has not built the client tool yet; ask the administrator (npm run build -w cli).',
    linux: 'Linux (systemd user service)',
    mac: 'macOS (launchd)',
    windows: 'Windows (PowerShell)',
    runNow: 'Run it now (Ctrl-C stops it):',
    atLogin: 'Run it at every login:',
    windowsLogin: 'Run it at every login: a shortcut in the Startup folder (Win+R, shell:startup) with the target',
    cli: 'From a terminal:',
  },
} as const;

function sections(server: string, t: (typeof TEXT)[Lang]): Record<Platform, string> {
  const code = (lines: string[]) => `<pre>${esc(lines.join('\n'))}</pre>`;
  const linuxFile = '~/.local/bin/hcs-drive.mjs';
  const macFile = '~/Applications/hcs-drive/hcs-drive.mjs';
  const winFile = '$env:LOCALAPPDATA\\hcs-drive\\hcs-drive.mjs';
  return {
    linux:
      `<h2>${esc(t.linux)}</h2>` +
      code(['mkdir -p ~/.local/bin && mv ~/Downloads/hcs-drive.mjs ~/.local/bin/']) +
      `<p>${esc(t.runNow)}</p>` +
      code([`node ${linuxFile} --server ${server} agent`]) +
      `<p>${esc(t.atLogin)}</p>` +
      code([
        `node ${linuxFile} --server ${server} agent install`,
        'systemctl --user daemon-reload',
        'systemctl --user enable --now hcs-drive-agent.service',
        'xdg-mime default hcs-drive-agent.desktop x-scheme-handler/hcs-drive',
      ]),
    mac:
      `<h2>${esc(t.mac)}</h2>` +
      code(['mkdir -p ~/Applications/hcs-drive && mv ~/Downloads/hcs-drive.mjs ~/Applications/hcs-drive/']) +
      `<p>${esc(t.runNow)}</p>` +
      code([`node ${macFile} --server ${server} agent`]) +
      `<p>${esc(t.atLogin)}</p>` +
      code([`node ${macFile} --server ${server} agent install`, 'launchctl bootstrap gui/$(id -u) ~/Library/LaunchAgents/com.hcs-drive.agent.plist']),
    windows:
      `<h2>${esc(t.windows)}</h2>` +
      code([
        'New-Item -ItemType Directory -Force "$env:LOCALAPPDATA\\hcs-drive"',
        'Move-Item "$env:USERPROFILE\\Downloads\\hcs-drive.mjs" "$env:LOCALAPPDATA\\hcs-drive\\"',
      ]) +
      `<p>${esc(t.runNow)}</p>` +
      code([`node "${winFile}" --server ${server} agent`]) +
      `<p>${esc(t.windowsLogin)}</p>` +
      code([`node "%LOCALAPPDATA%\\hcs-drive\\hcs-drive.mjs" --server ${server} agent`]),
  };
}

export function agentPackageHandlers(ctx: AppContext): Handlers {
  const { config } = ctx;
  let checksum: { key: string; sha256: string } | null = null;

  /** The bundle's size and SHA-256 (hashed once per build), or null when it was not built. */
  const bundleInfo = async (): Promise<{ size: number; sha256: string } | null> => {
    const st = await stat(BUNDLE).catch(() => null);
    if (!st?.isFile()) return null;
    const key = `${st.size}:${st.mtimeMs}`;
    if (checksum?.key !== key) {
      const hash = createHash('sha256');
      for await (const chunk of createReadStream(BUNDLE)) hash.update(chunk as Buffer);
      checksum = { key, sha256: hash.digest('hex') };
    }
    return { size: st.size, sha256: checksum.sha256 };
  };

  // The configured public origin; else the one the caller reached us at (only ever shown back to that caller).
  const serverOf = (req: FastifyRequest) => config.publicUrl ?? `${req.protocol}://${req.host}`;

  return {
    async getToolName(req) {
      const q = req.query;
      const params = new URLSearchParams();
      const platform = platformOf(q.type);
      if (platform) params.set('type', platform);
      if (q.lang) params.set('lang', q.lang);
      const query = params.toString();
      return done(query ? `${INSTALL_PATH}?${query}` : INSTALL_PATH);
    },

    async getAgentInstallPage(req, reply) {
      const q = req.query;
      const lang: Lang = q.lang ?? config.defaultLanguage;
      const t = TEXT[lang];
      const platform = platformOf(q.type);
      const info = await bundleInfo();
      const all = sections(serverOf(req), t);
      const order: Platform[] = platform ? [platform, ...(['linux', 'mac', 'windows'] as const).filter((p) => p !== platform)] : ['linux', 'mac', 'windows'];
      const body = [
        `<h1>${esc(t.title)}</h1>`,
        `<p>${esc(t.intro)}</p>`,
        `<p>${esc(t.node)}</p>`,
        info
          ? `<p><a href="${PACKAGE_PATH}" download="hcs-drive.mjs">${esc(t.download)}</a> (${(info.size / 1024 / 1024).toFixed(2)} MB)<br>${esc(t.checksum)}: <code>${info.sha256}</code></p>`
          : `<p>${esc(t.missing)}</p>`,
        ...order.map((p) => all[p]),
        `<h2>${esc(t.cli)}</h2><pre>node hcs-drive.mjs --help</pre>`,
      ].join('\n');
      // The page has no script; the app's own policy (hygiene.ts, every HTML answer) allows none but its own.
      reply.header('content-type', 'text/html; charset=utf-8');
      return reply.send(
        `<!doctype html><html lang="${lang === 'zh_CN' ? 'zh-CN' : 'en'}"><head><meta charset="utf-8"><title>${esc(t.title)}</title>` +
          '<style>body{font-family:sans-serif;max-width:52rem;margin:2rem auto;padding:0 1rem;line-height:1.5}pre{background:#f4f4f4;padding:.75rem;overflow-x:auto}</style>' +
          `</head><body data-platform="${platform ?? 'all'}">\n${body}\n</body></html>`,
      );
    },

    async downloadAgentPackage(_req, reply) {
      const info = await bundleInfo();
      if (!info) throw new AppError('NOT_FOUND', 'the client tool has not been built on this server (npm run build -w cli)');
      reply
        .header('content-type', 'application/octet-stream')
        .header('content-disposition', 'attachment; filename="hcs-drive.mjs"')
        .header('content-length', String(info.size))
        .header('content-security-policy', 'sandbox')
        .header('x-content-type-options', 'nosniff')
        .header('x-checksum-sha256', info.sha256);
      return reply.send(createReadStream(BUNDLE));
    },
  };
}
