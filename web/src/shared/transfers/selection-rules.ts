// The upload selection rules of spec 5, in the spec's order, as a pure function so every threshold is testable
// without a browser. The caller turns the outcome into dialogs; nothing here talks to the user.
import {
  CLIENT_SUGGEST_BYTES,
  MAX_FILE_BYTES,
  MAX_FILES_PER_SELECTION,
  PLUGIN_TIP_FILE_COUNT,
  PLUGIN_TIP_TOTAL_BYTES,
  WARN_FILE_BYTES,
} from './limits.ts';

export interface SelectedFile {
  name: string;
  size: number;
}

export interface SelectionContext {
  /** The public /fileDownload page: no plugin tip, no client choice. */
  publicPage: boolean;
  /** The plugin tip was already shown in this browser session. */
  pluginTipShown: boolean;
  /** The desktop-client choice already made in this session, if any. */
  clientChoice: 'client' | 'web' | undefined;
}

/** A question to put to the user before uploading, in the order to ask. */
export type SelectionStep =
  | { kind: 'noMoreThan30G'; names: string[] }
  | { kind: 'pluginTip' }
  | { kind: 'clientChoice' };

export type SelectionOutcome =
  | { kind: 'empty' }
  | { kind: 'tooMany'; count: number }
  | { kind: 'over80G'; names: string[] }
  | { kind: 'proceed'; steps: SelectionStep[]; totalBytes: number; useClient: boolean };

export function evaluateSelection(files: readonly SelectedFile[], ctx: SelectionContext): SelectionOutcome {
  if (files.length > MAX_FILES_PER_SELECTION) return { kind: 'tooMany', count: files.length };
  const over80 = files.filter((f) => f.size > MAX_FILE_BYTES).map((f) => f.name);
  if (over80.length > 0) return { kind: 'over80G', names: over80 };
  if (files.length === 0) return { kind: 'empty' };

  const steps: SelectionStep[] = [];
  const over30 = files.filter((f) => f.size > WARN_FILE_BYTES).map((f) => f.name);
  if (over30.length > 0) steps.push({ kind: 'noMoreThan30G', names: over30 });

  const totalBytes = files.reduce((sum, f) => sum + f.size, 0);
  if (!ctx.publicPage) {
    const heavy = totalBytes >= PLUGIN_TIP_TOTAL_BYTES || files.length > PLUGIN_TIP_FILE_COUNT;
    if (heavy && !ctx.pluginTipShown) steps.push({ kind: 'pluginTip' });
    const anyBig = files.some((f) => f.size >= CLIENT_SUGGEST_BYTES);
    if (anyBig && ctx.clientChoice === undefined) steps.push({ kind: 'clientChoice' });
    return { kind: 'proceed', steps, totalBytes, useClient: anyBig && ctx.clientChoice === 'client' };
  }
  return { kind: 'proceed', steps, totalBytes, useClient: false };
}
