// Component tests of the list screen against the contract's msw handlers (orval), with answers built per test.
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { act, fireEvent, screen, waitFor, within } from '@testing-library/react';
import { setupServer } from 'msw/node';
import { createMemoryRouter, RouterProvider } from 'react-router-dom';
import { http, HttpResponse } from 'msw';
import type { Instance } from '../../api/gen/model/instance.ts';
import { getCheckFileExistMockHandler } from '../../api/gen/upload/upload.msw.ts';
import { getDeleteInstancesMockHandler, getListInstancesMockHandler, getModifyInstanceMockHandler } from '../../api/gen/files/files.msw.ts';
import type { Language } from '../../shared/i18n.ts';
import { renderInProviders } from '../../test/render-app.tsx';
import { toastError } from '../../shared/notify.ts';
import type * as Notify from '../../shared/notify.ts';
import { scriptedEngine } from '../../test/fake-engine.ts';
import { memoryPersistence } from '../../shared/transfers/queue-persistence.ts';
import { TransferStore } from '../../shared/transfers/transfer-store.ts';
import { FileBrowser } from './FileBrowser.tsx';

// The real toasts, observed: a failure shown in a dialog or in the list must not be toasted on top.
vi.mock('../../shared/notify.ts', async (importOriginal) => {
  const real = await importOriginal<typeof Notify>();
  return { ...real, toastError: vi.fn(real.toastError) };
});

const server = setupServer();
beforeAll(() => {
  server.listen({ onUnhandledFrame: 'error' });
  server.resetHandlers(noTool());
});
afterEach(() => server.resetHandlers(noTool()));
afterAll(() => server.close());
beforeEach(() => {
  localStorage.clear();
  vi.mocked(toastError).mockClear();
});
// The upload prompts ask whether the server offers a client tool; these tests' server offers none unless told.
const noTool = () => http.get('*/hcs/services/API/getToolName', () => envelopeError(501, 'NOT_IMPLEMENTED', 'not implemented'));
const envelopeError = (status: number, code: string, msg: string) => HttpResponse.json({ ret: 1, msg, data: { code, traceId: 't' } }, { status });

function inst(i: number, over: Partial<Instance> = {}): Instance {
  return {
    instanceId: `id${i}`,
    instanceName: `file-${String(i).padStart(6, '0')}.txt`,
    classifierId: 'File',
    parentId: 'root',
    libCode: 'NetDisk',
    instanceType: '1',
    fSize: 1536 * i,
    fType: 'txt',
    fileType: 'txt',
    userId: 'u1',
    userName: 'alice',
    createTime: Date.UTC(2024, 0, 2, 3, 4, 5),
    updateTime: Date.UTC(2024, 0, 2, 3, 4, 5),
    ...over,
  };
}

/** A 100,000-entry folder served page by page like the server: keyset cursor honoured, requests recorded. */
function bigFolder(extra: Instance[] = []) {
  const TOTAL = 100_000;
  const requests: URLSearchParams[] = [];
  const handler = getListInstancesMockHandler(({ request }) => {
    const q = new URL(request.url).searchParams;
    requests.push(q);
    const size = Number(q.get('pageSize') ?? 20);
    const cursor = q.get('cursor');
    const start = cursor ? Number(cursor) : (Number(q.get('pageNo') ?? 1) - 1) * size;
    const list = [...extra, ...Array.from({ length: size - extra.length }, (_, k) => inst(start + k + 1))];
    return {
      ret: 0,
      msg: 'success',
      data: { total: TOTAL, pageNo: Number(q.get('pageNo') ?? 1), pageSize: size, nextCursor: String(start + size), list, parentId: 'root', breadcrumbs: [{ instanceId: 'root', instanceName: 'root' }] },
    };
  });
  return { handler, requests };
}

let router: ReturnType<typeof createMemoryRouter>;

