// Downloads from the file screens (spec 5 rules): a file over 80 GB is refused; on Windows a file of 1 GB or more
// first offers the desktop client; a file goes to a file the user picks through the engine's DownloadTask (ranged,
// 3 parts, pause/resume, SHA-256 verified; shown in the transfer panel) where the browser has the File System Access
// API, else to the browser's own download manager through a presigned link (which resumes with Range). A folder, or
// several items, become the server's streamed zip: into a picked file through a ZipDownload (progress, listed as
// finished once written), else handed to the browser, which then owns it (the panel cannot know when it ends).
import { canWriteFiles } from '@hcs/transfer-core/browser';
import { getS3DownloadUrl, getZipDownloadUrl } from '../../api/gen/download/download.ts';
import { getFolderInfo } from '../../api/gen/files/files.ts';
import { openTransferPanel } from '../transfer-counters.ts';
import { CLIENT_SUGGEST_BYTES, MAX_FILE_BYTES } from './limits.ts';
import type { TransferStore } from './transfer-store.ts';

export interface DownloadTarget {
  instanceId: string;
  instanceName: string;
  classifierId: 'Folder' | 'File';
  fSize: number;
  /** Display path of its folder, for the finished list. */
  path: string;
}

export interface DownloadPrompts {
  notice(level: 'info' | 'warning' | 'error', key: string, values?: Record<string, string | number>): void;
  /** Spec 5: client or web download for big files on Windows. */
  clientOrWeb(name: string): Promise<'client' | 'web' | 'cancel'>;
  /** Hands the download to the local agent (its download folder); false when the browser must do it. */
  handOver?(instanceIds: string[]): Promise<boolean>;
  /** The tab is connected to the local agent: downloads go there first (folders as trees, not zips). */
  viaAgent?(): boolean;
}

const isWindows = (): boolean => /Windows/i.test(navigator.userAgent);

/** Hands a URL to the browser's download manager without leaving the app. */
function browserDownload(url: string): void {
  const a = document.createElement('a');
  a.href = url;
  a.rel = 'noopener';
  a.download = '';
  a.style.display = 'none';
  document.body.appendChild(a);
  a.click();
  a.remove();
}

type SavePicker = (o: { suggestedName: string }) => Promise<FileSystemFileHandle>;

/** Asks where to save; undefined when the user closed the dialog. */
async function pickFile(suggestedName: string): Promise<FileSystemFileHandle | undefined> {
  try {
    return await (window as unknown as { showSaveFilePicker: SavePicker }).showSaveFilePicker({ suggestedName });
  } catch {
    return undefined;
  }
}

/** What a zip of these items holds: the files' own sizes, folders' from the server's folder summary. */
async function contentBytes(items: readonly DownloadTarget[]): Promise<number> {
  const sizes = await Promise.all(
    items.map(async (i) =>
      i.classifierId === 'File' ? i.fSize : ((await getFolderInfo({ instanceId: i.instanceId, limit: 1 }, { quiet: true }).catch(() => undefined))?.data?.totalBytes ?? 0),
    ),
  );
  return sizes.reduce((a, b) => a + b, 0);
}

export async function downloadItems(items: readonly DownloadTarget[], store: TransferStore, prompts: DownloadPrompts): Promise<void> {
  if (prompts.viaAgent?.() && prompts.handOver && (await prompts.handOver(items.map((i) => i.instanceId)))) return;
  const folders = items.filter((i) => i.classifierId === 'Folder');
  const files = items.filter((i) => i.classifierId === 'File');
  // Several items or any folder: one zip keeps the browser from opening a download per item.
  if (folders.length > 0 || files.length > 1) {
    const name = items.length === 1 ? items[0]!.instanceName : 'download';
    const ids = items.map((i) => i.instanceId);
    if (canWriteFiles()) {
      // The picker first: it needs the click that is still fresh now.
      const handle = await pickFile(`${name}.zip`);
      if (!handle) return;
      store.addZipDownload({ ids, name: `${name}.zip`, size: await contentBytes(items), path: items[0]!.path, handle });
      openTransferPanel('download');
      return;
    }
    const res = await getZipDownloadUrl({ ids: ids.join(','), name }, { quiet: true });
    if (!res.data?.url) throw new Error('no zip url');
    browserDownload(res.data.url);
    prompts.notice('info', 'transfer.zipInBrowser', { name: `${name}.zip` });
    return;
  }
  const file = files[0];
  if (!file) return;
  if (file.fSize > MAX_FILE_BYTES) {
    prompts.notice('error', 'transfer.moreThan80GB');
    return;
  }
  if (file.fSize >= CLIENT_SUGGEST_BYTES && isWindows()) {
    const choice = await prompts.clientOrWeb(file.instanceName);
    if (choice === 'cancel') return;
    if (choice === 'client') {
      if (prompts.handOver && (await prompts.handOver([file.instanceId]))) return;
      prompts.notice('info', 'transfer.clientUnavailable');
    }
  }
  if (canWriteFiles()) {
    const handle = await pickFile(file.instanceName);
    if (!handle) return;
    store.addDownload({ instanceId: file.instanceId, name: file.instanceName, size: file.fSize, path: file.path, handle });
    openTransferPanel('download');
    return;
  }
  const res = await getS3DownloadUrl({ instanceId: file.instanceId, fileName: encodeURIComponent(file.instanceName) }, { quiet: true });
  if (!res.data?.url) throw new Error('no download url');
  browserDownload(res.data.url);
  store.addFinished({ filename: file.instanceName, fileSize: file.fSize, filePosition: file.path, transferType: 'download', fileId: file.instanceId });
}
