// The transfer panel of spec 2: tabs upload, download and finished, pause all / resume all / delete, per-row actions,
// speed and time left. Opens from the header's transfer-list button (openTransferPanel) or from the file screen.
// It does not block the page (no mask), and at any width the name and the actions stay in view: the columns between
// them scroll.
import { useEffect, useMemo, useRef, useState, type ReactNode } from 'react';
import { Button, Drawer, Progress, Space, Table, Tabs, Tooltip, Typography } from 'antd';
import type { ColumnsType } from 'antd/es/table';
import { useTranslation } from 'react-i18next';
import { onTransferPanelRequest, type TransferTab } from '../../shared/transfer-counters.ts';
import { toastInfo, toastWarning } from '../../shared/notify.ts';
import { formatDate, formatDuration, formatSize } from '../../shared/format.ts';
import { TRANSFER_PAGE_SIZE } from '../../shared/transfers/limits.ts';
import { codeMessage } from '../../shared/error-message.ts';
import { useTransferSnapshot } from '../../shared/transfers/runtime.ts';
import type { DownloadItem, FinishedItem, TransferStore, UploadItem } from '../../shared/transfers/transfer-store.ts';
import { CornerPanel } from './CornerPanel.tsx';
import { AgentTransfers } from './AgentTransfers.tsx';

export interface TransferPanelProps {
  store: TransferStore;
  open?: boolean;
  onClose?: () => void;
}

export function TransferPanel({ store, open: controlledOpen, onClose }: TransferPanelProps) {
  const [selfOpen, setSelfOpen] = useState(false);
  const [tab, setTab] = useState<TransferTab>('upload');
  useEffect(
    () =>
      onTransferPanelRequest((t) => {
        setSelfOpen(true);
        if (t) setTab(t);
      }),
    [],
  );
  const open = controlledOpen ?? selfOpen;
  const close = () => {
    setSelfOpen(false);
    onClose?.();
  };
  const { t } = useTranslation();
  return (
    <>
      {!open && <CornerPanel store={store} onExpand={() => setSelfOpen(true)} />}
      <Drawer
        open={open}
        onClose={close}
        title={t('transfer.title')}
        size={PANEL_WIDTH}
        mask={false}
        // Below the app header: the header stays usable, and toasts (20 px from the top) no longer cover the title.
        rootStyle={{ top: HEADER_HEIGHT }}
        destroyOnHidden={false}
        data-testid="transfer-panel"
      >
        <TransferLists store={store} tab={tab} onTab={setTab} />
      </Drawer>
    </>
  );
}

/** Wide enough for every column at 1366 px; a narrower window gets the whole width. */
const PANEL_WIDTH = 'min(960px, 100vw)';
const NAME_WIDTH = 220;
/** antd's Layout.Header height. */
const HEADER_HEIGHT = 64;
const ACTIONS_WIDTH = 150;

type Tab = TransferTab;

