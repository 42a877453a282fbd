// The tab's one AgentClient with the browser's fetch, WebSocket, timers and the custom-protocol wake, its pairing
// tokens from the signed-in session, and the hand-overs the upload and download flows use. A tab that used the agent
// (remembered per user in localStorage) reattaches on load, so transfers that went on while the tab was closed show
// up again. The plugin's port is the spec's 8756 unless this browser was given another (an agent started with
// --plugin-port); jobs continued in the browser after the agent was lost are remembered per user until it is back.
import { useSyncExternalStore } from 'react';
import i18n from 'i18next';
import { issueAgentPairingToken } from '../../api/gen/agent/agent.ts';
import { getUserInfo, onSignOut } from '../session.ts';
import { toastInfo, toastWarning } from '../notify.ts';
import { openTransferPanel } from '../transfer-counters.ts';
import { AGENT_TIMING, AgentClient, AgentError, WAKE_URL, type AgentSnapshot, type SocketLike } from './agent-client.ts';

const USED_KEY = 'hcs.agent.used';
export const PLUGIN_PORT_KEY = 'hcs.agent.pluginPort';
const TAKEN_KEY = 'hcs.agent.takenOver';

/** The plugin port set for this browser, or the spec's. */
export function agentPluginPort(): number {
  try {
    const n = Number(localStorage.getItem(PLUGIN_PORT_KEY));
    return Number.isInteger(n) && n > 0 && n < 65536 ? n : AGENT_TIMING.pluginPort;
  } catch {
    return AGENT_TIMING.pluginPort;
  }
}

/** Sets (or, with null, clears back to the spec's) the plugin port; the next online check uses it. */
export function setAgentPluginPort(port: number | null): void {
  try {
    if (port === null || port === AGENT_TIMING.pluginPort) localStorage.removeItem(PLUGIN_PORT_KEY);
    else localStorage.setItem(PLUGIN_PORT_KEY, String(port));
  } catch {
    // Without storage the spec's port is used.
  }
}

const takenKey = () => `${TAKEN_KEY}:${getUserInfo()?.userId ?? ''}`;
const takenOver = {
  load(): string[] {
    try {
      const v = JSON.parse(localStorage.getItem(takenKey()) ?? '[]') as unknown;
      return Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : [];
    } catch {
      return [];
    }
  },
  save(ids: string[]): void {
    try {
      if (ids.length === 0) localStorage.removeItem(takenKey());
      else localStorage.setItem(takenKey(), JSON.stringify(ids));
    } catch {
      // Without storage a returning agent may send a job the browser already sent: a new version, nothing lost.
    }
  },
};

/** Opens the custom protocol in a hidden frame: the page stays, the OS starts the agent if it is registered. */
function wake(): void {
  if (typeof document === 'undefined') return;
  const frame = document.createElement('iframe');
  frame.style.display = 'none';
  frame.src = WAKE_URL;
  document.body.appendChild(frame);
  setTimeout(() => frame.remove(), 1000);
}

let client: AgentClient | undefined;

export function getAgent(): AgentClient {
  client ??= new AgentClient({
    fetch: (...args) => fetch(...args),
    openSocket: (url) => new WebSocket(url) as unknown as SocketLike,
    wake,
    sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
    setInterval: (fn, ms) => setInterval(fn, ms),
    clearInterval: (h) => clearInterval(h as ReturnType<typeof setInterval>),
    pairingToken: async () => {
      const res = await issueAgentPairingToken({ quiet: true });
      if (!res.data?.pairingToken) throw new Error('no pairing token');
      return res.data.pairingToken;
    },
    info: (key, ms) => toastInfo(i18n.t(key), ms / 1000),
    log: (message) => console.warn(message),
    pluginPort: agentPluginPort,
    takenOver,
  });
  return client;
}

export function useAgentSnapshot(): AgentSnapshot {
  const agent = getAgent();
  return useSyncExternalStore(agent.subscribe, agent.getSnapshot, agent.getSnapshot);
}

function markUsed(): void {
  const owner = getUserInfo()?.userId;
  if (!owner) return;
  try {
    localStorage.setItem(USED_KEY, owner);
  } catch {
    // Without storage the panel only misses the agent's transfers after a reload.
  }
}

/** After sign-in: reconnects to the agent when this user used it before, without waking it. */
export function reattachAgent(owner: string): void {
  try {
    if (localStorage.getItem(USED_KEY) !== owner) return;
  } catch {
    return;
  }
  void getAgent().reattach();
}

/** The locale key of an agent refusal. */
export function agentErrorKey(err: unknown): string {
  const code = err instanceof AgentError ? err.code : 'UNREACHABLE';
  const known = ['PATH_REFUSED', 'PICKER_UNAVAILABLE', 'PICKER_BUSY', 'CANCELLED', 'NOT_FOUND', 'SESSION_ENDED', 'UNREACHABLE'];
  return `transfer.agent.code.${known.includes(code) ? code : 'other'}`;
}

export interface HandOverPrompts {
  /** The agent has no native picker: the user types a local path inside `roots`, or cancels (null). */
  localPath(roots: readonly string[]): Promise<string | null>;
}

/**
 * Hands an upload to the agent: the handshake (online, waking it if needed; login), then the agent's own picker (or
 * a typed path) chooses what to send. False when the browser must do it (the agent is not there, or refused).
 */
export async function handUploadToAgent(target: { parentId: string; path: string; libCode?: string; instanceType?: string }, prompts: HandOverPrompts): Promise<boolean> {
  const agent = getAgent();
  if (!(await agent.available())) {
    toastWarning(i18n.t('transfer.agent.fallback'));
    return false;
  }
  markUsed();
  const info = agent.agentInfo;
  let source: { pick: 'files' } | { paths: string[] };
  if (info?.picker) source = { pick: 'files' };
  else {
    const typed = await prompts.localPath(info?.roots ?? []);
    if (!typed) return true;
    source = { paths: [typed] };
  }
  try {
    await agent.upload({ parentId: target.parentId, to: target.path, libCode: target.libCode, instanceType: target.instanceType }, source);
  } catch (err) {
    // The user closed the picker, or the path was refused: nothing was uploaded and nothing falls back.
    toastWarning(i18n.t(agentErrorKey(err)));
    return true;
  }
  toastInfo(i18n.t('transfer.agent.handedOver'));
  openTransferPanel('upload');
  return true;
}

/** Hands downloads to the agent (into its download folder); false when the browser must do them. */
export async function handDownloadToAgent(instanceIds: string[]): Promise<boolean> {
  const agent = getAgent();
  if (!(await agent.available())) {
    toastWarning(i18n.t('transfer.agent.fallback'));
    return false;
  }
  markUsed();
  try {
    await agent.download(instanceIds);
  } catch (err) {
    toastWarning(i18n.t(agentErrorKey(err)));
    return false;
  }
  toastInfo(i18n.t('transfer.agent.handedOver'));
  openTransferPanel('download');
  return true;
}

// Spec 4: transfer lists are cleared on user change; the agent's connection belongs to the user who paired it.
onSignOut(() => client?.reset());
