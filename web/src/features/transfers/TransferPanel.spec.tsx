import { describe, expect, it } from 'vitest';
import { act, fireEvent, screen, within } from '@testing-library/react';
import type { Language } from '../../shared/i18n.ts';
import { renderInProviders } from '../../test/render-app.tsx';
import { failure, scriptedEngine } from '../../test/fake-engine.ts';
import { memoryPersistence } from '../../shared/transfers/queue-persistence.ts';
import { TransferLists } from './TransferPanel.tsx';
import { TransferStore } from '../../shared/transfers/transfer-store.ts';

function setup() {
  const fake = scriptedEngine();
  let id = 0;
  const store = new TransferStore({ engine: fake.engine, persistence: memoryPersistence(), newId: () => `u${++id}`, progressIntervalMs: 1 });
  const add = (names: string[]) =>
    store.add(names.map((name) => ({ file: new File([new Uint8Array(1000)], name), name, parentId: 'p', uploadTo: '/docs', instanceType: '1', libCode: 'NetDisk', conflict: 'keepBoth' as const })));
  return { store, add, ...fake };
}

async function renderPanel(store: TransferStore, lang: Language = 'en_US') {
  await renderInProviders(<TransferLists store={store} />, lang);
}

describe('TransferLists', () => {
  it('shows filename, size, upload-to and status; speed and time left while uploading', async () => {
    const { store, upload, add } = setup();
    add(['a.bin', 'b.bin']);
    await renderPanel(store);
    const table = screen.getByTestId('transfer-upload-table');
    for (const h of ['File name', 'File size', 'Upload to', 'Status']) expect(within(table).getAllByText(h).length).toBeGreaterThan(0);
    expect(within(table).getAllByText('/docs')).toHaveLength(2);
    expect(screen.getByTestId('upload-status-b.bin').getAttribute('data-status')).toBe('ready');
    await act(async () => {
      upload('a.bin').phase('uploading');
      upload('a.bin').emitProgress({ loaded: 400, total: 1000, phase: 'transferring', speed: 200, timeLeft: 3 });
      await new Promise((r) => setTimeout(r, 10));
    });
    const cell = screen.getByTestId('upload-status-a.bin');
    expect(cell.textContent).toContain('Uploading');
    expect(cell.textContent).toContain('40%');
    expect(cell.textContent).toContain('200.00B/s');
    expect(cell.textContent).toContain('3s left');
  });

  it('pause all, resume all, per-row retry and delete, and the spec error message', async () => {
    const { store, upload, runs, add } = setup();
    add(['a.bin', 'b.bin']);
    await renderPanel(store);
    await act(async () => fireEvent.click(screen.getByTestId('transfer-pause-all')));
    expect(store.getSnapshot().uploads.map((u) => u.status)).toEqual(['pause', 'pause']);
    expect(upload('a.bin').signal!.aborted).toBe(true);
    await act(async () => fireEvent.click(screen.getByTestId('transfer-resume-all')));
    expect(store.getSnapshot().uploads.map((u) => u.status)).toEqual(['checking', 'ready']);
    await act(async () => {
      upload('a.bin').fail(failure('304'), 'error');
      await new Promise((r) => setTimeout(r, 0));
    });
    expect(screen.getByTestId('upload-status-a.bin').textContent).toContain('[304] Failed to obtain partition information');
    await act(async () => fireEvent.click(screen.getByTestId('upload-retry-a.bin')));
    expect(runs()).toBe(3);
    await act(async () => fireEvent.click(screen.getByTestId('upload-delete-b.bin')));
    expect(store.getSnapshot().uploads.map((u) => u.name)).toEqual(['a.bin']);
  });

  it('puts finished transfers at the top of the finished tab', async () => {
    const { store, upload, add } = setup();
    add(['first.bin', 'second.bin']);
    await renderPanel(store);
    await act(async () => {
      upload('first.bin').succeed('i1');
      await new Promise((r) => setTimeout(r, 0));
      upload('second.bin').succeed('i2');
      await new Promise((r) => setTimeout(r, 0));
    });
    fireEvent.click(screen.getByText('Finished (2)'));
    const rows = within(screen.getByTestId('transfer-finished-table')).getAllByRole('row').slice(1);
    expect(rows[0]!.textContent).toContain('second.bin');
    expect(rows[1]!.textContent).toContain('first.bin');
  });

  it('lists engine downloads with progress, pause and start', async () => {
    const { store, downloads } = setup();
    store.addDownload({ instanceId: 'i1', name: 'big.iso', size: 1000, path: '/isos', handle: {} as FileSystemFileHandle });
    await renderPanel(store);
    // Downloads have their own tab (spec 2), not a table under the uploads.
    expect(screen.queryByTestId('transfer-download-table')).toBeNull();
    fireEvent.click(screen.getByText('Downloading (1)'));
    const table = await screen.findByTestId('transfer-download-table');
    const headers = within(table).getAllByRole('columnheader').map((h) => h.textContent);
    expect(headers).toEqual(['', 'File name', 'File size', 'Speed', 'Status', 'Location', 'Actions']);
    expect(within(table).getByText('/isos')).toBeTruthy();
    await act(async () => {
      downloads[0]!.emitProgress({ loaded: 250, total: 1000, phase: 'transferring', speed: 100, timeLeft: 7 });
      await new Promise((r) => setTimeout(r, 10));
    });
    const cell = screen.getByTestId('download-status-big.iso');
    expect(cell.getAttribute('data-status')).toBe('resume');
    expect(cell.textContent).toContain('25%');
    expect(cell.textContent).toContain('Downloading');
    expect(screen.getByTestId('download-speed-big.iso').textContent).toBe('100.00B/s');
    await act(async () => fireEvent.click(screen.getByTestId('download-pause-big.iso')));
    expect(screen.getByTestId('download-status-big.iso').getAttribute('data-status')).toBe('pause');
    await act(async () => {
      fireEvent.click(screen.getByTestId('download-start-big.iso'));
      await new Promise((r) => setTimeout(r, 0));
    });
    expect(downloads[0]!.runs).toBe(2);
    await act(async () => fireEvent.click(screen.getByTestId('download-delete-big.iso')));
    expect(screen.queryByTestId('download-status-big.iso')).toBeNull();
  });

  it("zh_CN: a failure the server caused reads in Chinese by its code, never the server's English", async () => {
    const { store, upload, add } = setup();
    add(['a.bin', 'b.bin']);
    await renderPanel(store, 'zh_CN');
    const cause = Object.assign(new Error('at most 100 unfinished uploads at a time'), { status: 409, ret: 1, code: 'TOO_MANY_UPLOADS' });
    await act(async () => {
      upload('a.bin').fail(failure('301', { serverMessage: 'at most 100 unfinished uploads at a time', cause }), 'error');
      // One upload at a time: b starts once a has failed.
      await new Promise((r) => setTimeout(r, 0));
      upload('b.bin').fail(failure('UPLOAD_FAILED', { serverMessage: 'a newer server explains', cause: Object.assign(new Error('x'), { status: 409, ret: 1, code: 'NEWER_CODE' }) }), 'error');
      await new Promise((r) => setTimeout(r, 0));
    });
    const a = screen.getByTestId('upload-status-a.bin').textContent;
    expect(a).toContain('[301] 初始化分片失败；未完成的上传任务过多，请先完成或取消部分任务后再上传');
    expect(a).not.toContain('at most');
    // A code this app does not know yet: the server's text is all there is.
    expect(screen.getByTestId('upload-status-b.bin').textContent).toContain('a newer server explains');
  });
});
