// The generic list screen of spec 2 for one library: toolbar (upload, new folder, multi-delete, filter, sort, view),
// breadcrumbs, table or icon cards, pagination, drop zone, and the dialogs behind the row actions.
import { lazy, Suspense, useCallback, useEffect, useLayoutEffect, useMemo, useRef, useState, type ComponentProps, type DragEvent } from 'react';
import { Breadcrumb, Button, Dropdown, Empty, Segmented, Space, Spin } from 'antd';
// The search box alone: antd's Input namespace also carries TextArea, Password and OTP onto the first load.
import Search from 'antd/es/input/Search';
import {
  AppstoreOutlined,
  CloudUploadOutlined,
  DeleteOutlined,
  DownloadOutlined,
  FolderAddOutlined,
  PlusOutlined,
  ShareAltOutlined,
  SwapOutlined,
  TableOutlined,
  UploadOutlined,
} from '@ant-design/icons';
import { useTranslation } from 'react-i18next';
import { useNavigate } from 'react-router-dom';
import { useQueryClient } from '@tanstack/react-query';
import { refreshCapacity } from '../../shared/capacity.ts';
import { copyInstances, createInstances, createOfficeFile, deleteInstances, modifyInstance, moveInstances } from '../../api/gen/files/files.ts';
import type { OfficeKind } from '../../api/gen/model/officeKind.ts';
import type { Instance } from '../../api/gen/model/instance.ts';
import type { BatchResultResponse } from '../../api/gen/model/batchResultResponse.ts';
import { encodeWireText } from '../../shared/wire-encoding.ts';
import { Text } from '../../shared/Text.tsx';
import { NativeSelect } from '../../shared/NativeSelect.tsx';
import { ListPagination } from '../../shared/ListPagination.tsx';
import { codeMessage, errorMessage, LocalizedError } from '../../shared/error-message.ts';
import { openTransferPanel } from '../../shared/transfer-counters.ts';
import { downloadItems } from '../../shared/transfers/download.ts';
import { fromDataTransfer, fromFileList, type PickResult } from '../../shared/transfers/pick-files.ts';
import { planUpload, sessionMemory } from '../../shared/transfers/upload-flow.ts';
import { usePrompts } from '../../shared/transfers/use-prompts.tsx';
import { useTransferSnapshot } from '../../shared/transfers/runtime.ts';
import { useCornerInset } from '../../shared/transfers/corner-inset.ts';
import type { TransferStore } from '../../shared/transfers/transfer-store.ts';
import { cannotDelete, cannotEdit, FileTable, type RowAction } from './FileTable.tsx';
import type { MoveCopyDialog as MoveCopyDialogType } from './MoveCopyDialog.tsx';
import type { NameDialog as NameDialogType } from './NameDialog.tsx';
import type { PreviewDialog as PreviewDialogType } from './PreviewDialog.tsx';
import type { ShareDialog as ShareDialogType } from '../../shared/ShareDialog.tsx';
import { lazyDialog } from '../../shared/lazy-dialog.tsx';
import { useItemActions } from './item-actions.tsx';
import type * as DailyUseModule from './DailyUse.tsx';
import type { GestureHost } from './gestures.ts';
import { PAGE_SIZES, useFileList, useViewMode, type SortField, type SortOrder } from './list-state.ts';
import { confirmDialog } from '../../shared/notify.ts';

// The icon view and the dialogs load when first shown: the list is what the screen needs first (issue #22 weight).
const NewDocumentMenu = lazy(() => import('./NewDocumentMenu.tsx'));
const FileCards = lazy(() => import('./FileCards.tsx').then((m) => ({ default: m.FileCards })));
const MoveCopyDialog = lazyDialog<ComponentProps<typeof MoveCopyDialogType>>(() => import('./MoveCopyDialog.tsx').then((m) => m.MoveCopyDialog), (p) => p.open);
const NameDialog = lazyDialog<ComponentProps<typeof NameDialogType>>(() => import('./NameDialog.tsx').then((m) => m.NameDialog), (p) => p.open);
const PreviewDialog = lazyDialog<ComponentProps<typeof PreviewDialogType>>(() => import('./PreviewDialog.tsx').then((m) => m.PreviewDialog), (p) => p.item !== undefined);
const ShareDialog = lazyDialog<ComponentProps<typeof ShareDialogType>>(() => import('../../shared/ShareDialog.tsx').then((m) => m.ShareDialog), (p) => p.item !== undefined);