async function renderBrowser(lang: Language = 'en_US', path = '/personalFile') {
  const store = new TransferStore({ engine: scriptedEngine().engine, persistence: memoryPersistence() });
  router = createMemoryRouter([{ path: '/personalFile', element: <FileBrowser libCode="NetDisk" instanceType="1" store={store} /> }], { initialEntries: [path] });
  await renderInProviders(<RouterProvider router={router} />, lang);
  return store;
}

describe('FileBrowser list', () => {
  it('pages a 100,000-entry folder with sizes 10-100, total, jumper, and keyset cursors when paging forward', async () => {
    const { handler, requests } = bigFolder();
    server.use(handler);
    await renderBrowser();
    expect(await screen.findByText('file-000001.txt')).toBeTruthy();
    expect(screen.getByText('100000 items')).toBeTruthy();
    expect(screen.getByText('1.50 KB'.replace(' ', ''))).toBeTruthy();
    expect(screen.getAllByText('2024-01-02', { exact: false }).length).toBeGreaterThan(0);
    expect(requests[0]!.get('pageSize')).toBe('20');
    expect(requests[0]!.get('cursor')).toBeNull();

    fireEvent.click(screen.getByTitle('2'));
    expect(await screen.findByText('file-000021.txt')).toBeTruthy();
    expect(requests.at(-1)!.get('cursor')).toBe('20');

    // The jumper goes straight to a far page (offset, no cursor known for it).
    const jumper = screen.getByTestId('pagination-jumper');
    fireEvent.change(jumper, { target: { value: '5000' } });
    fireEvent.keyDown(jumper, { key: 'Enter', code: 'Enter', keyCode: 13 });
    expect(await screen.findByText('file-099981.txt')).toBeTruthy();
    expect(requests.at(-1)!.get('pageNo')).toBe('5000');
    expect(requests.at(-1)!.get('cursor')).toBeNull();

    const options = within(screen.getByTestId('pagination-size')).getAllByRole('option');
    expect(options.map((o) => o.textContent)).toEqual(expect.arrayContaining(['10 / page', '20 / page', '30 / page', '40 / page', '50 / page', '100 / page']));
  });

  it('switches to icon cards and remembers the choice', async () => {
    server.use(bigFolder().handler);
    await renderBrowser();
    await screen.findByText('file-000001.txt');
    fireEvent.click(screen.getByTestId('view-icon'));
    expect(await screen.findByTestId('file-cards')).toBeTruthy();
    expect(localStorage.getItem('hcs.files.view')).toBe('icon');
  });

  it('warns when deleting with nothing selected and confirms with table.deleteData before deleting a row', async () => {
    server.use(bigFolder().handler);
    let deleted: string | null = null;
    server.use(
      getDeleteInstancesMockHandler(({ request }) => {
        deleted = new URL(request.url).searchParams.get('ids');
        return { ret: 0, msg: 'success', data: { done: [], failed: [] } };
      }),
    );
    await renderBrowser();
    await screen.findByText('file-000001.txt');
    fireEvent.click(screen.getByTestId('delete-selected'));
    expect(await screen.findByText('Select data to delete')).toBeTruthy();
    expect(deleted).toBeNull();

    fireEvent.click(screen.getByTestId('row-delete-file-000002.txt'));
    expect((await screen.findAllByText('Delete this data?')).length).toBeGreaterThan(0);
    fireEvent.click(screen.getByTestId('delete-confirm-ok'));
    await waitFor(() => expect(deleted).toBe('id2'));
  });

  // isDisabled is "no delete" and editIsDisabled "no edit" (issue #14): each blocks its own actions only.
  it('blocks delete on isDisabled rows and rename on editIsDisabled rows', async () => {
    server.use(bigFolder([inst(900, { instanceName: 'locked.txt', isDisabled: true }), inst(901, { instanceName: 'readonly.txt', editIsDisabled: true })]).handler);
    await renderBrowser();
    await screen.findByText('locked.txt');
    expect((screen.getByTestId('row-delete-locked.txt') as HTMLButtonElement).disabled).toBe(true);
    expect((screen.getByTestId('row-delete-readonly.txt') as HTMLButtonElement).disabled).toBe(false);
    fireEvent.click(screen.getByTestId('row-more-readonly.txt'));
    const rename = await screen.findByRole('menuitem', { name: 'Rename' });
    expect(rename.getAttribute('aria-disabled')).toBe('true');
  });

  it('shows the name rules before sending and sends the Base64 wire name', async () => {
    server.use(bigFolder().handler);
    let body: unknown;
    let renamedId = '';
    server.use(
      getModifyInstanceMockHandler(async ({ request, params }) => {
        body = await request.json();
        renamedId = String(params.id);
        return { ret: 0, msg: 'success', data: inst(3, { instanceName: 'report?' }) };
      }),
    );
    await renderBrowser();
    await screen.findByText('file-000003.txt');
    fireEvent.click(screen.getByTestId('row-more-file-000003.txt'));
    fireEvent.click(await screen.findByRole('menuitem', { name: 'Rename' }));
    const input = (await screen.findByTestId('name-dialog-input')) as HTMLInputElement;
    const ok = () => screen.getByTestId('name-dialog-ok') as HTMLButtonElement;

    fireEvent.change(input, { target: { value: 'a/b' } });
    expect(screen.getByTestId('name-dialog-rule').textContent).toContain('cannot contain');
    expect(ok().disabled).toBe(true);
    fireEvent.change(input, { target: { value: ' lead' } });
    expect(screen.getByTestId('name-dialog-rule').textContent).toContain('start or end with a space');
    fireEvent.change(input, { target: { value: '' } });
    expect(screen.getByTestId('name-dialog-rule').textContent).toContain('cannot be empty');
    expect(body).toBeUndefined();

    fireEvent.change(input, { target: { value: '报告>' } });
    expect(ok().disabled).toBe(true);
    fireEvent.change(input, { target: { value: '报告 2024' } });
    expect(ok().disabled).toBe(false);
    fireEvent.click(ok());
    await waitFor(() => expect(body).toEqual({ instanceName: '5oql5ZGKIDIwMjQ_d' }));
    expect(renamedId).toBe('id3');
  });

  it('refuses a selection of more than 500 files with transfer.uploadTooMuch and uploads nothing', async () => {
    server.use(bigFolder().handler);
    let checks = 0;
    server.use(
      getCheckFileExistMockHandler(() => {
        checks += 1;
        return { ret: 0, msg: '', data: { ret: 0, data: 0 } };
      }),
    );
    const store = await renderBrowser();
    await screen.findByText('file-000001.txt');
    const files = Array.from({ length: 501 }, (_, i) => new File(['x'], `f${i}.txt`));
    await act(async () => {
      fireEvent.change(screen.getByTestId('upload-file-input'), { target: { files } });
    });
    expect(await screen.findByText('At most 500 files can be uploaded at once')).toBeTruthy();
    expect(checks).toBe(0);
    expect(store.getSnapshot().uploads).toHaveLength(0);
  });
});

