// The recycle bins on the generic list's table and pagination: the user's (/recycleBin) and the administrators'
// second-level bin (/recycleBinManage), with paging, name search and sort; restore (asking on a taken name), delete
// for good and empty, both confirmed.
import { useState } from 'react';
import { Button, Input, Modal, Pagination, Space, Table, Typography } from 'antd';
import type { ColumnsType } from 'antd/es/table';
import { DeleteOutlined, FileOutlined, FolderFilled, RollbackOutlined } from '@ant-design/icons';
import { useTranslation } from 'react-i18next';
import { keepPreviousData, useQuery, useQueryClient } from '@tanstack/react-query';
import {
  deleteSecRecycle,
  emptyRecycle,
  emptySecRecycle,
  pageRecycle,
  pageSecRecycle,
  removeRecycled,
  restoreInstances,
  restoreSecRecycle,
} from '../../api/gen/files/files.ts';
import type { RecycleItem } from '../../api/gen/model/recycleItem.ts';
import type { SecRecycleItem } from '../../api/gen/model/secRecycleItem.ts';
import { refreshCapacity } from '../../shared/capacity.ts';
import { codeMessage, errorMessage } from '../../shared/error-message.ts';
import { formatDate, formatSize } from '../../shared/format.ts';
import { toastError, toastSuccess, toastWarning } from '../../shared/notify.ts';
import { conflictQuestion, restoreWithConflicts, type RestoreOutcome } from './restore.tsx';

const PAGE_SIZES = [10, 20, 30, 40, 50, 100];
// The name keeps this much room and the table scrolls sideways rather than squeezing it; the other columns are sized
// so that the administrators' bin, with owner and purge time, still fits at 1366 px (it left the name a few
// characters). The actions fit "Restore" and "Delete for good" side by side.
const NAME_MIN_WIDTH = 200;
const SELECTION_WIDTH = 32;
const ACTIONS_WIDTH = 210;
type Row = RecycleItem & Partial<Pick<SecRecycleItem, 'ownerName' | 'ownerKind' | 'purgeTime'>>;
type SortField = 'instanceName' | 'fSize' | 'deleteTime' | 'purgeTime';