export interface FileBrowserProps {
  libCode: string;
  instanceType: string;
  store: TransferStore;
  /** What the space's root is called in the breadcrumbs (a department's name); personal files by default. */
  rootName?: string;
}

const CATEGORIES = [1, 2, 3, 4, 5, 6, 7, 8, 9] as const;
type NameDialogState = { mode: 'create' } | { mode: 'rename'; item: Instance } | { mode: 'office'; kind: OfficeKind; templateId?: string };

export function FileBrowser({ libCode, instanceType, store, rootName }: FileBrowserProps) {
  const { t } = useTranslation();
  const rootLabel = rootName ?? t('files.rootFolder');
  const queryClient = useQueryClient();
  const prompts = usePrompts();
  const { state, update, query, refresh } = useFileList({ libCode, instanceType });
  const [view, setView] = useViewMode();
  const [selected, setSelected] = useState<Instance[]>([]);
  const navigate = useNavigate();
  const [nameDialog, setNameDialog] = useState<NameDialogState | undefined>();
  const [moveCopy, setMoveCopy] = useState<{ mode: 'move' | 'copy'; items: Instance[] } | undefined>();
  const [preview, setPreview] = useState<Instance | undefined>();
  const [sharing, setSharing] = useState<Instance | undefined>();
  const [dragging, setDragging] = useState(false);
  const [focusId, setFocusId] = useState<string | undefined>();
  const [menu, setMenu] = useState<{ x: number; y: number; items: Instance[] } | undefined>();
  const [dropTarget, setDropTarget] = useState<string | undefined>();
  const anchor = useRef<string | undefined>(undefined);
  const listTop = useRef<HTMLDivElement>(null);
  const [listHeight, setListHeight] = useState<number | undefined>();
  // The keyboard, the right-click menu and the row gestures load after the list: they are not needed to show it.
  const [daily, setDaily] = useState<typeof DailyUseModule>();
  useEffect(() => {
    void import('./DailyUse.tsx').then(setDaily);
  }, []);
  const fileInput = useRef<HTMLInputElement>(null);
  const folderInput = useRef<HTMLInputElement>(null);
  const memory = useMemo(() => sessionMemory(), []);
  // A finished upload may land in the folder on screen: show it without a manual reload.
  const finishedCount = useTransferSnapshot(store).finished.length;
  const lastFinished = useRef(finishedCount);

  const page = query.data;
  const rows = page?.list ?? [];
  const crumbs = page?.breadcrumbs ?? [];
  const folderId = page?.parentId ?? state.parentId ?? '';
  const rootId = crumbs[0]?.instanceId ?? folderId;
  const path = '/' + crumbs.slice(1).map((c) => c.instanceName).join('/');

  // Calls from this screen are sent quiet and report their failure here, once, in the user's language.
  const notifyError = (err: unknown, name?: string) => prompts.upload.notice('error', 'files.failed', { reason: errorMessage(err, { name }) });
  const afterChange = () => {
    setSelected([]);
    refresh();
    refreshCapacity(queryClient);
  };
  const itemActions = useItemActions({ onChanged: refresh, folderPath: () => path });
  const reportBatch = (res: BatchResultResponse, items: readonly Instance[]) => {
    const failed = res.data?.failed ?? [];
    if (failed.length === 0) return;
    const nameOf = (id: string) => items.find((i) => i.instanceId === id)?.instanceName;
    const reasons = [...new Set(failed.map((f) => codeMessage(f.code, { name: nameOf(f.instanceId) }) ?? f.msg))];
    prompts.upload.notice('warning', 'files.partlyFailed', { count: failed.length, reason: reasons.join(t('files.reasonSeparator')) });
  };

  useEffect(() => {
    if (finishedCount !== lastFinished.current) {
      lastFinished.current = finishedCount;
      refresh();
      refreshCapacity(queryClient);
    }
  }, [finishedCount, refresh, queryClient]);

  /**
   * The folder on screen as the server listed it. Right after a folder change the list still shows the previous
   * folder's rows (kept while the new ones load): acting then must wait for the folder the URL names.
   */
  const currentFolder = async (): Promise<{ id: string; path: string } | undefined> => {
    const data = query.isPlaceholderData || !page ? (await query.refetch()).data : page;
    if (!data?.parentId) return undefined;
    return { id: data.parentId, path: '/' + (data.breadcrumbs ?? []).slice(1).map((c) => c.instanceName).join('/') };
  };

  const startUpload = async (pick: PickResult, into?: { id: string; path: string }) => {
    try {
      const folder = into ?? (await currentFolder());
      if (!folder) return;
      const r = await planUpload(pick, { parentId: folder.id, path: folder.path, libCode, instanceType }, prompts.upload, memory, (items) => store.add(items));
      if ('queued' in r) {
        // New folders of a folder upload appear at once.
        if (pick.dirs.length > 0) refresh();
        prompts.upload.notice('info', 'transfer.queued', { count: r.queued });
        openTransferPanel('upload');
      }
    } catch (err) {
      notifyError(err);
    }
  };

  const doDelete = (items: Instance[]) => {
    if (items.length === 0) {
      prompts.upload.notice('warning', 'files.selectToDelete');
      return;
    }
    const blocked = items.filter(cannotDelete);
    if (blocked.length > 0) {
      prompts.upload.notice('warning', 'files.noPermission', { names: blocked.map((b) => b.instanceName).join(', ') });
      return;
    }
    confirmDialog({
      title: t('table.deleteData'),
      content: items.length > 1 ? t('files.deleteCount', { count: items.length }) : items[0]!.instanceName,
      okText: t('files.ok'),
      cancelText: t('files.cancel'),
      okButtonProps: { danger: true, 'data-testid': 'delete-confirm-ok' } as never,
      zIndex: 2000,
      onOk: async () => {
        try {
          reportBatch(await deleteInstances({ ids: items.map((i) => i.instanceId).join(',') }, { quiet: true }), items);
          afterChange();
        } catch (err) {
          notifyError(err, items.length === 1 ? items[0]!.instanceName : undefined);
        }
      },
    });
  };

  const doDownload = (items: Instance[]) => {
    if (items.length === 0) {
      prompts.upload.notice('warning', 'files.selectToDownload');
      return;
    }
    void downloadItems(
      items.map((i) => ({ instanceId: i.instanceId, instanceName: i.instanceName, classifierId: i.classifierId, fSize: i.fSize, path })),
      store,
      prompts.download,
    ).catch(notifyError);
  };

  const onRow = (action: RowAction, item: Instance) => {
    if (itemActions.handle(action, item)) return;
    switch (action) {
      case 'open':
        if (item.classifierId === 'Folder') {
          setSelected([]);
          update({ parentId: item.instanceId });
        } else setPreview(item);
        return;
      case 'preview':
        setPreview(item);
        return;
      case 'download':
        doDownload([item]);
        return;
      case 'delete':
        doDelete([item]);
        return;
      case 'rename':
        if (cannotEdit(item)) prompts.upload.notice('warning', 'files.noPermission', { names: item.instanceName });
        else setNameDialog({ mode: 'rename', item });
        return;
      case 'move':
      case 'copy':
        if (action === 'move' && cannotEdit(item)) prompts.upload.notice('warning', 'files.noPermission', { names: item.instanceName });
        else setMoveCopy({ mode: action, items: [item] });
        return;
    }
  };

  // One host for the screen's life, its fields refreshed on every render: the row handlers built from it read the
  // screen as it is when they run, so neither they nor the memoised table are rebuilt when a dialog or a menu opens
  // (every row re-rendering while a dialog zoomed in kept a loaded machine's main thread from it).
  const host = useRef({} as GestureHost).current;
  Object.assign(host, {
    rows,
    crumbs,
    path,
    selected,
    setSelected,
    focusId,
    setFocusId,
    anchor,
    onRow,
    doDownload,
    doDelete,
    setMoveCopy,
    go: (parentId) => {
      setSelected([]);
      update({ parentId });
    },
    notice: prompts.upload.notice,
    reportBatch,
    afterChange,
    notifyError,
    startUpload,
    openMenu: (at, items) => setMenu({ ...at, items }),
    dropTarget,
    setDropTarget,
  } satisfies GestureHost);
  const gestures = useMemo(() => daily?.rowGestures(host, { focusId, dropTarget }), [daily, host, focusId, dropTarget]);
  const onAction = useCallback((a: RowAction, item: Instance) => host.onRow(a, item), [host]);
  const onSort = useCallback((sortField: SortField, sortOrder: SortOrder) => update({ sortField, sortOrder }), [update]);

  // Spec: the table is the window's height less its offset and 56 (the pagination below it), so the rows scroll
  // inside it and the toolbar stays in view. While the corner transfer card shows, its height comes off too and the
  // page keeps as much room below the pagination, so neither the last rows nor the pagination sit under the card.
  const hasSelection = selected.length > 0;
  const cornerInset = useCornerInset();
  useLayoutEffect(() => {
    const measure = () => {
      const top = listTop.current?.getBoundingClientRect().top;
      if (top !== undefined) setListHeight(Math.max(160, Math.floor(window.innerHeight - top - 56 - cornerInset)));
    };
    measure();
    window.addEventListener('resize', measure);
    return () => window.removeEventListener('resize', measure);
  }, [view, crumbs.length, hasSelection, rows.length, cornerInset]);

  const onDrop = async (e: DragEvent) => {
    e.preventDefault();
    setDragging(false);
    // Only the user's own files upload: rows dropped back on the list they came from stay where they are.
    if (!e.dataTransfer.types.includes('Files')) return;
    // Read the entries before any await: the DataTransfer is cleared once the handler yields.
    const picked = fromDataTransfer(e.dataTransfer);
    await startUpload(await picked);
  };

  const sortOptions: { value: SortField; label: string }[] = [
    { value: 'instanceName', label: t('files.sort.name') },
    { value: 'fSize', label: t('files.sort.size') },
    { value: 'createTime', label: t('files.sort.time') },
  ];

  return (
    <div
      data-testid="file-browser"
      onDragOver={(e) => {
        if (e.dataTransfer.types.includes('Files')) {
          e.preventDefault();
          setDragging(true);
        }
      }}
      onDragLeave={(e) => {
        if (e.currentTarget === e.target) setDragging(false);
      }}
      onDrop={onDrop}
      style={{ position: 'relative', outline: dragging ? '2px dashed #c00' : undefined, minHeight: 300, paddingBottom: cornerInset }}
    >
      {prompts.holder}
      <input ref={fileInput} type="file" multiple hidden data-testid="upload-file-input" onChange={(e) => {
        const pick = fromFileList(e.target.files ?? []);
        e.target.value = '';
        void startUpload(pick);
      }} />
      <input
        ref={folderInput}
        type="file"
        multiple
        hidden
        data-testid="upload-folder-input"
        {...({ webkitdirectory: '', directory: '' } as Record<string, string>)}
        onChange={(e) => {
          const pick = fromFileList(e.target.files ?? []);
          e.target.value = '';
          void startUpload(pick);
        }}
      />
      <Space wrap data-testid="files-toolbar" style={{ marginBottom: 12, position: 'sticky', top: 0, zIndex: 3, background: 'inherit' }}>
        <Dropdown
          menu={{
            items: [
              { key: 'file', label: t('files.uploadFile'), icon: <UploadOutlined />, onClick: () => fileInput.current?.click() },
              { key: 'folder', label: t('files.uploadFolder'), icon: <FolderAddOutlined />, onClick: () => folderInput.current?.click() },
            ],
          }}
        >
          <Button type="primary" icon={<CloudUploadOutlined />} data-testid="upload-button">
            {t('files.upload')}
          </Button>
        </Dropdown>
        <Button icon={<FolderAddOutlined />} onClick={() => setNameDialog({ mode: 'create' })} data-testid="new-folder">
          {t('files.newFolder')}
        </Button>
        <Suspense
          fallback={
            <Button icon={<PlusOutlined />} disabled>
              {t('templates.newDocument')}
            </Button>
          }
        >
          <NewDocumentMenu onPick={(kind, templateId) => setNameDialog({ mode: 'office', kind, ...(templateId ? { templateId } : {}) })} />
        </Suspense>
        <Button icon={<DownloadOutlined />} onClick={() => doDownload(selected)} data-testid="download-selected">
          {t('files.download')}
        </Button>
        <Button icon={<SwapOutlined />} onClick={() => (selected.length ? setMoveCopy({ mode: 'move', items: selected }) : prompts.upload.notice('warning', 'files.selectFirst'))} data-testid="move-selected">
          {t('files.move')}
        </Button>
        <Button onClick={() => (selected.length ? setMoveCopy({ mode: 'copy', items: selected }) : prompts.upload.notice('warning', 'files.selectFirst'))} data-testid="copy-selected">
          {t('files.copy')}
        </Button>
        <Button
          icon={<ShareAltOutlined />}
          onClick={() => (selected.length === 1 ? setSharing(selected[0]) : prompts.upload.notice('warning', selected.length ? 'shares.selectOne' : 'files.selectFirst'))}
          data-testid="share-selected"
        >
          {t('shares.shareWithColleagues')}
        </Button>
        <Button danger icon={<DeleteOutlined />} onClick={() => doDelete(selected)} data-testid="delete-selected">
          {t('files.delete')}
        </Button>
        <NativeSelect<number>
          allowClear
          placeholder={t('files.filter')}
          style={{ width: 130 }}
          value={state.fileFilter}
          onChange={(v) => update({ fileFilter: v })}
          options={CATEGORIES.map((c) => ({ value: c, label: t(`files.category.${c}`) }))}
          aria-label={t('files.filter')}
          data-testid="category-filter"
        />
        <NativeSelect<SortField>
          style={{ width: 120 }}
          value={state.sortField}
          onChange={(v) => v && update({ sortField: v })}
          options={sortOptions}
          data-testid="sort-field"
          aria-label={t('files.sort.label')}
        />
        <Button onClick={() => update({ sortOrder: state.sortOrder === 'asc' ? 'desc' : 'asc' })} data-testid="sort-order">
          {t(state.sortOrder === 'asc' ? 'files.sort.asc' : 'files.sort.desc')}
        </Button>
        <Segmented
          value={view}
          onChange={(v) => setView(v as 'table' | 'icon')}
          options={[
            { value: 'table', icon: <TableOutlined />, label: <span data-testid="view-table">{t('files.view.table')}</span> },
            { value: 'icon', icon: <AppstoreOutlined />, label: <span data-testid="view-icon">{t('files.view.icon')}</span> },
          ]}
        />
        <Button onClick={() => openTransferPanel()} data-testid="open-transfers">
          {t('transfer.title')}
        </Button>
        <Search
          allowClear
          placeholder={t('search.placeholder')}
          style={{ width: 220 }}
          maxLength={255}
          onSearch={(v) => v.trim() && navigate(`/quickSearch?keyword=${encodeURIComponent(v.trim())}`)}
          data-testid="files-search"
        />
      </Space>

      <Space style={{ marginBottom: 12, width: '100%', justifyContent: 'space-between' }} wrap>
        <Breadcrumb
          data-testid="breadcrumbs"
          items={crumbs.map((c, i) => ({
            key: c.instanceId,
            title:
              i === crumbs.length - 1 ? (
                <span>{i === 0 ? rootLabel : c.instanceName}</span>
              ) : (
                <a
                  data-testid={`crumb-${i}`}
                  onClick={() => update({ parentId: i === 0 ? undefined : c.instanceId })}
                  {...daily?.crumbGestures(host, { instanceId: c.instanceId, instanceName: c.instanceName })}
                >
                  {i === 0 ? rootLabel : c.instanceName}
                </a>
              ),
          }))}
        />
        {selected.length > 0 && (
          <Space size={4} data-testid="selection-bar">
            <Text data-testid="selected-count">{t('filesDaily.selected', { count: selected.length })}</Text>
            <Button type="link" size="small" onClick={() => setSelected([])} data-testid="clear-selection">
              {t('filesDaily.clear')}
            </Button>
          </Space>
        )}
      </Space>
      <div ref={listTop} />

      {query.isError && !page ? (
        <Text type="danger" data-testid="list-error">
          {errorMessage(query.error)}
        </Text>
      ) : query.isLoading ? (
        <Spin />
      ) : rows.length === 0 ? (
        <Empty description={t('files.empty')} />
      ) : view === 'table' ? (
        <FileTable
          rows={rows}
          selected={selected}
          onSelect={setSelected}
          onAction={onAction}
          sortField={state.sortField}
          sortOrder={state.sortOrder}
          onSort={onSort}
          loading={query.isFetching}
          rowProps={gestures}
          height={listHeight}
        />
      ) : (
        <Suspense fallback={<Spin style={{ display: 'block', margin: '48px auto' }} />}>
          <div style={{ maxHeight: listHeight, overflow: 'auto' }} data-testid="cards-scroll">
            <FileCards rows={rows} selected={selected} onSelect={setSelected} onAction={onAction} itemProps={gestures} />
          </div>
        </Suspense>
      )}

      <ListPagination
        style={{ marginTop: 8 }}
        current={state.pageNo}
        pageSize={state.pageSize}
        total={page?.total ?? 0}
        pageSizeOptions={PAGE_SIZES}
        showQuickJumper
        showTotal={(total) => t('files.total', { total, count: total })}
        onChange={(pageNo, pageSize) => (pageSize !== state.pageSize ? update({ pageSize }) : update({ pageNo }))}
        data-testid="pagination"
      />

      <NameDialog
        open={nameDialog !== undefined}
        title={
          nameDialog?.mode === 'office' ? t('templates.newOf', { kind: t(`templates.kind.${nameDialog.kind}`) }) : t(nameDialog?.mode === 'rename' ? 'files.rename' : 'files.newFolder')
        }
        initial={
          nameDialog?.mode === 'rename' ? nameDialog.item.instanceName : nameDialog?.mode === 'office' ? `${t(`templates.defaultName.${nameDialog.kind}`)}.${nameDialog.kind}` : ''
        }
        onClose={() => setNameDialog(undefined)}
        onSubmit={async (name) => {
          if (nameDialog?.mode === 'rename') await modifyInstance(nameDialog.item.instanceId, { instanceName: encodeWireText(name) }, { quiet: true });
          else if (nameDialog?.mode === 'office') {
            const folder = await currentFolder();
            if (!folder) throw new LocalizedError('errors.unexpected');
            await createOfficeFile(
              { parentId: folder.id, libCode, instanceType, instanceName: encodeWireText(name), kind: nameDialog.kind, ...(nameDialog.templateId ? { templateId: nameDialog.templateId } : {}), conflict: 'fail' },
              { quiet: true },
            );
          } else {
            const folder = await currentFolder();
            if (!folder) throw new LocalizedError('errors.unexpected');
            await createInstances([{ classifierId: 'Folder', parentId: folder.id, instanceName: encodeWireText(name), libCode, instanceType }], undefined, { quiet: true });
          }
          afterChange();
        }}
      />
      <MoveCopyDialog
        open={moveCopy !== undefined}
        mode={moveCopy?.mode ?? 'move'}
        libCode={libCode}
        rootId={rootId}
        excludeIds={new Set((moveCopy?.items ?? []).filter((i) => i.classifierId === 'Folder').map((i) => i.instanceId))}
        onClose={() => setMoveCopy(undefined)}
        onSubmit={async (targetInstanceId) => {
          if (!moveCopy) return;
          const ids = moveCopy.items.map((i) => i.instanceId).join(',');
          const res = moveCopy.mode === 'move' ? await moveInstances({ ids, targetInstanceId }, { quiet: true }) : await copyInstances({ ids, targetInstanceId }, { quiet: true });
          reportBatch(res, moveCopy.items);
          afterChange();
        }}
      />
      {itemActions.dialogs}
      {daily && <daily.DailyUse host={host} menu={menu} closeMenu={() => setMenu(undefined)} />}
      <PreviewDialog item={preview} onClose={() => setPreview(undefined)} onDownload={(i) => doDownload([i])} siblings={rows} onNavigate={setPreview} />
      <ShareDialog item={sharing} onClose={() => setSharing(undefined)} />
    </div>
  );
}
