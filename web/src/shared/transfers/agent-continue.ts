// Carrying on, in the browser, a transfer the local agent was running when it was lost. A download fetches the same
// items through the browser's own download path. An upload cannot: the browser may not read the agent's local path,
// so the user picks the file again, and the engine's session lookup by content (fMd5, folder, name) then finds the
// parts the agent already stored, when the picked file is that same file and was big enough to go in parts. A lost
// folder upload takes the folder picked again through the files screen's own folder flow (planUpload), so its tree is
// found or created where the agent was putting it, and each file goes on from what the server holds of it.
import i18n from 'i18next';
import { MIN_PART_SIZE } from '@hcs/transfer-core';
import { getInstance } from '../../api/gen/files/files.ts';
import { toastError, toastInfo, toastWarning } from '../notify.ts';
import { getUserInfo } from '../session.ts';
import { openTransferPanel } from '../transfer-counters.ts';
import type { AgentJob } from './agent-client.ts';
import { getAgent } from './agent-runtime.ts';
import { downloadItems, type DownloadPrompts, type DownloadTarget } from './download.ts';
import { fromFileList } from './pick-files.ts';
import { planUpload, type UploadPlanResult, type UploadPrompts } from './upload-flow.ts';
import { getTransferStore } from './runtime.ts';

/** What picking `files` for the lost upload `job` leads to: its stored parts reused, its folder tree rebuilt, or a fresh upload. */
export type UploadContinuation = 'resume' | 'tree' | 'afresh';

/** The agent was sending one local folder: picked again, its tree is rebuilt rather than its files put flat. */
export function isFolderJob(job: AgentJob): boolean {
  return job.kind === 'upload' && job.folder === true;
}

/** Whether the server may hold parts of this job's file before anything is picked. */
export function mayResume(job: AgentJob): boolean {
  return job.kind === 'upload' && job.files === 1 && job.bytes >= MIN_PART_SIZE && job.bytesDone > 0;
}

/**
 * The agent sent one file, its name the job's, in parts and some of them arrived: the same file picked again (same
 * name and size; the engine checks the content) goes on from them. Anything else is uploaded afresh.
 */
export function uploadContinuation(job: AgentJob, files: readonly { name: string; size: number; webkitRelativePath?: string }[]): UploadContinuation {
  // Only a folder pick carries the paths the tree is rebuilt from.
  if (isFolderJob(job) && files.length > 0 && files.every((f) => f.webkitRelativePath)) return 'tree';
  const [only] = files;
  return mayResume(job) && files.length === 1 && only!.name === job.name && only!.size === job.bytes ? 'resume' : 'afresh';
}

function owner(): string {
  return getUserInfo()?.userId ?? 'anonymous';
}

// The download flow's questions, without the dialogs of the files screen (this runs from the transfer panel): the
// desktop-client offer is answered with the browser, which is what the user just chose.
const prompts: DownloadPrompts = {
  notice: (level, key, values) => (level === 'info' ? toastInfo : level === 'warning' ? toastWarning : toastError)(i18n.t(key, values ?? {})),
  clientOrWeb: () => Promise.resolve('web'),
};

/** Downloads the lost job's items in the browser; the agent, if it comes back, drops the job. */
export async function continueDownloadInBrowser(job: AgentJob): Promise<void> {
  const items: DownloadTarget[] = await Promise.all(
    (job.instanceIds ?? []).map(async (id) => {
      const i = (await getInstance(id, undefined, { quiet: true })).data;
      if (!i?.instanceId) throw new Error('no such item');
      return { instanceId: i.instanceId, instanceName: i.instanceName, classifierId: i.classifierId === 'Folder' ? 'Folder' : 'File', fSize: i.fSize ?? 0, path: '/' };
    }),
  );
  getAgent().takeOver(job.id);
  // Not back to the agent that was just lost: the browser does it.
  await downloadItems(items, getTransferStore(owner()), prompts);
}

/** Queues the picked files where the lost upload was going; says whether its stored parts are reused. */
export function continueUploadInBrowser(job: AgentJob, files: readonly File[]): UploadContinuation {
  const how = uploadContinuation(job, files);
  getAgent().takeOver(job.id);
  getTransferStore(owner()).add(
    files.map((file) => ({
      file,
      name: file.name,
      parentId: job.parentId!,
      uploadTo: job.target,
      // A page that handed over before these were sent: the personal library's.
      instanceType: job.instanceType ?? '1',
      libCode: job.libCode ?? 'NetDisk',
      conflict: job.conflict === 'keepBoth' ? 'keepBoth' : 'newVersion',
    })),
  );
  openTransferPanel('upload');
  return how;
}

/**
 * Uploads the folder picked again for the lost folder upload `job` into the folder it was going to, through the files
 * screen's folder flow. The user already chose the browser and answered the same-name question when handing it over,
 * so neither is asked again: files the agent stored clash by name and take the job's own rule.
 */
export function continueFolderInBrowser(job: AgentJob, files: readonly File[], prompts: UploadPrompts): Promise<UploadPlanResult> {
  getAgent().takeOver(job.id);
  const conflict = job.conflict === 'keepBoth' ? 'keepBoth' : 'newVersion';
  return planUpload(
    fromFileList(files),
    { parentId: job.parentId!, path: job.target, instanceType: job.instanceType ?? '1', libCode: job.libCode ?? 'NetDisk' },
    { ...prompts, conflict: () => Promise.resolve(conflict) },
    { pluginTipShown: true, clientChoice: 'web' },
    (items) => {
      getTransferStore(owner()).add(items);
      openTransferPanel('upload');
    },
  );
}
