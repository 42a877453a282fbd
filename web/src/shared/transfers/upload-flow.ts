// From a pick or a drop to queued uploads: the spec 5 selection rules with their dialogs, the folder tree of a
// folder upload created where missing, and the same-name question (new version or keep both).
import { checkFileExist } from '../../api/gen/upload/upload.ts';
import { createInstances } from '../../api/gen/files/files.ts';
import { HcsError } from '../../api/hcs-error.ts';
import { encodeWireText } from '../wire-encoding.ts';
import { nameProblem, type NameProblem } from '../format.ts';
import { errorMessage } from '../error-message.ts';
import type { ConflictChoice } from './engine.ts';
import type { PickResult } from './pick-files.ts';
import { evaluateSelection, type SelectionContext } from './selection-rules.ts';
import { MAX_FILES_PER_SELECTION } from './limits.ts';
import type { NewUpload } from './transfer-store.ts';

/** The questions and notices of the flow; the UI implements them with antd dialogs, tests with answers. */
export interface UploadPrompts {
  notice(level: 'info' | 'warning' | 'error', key: string, values?: Record<string, string | number>): void;
  /** transfer.over80G alert, listing the names (fileOVer80G list). */
  over80G(names: string[]): Promise<void>;
  /** noMoreThan30G: true to continue. */
  confirm30G(names: string[]): Promise<boolean>;
  /** Plugin tip: hand the upload to the local agent, download the plugin, or continue in the browser. */
  pluginTip(): Promise<'agent' | 'download' | 'browser'>;
  /**
   * Hands the upload to the local agent (the handshake, then the agent's own picker chooses the files: the browser's
   * File objects cannot be handed over); false when the browser must upload after all. Absent: no agent here.
   */
  handOver?(target: UploadTarget): Promise<boolean>;
  /** Desktop client or web upload for files of 1 GB or more. */
  clientChoice(): Promise<'client' | 'web'>;
  /** Some names already exist in their folders: version them, keep both, or cancel the upload. */
  conflict(names: string[]): Promise<ConflictChoice | 'cancel'>;
  /** Files and folders whose names break a rule (spec 5): listed before anything is uploaded; the rest go on. */
  invalidNames(items: InvalidName[]): Promise<void>;
}

/** A picked file or folder that cannot be uploaded under its name: its path in the pick, and the rule broken. */
export interface InvalidName {
  path: string;
  problem: NameProblem;
}

/**
 * Splits a pick into what can go and what cannot by name. A folder with a bad name is reported once and takes its
 * whole subtree with it (nothing in it has a place to go); files are checked by their own names.
 */
export function splitByName(pick: PickResult): { valid: PickResult; invalid: InvalidName[] } {
  const invalid: InvalidName[] = [];
  const badDirs: string[] = [];
  const under = (path: string) => badDirs.some((d) => path === d || path.startsWith(`${d}/`));
  const dirs: string[] = [];
  // Parents come before children in pick.dirs, so a bad parent is known before its children are looked at.
  for (const dir of pick.dirs) {
    if (under(dir)) continue;
    const problem = nameProblem(dir.slice(dir.lastIndexOf('/') + 1));
    if (problem) {
      badDirs.push(dir);
      invalid.push({ path: dir, problem });
    } else dirs.push(dir);
  }
  const files: PickResult['files'] = [];
  for (const f of pick.files) {
    if (f.dir && under(f.dir)) continue;
    const problem = nameProblem(f.file.name);
    if (problem) invalid.push({ path: f.dir ? `${f.dir}/${f.file.name}` : f.file.name, problem });
    else files.push(f);
  }
  return { valid: { files, dirs }, invalid };
}

export interface UploadTarget {
  parentId: string;
  /** Display path of the folder ("/" for the root), shown as upload-to in the panel. */
  path: string;
  libCode: string;
  instanceType: string;
  publicPage?: boolean;
  /** A business library upload: the classifier and attribute values every picked file is saved with. */
  attrs?: { classifierId: string; values: Record<string, string | number | null> };
}

/** Per-session answers (spec 5: the tip once per session, the client choice remembered per session). */
export interface SessionMemory {
  pluginTipShown: boolean;
  clientChoice: 'client' | 'web' | undefined;
}

export function sessionMemory(storage: Storage | undefined = globalThis.sessionStorage): SessionMemory {
  const KEY_TIP = 'hcs.upload.pluginTipShown';
  const KEY_CLIENT = 'hcs.upload.clientChoice';
  return {
    get pluginTipShown() {
      return storage?.getItem(KEY_TIP) === '1';
    },
    set pluginTipShown(v: boolean) {
      storage?.setItem(KEY_TIP, v ? '1' : '0');
    },
    get clientChoice() {
      const v = storage?.getItem(KEY_CLIENT);
      return v === 'client' || v === 'web' ? v : undefined;
    },
    set clientChoice(v) {
      if (v) storage?.setItem(KEY_CLIENT, v);
    },
  };
}

// Every failure of the flow reaches the user as one of its notices; the HTTP hooks must not toast it as well.
const QUIET = { quiet: true } as const;

export type UploadPlanResult = { queued: number } | { aborted: string } | { handedOver: true };

