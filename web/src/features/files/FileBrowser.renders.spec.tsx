// The files screen's table is not drawn again for what happens around it (issue #22): a dialog opening re-rendered
// every row and cell, and on a loaded machine the dialog's buttons were clicked while it was still zooming in.
import { afterAll, beforeAll, expect, it, vi } from 'vitest';
import { fireEvent, screen, waitFor } from '@testing-library/react';
import { setupServer } from 'msw/node';
import { http, HttpResponse } from 'msw';
import { createMemoryRouter, RouterProvider } from 'react-router-dom';
import type { ReactNode } from 'react';
import type { Instance } from '../../api/gen/model/instance.ts';
import { getListInstancesMockHandler } from '../../api/gen/files/files.msw.ts';
import { renderInProviders } from '../../test/render-app.tsx';
import { scriptedEngine } from '../../test/fake-engine.ts';
import { memoryPersistence } from '../../shared/transfers/queue-persistence.ts';
import { TransferStore } from '../../shared/transfers/transfer-store.ts';
import { FileBrowser } from './FileBrowser.tsx';

// Each row draws one thumbnail: counting them counts the rows drawn.
const drawn = vi.hoisted(() => ({ rows: 0 }));
vi.mock('./FileThumb.tsx', () => ({
  FileThumb: ({ fallback }: { fallback: ReactNode }) => {
    drawn.rows++;
    return <>{fallback}</>;
  },
}));

const rows: Instance[] = Array.from({ length: 20 }, (_, i) => ({
  instanceId: `id${i}`,
  instanceName: `file-${i}.txt`,
  classifierId: 'File',
  parentId: 'root',
  libCode: 'NetDisk',
  instanceType: '1',
  fSize: 100 * i,
  fType: 'txt',
  fileType: 'txt',
  userId: 'u1',
  userName: 'alice',
  createTime: Date.UTC(2024, 0, 2),
  updateTime: Date.UTC(2024, 0, 2),
}));

const server = setupServer(
  getListInstancesMockHandler({ ret: 0, msg: 'success', data: { total: rows.length, pageNo: 1, pageSize: 20, list: rows, parentId: 'root', breadcrumbs: [{ instanceId: 'root', instanceName: 'root' }] } }),
  http.get('*/hcs/services/API/getToolName', () => HttpResponse.json({ ret: 1, msg: 'not implemented', data: { code: 'NOT_IMPLEMENTED', traceId: 't' } }, { status: 501 })),
);
beforeAll(() => server.listen());
afterAll(() => server.close());

it('opening the new-folder dialog draws no row of the table again', async () => {
  const store = new TransferStore({ engine: scriptedEngine().engine, persistence: memoryPersistence() });
  const router = createMemoryRouter([{ path: '/personalFile', element: <FileBrowser libCode="NetDisk" instanceType="1" store={store} /> }], { initialEntries: ['/personalFile'] });
  await renderInProviders(<RouterProvider router={router} />, 'en_US');
  await screen.findByText('file-19.txt');
  // The row gestures load after the list and draw the rows once more (draggable): measure from after that.
  await waitFor(() => expect(screen.getByText('file-19.txt').closest('tr')?.getAttribute('draggable')).toBe('true'));
  expect(drawn.rows).toBeGreaterThanOrEqual(rows.length);
  const before = drawn.rows;
  fireEvent.click(screen.getByTestId('new-folder'));
  await screen.findByTestId('name-dialog-input');
  expect(drawn.rows - before).toBe(0);
});