describe('FileBrowser uploads', () => {
  it('a selection with a bad name: the bad one is listed with its rule before anything is queued, the others go', async () => {
    server.use(bigFolder().handler);
    server.use(getCheckFileExistMockHandler({ ret: 0, msg: '', data: { ret: 0, data: 0, instanceId: null, classifierId: null } }));
    const store = await renderBrowser('zh_CN');
    await screen.findByText('file-000001.txt');
    const files = ['report[1].txt', 'second.png', 'doc.pdf'].map((n) => new File(['x'], n));
    await act(async () => {
      fireEvent.change(screen.getByTestId('upload-file-input'), { target: { files } });
    });
    const list = await screen.findByTestId('invalid-names');
    expect(list.textContent).toBe('report[1].txt：名称不能包含 \\ [ ] / : * ? " < > |');
    expect(store.getSnapshot().uploads).toHaveLength(0);
    fireEvent.click(screen.getAllByRole('button', { name: '确 定' }).at(-1)!);
    await waitFor(() => expect(store.getSnapshot().uploads.map((u) => u.name)).toEqual(['second.png', 'doc.pdf']));
  });
});

describe('FileBrowser messages', () => {
  it('zh_CN: creating a folder whose name exists says so in Chinese with the name, once, in the dialog', async () => {
    server.use(bigFolder().handler);
    server.use(http.post('*/hcs/controller/Instances', () => envelopeError(409, 'NAME_EXISTS', '"Docs" already exists in this folder')));
    await renderBrowser('zh_CN');
    await screen.findByText('file-000001.txt');
    fireEvent.click(screen.getByTestId('new-folder'));
    fireEvent.change(await screen.findByTestId('name-dialog-input'), { target: { value: 'Docs' } });
    fireEvent.click(screen.getByTestId('name-dialog-ok'));
    expect((await screen.findByTestId('name-dialog-error')).textContent).toBe('此文件夹中已存在“Docs”');
    expect(screen.queryByText(/already exists/)).toBeNull();
    expect(toastError).not.toHaveBeenCalled();
  });

  it('zh_CN: a list the server refuses shows the code\'s message, not the raw server key', async () => {
    server.use(http.get('*/hcs/controller/Page', () => envelopeError(403, 'FORBIDDEN', 'accountFrozen')));
    await renderBrowser('zh_CN');
    expect((await screen.findByTestId('list-error')).textContent).toBe('没有权限执行此操作');
    expect(screen.queryByText('accountFrozen')).toBeNull();
  });

  it('zh_CN: a partly failed delete names each failure in Chinese', async () => {
    server.use(bigFolder().handler);
    server.use(
      getDeleteInstancesMockHandler({ ret: 0, msg: 'success', data: { done: [], failed: [{ instanceId: 'id2', code: 'NOT_FOUND', msg: 'no such file or folder' }] } }),
    );
    await renderBrowser('zh_CN');
    const row = await screen.findByTestId('row-delete-file-000002.txt');
    // An earlier test's confirm may linger in the body: the newest one is this test's.
    const before = screen.queryAllByTestId('delete-confirm-ok').length;
    fireEvent.click(row);
    await waitFor(() => expect(screen.getAllByTestId('delete-confirm-ok').length).toBeGreaterThan(before));
    fireEvent.click(screen.getAllByTestId('delete-confirm-ok').at(-1)!);
    expect(await screen.findByText('1 项操作失败：“file-000002.txt”不存在，可能已被删除或移动')).toBeTruthy();
    expect(screen.queryByText(/no such file/)).toBeNull();
  });
});