export function TransferLists({ store, ...props }: { store: TransferStore; tab?: Tab; onTab?: (t: Tab) => void }) {
  const { t } = useTranslation();
  const snap = useTransferSnapshot(store);
  const [selected, setSelected] = useState<string[]>([]);
  const [ownTab, setOwnTab] = useState<Tab>('upload');
  const tab = props.tab ?? ownTab;
  const setTab = props.onTab ?? setOwnTab;
  const repick = useRef<HTMLInputElement>(null);
  const waitingForFile = snap.uploads.some((u) => u.needsFile);
  const units = useMemo(
    () => ({ s: t('transfer.unit.s'), min: t('transfer.unit.min'), h: t('transfer.unit.h'), d: t('transfer.unit.d') }),
    [t],
  );

  const liveIds = new Set(snap.uploads.map((u) => u.uid));
  const selectedLive = selected.filter((id) => liveIds.has(id));

  const uploadColumns: ColumnsType<UploadItem> = [
    { title: t('transfer.col.filename'), dataIndex: 'name', key: 'name', ellipsis: { showTitle: true }, width: NAME_WIDTH, fixed: 'left' },
    { title: t('transfer.col.fileSize'), dataIndex: 'size', key: 'size', width: 100, render: (v: number) => formatSize(v) },
    { title: t('transfer.col.uploadTo'), dataIndex: 'uploadTo', key: 'uploadTo', ellipsis: { showTitle: true }, width: 150 },
    {
      title: t('transfer.col.status'),
      key: 'status',
      width: 220,
      render: (_: unknown, u) => <UploadStatusCell item={u} units={units} />,
    },
    {
      title: t('transfer.col.actions'),
      key: 'actions',
      width: ACTIONS_WIDTH,
      fixed: 'right',
      render: (_: unknown, u) => <RowActions item={u} store={store} />,
    },
  ];

  const finishedColumns: ColumnsType<FinishedItem> = [
    { title: t('transfer.col.filename'), dataIndex: 'filename', key: 'filename', ellipsis: { showTitle: true }, width: NAME_WIDTH, fixed: 'left' },
    { title: t('transfer.col.fileSize'), dataIndex: 'fileSize', key: 'fileSize', width: 110, render: (v: number) => formatSize(v) },
    { title: t('transfer.col.position'), dataIndex: 'filePosition', key: 'filePosition', ellipsis: true, width: 160 },
    { title: t('transfer.col.type'), dataIndex: 'transferType', key: 'transferType', width: 90, render: (v: string) => t(`transfer.type.${v}`) },
    { title: t('transfer.col.finishedAt'), dataIndex: 'finishedAt', key: 'finishedAt', width: 170, render: (v: number) => formatDate(v) },
  ];

  const liveDownloads = new Set(snap.downloads.map((d) => d.uid));
  const onDelete = () => {
    if (tab === 'finished') {
      store.clearFinished(selected.length > 0 ? selected : undefined);
      setSelected([]);
      return;
    }
    const chosen = tab === 'upload' ? selectedLive : selected.filter((id) => liveDownloads.has(id));
    if (chosen.length === 0) {
      toastWarning(t('transfer.selectToDelete'));
      return;
    }
    if (tab === 'upload') store.removeMany(chosen);
    else for (const id of chosen) store.removeDownload(id);
    setSelected([]);
  };

  return (
    <div>
      <Space style={{ marginBottom: 12 }} wrap>
        <Button onClick={() => store.pauseAll()} data-testid="transfer-pause-all">
          {t('transfer.pauseAll')}
        </Button>
        <Button onClick={() => store.resumeAll()} data-testid="transfer-resume-all">
          {t('transfer.resumeAll')}
        </Button>
        <Button danger onClick={onDelete} data-testid="transfer-delete">
          {t('transfer.delete')}
        </Button>
        {waitingForFile && (
          <Button onClick={() => repick.current?.click()} data-testid="transfer-repick">
            {t('transfer.repickButton')}
          </Button>
        )}
        {!snap.online && <Typography.Text type="danger">{t('transfer.networkDisconnected')}</Typography.Text>}
      </Space>
      <input
        ref={repick}
        type="file"
        multiple
        hidden
        data-testid="transfer-repick-input"
        onChange={(e) => {
          const files = Array.from(e.target.files ?? []);
          e.target.value = '';
          const n = store.attachFiles(files);
          if (n === 0) toastWarning(t('transfer.repickNoMatch'));
          else toastInfo(t('transfer.repickMatched', { count: n }));
        }}
      />
      <AgentTransfers />
      <Tabs
        activeKey={tab}
        onChange={(k) => {
          setTab(k as Tab);
          setSelected([]);
        }}
        items={[
          {
            key: 'upload',
            label: `${t('transfer.tab.upload')} (${snap.uploads.length})`,
            children: (
              <Table<UploadItem>
                rowKey="uid"
                size="small"
                columns={uploadColumns}
                dataSource={snap.uploads as UploadItem[]}
                scroll={{ x: 'max-content' }}
                rowSelection={{ selectedRowKeys: selectedLive, onChange: (keys) => setSelected(keys.map(String)), fixed: 'left' }}
                pagination={{ pageSize: TRANSFER_PAGE_SIZE, showSizeChanger: false, hideOnSinglePage: true }}
                locale={{ emptyText: t('transfer.noUploads') }}
                data-testid="transfer-upload-table"
              />
            ),
          },
          {
            key: 'download',
            label: `${t('transfer.tab.download')} (${snap.downloads.length})`,
            children: (
              <DownloadTable
                store={store}
                items={snap.downloads}
                units={units}
                selected={selected.filter((id) => liveDownloads.has(id))}
                onSelect={setSelected}
              />
            ),
          },
          {
            key: 'finished',
            label: `${t('transfer.tab.finished')} (${snap.finished.length})`,
            children: (
              <Table<FinishedItem>
                rowKey="id"
                size="small"
                columns={finishedColumns}
                dataSource={snap.finished as FinishedItem[]}
                scroll={{ x: 'max-content' }}
                rowSelection={{ selectedRowKeys: selected, onChange: (keys) => setSelected(keys.map(String)) }}
                pagination={{ pageSize: TRANSFER_PAGE_SIZE, showSizeChanger: false, hideOnSinglePage: true }}
                locale={{ emptyText: t('transfer.noFinished') }}
                data-testid="transfer-finished-table"
              />
            ),
          },
        ]}
      />
    </div>
  );
}