/** Finds or creates the folder `name` in `parentId`, returning its id. */
async function ensureFolder(parentId: string, name: string, target: UploadTarget): Promise<{ id: string; created: boolean }> {
  const instanceName = encodeWireText(name);
  const existing = await checkFileExist({ parentId, instanceName }, QUIET);
  const found = existing.data;
  if (found?.data === 1) {
    if (found.classifierId === 'File') throw new HcsError(409, 409, name, 'NAME_EXISTS');
    const id = found.instanceId ?? existing.msg;
    if (id) return { id, created: false };
  }
  try {
    const created = await createInstances([{ classifierId: 'Folder', parentId, instanceName, libCode: target.libCode, instanceType: target.instanceType }], undefined, QUIET);
    const id = created.data?.[0]?.instanceId;
    if (!id) throw new HcsError(500, 1, 'no folder id returned', 'INTERNAL');
    return { id, created: true };
  } catch (err) {
    // Another tab or a parallel drop created it between our check and create: use theirs.
    if (err instanceof HcsError && err.code === 'NAME_EXISTS') {
      const again = await checkFileExist({ parentId, instanceName }, QUIET);
      const id = again.data?.instanceId ?? again.msg;
      if (again.data?.data === 1 && again.data.classifierId !== 'File' && id) return { id, created: false };
    }
    throw err;
  }
}

async function mapLimit<T, R>(items: readonly T[], limit: number, fn: (t: T) => Promise<R>): Promise<R[]> {
  const out: R[] = new Array(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const i = next++;
      out[i] = await fn(items[i]!);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return out;
}

export async function planUpload(
  picked: PickResult,
  target: UploadTarget,
  prompts: UploadPrompts,
  memory: SessionMemory,
  enqueue: (items: NewUpload[]) => void,
): Promise<UploadPlanResult> {
  // More than the selection limit is refused as a whole (spec 5), whatever the names.
  if (picked.files.length > MAX_FILES_PER_SELECTION) {
    prompts.notice('warning', 'transfer.uploadTooMuch', { count: picked.files.length });
    return { aborted: 'tooMany' };
  }
  const { valid: pick, invalid } = splitByName(picked);
  if (invalid.length > 0) {
    await prompts.invalidNames(invalid);
    if (pick.files.length === 0 && pick.dirs.length === 0) return { aborted: 'invalidNames' };
  }
  const ctx: SelectionContext = { publicPage: target.publicPage ?? false, pluginTipShown: memory.pluginTipShown, clientChoice: memory.clientChoice };
  const outcome = evaluateSelection(
    pick.files.map((f) => ({ name: f.file.name, size: f.file.size })),
    ctx,
  );
  switch (outcome.kind) {
    case 'tooMany':
      prompts.notice('warning', 'transfer.uploadTooMuch', { count: outcome.count });
      return { aborted: 'tooMany' };
    case 'over80G':
      await prompts.over80G(outcome.names);
      return { aborted: 'over80G' };
    case 'empty':
      prompts.notice('info', 'transfer.empty');
      return { aborted: 'empty' };
    case 'proceed':
      break;
  }
  for (const step of outcome.steps) {
    if (step.kind === 'noMoreThan30G') {
      if (!(await prompts.confirm30G(step.names))) return { aborted: 'cancelled' };
    } else if (step.kind === 'pluginTip') {
      memory.pluginTipShown = true;
      const choice = await prompts.pluginTip();
      // The agent's protocol carries no attribute values: a business library upload with values stays here.
      if (choice === 'agent' && !target.attrs && prompts.handOver && (await prompts.handOver(target))) return { handedOver: true };
    } else {
      const choice = await prompts.clientChoice();
      memory.clientChoice = choice;
      if (choice === 'client') prompts.notice('info', 'transfer.clientUnavailable');
    }
  }

  // Folders first, parents before children, so every file has its target id.
  const folderIds = new Map<string, string>([['', target.parentId]]);
  const createdDirs = new Set<string>();
  let name = '';
  try {
    for (const dir of pick.dirs) {
      const i = dir.lastIndexOf('/');
      const parentDir = i < 0 ? '' : dir.slice(0, i);
      name = i < 0 ? dir : dir.slice(i + 1);
      const parentId = folderIds.get(parentDir);
      if (parentId === undefined) throw new Error(`missing parent of ${dir}`);
      const folder = await ensureFolder(parentId, name, target);
      folderIds.set(dir, folder.id);
      if (folder.created) createdDirs.add(dir);
    }
  } catch (err) {
    prompts.notice('error', 'transfer.folderCreateFailed', { reason: errorMessage(err, { name }) });
    return { aborted: 'folders' };
  }

  // Same-name check only where a clash is possible; a folder that did not exist before cannot hold one.
  const checks = await mapLimit(pick.files, 4, async (f) => {
    if (createdDirs.has(f.dir)) return undefined;
    const parentId = folderIds.get(f.dir)!;
    const r = await checkFileExist({ parentId, instanceName: encodeWireText(f.file.name) }, QUIET);
    return r.data?.data === 1 ? f.file.name : undefined;
  });
  const clashes = checks.filter((n): n is string => n !== undefined);
  let conflict: ConflictChoice = 'keepBoth';
  if (clashes.length > 0) {
    const answer = await prompts.conflict(clashes);
    if (answer === 'cancel') return { aborted: 'cancelled' };
    conflict = answer;
  }

  const base = target.path === '/' ? '' : target.path.replace(/\/$/, '');
  enqueue(
    pick.files.map((f) => ({
      file: f.file,
      name: f.file.name,
      parentId: folderIds.get(f.dir)!,
      uploadTo: `${base}/${f.dir}`.replace(/\/$/, '') || '/',
      instanceType: target.instanceType,
      libCode: target.libCode,
      conflict,
      ...(target.attrs ? { attrs: target.attrs } : {}),
    })),
  );
  return { queued: pick.files.length };
}