describe('FileBrowser navigation and layout (issue #22 defects 6, 7, 9)', () => {
  /** A root with one folder "Docs" holding one file; list requests recorded by parentId. */
  function tree() {
    const asked: Array<string | null> = [];
    const docs = inst(1, { instanceId: 'f1', instanceName: 'Docs', classifierId: 'Folder', fSize: 0, fType: '' });
    const inDocs = inst(2, { instanceId: 'd2', instanceName: 'plan.txt', parentId: 'f1', linkpath: 'Docs/plan.txt' });
    server.use(
      getListInstancesMockHandler(({ request }) => {
        const parent = new URL(request.url).searchParams.get('parentId');
        asked.push(parent);
        const inside = parent === 'f1';
        return {
          ret: 0,
          msg: 'success',
          data: {
            total: 1,
            pageNo: 1,
            pageSize: 20,
            nextCursor: null,
            list: [inside ? inDocs : docs],
            parentId: inside ? 'f1' : 'root',
            breadcrumbs: inside ? [{ instanceId: 'root', instanceName: 'root' }, { instanceId: 'f1', instanceName: 'Docs' }] : [{ instanceId: 'root', instanceName: 'root' }],
          },
        };
      }),
    );
    return asked;
  }

  it('the folder is in the URL: opening one adds a history entry, back returns, and a link opens it directly', async () => {
    const asked = tree();
    await renderBrowser();
    fireEvent.click(await screen.findByTestId('row-name-Docs'));
    expect(await screen.findByText('plan.txt')).toBeTruthy();
    expect(router.state.location.search).toBe('?folder=f1');
    await act(async () => {
      await router.navigate(-1);
    });
    expect(await screen.findByTestId('row-name-Docs')).toBeTruthy();
    expect(router.state.location.search).toBe('');
    expect(asked.slice(0, 2)).toEqual([null, 'f1']);
  });

  it('an upload picked while the next folder is still loading goes into that folder, not the one before', async () => {
    let release!: () => void;
    const slow = new Promise<void>((r) => (release = r));
    tree();
    server.use(
      http.get('*/hcs/controller/Page', async ({ request }) => {
        if (new URL(request.url).searchParams.get('parentId') !== 'f1') return undefined;
        await slow;
        return HttpResponse.json({
          ret: 0,
          msg: 'success',
          data: { total: 0, pageNo: 1, pageSize: 20, nextCursor: null, list: [], parentId: 'f1', breadcrumbs: [{ instanceId: 'root', instanceName: 'root' }, { instanceId: 'f1', instanceName: 'Docs' }] },
        });
      }),
      getCheckFileExistMockHandler({ ret: 0, msg: '', data: { ret: 0, data: 0, instanceId: null, classifierId: null } }),
    );
    const store = await renderBrowser();
    fireEvent.click(await screen.findByTestId('row-name-Docs'));
    // The root's rows are still on screen.
    expect(screen.getByTestId('row-name-Docs')).toBeTruthy();
    await act(async () => {
      fireEvent.change(screen.getByTestId('upload-file-input'), { target: { files: [new File(['x'], 'new.txt')] } });
    });
    release();
    await waitFor(() => expect(store.getSnapshot().uploads.map((u) => [u.name, u.parentId, u.uploadTo])).toEqual([['new.txt', 'f1', '/Docs']]));
  });

  it('a bookmarked folder opens at once', async () => {
    const asked = tree();
    await renderBrowser('en_US', '/personalFile?folder=f1');
    expect(await screen.findByText('plan.txt')).toBeTruthy();
    expect(asked[0]).toBe('f1');
  });

  it("properties give the item's folder as its location, not its own path", async () => {
    tree();
    await renderBrowser('en_US', '/personalFile?folder=f1');
    fireEvent.click(await screen.findByTestId('row-more-plan.txt'));
    fireEvent.click(await screen.findByRole('menuitem', { name: 'Properties' }));
    expect((await screen.findByTestId('properties-location')).textContent).toBe('/Docs');
  });

  it('50 rows per page is the same table as 20 (no virtual body with broken widths)', async () => {
    server.use(bigFolder().handler);
    await renderBrowser();
    await screen.findByText('file-000001.txt');
    fireEvent.change(screen.getByTestId('pagination-size'), { target: { value: '50' } });
    expect(await screen.findByText('file-000050.txt')).toBeTruthy();
    expect(screen.getByTestId('file-table').querySelectorAll('tbody tr[data-row-key]')).toHaveLength(50);
  });
});

describe('the upload plugin tip (issue #22 defect 8)', () => {
  const many = () => Array.from({ length: 51 }, (_, i) => new File(['x'], `f${i}.txt`));

  it('without a tool on the server it explains and continues, with no download button that does nothing', async () => {
    server.use(bigFolder().handler, getCheckFileExistMockHandler({ ret: 0, msg: '', data: { ret: 0, data: 0, instanceId: null, classifierId: null } }));
    const store = await renderBrowser();
    await screen.findByText('file-000001.txt');
    await act(async () => {
      fireEvent.change(screen.getByTestId('upload-file-input'), { target: { files: many() } });
    });
    expect((await screen.findAllByText('The upload plugin is recommended')).length).toBeGreaterThan(0);
    expect(screen.queryByRole('button', { name: 'Download plugin' })).toBeNull();
    fireEvent.click(screen.getByRole('button', { name: 'Continue in the browser' }));
    await waitFor(() => expect(store.getSnapshot().uploads).toHaveLength(51));
  });
});

