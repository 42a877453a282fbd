import { describe, expect, it } from 'vitest';
import { act, fireEvent, render, screen, within } from '@testing-library/react';
import { initI18n } from '../../app/i18n.ts';
import { createQueryClient, Providers } from '../../app/providers.tsx';
import type { UploadEngine, UploadEvents } from './engine.ts';
import { memoryPersistence } from './queue-persistence.ts';
import { TransferLists } from './TransferPanel.tsx';
import { TransferStore } from './transfer-store.ts';

function setup() {
  const runs: Array<{ events: UploadEvents; resolve: () => void; reject: (e: unknown) => void; signal: AbortSignal }> = [];
  const engine: UploadEngine = {
    upload: (_job, events, signal) =>
      new Promise((resolve, reject) => {
        runs.push({ events, resolve: () => resolve({ instanceId: 'i' }), reject, signal });
        signal.addEventListener('abort', () => reject(new DOMException('x', 'AbortError')));
      }),
  };
  let now = 0;
  let id = 0;
  const store = new TransferStore({ engine, persistence: memoryPersistence(), now: () => now, newId: () => `u${++id}`, progressIntervalMs: 1 });
  const add = (names: string[]) =>
    store.add(names.map((name) => ({ file: new File([new Uint8Array(1000)], name), name, parentId: 'p', uploadTo: '/docs', instanceType: '1', libCode: 'NetDisk', conflict: 'keepBoth' as const })));
  return { store, runs, add, tick: (ms: number) => (now += ms) };
}

async function renderPanel(store: TransferStore) {
  await initI18n('en_US');
  render(
    <Providers queryClient={createQueryClient()}>
      <TransferLists store={store} />
    </Providers>,
  );
}

describe('TransferLists', () => {
  it('shows filename, size, upload-to and status; speed and time left while uploading', async () => {
    const { store, runs, add, tick } = setup();
    add(['a.bin', 'b.bin']);
    await renderPanel(store);
    const table = screen.getByTestId('transfer-upload-table');
    for (const h of ['File name', 'File size', 'Upload to', 'Status']) expect(within(table).getAllByText(h).length).toBeGreaterThan(0);
    expect(within(table).getAllByText('/docs')).toHaveLength(2);
    expect(screen.getByTestId('upload-status-b.bin').getAttribute('data-status')).toBe('ready');
    await act(async () => {
      runs[0]!.events.phase('uploading');
      runs[0]!.events.progress(0, 1000);
      tick(2000);
      runs[0]!.events.progress(400, 1000);
      await new Promise((r) => setTimeout(r, 10));
    });
    const cell = screen.getByTestId('upload-status-a.bin');
    expect(cell.textContent).toContain('Uploading');
    expect(cell.textContent).toContain('40%');
    expect(cell.textContent).toContain('200.00B/s');
    expect(cell.textContent).toContain('3s left');
  });

  it('pause all, resume all, per-row retry and delete, and the spec error message', async () => {
    const { store, runs, add } = setup();
    add(['a.bin', 'b.bin']);
    await renderPanel(store);
    await act(async () => fireEvent.click(screen.getByTestId('transfer-pause-all')));
    expect(store.getSnapshot().uploads.map((u) => u.status)).toEqual(['pause', 'pause']);
    expect(runs[0]!.signal.aborted).toBe(true);
    await act(async () => fireEvent.click(screen.getByTestId('transfer-resume-all')));
    expect(store.getSnapshot().uploads.map((u) => u.status)).toEqual(['checking', 'ready']);
    await act(async () => {
      runs[1]!.reject(Object.assign(new Error('x'), { code: '304', messageKey: 'transfer.error.304' }));
      await new Promise((r) => setTimeout(r, 0));
    });
    expect(screen.getByTestId('upload-status-a.bin').textContent).toContain('[304] Failed to obtain partition information');
    await act(async () => fireEvent.click(screen.getByTestId('upload-retry-a.bin')));
    expect(runs).toHaveLength(3);
    await act(async () => fireEvent.click(screen.getByTestId('upload-delete-b.bin')));
    expect(store.getSnapshot().uploads.map((u) => u.name)).toEqual(['a.bin']);
  });

  it('puts finished transfers at the top of the finished tab', async () => {
    const { store, runs, add } = setup();
    add(['first.bin', 'second.bin']);
    await renderPanel(store);
    await act(async () => {
      runs[0]!.resolve();
      await new Promise((r) => setTimeout(r, 0));
      runs[1]!.resolve();
      await new Promise((r) => setTimeout(r, 0));
    });
    fireEvent.click(screen.getByText('Finished (2)'));
    const rows = within(screen.getByTestId('transfer-finished-table')).getAllByRole('row').slice(1);
    expect(rows[0]!.textContent).toContain('second.bin');
    expect(rows[1]!.textContent).toContain('first.bin');
  });
});