export function BinScreen({ admin }: { admin: boolean }) {
  const { t } = useTranslation();
  const queryClient = useQueryClient();
  const [modal, holder] = Modal.useModal();
  const [keyword, setKeyword] = useState('');
  const [page, setPage] = useState({ pageNo: 1, pageSize: 20 });
  const [sort, setSort] = useState<{ sortField: SortField; sortOrder: 'asc' | 'desc' }>({ sortField: admin ? 'purgeTime' : 'deleteTime', sortOrder: 'desc' });
  const [selected, setSelected] = useState<Row[]>([]);
  const params = { ...page, ...sort, ...(keyword ? { keyword } : {}) };
  const query = useQuery({
    queryKey: [admin ? 'pageSecRecycle' : 'pageRecycle', params],
    queryFn: async ({ signal }): Promise<{ list: Row[]; total: number }> => {
      const res = admin
        ? await pageSecRecycle(params, { signal, quiet: true })
        : await pageRecycle({ ...params, sortField: sort.sortField === 'purgeTime' ? 'deleteTime' : sort.sortField }, { signal, quiet: true });
      return { list: res.data?.list ?? [], total: res.data?.total ?? 0 };
    },
    placeholderData: keepPreviousData,
  });
  const rows = query.data?.list ?? [];
  const nameOf = (id: string) => rows.find((r) => r.instanceId === id)?.instanceName ?? id;

  const after = () => {
    setSelected([]);
    void query.refetch();
    refreshCapacity(queryClient);
  };
  const reportFailed = (failed: RestoreOutcome['failed']) => {
    if (failed.length === 0) return;
    const reasons = [...new Set(failed.map((f) => codeMessage(f.code, { name: nameOf(f.instanceId) }) ?? f.msg))];
    toastWarning(t('files.partlyFailed', { count: failed.length, reason: reasons.join(t('files.reasonSeparator')) }));
  };
  const needSelection = (items: Row[]) => {
    if (items.length > 0) return false;
    toastWarning(t('files.selectFirst'));
    return true;
  };

  const restore = async (items: Row[]) => {
    if (needSelection(items)) return;
    try {
      const out = await restoreWithConflicts(
        items.map((i) => i.instanceId),
        async (ids, conflict) => (admin ? restoreSecRecycle : restoreInstances)({ ids: ids.join(','), ...(conflict ? { conflict } : {}) }, { quiet: true }),
        (ids) => conflictQuestion(modal.confirm, (k) => t(k), ids.map(nameOf)),
      );
      if (out.restored > 0) toastSuccess(t('recycle.restored', { count: out.restored }));
      reportFailed(out.failed);
      after();
    } catch (err) {
      toastError(errorMessage(err, items.length === 1 ? { name: items[0]!.instanceName } : {}));
    }
  };

  const purge = (items: Row[]) => {
    if (needSelection(items)) return;
    void modal.confirm({
      title: t(admin ? 'recycle.purgeConfirmAdmin' : 'recycle.purgeConfirm', { count: items.length }),
      content: items.length === 1 ? items[0]!.instanceName : undefined,
      okText: t('files.ok'),
      cancelText: t('files.cancel'),
      okButtonProps: { danger: true, 'data-testid': 'purge-confirm-ok' } as never,
      onOk: async () => {
        try {
          const res = await (admin ? deleteSecRecycle : removeRecycled)({ ids: items.map((i) => i.instanceId).join(',') }, { quiet: true });
          const done = res.data?.done.length ?? 0;
          if (done > 0) toastSuccess(t('recycle.purged', { count: done }));
          reportFailed(res.data?.failed ?? []);
          after();
        } catch (err) {
          toastError(errorMessage(err));
        }
      },
    });
  };

  const empty = () => {
    void modal.confirm({
      title: t(admin ? 'recycle.emptyConfirmAdmin' : 'recycle.emptyConfirm'),
      okText: t('files.ok'),
      cancelText: t('files.cancel'),
      okButtonProps: { danger: true, 'data-testid': 'empty-confirm-ok' } as never,
      onOk: async () => {
        try {
          const res = admin ? await emptySecRecycle({ quiet: true }) : await emptyRecycle(undefined, { quiet: true });
          toastSuccess(t('recycle.emptied', { count: res.data?.count ?? 0 }));
          after();
        } catch (err) {
          toastError(errorMessage(err));
        }
      },
    });
  };

  const order = (f: SortField): 'ascend' | 'descend' | null => (sort.sortField === f ? (sort.sortOrder === 'asc' ? 'ascend' : 'descend') : null);
  const columns: ColumnsType<Row> = [
    {
      title: t('files.name'),
      dataIndex: 'instanceName',
      key: 'instanceName',
      sorter: true,
      sortOrder: order('instanceName'),
      ellipsis: true,
      minWidth: NAME_MIN_WIDTH,
      render: (v: string, r) => (
        <Space>
          {r.classifierId === 'Folder' ? <FolderFilled style={{ color: '#e8a33d' }} /> : <FileOutlined />}
          <span data-testid={`bin-row-${v}`}>{v}</span>
        </Space>
      ),
    },
    ...(admin ? [{ title: t('files.owner'), dataIndex: 'ownerName', key: 'ownerName', width: 100, ellipsis: true }] : []),
    { title: t('recycle.originalPath'), dataIndex: 'originalPath', key: 'originalPath', width: admin ? 120 : 220, ellipsis: true, render: (v: string) => '/' + v },
    { title: t('files.size'), dataIndex: 'fSize', key: 'fSize', width: 100, sorter: true, sortOrder: order('fSize'), render: (v: number) => formatSize(v) },
    { title: t('recycle.deleteTime'), dataIndex: 'deleteTime', key: 'deleteTime', width: 170, sorter: true, sortOrder: order('deleteTime'), render: (v: number) => formatDate(v) },
    ...(admin
      ? [{ title: t('recycle.purgeTime'), dataIndex: 'purgeTime', key: 'purgeTime', width: 170, sorter: true, sortOrder: order('purgeTime'), render: (v: number) => formatDate(v) }]
      : [{ title: t('recycle.deletedBy'), dataIndex: 'deletedByName', key: 'deletedByName', width: 120, ellipsis: true }]),
    {
      title: t('files.actions'),
      key: 'actions',
      width: ACTIONS_WIDTH,
      render: (_: unknown, r) => (
        <Space size={0}>
          <Button type="link" size="small" onClick={() => void restore([r])} data-testid={`bin-restore-${r.instanceName}`}>
            {t('recycle.restore')}
          </Button>
          <Button type="link" size="small" danger onClick={() => purge([r])} data-testid={`bin-purge-${r.instanceName}`}>
            {t('recycle.purge')}
          </Button>
        </Space>
      ),
    },
  ];

  return (
    <div data-testid={admin ? 'sec-recycle-page' : 'recycle-page'}>
      {holder}
      <Typography.Title level={4}>{t(admin ? 'routes.recycleBinManage' : 'routes.recycleBin')}</Typography.Title>
      <Typography.Paragraph type="secondary">{t(admin ? 'recycle.hintAdmin' : 'recycle.hint')}</Typography.Paragraph>
      <Space wrap style={{ marginBottom: 12 }}>
        <Button type="primary" icon={<RollbackOutlined />} onClick={() => void restore(selected)} data-testid="bin-restore-selected">
          {t('recycle.restore')}
        </Button>
        <Button danger icon={<DeleteOutlined />} onClick={() => purge(selected)} data-testid="bin-purge-selected">
          {t('recycle.purge')}
        </Button>
        <Button danger onClick={empty} disabled={rows.length === 0 && !keyword} data-testid="bin-empty">
          {t('recycle.empty')}
        </Button>
        <Input.Search
          allowClear
          placeholder={t('recycle.searchPlaceholder')}
          maxLength={255}
          style={{ width: 240 }}
          onSearch={(v) => {
            setKeyword(v.trim());
            setPage((p) => ({ ...p, pageNo: 1 }));
          }}
          data-testid="bin-search"
        />
      </Space>
      {query.isError && !query.data ? (
        <Typography.Text type="danger" data-testid="list-error">
          {errorMessage(query.error)}
        </Typography.Text>
      ) : (
        <Table<Row>
          rowKey="instanceId"
          size="middle"
          columns={columns}
          dataSource={rows}
          loading={query.isFetching}
          pagination={false}
          locale={{ emptyText: t('recycle.nothing') }}
          scroll={{ x: columns.reduce((sum, c) => sum + (typeof c.width === 'number' ? c.width : NAME_MIN_WIDTH), SELECTION_WIDTH) }}
          rowSelection={{ selectedRowKeys: selected.map((s) => s.instanceId), onChange: (_, sel) => setSelected(sel) }}
          onChange={(_p, _f, sorter) => {
            const s = Array.isArray(sorter) ? sorter[0] : sorter;
            setSort(s?.order ? { sortField: s.columnKey as SortField, sortOrder: s.order === 'ascend' ? 'asc' : 'desc' } : { sortField: admin ? 'purgeTime' : 'deleteTime', sortOrder: 'desc' });
            setPage((p) => ({ ...p, pageNo: 1 }));
          }}
          data-testid="bin-table"
        />
      )}
      <Pagination
        style={{ marginTop: 12, justifyContent: 'flex-end' }}
        current={page.pageNo}
        pageSize={page.pageSize}
        total={query.data?.total ?? 0}
        pageSizeOptions={PAGE_SIZES.map(String)}
        showSizeChanger
        showTotal={(n) => t('files.total', { total: n, count: n })}
        onChange={(pageNo, pageSize) => setPage(pageSize !== page.pageSize ? { pageNo: 1, pageSize } : { pageNo, pageSize })}
        data-testid="pagination"
      />
    </div>
  );
}

export function RecycleBinPage() {
  return <BinScreen admin={false} />;
}

export function RecycleManagePage() {
  return <BinScreen admin />;
}