function UploadStatusCell({ item, units }: { item: UploadItem; units: Parameters<typeof formatDuration>[1] }) {
  const { t } = useTranslation();
  const percent = item.size > 0 ? Math.min(100, Math.floor((item.loaded / item.size) * 100)) : 0;
  let detail: ReactNode = null;
  if (item.status === 'uploading' && item.speed > 0) {
    detail = (
      <Typography.Text type="secondary" style={{ fontSize: 12 }}>
        {formatSize(item.speed)}/s
        {item.timeLeft !== undefined && ` · ${t('transfer.timeLeft', { time: formatDuration(item.timeLeft, units) })}`}
      </Typography.Text>
    );
  } else if (item.status === 'error' || item.status === 'onTimeout') {
    const text = failureText(item, t);
    detail = (
      <Tooltip title={text}>
        <Typography.Text type="danger" style={{ fontSize: 12 }} ellipsis>
          {text}
        </Typography.Text>
      </Tooltip>
    );
  } else if (item.needsFile) {
    detail = (
      <Typography.Text type="warning" style={{ fontSize: 12 }}>
        {t('transfer.needsFile')}
      </Typography.Text>
    );
  }
  return (
    <div data-testid={`upload-status-${item.name}`} data-status={item.status}>
      <Space size={4}>
        <span>{t(`transfer.status.${item.status}`)}</span>
        {(item.status === 'uploading' || item.status === 'merging' || item.status === 'pause') && <span>{percent}%</span>}
      </Space>
      {(item.status === 'uploading' || item.status === 'merging') && <Progress percent={percent} size="small" showInfo={false} />}
      <div>{detail}</div>
    </div>
  );
}

function RowActions({ item, store }: { item: UploadItem; store: TransferStore }) {
  const { t } = useTranslation();
  const a = (key: string, onClick: () => void, testId: string) => (
    <Button size="small" type="link" onClick={onClick} data-testid={`${testId}-${item.name}`}>
      {t(key)}
    </Button>
  );
  return (
    <Space size={0}>
      {item.status === 'ready' && a('transfer.action.wait', () => store.start(item.uid), 'upload-wait')}
      {(item.status === 'checking' || item.status === 'uploading') && a('transfer.action.pause', () => store.pause(item.uid), 'upload-pause')}
      {item.status === 'pause' && a('transfer.action.start', () => store.resume(item.uid), 'upload-start')}
      {(item.status === 'error' || item.status === 'onTimeout') && a('transfer.action.retry', () => store.retry(item.uid), 'upload-retry')}
      {a('transfer.action.delete', () => store.remove(item.uid), 'upload-delete')}
    </Space>
  );
}

type Units = Parameters<typeof formatDuration>[1];

/**
 * The spec 8 text of the failure, completed by what the server said in the user's language (by its code). The
 * server's own text is shown only for a code this app does not know.
 */
export function failureText(item: Pick<UploadItem, 'errorKey' | 'errorText' | 'errorCode'>, t: (k: string) => string): string {
  const key = item.errorKey ?? 'transfer.error.UPLOAD_FAILED';
  const detail = (item.errorCode && codeMessage(item.errorCode)) ?? item.errorText;
  if (!detail) return t(key);
  return key === 'transfer.error.UPLOAD_FAILED' ? detail : `${t(key)}${t('files.reasonSeparator')}${detail}`;
}

