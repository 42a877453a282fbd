// Spec 5: on Windows a file of 1 GB or more offers the desktop client first; choosing it hands the download to the
// local agent, and the browser fetches nothing. A tab connected to the agent hands it every download. Without the
// agent, the browser downloads as before.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { downloadItems, type DownloadPrompts, type DownloadTarget } from './download.ts';
import type { TransferStore } from './transfer-store.ts';

const GB = 1024 ** 3;
const big: DownloadTarget = { instanceId: 'i1', instanceName: 'film.mkv', classifierId: 'File', fSize: 2 * GB, path: '/' };

afterEach(() => vi.unstubAllGlobals());

function prompts(handOver: DownloadPrompts['handOver']): { p: DownloadPrompts; log: string[] } {
  const log: string[] = [];
  return {
    log,
    p: {
      notice: (level, key) => void log.push(`${level}:${key}`),
      clientOrWeb: async (name) => (log.push(`clientOrWeb:${name}`), 'client'),
      handOver,
    },
  };
}

describe('downloadItems and the local agent', () => {
  it('hands a big file to the agent when the client is chosen on Windows', async () => {
    vi.stubGlobal('navigator', { ...navigator, userAgent: 'Mozilla/5.0 (Windows NT 10.0; Win64; x64)' });
    const handed: string[][] = [];
    const { p, log } = prompts(async (ids) => (handed.push(ids), true));
    const store = { addDownload: vi.fn(), addFinished: vi.fn() } as unknown as TransferStore;
    await downloadItems([big], store, p);
    expect(handed).toEqual([['i1']]);
    expect(log).toEqual(['clientOrWeb:film.mkv']);
    expect(store.addDownload).not.toHaveBeenCalled();
    expect(store.addFinished).not.toHaveBeenCalled();
  });

  it('a tab connected to the agent hands it every download, a folder with the rest, without asking or zipping', async () => {
    const handed: string[][] = [];
    const { p, log } = prompts(async (ids) => (handed.push(ids), true));
    p.viaAgent = () => true;
    const folder: DownloadTarget = { instanceId: 'd1', instanceName: 'photos', classifierId: 'Folder', fSize: 0, path: '/' };
    const store = { addDownload: vi.fn(), addZipDownload: vi.fn(), addFinished: vi.fn() } as unknown as TransferStore;
    await downloadItems([folder, big], store, p);
    expect(handed).toEqual([['d1', 'i1']]);
    expect(log).toEqual([]);
    expect(store.addZipDownload).not.toHaveBeenCalled();
  });

  it('says no client was found and goes on in the browser when the agent cannot take it', async () => {
    vi.stubGlobal('navigator', { ...navigator, userAgent: 'Mozilla/5.0 (Windows NT 10.0; Win64; x64)' });
    const { p, log } = prompts(async () => false);
    // The browser path then asks the server for a link; stop there.
    vi.stubGlobal('showSaveFilePicker', undefined);
    const store = { addDownload: vi.fn(), addFinished: vi.fn() } as unknown as TransferStore;
    await downloadItems([big], store, p).catch(() => undefined);
    expect(log).toEqual(['clientOrWeb:film.mkv', 'info:transfer.clientUnavailable']);
  });
});