/** Spec 2's download table: filename, fileSize, speed, status, uploadTo (where the file is on the drive), actions. */
function DownloadTable(props: { store: TransferStore; items: readonly DownloadItem[]; units: Units; selected: string[]; onSelect: (ids: string[]) => void }) {
  const { store, items, units } = props;
  const { t } = useTranslation();
  const columns: ColumnsType<DownloadItem> = [
    { title: t('transfer.col.filename'), dataIndex: 'name', key: 'name', ellipsis: { showTitle: true }, width: NAME_WIDTH, fixed: 'left' },
    { title: t('transfer.col.fileSize'), dataIndex: 'size', key: 'size', width: 100, render: (v: number) => formatSize(v) },
    {
      title: t('transfer.col.speed'),
      key: 'speed',
      width: 110,
      render: (_: unknown, d) => <span data-testid={`download-speed-${d.name}`}>{d.status === 'resume' && d.speed > 0 ? `${formatSize(d.speed)}/s` : '-'}</span>,
    },
    { title: t('transfer.col.status'), key: 'status', width: 200, render: (_: unknown, d) => <DownloadStatusCell item={d} units={units} /> },
    { title: t('transfer.col.position'), dataIndex: 'path', key: 'uploadTo', ellipsis: { showTitle: true }, width: 150 },
    { title: t('transfer.col.actions'), key: 'actions', width: ACTIONS_WIDTH, fixed: 'right', render: (_: unknown, d) => <DownloadActions item={d} store={store} /> },
  ];
  return (
    <Table<DownloadItem>
      rowKey="uid"
      size="small"
      columns={columns}
      dataSource={items as DownloadItem[]}
      scroll={{ x: 'max-content' }}
      rowSelection={{ selectedRowKeys: props.selected, onChange: (keys) => props.onSelect(keys.map(String)), fixed: 'left' }}
      pagination={{ pageSize: TRANSFER_PAGE_SIZE, showSizeChanger: false, hideOnSinglePage: true }}
      locale={{ emptyText: t('transfer.noDownloads') }}
      data-testid="transfer-download-table"
    />
  );
}

function DownloadStatusCell({ item, units }: { item: DownloadItem; units: Units }) {
  const { t } = useTranslation();
  // A zip's size is what its files hold; its own headers make it a little larger, so it never shows 100% early.
  const percent = item.size > 0 ? Math.min(99, Math.floor((item.loaded / item.size) * 100)) : 0;
  // Refresh reads as the spec's request exception; error says why.
  const label =
    item.status === 'refresh' || item.status === 'error' ? t(item.errorKey ?? 'transfer.error.REQUEST') : t(`transfer.downloadStatus.${item.status}`);
  return (
    <div data-testid={`download-status-${item.name}`} data-status={item.status}>
      <Space size={4}>
        <Typography.Text type={item.status === 'refresh' || item.status === 'error' ? 'danger' : undefined}>{label}</Typography.Text>
        {item.status !== 'wait' && item.status !== 'error' && <span>{percent}%</span>}
      </Space>
      {item.status === 'resume' && <Progress percent={percent} size="small" showInfo={false} />}
      {item.status === 'resume' && item.timeLeft !== undefined && (
        <div>
          <Typography.Text type="secondary" style={{ fontSize: 12 }}>
            {t('transfer.timeLeft', { time: formatDuration(item.timeLeft, units) })}
          </Typography.Text>
        </div>
      )}
    </div>
  );
}

function DownloadActions({ item, store }: { item: DownloadItem; store: TransferStore }) {
  const { t } = useTranslation();
  const a = (key: string, onClick: () => void, testId: string) => (
    <Button size="small" type="link" onClick={onClick} data-testid={`${testId}-${item.name}`}>
      {t(key)}
    </Button>
  );
  return (
    <Space size={0}>
      {(item.status === 'wait' || item.status === 'resume') && a('transfer.action.pause', () => store.pauseDownload(item.uid), 'download-pause')}
      {(item.status === 'pause' || item.status === 'refresh') && a('transfer.action.start', () => store.resumeDownload(item.uid), 'download-start')}
      {item.status === 'error' && a('transfer.action.retry', () => store.resumeDownload(item.uid), 'download-retry')}
      {a('transfer.action.delete', () => store.removeDownload(item.uid), 'download-delete')}
    </Space>
  );
}
